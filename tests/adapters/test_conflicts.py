"""The four conflict strategies: CHAIN, EXCLUSIVE, PRIORITY and MERGE."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from good_agent import (
    AdapterConflictError,
    Agent,
    AgentComponent,
    ConflictStrategy,
    ToolAdapter,
    tool,
)
from good_agent.adapters import Signature
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


class Describe(ToolAdapter):
    """Rewrites the description of ``query`` and tags the value on the way back."""

    def __init__(self, tag: str, priority: int, strategy: ConflictStrategy) -> None:
        super().__init__(None, priority=priority, conflict_strategy=strategy)
        self.tag = tag
        self.unwrapped: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return f"Describe[{self.tag}]"

    def should_adapt(self, tool: Any, agent: Any) -> bool:
        return "query" in tool.parameters["properties"]

    def adapt_signature(self, tool: Any, signature: Signature, agent: Any) -> Signature:
        out = copy.deepcopy(signature)
        out["function"]["parameters"]["properties"]["query"]["description"] = f"by {self.tag}"
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        self.unwrapped.append(dict(parameters))
        return {**parameters, "query": f"{parameters['query']}<{self.tag}"}

    def adapt_response(self, tool_name: str, response: Any, agent: Any) -> Any:
        return response.model_copy(update={"response": f"{response.response}>{self.tag}"})


class AddParam(ToolAdapter):
    """Adds ``name`` (required, string) and folds it into ``query`` on the way back."""

    def __init__(self, name: str, priority: int, strategy: ConflictStrategy) -> None:
        super().__init__(None, priority=priority, conflict_strategy=strategy)
        self.param = name
        self.views: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return f"AddParam[{self.param}]"

    def adapt_signature(self, tool: Any, signature: Signature, agent: Any) -> Signature:
        out = copy.deepcopy(signature)
        params = out["function"]["parameters"]
        params["properties"][self.param] = {"type": "string", "description": self.param}
        params["properties"]["query"] = {**params["properties"]["query"], "maxLength": 50}
        params["required"] = [*params.get("required", []), self.param]
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        self.views.append(dict(parameters))
        params = dict(parameters)
        value = params.pop(self.param)
        if "query" in params:
            params["query"] = f"{params['query']}+{value}"
        return params


def install(*adapters: ToolAdapter) -> AgentComponent:
    owner = AgentComponent()
    for adapter in adapters:
        owner.register_tool_adapter(adapter)
    return owner


def make_search(seen: list[str]) -> Any:
    @tool
    def search(query: str, limit: int = 3) -> str:
        seen.append(query)
        return "results"

    return search


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (ConflictStrategy.EXCLUSIVE, ConflictStrategy.CHAIN),
        (ConflictStrategy.CHAIN, ConflictStrategy.EXCLUSIVE),
    ],
)
async def test_exclusive_raises_on_every_call(
    first: ConflictStrategy, second: ConflictStrategy
) -> None:
    seen: list[str] = []
    owner = install(Describe("a", 200, first), Describe("b", 100, second))
    model = ScriptedModel(["never", "never"])
    async with Agent(model=model, tools=[make_search(seen)], extensions=[owner]) as agent:
        for _ in range(2):
            with pytest.raises(AdapterConflictError) as info:
                await agent.call("hi")
            assert info.value.tool_name == "search"
            assert info.value.params == {"query"}
            assert info.value.adapters == ("Describe[a]", "Describe[b]")
            expected = "Describe[a] (priority 200) and Describe[b] (priority 100) conflict"
            assert f"{expected} on tool 'search'" in str(info.value)
        with pytest.raises(AdapterConflictError):
            await agent.invoke("search", query="x")
    assert model.requests == []


async def test_exclusive_without_overlap_is_fine() -> None:
    seen: list[str] = []
    owner = install(
        Describe("a", 200, ConflictStrategy.EXCLUSIVE),
        AddParam("region", 100, ConflictStrategy.EXCLUSIVE),
    )
    owner.tool_adapters[1].adapt_signature = _only_add(owner.tool_adapters[1])  # type: ignore[method-assign]
    async with Agent(tools=[make_search(seen)], extensions=[owner]) as agent:
        response = await agent.invoke("search", query="q", region="eu")
    assert response.success, response.error


def _only_add(adapter: AddParam) -> Any:
    def adapt(tool: Any, signature: Signature, agent: Any) -> Signature:
        out = copy.deepcopy(signature)
        out["function"]["parameters"]["properties"][adapter.param] = {"type": "string"}
        return out

    return adapt


async def test_chain_applies_both_in_order() -> None:
    seen: list[str] = []
    a, b = Describe("a", 200, ConflictStrategy.CHAIN), Describe("b", 100, ConflictStrategy.CHAIN)
    async with Agent(tools=[make_search(seen)], extensions=[install(a, b)]) as agent:
        sig = (await agent.tool_signatures())[0]
        response = await agent.invoke("search", query="q")
    assert sig["function"]["parameters"]["properties"]["query"]["description"] == "by b"
    assert seen == ["q<b<a"]
    assert response.response == "results>a>b"


async def test_priority_keeps_only_the_higher_adapter_for_that_tool() -> None:
    seen: list[str] = []
    high = SearchOnly("high", 200, ConflictStrategy.PRIORITY)
    low = Describe("low", 100, ConflictStrategy.CHAIN)
    looked_up: list[str] = []

    @tool
    def lookup(query: str) -> str:
        looked_up.append(query)
        return "found"

    async with Agent(tools=[make_search(seen), lookup], extensions=[install(high, low)]) as agent:
        plans = {p["function"]["name"]: p for p in await agent.tool_signatures()}
        response = await agent.invoke("search", query="q")
        other = await agent.invoke("lookup", query="q")
    props = plans["search"]["function"]["parameters"]["properties"]
    assert props["query"]["description"] == "by high"
    assert seen == ["q<high"]  # the low adapter did not unwrap
    assert response.response == "results>high"  # nor adapt the response
    assert low.unwrapped == [{"query": "q"}]  # only the lookup call
    # Where they do not conflict, the lower adapter still applies in full.
    lookup_props = plans["lookup"]["function"]["parameters"]["properties"]
    assert lookup_props["query"]["description"] == "by low"
    assert looked_up == ["q<low"] and other.response == "found>low"


class SearchOnly(Describe):
    def should_adapt(self, tool: Any, agent: Any) -> bool:
        return bool(tool.name == "search")


async def test_priority_on_the_lower_adapter_also_yields_to_the_higher() -> None:
    seen: list[str] = []
    high = Describe("high", 200, ConflictStrategy.CHAIN)
    low = Describe("low", 100, ConflictStrategy.PRIORITY)
    async with Agent(tools=[make_search(seen)], extensions=[install(high, low)]) as agent:
        await agent.invoke("search", query="q")
    assert seen == ["q<high"]


async def test_merge_transforms_the_same_input_and_each_unwraps_its_own() -> None:
    seen: list[str] = []
    region = AddParam("region", 200, ConflictStrategy.MERGE)
    lang = AddParam("lang", 100, ConflictStrategy.MERGE)
    async with Agent(tools=[make_search(seen)], extensions=[install(region, lang)]) as agent:
        sig = (await agent.tool_signatures())[0]["function"]["parameters"]
        response = await agent.invoke("search", query="q", region="eu", lang="fr")
    assert set(sig["properties"]) == {"query", "limit", "region", "lang"}
    assert sig["required"] == ["query", "region", "lang"]
    assert sig["properties"]["query"]["maxLength"] == 50
    assert response.success, response.error
    # Each adapter saw only its own added parameter, never the other's.
    assert "lang" not in region.views[0] and region.views[0]["region"] == "eu"
    assert "region" not in lang.views[0] and lang.views[0]["lang"] == "fr"
    # Both own `query`; the higher-priority member's unwrapped value wins.
    assert seen == ["q+eu"]


async def test_merge_differs_from_chain() -> None:
    chained_region = AddParam("region", 200, ConflictStrategy.CHAIN)
    chained_lang = AddParam("lang", 100, ConflictStrategy.CHAIN)
    seen: list[str] = []
    async with Agent(
        tools=[make_search(seen)], extensions=[install(chained_region, chained_lang)]
    ) as agent:
        await agent.invoke("search", query="q", region="eu", lang="fr")
    # In a chain the outer (lower-priority) adapter sees and passes on the inner one's key.
    assert chained_lang.views[0]["region"] == "eu"
    assert seen == ["q+fr+eu"]


class CustomMerge(AddParam):
    def merge_signature(
        self, base: Signature, results: list[tuple[ToolAdapter, Signature]]
    ) -> Signature:
        merged = super().merge_signature(base, results)
        merged["function"]["description"] = "merged by " + ",".join(a.name for a, _ in results)
        return merged


async def test_merge_signature_can_be_overridden() -> None:
    seen: list[str] = []
    first = CustomMerge("region", 200, ConflictStrategy.MERGE)
    second = AddParam("lang", 100, ConflictStrategy.MERGE)
    async with Agent(tools=[make_search(seen)], extensions=[install(first, second)]) as agent:
        sig = (await agent.tool_signatures())[0]
    assert sig["function"]["description"] == "merged by AddParam[region],AddParam[lang]"


class LaterDescribe(Describe):
    """A :class:`Describe` whose ``adapt_parameters`` answers through an awaitable."""

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        produced = super().adapt_parameters(tool_name, parameters, agent)

        async def settle() -> Any:
            return produced

        return settle()


@pytest.mark.parametrize("later", [False, True])
async def test_a_merge_group_between_chained_steps_unwraps_in_order(later: bool) -> None:
    # Unwrapping runs outermost (lowest priority) first: the outer chained step,
    # the MERGE group, then the inner chained step; one step may answer later.
    seen: list[str] = []
    kind = LaterDescribe if later else Describe
    inner = Describe("inner", 300, ConflictStrategy.CHAIN)
    region = AddParam("region", 200, ConflictStrategy.MERGE)
    lang = AddParam("lang", 150, ConflictStrategy.MERGE)
    outer = kind("outer", 100, ConflictStrategy.CHAIN)
    extensions = [install(inner, region, lang, outer)]
    async with Agent(tools=[make_search(seen)], extensions=extensions) as agent:
        response = await agent.invoke("search", query="q", region="eu", lang="fr")
    assert response.success, response.error
    assert seen == ["q<outer+eu<inner"]
    assert len(outer.unwrapped) == len(inner.unwrapped) == 1
