"""URL to index, conditional adapters, short-circuits, invoke, parallel calls, caching."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from good_agent import (
    Agent,
    AgentComponent,
    AgentEvents,
    EventContext,
    GoodAgentError,
    Tool,
    ToolAdapter,
    ToolCallBefore,
    ToolError,
    ToolMessage,
    ToolResponse,
    tool,
)
from good_agent.adapters import CallContext, CallNext, Signature
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

URLS = ["https://example.com/a", "https://example.com/b"]


class UrlToIndex(ToolAdapter):
    """``url: str`` becomes ``idx: int`` pointing into a list of known URLs."""

    def __init__(self, component: Any, urls: list[str], priority: int = 100) -> None:
        super().__init__(component, priority=priority)
        self.urls = urls
        self.signature_calls = 0

    def should_adapt(self, tool: Any, agent: Any) -> bool:
        return "url" in tool.parameters.get("properties", {})

    def adapt_signature(self, tool: Any, signature: Signature, agent: Any) -> Signature:
        self.signature_calls += 1
        out = copy.deepcopy(signature)
        params = out["function"]["parameters"]
        params["properties"].pop("url")
        params["properties"]["idx"] = {
            "type": "integer",
            "minimum": 1,
            "maximum": len(self.urls),
            "description": "Index of a known source.",
        }
        params["required"] = [r for r in params.get("required", []) if r != "url"] + ["idx"]
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        params = dict(parameters)
        index = params.pop("idx")
        if not 1 <= index <= len(self.urls):
            raise ToolError(f"idx must be between 1 and {len(self.urls)}")
        params["url"] = self.urls[index - 1]
        return params


class Sources(AgentComponent):
    def __init__(self, urls: list[str]) -> None:
        super().__init__()
        self.adapter = self.register_tool_adapter(UrlToIndex(self, urls))


def make_fetch(log: list[str]) -> Any:
    @tool
    def fetch(url: str, max_chars: int = 100) -> str:
        """Fetch a page."""
        log.append(url)
        return f"content of {url}"

    return fetch


async def test_model_sees_only_the_index_and_the_tool_gets_the_url() -> None:
    fetched: list[str] = []
    model = ScriptedModel([ScriptedModel.tool_call("fetch", {"idx": 2}), "read it"])
    async with Agent(model=model, tools=[make_fetch(fetched)], extensions=[Sources(URLS)]) as agent:
        await agent.call("summarize source 2")
    assert fetched == ["https://example.com/b"]
    seen = json.dumps(model.requests[0].tools)
    assert '"url"' not in seen and "https://" not in seen
    props = model.requests[0].tools[0]["function"]["parameters"]["properties"]
    assert set(props) == {"idx", "max_chars"}
    assert agent.messages[-2].content == "content of https://example.com/b"


async def test_invoke_before_any_model_call_goes_through_the_chain() -> None:
    fetched: list[str] = []
    async with Agent(tools=[make_fetch(fetched)], extensions=[Sources(URLS)]) as agent:
        response = await agent.invoke("fetch", idx=1)
        assert response.success and response.response == "content of https://example.com/a"
        bad = await agent.invoke("fetch", url="https://evil.example")
    assert fetched == ["https://example.com/a"]
    assert not bad.success and "idx: field required" in (bad.error or "")
    assert "url: unexpected field" in (bad.error or "")
    assert [m.role for m in agent.messages] == ["assistant", "tool", "assistant", "tool"]


async def test_parallel_calls_are_each_unwrapped() -> None:
    fetched: list[str] = []
    model = ScriptedModel(
        [ScriptedModel.tool_calls(("fetch", {"idx": 1}), ("fetch", {"idx": 2})), "both"]
    )
    async with Agent(model=model, tools=[make_fetch(fetched)], extensions=[Sources(URLS)]) as agent:
        await agent.call("both")
    assert sorted(fetched) == URLS
    results = [m.content for m in agent.messages if isinstance(m, ToolMessage)]
    assert results == [f"content of {u}" for u in URLS]


async def test_out_of_range_index_is_a_tool_error_and_the_tool_does_not_run() -> None:
    fetched: list[str] = []
    model = ScriptedModel([ScriptedModel.tool_call("fetch", {"idx": 9}), "sorry"])
    async with Agent(model=model, tools=[make_fetch(fetched)], extensions=[Sources(URLS)]) as agent:
        await agent.call("x")
    assert fetched == []
    error = agent.messages[-2]
    assert isinstance(error, ToolMessage) and error.is_error and "at most 2" in error.content


class ResearchOnly(UrlToIndex):
    def should_adapt(self, tool: Any, agent: Any) -> bool:
        return bool(agent.context.get("research")) and super().should_adapt(tool, agent)


async def test_conditional_adapter_follows_context_and_calls_use_the_signature_seen() -> None:
    fetched: list[str] = []
    owner = AgentComponent()
    adapter = owner.register_tool_adapter(ResearchOnly(owner, URLS))

    def flip(request: Any) -> Any:
        # The model answers with the index form; meanwhile the mode is switched off.
        agent.context["research"] = False
        return ScriptedModel.tool_call("fetch", {"idx": 1})

    model = ScriptedModel(
        [flip, "first done", ScriptedModel.tool_call("fetch", {"url": "https://x.org"}), "2nd"]
    )
    agent = Agent(model=model, tools=[make_fetch(fetched)], extensions=[owner])
    agent.context["research"] = True
    async with agent:
        await agent.call("one")
        await agent.call("two")
    first_props = model.requests[0].tools[0]["function"]["parameters"]["properties"]
    later_props = model.requests[2].tools[0]["function"]["parameters"]["properties"]
    assert "idx" in first_props and "url" not in first_props
    assert "url" in later_props and "idx" not in later_props
    # The first call was unwrapped by the plan that produced what the model saw.
    assert fetched == ["https://example.com/a", "https://x.org"]
    assert adapter.signature_calls >= 1


async def test_signatures_are_cached_until_something_changes() -> None:
    fetched: list[str] = []
    sources = Sources(URLS)
    model = ScriptedModel(["a", "b", "c"])
    async with Agent(model=model, tools=[make_fetch(fetched)], extensions=[sources]) as agent:
        await agent.call("1")
        await agent.call("2")
        calls_after_two = sources.adapter.signature_calls
        agent.tools.add(Tool.from_function(lambda: "x", name="other"))
        await agent.call("3")
    assert calls_after_two == 2  # analyze + adapt, computed once for two requests
    assert sources.adapter.signature_calls == 4


class Answering(ToolAdapter):
    async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
        return ctx.respond(f"cached {dict(ctx.parameters)}")


class Suffix(ToolAdapter):
    def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
        return response.model_copy(update={"response": f"{response.response}!"})


async def test_short_circuit_skips_the_tool_but_responses_are_still_adapted() -> None:
    runs: list[int] = []

    @tool
    def expensive(n: int) -> int:
        runs.append(n)
        return n

    owner = AgentComponent()
    owner.register_tool_adapter(Answering(owner, priority=200))
    owner.register_tool_adapter(Suffix(owner, priority=100))
    after: list[str] = []
    model = ScriptedModel([ScriptedModel.tool_call("expensive", {"n": 3}), "ok"])
    agent = Agent(model=model, tools=[expensive], extensions=[owner])
    agent.events.on(AgentEvents.TOOL_CALL_AFTER, lambda ctx: after.append(ctx.payload.call.name))
    await agent.call("x")
    assert runs == []
    assert model.requests[1].messages[-1].content == "cached {'n': 3}!"  # type: ignore[union-attr]
    assert after == ["expensive"]


async def test_tool_call_before_handler_can_short_circuit() -> None:
    runs: list[int] = []

    @tool
    def expensive(n: int) -> int:
        runs.append(n)
        return n

    def answer(ctx: EventContext) -> None:
        payload: ToolCallBefore = ctx.payload
        payload.response = ToolResponse(
            tool_name=payload.tool.name, tool_call_id=payload.call.id, response=-1
        )

    agent = Agent(tools=[expensive])
    agent.events.on(AgentEvents.TOOL_CALL_BEFORE, answer)
    assert (await agent.invoke("expensive", n=1)).response == -1
    assert runs == []


class Growing(UrlToIndex):
    def signature_key(self, tool: Any, agent: Any) -> Any:
        return len(self.urls)


async def test_signature_key_recomputes_when_adapter_state_changes() -> None:
    fetched: list[str] = []
    owner = AgentComponent()
    urls = ["https://a.example"]
    adapter = owner.register_tool_adapter(Growing(owner, urls))
    async with Agent(tools=[make_fetch(fetched)], extensions=[owner]) as agent:
        first = (await agent.tool_signatures())[0]["function"]["parameters"]["properties"]["idx"]
        again = (await agent.tool_signatures())[0]["function"]["parameters"]["properties"]["idx"]
        calls_before_growth = adapter.signature_calls
        urls.append("https://b.example")
        grown = (await agent.tool_signatures())[0]["function"]["parameters"]["properties"]["idx"]
        response = await agent.invoke("fetch", idx=2)
    assert first["maximum"] == again["maximum"] == 1
    assert calls_before_growth == 2  # analyze + adapt once: cached for the second generation
    assert adapter.signature_calls == 4  # recomputed once the key changed
    assert grown["maximum"] == 2
    assert response.success and fetched == ["https://b.example"]


async def test_an_answer_to_another_call_is_an_error_not_readdressed() -> None:
    class Anonymous(ToolAdapter):
        async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
            return ToolResponse(tool_name="?", tool_call_id="?", response="from cache")

    @tool
    def slow() -> str:
        return "ran"

    owner = AgentComponent()
    owner.register_tool_adapter(Anonymous(owner))
    model = ScriptedModel([ScriptedModel.tool_call("slow", id="call_42"), "ok"])
    async with Agent(model=model, tools=[slow], extensions=[owner]) as agent:
        with pytest.raises(GoodAgentError, match=r"Anonymous\.around_call must return"):
            await agent.call("x")


def test_an_adapter_with_the_removed_intercept_hook_is_refused() -> None:
    class Old(ToolAdapter):
        def intercept(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
            return None

    owner = AgentComponent()
    with pytest.raises(TypeError, match="around_call"):
        Agent(extensions=[owner]).adapter_chain.add(Old(owner))


async def test_handler_answers_are_built_for_the_call() -> None:
    @tool
    def slow() -> str:
        return "ran"

    def answer(ctx: EventContext) -> None:
        ctx.payload.answer("handled")

    model = ScriptedModel([ScriptedModel.tool_call("slow", id="call_7"), "ok"])
    agent = Agent(model=model, tools=[slow])
    agent.events.on(AgentEvents.TOOL_CALL_BEFORE, answer)
    await agent.call("x")
    result = agent.messages[-2]
    assert isinstance(result, ToolMessage)
    assert (result.tool_call_id, result.tool_name, result.content) == ("call_7", "slow", "handled")


async def test_a_handler_answer_to_another_call_is_an_error() -> None:
    @tool
    def slow() -> str:
        return "ran"

    def answer(ctx: EventContext) -> None:
        ctx.payload.response = ToolResponse(tool_name="", tool_call_id="", response="handled")

    agent = Agent(tools=[slow])
    agent.events.on(AgentEvents.TOOL_CALL_BEFORE, answer)
    with pytest.raises(GoodAgentError, match="TOOL_CALL_BEFORE handler answered call"):
        await agent.invoke("slow")


def _answer(value: Any, later: bool) -> Any:
    """``value`` itself, or an awaitable of it."""
    if not later:
        return value

    async def settle() -> Any:
        return value

    return settle()


async def _call_echo(owner: AgentComponent, received: list[str] | None = None) -> Agent:
    """Run one model turn that calls ``echo(text="hi")`` through ``owner``'s adapters."""

    @tool
    def echo(text: str) -> str:
        """Echo."""
        if received is not None:
            received.append(text)
        return text

    model = ScriptedModel([ScriptedModel.tool_call("echo", {"text": "hi"}), "done"])
    agent = Agent(model=model, tools=[echo], extensions=[owner])
    async with agent:
        await agent.call("go")
    return agent


class LabelSuffix(ToolAdapter):
    """Appends ``label`` to the response, at once or after an await."""

    def __init__(self, component: Any, label: str, priority: int, *, later: bool) -> None:
        super().__init__(component, priority=priority)
        self.label, self.later = label, later

    def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
        adapted = response.model_copy(update={"response": f"{response.response}+{self.label}"})
        return _answer(adapted, self.later)


@pytest.mark.parametrize(
    "later", [(False, False, False), (True, False, False), (False, True, False), (True, True, True)]
)
async def test_responses_are_adapted_in_order_whether_hooks_answer_at_once_or_later(
    later: tuple[bool, bool, bool],
) -> None:
    owner = AgentComponent()
    for label, priority, is_later in zip("abc", (300, 200, 100), later, strict=True):
        owner.register_tool_adapter(LabelSuffix(owner, label, priority, later=is_later))
    agent = await _call_echo(owner)
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [m.content for m in results] == ["hi+a+b+c"]


@pytest.mark.parametrize("later", [False, True])
async def test_an_adapt_response_that_returns_no_response_is_named(later: bool) -> None:
    class Forgetful(ToolAdapter):
        def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
            return _answer(None, later)

    owner = AgentComponent()
    owner.register_tool_adapter(Forgetful(owner))
    with pytest.raises(
        GoodAgentError, match=r"Forgetful\.adapt_response must return a ToolResponse"
    ):
        await _call_echo(owner)


class AppendToText(ToolAdapter):
    """Appends ``label`` to the ``text`` parameter, at once or after an await."""

    def __init__(self, component: Any, label: str, priority: int, *, later: bool) -> None:
        super().__init__(component, priority=priority)
        self.label, self.later, self.runs = label, later, 0

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        self.runs += 1
        return _answer({**parameters, "text": f"{parameters['text']}+{self.label}"}, self.later)


@pytest.mark.parametrize(
    "later", [(False, False, False), (False, True, False), (True, False, True), (True, True, True)]
)
async def test_parameters_are_unwrapped_in_order_whether_hooks_answer_at_once_or_later(
    later: tuple[bool, bool, bool],
) -> None:
    owner = AgentComponent()
    adapters = [
        AppendToText(owner, label, priority, later=is_later)
        for label, priority, is_later in zip("abc", (300, 200, 100), later, strict=True)
    ]
    for adapter in adapters:
        owner.register_tool_adapter(adapter)
    received: list[str] = []
    await _call_echo(owner, received)
    # Reverse order: the lowest priority (outermost) unwraps first.
    assert received == ["hi+c+b+a"]
    assert [adapter.runs for adapter in adapters] == [1, 1, 1]


@pytest.mark.parametrize("later", [False, True])
async def test_an_adapt_parameters_that_returns_no_dict_is_named_and_runs_once(later: bool) -> None:
    runs: list[str] = []

    class Forgetful(ToolAdapter):
        def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
            runs.append(tool_name)
            return _answer(None, later)

    owner = AgentComponent()
    owner.register_tool_adapter(Forgetful(owner))
    with pytest.raises(GoodAgentError, match="from adapt_parameters; it must return a dict"):
        await _call_echo(owner)
    assert runs == ["echo"]
