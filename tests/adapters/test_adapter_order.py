"""Forward / reverse / forward ordering across components, and what the model sees."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from good_agent import (
    Agent,
    AgentComponent,
    ToolAdapter,
    ToolMessage,
    ToolResponse,
    tool,
)
from good_agent.adapters import Signature
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


class Recording(ToolAdapter):
    """Adds a parameter ``<label>_flag`` and records every step it takes."""

    def __init__(self, component: Any, label: str, log: list[str], priority: int) -> None:
        super().__init__(component, priority=priority)
        self.label, self.log = label, log

    def adapt_signature(self, tool: Any, signature: Signature, agent: Any) -> Signature:
        self.log.append(f"signature {self.label}")
        out = copy.deepcopy(signature)
        out["function"]["parameters"]["properties"][f"{self.label}_flag"] = {"type": "boolean"}
        return out

    def analyze_transformation(self, tool: Any, signature: Signature) -> Any:
        from good_agent import AdapterMetadata

        return AdapterMetadata(added_params={f"{self.label}_flag"})

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        self.log.append(f"parameters {self.label}")
        return {k: v for k, v in parameters.items() if k != f"{self.label}_flag"}

    async def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
        self.log.append(f"response {self.label}")
        return response.model_copy(update={"response": f"{response.response}+{self.label}"})


class Owner(AgentComponent):
    pass


async def test_three_adapters_two_components_forward_reverse_forward() -> None:
    log: list[str] = []
    first, second = Owner(), Owner()
    first.register_tool_adapter(Recording(first, "high", log, priority=300))
    first.register_tool_adapter(Recording(first, "low", log, priority=100))
    second.register_tool_adapter(Recording(second, "mid", log, priority=200))
    received: list[dict[str, Any]] = []

    @tool
    def echo(text: str) -> str:
        received.append({"text": text})
        return text

    model = ScriptedModel(
        [
            ScriptedModel.tool_call(
                "echo", {"text": "hi", "high_flag": True, "mid_flag": False, "low_flag": True}
            ),
            "done",
        ]
    )
    async with Agent(model=model, tools=[echo], extensions=[first, second]) as agent:
        await agent.call("go")

    assert log == [
        "signature high",
        "signature mid",
        "signature low",
        "parameters low",
        "parameters mid",
        "parameters high",
        "response high",
        "response mid",
        "response low",
    ]
    assert received == [{"text": "hi"}]
    seen = model.requests[0].tools[0]["function"]["parameters"]["properties"]
    assert list(seen) == ["text", "high_flag", "mid_flag", "low_flag"]
    result = agent.messages[-2]
    assert isinstance(result, ToolMessage) and result.content == "hi+high+mid+low"


async def test_equal_priorities_keep_registration_order_and_reverse_on_the_way_back() -> None:
    log: list[str] = []
    owner = Owner()
    for label in ("a", "b", "c"):
        owner.register_tool_adapter(Recording(owner, label, log, priority=100))

    @tool
    def echo(text: str) -> str:
        return text

    async with Agent(tools=[echo], extensions=[owner]) as agent:
        await agent.invoke("echo", text="x")
    assert log == [
        "signature a",
        "signature b",
        "signature c",
        "parameters c",
        "parameters b",
        "parameters a",
        "response a",
        "response b",
        "response c",
    ]


async def test_adapter_registered_after_install_and_unregistered_later() -> None:
    log: list[str] = []
    owner = Owner()

    @tool
    def echo(text: str) -> str:
        return text

    async with Agent(tools=[echo], extensions=[owner]) as agent:
        assert await agent.tool_signatures() == [echo.signature]
        adapter = owner.register_tool_adapter(Recording(owner, "late", log, priority=1))
        props = (await agent.tool_signatures())[0]["function"]["parameters"]["properties"]
        assert "late_flag" in props
        owner.unregister_tool_adapter(adapter)
        assert await agent.tool_signatures() == [echo.signature]
        adapter = owner.register_tool_adapter(Recording(owner, "again", log, priority=1))
    assert agent.adapter_chain.adapters == []


async def test_removed_key_never_reaches_the_tool_and_adapted_schema_is_validated() -> None:
    log: list[str] = []
    owner = Owner()
    owner.register_tool_adapter(Recording(owner, "x", log, priority=1))
    seen: list[dict[str, Any]] = []

    @tool
    def echo(text: str) -> str:
        seen.append({"text": text})
        return text

    model = ScriptedModel(
        [
            ScriptedModel.tool_call("echo", {"text": "a", "x_flag": "not-a-bool"}),
            ScriptedModel.tool_call("echo", {"text": "b", "x_flag": True}),
            "ok",
        ]
    )
    async with Agent(model=model, tools=[echo], extensions=[owner]) as agent:
        await agent.call("go")
    first_result = agent.messages[2]
    assert isinstance(first_result, ToolMessage) and first_result.is_error
    assert "x_flag: expected boolean" in first_result.content
    assert seen == [{"text": "b"}]
