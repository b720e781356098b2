"""Typed output with ScriptedModel: every kind of type, every output mode, retries."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from typing_extensions import TypedDict

from good_agent import (
    Agent,
    AgentEvents,
    ModelConfigError,
    OutputValidationError,
    SystemMessage,
    ToolDefinitionError,
    ToolMessage,
    UserMessage,
    tool,
)
from good_agent.core.output import OUTPUT_TOOL_NAME, OutputSpec
from good_agent.models.base import ModelRequest
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


class Invoice(BaseModel):
    """An invoice."""

    number: str
    total: float


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Person(TypedDict):
    name: str
    age: int


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


@tool
def lookup(number: str) -> str:
    """Look an invoice up."""
    return f"invoice {number}: 12.5 EUR"


CASES: list[tuple[Any, Any, Any]] = [
    (Invoice, {"number": "A1", "total": 12.5}, Invoice(number="A1", total=12.5)),
    (Point, {"x": 1, "y": 2}, Point(1, 2)),
    (Person, {"name": "Ada", "age": 36}, {"name": "Ada", "age": 36}),
    (int, 42, 42),
    (bool, True, True),
    (list[Invoice], [{"number": "A", "total": 1}], [Invoice(number="A", total=1)]),
    (Cat | Dog, {"kind": "dog", "good": True}, Dog(kind="dog", good=True)),
]


def tool_arguments(output_type: Any, value: Any) -> dict[str, Any]:
    return value if not OutputSpec(output_type).wrapped else {"response": value}


@pytest.mark.parametrize(("output_type", "value", "expected"), CASES)
async def test_output_tool_mode_returns_the_validated_value(
    output_type: Any, value: Any, expected: Any
) -> None:
    model = ScriptedModel(
        [ScriptedModel.tool_call(OUTPUT_TOOL_NAME, tool_arguments(output_type, value))]
    )
    result = await Agent(model=model).run("extract", output_type=output_type)
    assert result.output == expected
    (signature,) = model.requests[0].tools
    assert signature["function"]["name"] == OUTPUT_TOOL_NAME
    assert signature["function"]["parameters"]["type"] == "object"
    assert model.requests[0].tool_choice == "required"


@pytest.mark.parametrize(("output_type", "value", "expected"), CASES)
async def test_prompted_mode_parses_a_json_text_answer(
    output_type: Any, value: Any, expected: Any
) -> None:
    answer = f"Here it is:\n```json\n{json.dumps(value)}\n```"
    model = ScriptedModel([answer])
    result = await Agent("sys", model=model).run(
        "extract", output_type=output_type, output_mode="prompted"
    )
    assert result.output == expected
    request = model.requests[0]
    assert request.tools == [] and request.response_format is None
    system = request.messages[0]
    assert isinstance(system, SystemMessage) and system.content.startswith("sys\n\n")
    assert "JSON schema" in system.content


@pytest.mark.parametrize(("output_type", "value", "expected"), CASES)
async def test_native_mode_sends_a_strict_response_format(
    output_type: Any, value: Any, expected: Any
) -> None:
    model = ScriptedModel([json.dumps(tool_arguments(output_type, value))])
    result = await Agent(model=model).run("x", output_type=output_type, output_mode="native")
    assert result.output == expected
    fmt = model.requests[0].response_format
    assert fmt is not None and fmt["type"] == "json_schema"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["additionalProperties"] is False


async def test_the_output_tool_never_reaches_the_agents_tools_or_adapters() -> None:
    seen: list[str] = []
    agent = Agent(model=ScriptedModel([]), tools=[lookup], output_type=Invoice)
    agent.events.on(AgentEvents.TOOL_CALL_BEFORE, lambda ctx: seen.append(ctx.payload.call.name))
    agent.events.on(
        AgentEvents.TOOLS_GENERATE_SIGNATURE,
        lambda ctx: seen.append("signature:" + ctx.payload.tool.name),
    )
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("lookup", {"number": "A1"}),
            ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"number": "A1", "total": 12.5}),
        ]
    )
    agent._model = model
    result = await agent.run("find A1")
    assert result.output == Invoice(number="A1", total=12.5)
    assert "lookup" in seen and OUTPUT_TOOL_NAME not in " ".join(seen)
    assert [t["function"]["name"] for t in await agent.tool_signatures()] == ["lookup"]
    assert OUTPUT_TOOL_NAME not in agent.tools


async def test_other_calls_beside_the_final_answer_are_answered_but_not_run() -> None:
    ran: list[str] = []

    @tool
    def side(x: str) -> str:
        ran.append(x)
        return x

    model = ScriptedModel(
        [
            ScriptedModel.tool_calls(
                (OUTPUT_TOOL_NAME, {"number": "A", "total": 1}, "f"), ("side", {"x": "y"}, "s")
            )
        ]
    )
    result = await Agent(model=model, tools=[side]).run("x", output_type=Invoice)
    assert result.output.number == "A"
    assert ran == []
    answers = {m.tool_call_id: m.content for m in result.new_messages if isinstance(m, ToolMessage)}
    assert set(answers) == {"f", "s"} and "Not run" in answers["s"]


async def test_invalid_output_goes_back_with_the_errors_then_succeeds() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"number": "A1", "total": "lots"}, id="bad"),
            ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"number": "A1", "total": 3}, id="good"),
        ]
    )
    result = await Agent(model=model).run("x", output_type=Invoice)
    assert result.output == Invoice(number="A1", total=3)
    feedback = [m for m in model.requests[1].messages if isinstance(m, ToolMessage)]
    assert feedback[0].tool_call_id == "bad" and feedback[0].is_error
    assert "total" in feedback[0].content and "Invoice" in feedback[0].content


async def test_output_retries_run_out_into_a_typed_error_with_the_history() -> None:
    model = ScriptedModel(["not json", '{"number": 5}', "still wrong"])
    agent = Agent(model=model, output_retries=1)
    with pytest.raises(OutputValidationError) as caught:
        await agent.run("x", output_type=Invoice, output_mode="prompted")
    assert len(model.requests) == 2
    error = caught.value
    assert error.messages == agent.messages
    assert any("total" in problem for problem in error.problems)
    retry = [m for m in agent.messages if isinstance(m, UserMessage)][-1]
    assert "not a JSON value" in retry.content


async def test_a_text_answer_in_tool_mode_is_accepted_when_it_is_valid_json() -> None:
    model = ScriptedModel(['{"number": "Z", "total": 2}'])
    result = await Agent(model=model).run("x", output_type=Invoice)
    assert result.output == Invoice(number="Z", total=2)


async def test_a_prose_answer_in_tool_mode_is_asked_to_use_the_output_tool() -> None:
    model = ScriptedModel(
        ["It is A1.", ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"number": "A1", "total": 1})]
    )
    result = await Agent(model=model).run("x", output_type=Invoice)
    assert result.output.number == "A1"
    retry = model.requests[1].messages[-1]
    assert isinstance(retry, UserMessage) and OUTPUT_TOOL_NAME in retry.content


INSTRUCTIONS = {
    "tool-text": "Call the final_result tool to give your final answer.",
    "tool-arguments": "Call the final_result tool again with corrected arguments.",
    "native": "Reply again with corrected JSON.",
    "prompted": "Reply again with only the corrected JSON value.",
}


@pytest.mark.parametrize(
    ("mode", "bad", "case"),
    [
        ("tool", "It is A1.", "tool-text"),
        ("tool", ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"number": "A1"}), "tool-arguments"),
        ("native", '{"number": "A1"}', "native"),
        ("native", "It is A1.", "native"),
        ("prompted", "It is A1.", "prompted"),
        ("prompted", '{"number": "A1"}', "prompted"),
    ],
)
async def test_a_retry_gives_the_one_instruction_of_the_output_mode(
    mode: Any, bad: Any, case: str
) -> None:
    good = {"number": "A1", "total": 1}
    fixed = ScriptedModel.tool_call(OUTPUT_TOOL_NAME, good) if mode == "tool" else json.dumps(good)
    model = ScriptedModel([bad, fixed])
    result = await Agent(model=model).run("x", output_type=Invoice, output_mode=mode)
    assert result.output == Invoice(number="A1", total=1)
    retry = model.requests[1].messages[-1]
    assert isinstance(retry, UserMessage | ToolMessage)
    given = [text for text in INSTRUCTIONS.values() if text in retry.content]
    assert given == [INSTRUCTIONS[case]]
    # no other instruction hides in the problems either
    assert "reply with only" not in retry.content.lower()
    assert retry.content.count("Call ") + retry.content.count("Reply ") == 1


async def test_output_type_on_the_agent_applies_to_every_run_and_str_overrides() -> None:
    model = ScriptedModel(
        [ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"number": "A", "total": 1}), "plain"]
    )
    agent = Agent(model=model, output_type=Invoice)
    assert isinstance((await agent.run("a")).output, Invoice)
    assert (await agent.run("b", output_type=str)).output == "plain"
    assert model.requests[1].tools == []


async def test_auto_mode_follows_the_models_tool_calling_mode() -> None:
    from good_agent.models.provider_model import ProviderModel

    class Never:
        provider = "openai"

        async def send(self, body: dict[str, Any]) -> dict[str, Any]:
            raise AssertionError

    prompted = ProviderModel("local-model", Never(), mode="validated")
    native = ProviderModel("gpt-4o", Never(), mode="native")
    structured = ProviderModel("gpt-4o", Never(), mode="structured")
    assert OutputSpec(Invoice, "auto", prompted).mode == "prompted"
    assert OutputSpec(Invoice, "auto", native).mode == "tool"
    assert OutputSpec(Invoice, "auto", structured).mode == "tool"
    assert OutputSpec(Invoice, "auto", ScriptedModel([])).mode == "tool"


async def test_typed_output_with_tools_in_prompted_mode() -> None:
    def answer(request: ModelRequest) -> str:
        results = [m for m in request.messages if isinstance(m, ToolMessage)]
        return f'{{"number": "A1", "total": {results[0].content.split()[2]}}}'

    model = ScriptedModel([ScriptedModel.tool_call("lookup", {"number": "A1"}), answer])
    result = await Agent(model=model, tools=[lookup]).run(
        "total of A1?", output_type=Invoice, output_mode="prompted"
    )
    assert result.output == Invoice(number="A1", total=12.5)
    assert model.requests[0].tool_names == ["lookup"]


async def test_a_tool_named_like_the_output_tool_is_refused_clearly() -> None:
    @tool(name=OUTPUT_TOOL_NAME)
    def clash() -> str:
        return "x"

    agent = Agent(model=ScriptedModel(["unused"]), tools=[clash])
    with pytest.raises(ToolDefinitionError, match="rename it"):
        await agent.run("x", output_type=Invoice)
    agent._model = ScriptedModel(['{"number": "A", "total": 1}'])
    result = await agent.run("x", output_type=Invoice, output_mode="prompted")
    assert result.output == Invoice(number="A", total=1)


def test_native_output_mode_is_refused_for_a_wire_format_without_response_format() -> None:
    from good_agent.models import AnthropicModel

    claude = AnthropicModel("claude-sonnet-4-6", api_key="k")
    with pytest.raises(ModelConfigError, match="output_mode='tool' or 'prompted'"):
        OutputSpec(Invoice, "native", claude)
    assert OutputSpec(Invoice, "auto", claude).mode == "tool"


PROSE = st.text(alphabet=st.characters(blacklist_characters="{}[]`", codec="utf-8"), max_size=40)
INVOICES = st.builds(
    Invoice,
    number=st.text(max_size=20),
    total=st.floats(allow_nan=False, allow_infinity=False),
)


@settings(max_examples=200, deadline=None)
@given(invoices=st.lists(INVOICES, max_size=3), before=PROSE, after=PROSE, fenced=st.booleans())
def test_a_json_answer_is_found_in_any_surrounding_prose(
    invoices: list[Invoice], before: str, after: str, fenced: bool
) -> None:
    spec = OutputSpec(list[Invoice], "prompted")
    body = json.dumps([i.model_dump() for i in invoices])
    text = f"{before}\n```json\n{body}\n```\n{after}" if fenced else f"{before}{body}{after}"
    assert spec.from_text(text) == invoices
