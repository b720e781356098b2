"""Property: any stack of invertible adapters unwraps model arguments to exactly the tool's."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from good_agent import Agent, AgentComponent, Tool, ToolAdapter
from good_agent.adapters import Signature

TYPES = {
    "string": st.text(max_size=5),
    "integer": st.integers(-5, 5),
    "boolean": st.booleans(),
}
NAMES = [f"p{i}" for i in range(6)]
_MISSING = object()


def props(signature: Signature) -> dict[str, Any]:
    return signature["function"]["parameters"]["properties"]


def edit(signature: Signature) -> tuple[Signature, dict[str, Any], list[str]]:
    out = copy.deepcopy(signature)
    params = out["function"]["parameters"]
    return out, params["properties"], params.setdefault("required", [])


class Rename(ToolAdapter):
    def __init__(self, old: str, new: str, priority: int) -> None:
        super().__init__(None, priority=priority)
        self.old, self.new = old, new

    def adapt_signature(self, tool: Any, signature: Signature, agent: Any) -> Signature:
        out, p, req = edit(signature)
        p[self.new] = p.pop(self.old)
        out["function"]["parameters"]["required"] = [self.new if r == self.old else r for r in req]
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        params = dict(parameters)
        if self.new in params:
            params[self.old] = params.pop(self.new)
        return params

    def forward(self, args: dict[str, Any], data: st.DataObject) -> None:
        if self.old in args:
            args[self.new] = args.pop(self.old)


class AddWithDefault(ToolAdapter):
    def __init__(self, name: str, priority: int) -> None:
        super().__init__(None, priority=priority)
        self.param = name

    def adapt_signature(self, tool: Any, signature: Signature, agent: Any) -> Signature:
        out, p, _ = edit(signature)
        p[self.param] = {"type": "integer", "default": 0}
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        return {k: v for k, v in parameters.items() if k != self.param}

    def forward(self, args: dict[str, Any], data: st.DataObject) -> None:
        if data.draw(st.booleans()):
            args[self.param] = data.draw(st.integers(0, 9))


@dataclass
class Box:
    value: Any = _MISSING


class HideAndInject(ToolAdapter):
    def __init__(self, name: str, priority: int) -> None:
        super().__init__(None, priority=priority)
        self.param = name
        self.box = Box()

    def adapt_signature(self, tool: Any, signature: Signature, agent: Any) -> Signature:
        out, p, req = edit(signature)
        p.pop(self.param)
        out["function"]["parameters"]["required"] = [r for r in req if r != self.param]
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        params = dict(parameters)
        if self.box.value is not _MISSING:
            params[self.param] = self.box.value
        return params

    def forward(self, args: dict[str, Any], data: st.DataObject) -> None:
        self.box.value = args.pop(self.param, _MISSING)


class WrapValue(ToolAdapter):
    def __init__(self, name: str, priority: int) -> None:
        super().__init__(None, priority=priority)
        self.param = name

    def adapt_signature(self, tool: Any, signature: Signature, agent: Any) -> Signature:
        out, p, _ = edit(signature)
        p[self.param] = {
            "type": "object",
            "properties": {"value": p[self.param]},
            "required": ["value"],
            "additionalProperties": False,
        }
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        params = dict(parameters)
        if self.param in params:
            params[self.param] = params[self.param]["value"]
        return params

    def forward(self, args: dict[str, Any], data: st.DataObject) -> None:
        if self.param in args:
            args[self.param] = {"value": args[self.param]}


@dataclass
class Scenario:
    schema: dict[str, Any]
    adapters: list[Any] = field(default_factory=list)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    types = {n: draw(st.sampled_from(sorted(TYPES))) for n in names}
    required = [n for n in names if draw(st.booleans())]
    schema = {
        "type": "object",
        "properties": {n: {"type": t} for n, t in types.items()},
        "required": required,
        "additionalProperties": False,
    }
    visible = list(names)
    adapters: list[Any] = []
    priority = 1000
    for _ in range(draw(st.integers(0, 6))):
        priority -= draw(st.integers(1, 10))
        kind = draw(st.sampled_from(["rename", "add", "hide", "wrap"]))
        free = [f"a{len(adapters)}", f"b{len(adapters)}"]
        if kind == "rename" and visible:
            old = draw(st.sampled_from(visible))
            new = free[0]
            adapters.append(Rename(old, new, priority))
            visible[visible.index(old)] = new
        elif kind == "add":
            adapters.append(AddWithDefault(free[1], priority))
            visible.append(free[1])
        elif kind == "hide" and visible:
            name = draw(st.sampled_from(visible))
            adapters.append(HideAndInject(name, priority))
            visible.remove(name)
        elif kind == "wrap" and visible:
            adapters.append(WrapValue(draw(st.sampled_from(visible)), priority))
    return Scenario(schema, adapters)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), data=st.data())
def test_unwrapping_restores_exactly_the_tool_arguments(
    scenario: Scenario, data: st.DataObject
) -> None:
    schema = scenario.schema
    optional = [n for n in schema["properties"] if n not in schema["required"]]
    present = schema["required"] + [n for n in optional if data.draw(st.booleans())]
    tool_args = {n: data.draw(TYPES[schema["properties"][n]["type"]]) for n in present}
    model_args = copy.deepcopy(tool_args)
    for adapter in scenario.adapters:  # the forward direction, highest priority first
        adapter.forward(model_args, data)

    received: list[dict[str, Any]] = []
    target = Tool.from_schema("target", schema, function=lambda **kw: received.append(kw))
    owner = AgentComponent()
    for adapter in scenario.adapters:
        owner.register_tool_adapter(adapter)

    async def run() -> tuple[Signature, Any]:
        async with Agent(tools=[target], extensions=[owner]) as agent:
            signature = (await agent.tool_signatures())[0]
            return signature, await agent.invoke("target", **model_args)

    signature, response = anyio.run(run)
    assert set(model_args) <= set(props(signature))
    assert response.success, response.error
    assert received == [tool_args]
