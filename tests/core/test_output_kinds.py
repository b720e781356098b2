"""Output kinds beyond one type: unions with ``str``, output functions, the end
strategy of the final turn, and the output of a run that waits for approvals."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from good_agent import (
    Agent,
    ModelRetry,
    OutputMode,
    OutputValidationError,
    RunContext,
    RunDeferredError,
    SystemMessage,
    TextDeltaEvent,
    ToolMessage,
    resolve_model,
    tool,
)
from good_agent.core.output import OUTPUT_TOOL_NAME
from good_agent.testing import ScriptedModel, TestModel

pytestmark = pytest.mark.anyio

MODES: list[OutputMode] = ["tool", "native", "prompted"]


class Weather(BaseModel):
    """A weather report."""

    city: str
    celsius: float


def chat_reply(content: str) -> tuple[int, dict[str, Any]]:
    """A Chat Completions reply with a text answer."""
    message = {"role": "assistant", "content": content}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return 200, {"id": "c", "object": "chat.completion", "model": "m", "choices": [choice]}


def system_text(model: ScriptedModel) -> str:
    system = model.requests[0].messages[0]
    assert isinstance(system, SystemMessage)
    return system.content


# a union with str


@pytest.mark.parametrize("mode", MODES)
async def test_a_union_with_str_takes_a_plain_text_answer_in_every_mode(mode: OutputMode) -> None:
    model = ScriptedModel(["It is sunny in Oslo, 21 degrees."])
    result = await Agent(model=model).run(
        "weather?",
        output_type=str | Weather,
        output_mode=mode,
    )
    assert result.output == "It is sunny in Oslo, 21 degrees."


@pytest.mark.parametrize("mode", MODES)
async def test_a_union_with_str_takes_the_structured_answer_in_every_mode(mode: OutputMode) -> None:
    value = {"city": "Oslo", "celsius": 21}
    if mode == "tool":
        reply: Any = ScriptedModel.tool_call(OUTPUT_TOOL_NAME, value)
    elif mode == "native":
        reply = json.dumps({"response": value})
    else:
        reply = f"```json\n{json.dumps(value)}\n```"
    model = ScriptedModel([reply])
    result = await Agent(model=model).run(
        "weather?",
        output_type=str | Weather,
        output_mode=mode,
    )
    assert result.output == Weather(city="Oslo", celsius=21)


async def test_in_tool_mode_the_model_is_told_it_may_answer_in_text() -> None:
    model = ScriptedModel(["Sunny."])
    await Agent("Be brief.", model=model).run("weather?", output_type=str | Weather)
    request = model.requests[0]
    assert request.tool_names == [OUTPUT_TOOL_NAME]
    assert request.tool_choice in (None, "auto")  # not forced: text is an answer
    assert "plain text" in system_text(model) and OUTPUT_TOOL_NAME in system_text(model)
    parameters = request.tools[0]["function"]["parameters"]
    assert set(parameters["properties"]) == {"city", "celsius"}  # the structured part only


async def test_in_prompted_mode_the_model_is_told_it_may_answer_in_text() -> None:
    model = ScriptedModel(["Sunny."])
    await Agent(model=model).run("weather?", output_type=str | Weather, output_mode="prompted")
    text = system_text(model)
    assert "plain text" in text and '"celsius"' in text
    assert model.requests[0].tools == [] and model.requests[0].response_format is None


async def test_in_native_mode_the_schema_holds_a_string_or_the_structure() -> None:
    model = ScriptedModel([json.dumps({"response": "Sunny, no structure needed."})])
    result = await Agent(model=model).run(
        "weather?", output_type=str | Weather, output_mode="native"
    )
    assert result.output == "Sunny, no structure needed."
    fmt = model.requests[0].response_format
    assert fmt is not None
    choices = fmt["json_schema"]["schema"]["properties"]["response"]["anyOf"]
    assert {"type": "string"} in choices


async def test_a_structured_answer_that_does_not_validate_is_sent_back() -> None:
    model = ScriptedModel(['{"city": "Oslo"}', '{"city": "Oslo", "celsius": 3}'])
    result = await Agent(model=model).run(
        "weather?", output_type=str | Weather, output_mode="prompted"
    )
    assert result.output == Weather(city="Oslo", celsius=3)
    assert "celsius" in str(model.requests[1].messages[-1].content)


async def test_a_union_with_str_over_http_in_auto_mode_for_a_prompted_model(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream(
        [chat_reply("No idea, sorry."), chat_reply('{"city": "Rome", "celsius": 30}')]
    )
    model = resolve_model("my-local-model", base_url=f"{upstream.url}/v1", mode="validated")
    agent = Agent(model=model, output_type=str | Weather)
    assert (await agent.run("weather?")).output == "No idea, sorry."
    assert (await agent.run("weather in Rome?")).output == Weather(city="Rome", celsius=30)
    assert "plain text" in upstream.bodies[0]["messages"][0]["content"]


async def test_a_union_with_str_over_http_in_auto_mode_for_a_native_model(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream([chat_reply("Sunny.")])
    model = resolve_model("gpt-4o", base_url=f"{upstream.url}/v1", api_key="sk-test")
    result = await Agent(model=model, output_type=str | Weather).run("weather?")
    assert result.output == "Sunny."
    (body,) = upstream.bodies
    assert body.get("tool_choice", "auto") == "auto"  # not forced: text is an answer
    assert "plain text" in body["messages"][0]["content"]
    assert [t["function"]["name"] for t in body["tools"]] == [OUTPUT_TOOL_NAME]


@pytest.mark.parametrize("mode", MODES)
async def test_a_streamed_text_answer_of_a_union_with_str_reads_as_text(mode: OutputMode) -> None:
    model = ScriptedModel([ScriptedModel.streamed("Sunny ", "in ", "Oslo.")])
    partials = []
    async with Agent(model=model).stream("x", output_type=str | Weather, output_mode=mode) as run:
        async for event in run:
            if isinstance(event, TextDeltaEvent):
                partials.append(run.partial_output())
    assert partials == ["Sunny ", "Sunny in ", "Sunny in Oslo."]
    assert run.output == "Sunny in Oslo."


async def test_a_union_with_str_over_http_in_structured_mode_offers_the_answer_variant(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    answer = json.dumps({"action": {"answer": "Sunny.", "scratchpad": None}})
    upstream = fake_upstream([chat_reply(answer)])
    model = resolve_model(
        "gpt-4o", base_url=f"{upstream.url}/v1", api_key="sk-test", mode="structured"
    )
    result = await Agent(model=model, output_type=str | Weather).run("weather?")
    assert result.output == "Sunny."
    (body,) = upstream.bodies
    schema = body["response_format"]["json_schema"]["schema"]
    variants = schema["properties"]["action"]["anyOf"]
    assert any("answer" in v.get("properties", {}) for v in variants)  # text is allowed


# output functions


@dataclass
class Units:
    symbol: str


def to_kelvin(ctx: RunContext[Units], city: str, celsius: float) -> str:
    """Report the temperature of a city.

    Args:
        city: The city.
        celsius: Degrees Celsius.
    """
    if celsius < -273.15:
        raise ModelRetry("below absolute zero: check the reading")
    return f"{city}: {celsius + 273.15:.2f} {ctx.deps.symbol}"


@pytest.mark.parametrize("mode", MODES)
async def test_an_output_function_is_called_with_the_validated_arguments(mode: OutputMode) -> None:
    value = {"city": "Oslo", "celsius": "20"}  # a string the schema coerces
    reply: Any = (
        ScriptedModel.tool_call(OUTPUT_TOOL_NAME, value) if mode == "tool" else json.dumps(value)
    )
    model = ScriptedModel([reply])
    agent = Agent(model=model, output_type=to_kelvin, output_mode=mode)
    result = await agent.run("weather?", deps=Units("K"))
    assert result.output == "Oslo: 293.15 K"


async def test_an_output_functions_parameters_are_the_output_tool_schema() -> None:
    model = ScriptedModel([ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"city": "A", "celsius": 0})])
    await Agent(model=model, output_type=to_kelvin).run("x", deps=Units("K"))
    (signature,) = model.requests[0].tools
    function = signature["function"]
    assert function["name"] == OUTPUT_TOOL_NAME
    assert "Report the temperature of a city." in function["description"]
    assert set(function["parameters"]["properties"]) == {"city", "celsius"}  # no RunContext
    assert function["parameters"]["properties"]["celsius"]["description"] == "Degrees Celsius."


async def test_a_model_retry_in_an_output_function_goes_back_to_the_model() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"city": "A", "celsius": -300}, id="f1"),
            ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"city": "A", "celsius": 0}, id="f2"),
        ]
    )
    result = await Agent(model=model, output_type=to_kelvin).run("x", deps=Units("K"))
    assert result.output == "A: 273.15 K"
    retry = next(m for m in result.new_messages if isinstance(m, ToolMessage))
    assert retry.tool_call_id == "f1" and retry.is_error
    assert "below absolute zero" in retry.content


async def test_model_retries_in_an_output_function_count_against_output_retries() -> None:
    bad = ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"city": "A", "celsius": -300})
    agent = Agent(model=ScriptedModel([bad, bad, bad]), output_type=to_kelvin, output_retries=1)
    with pytest.raises(OutputValidationError, match="the output function rejected") as caught:
        await agent.run("x", deps=Units("K"))
    assert caught.value.problems == ["below absolute zero: check the reading"]


async def test_an_async_output_function_with_invalid_arguments_is_retried() -> None:
    calls: list[int] = []

    async def count(n: int) -> list[int]:
        calls.append(n)
        return list(range(n))

    model = ScriptedModel(
        [
            ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"n": "many"}),
            ScriptedModel.tool_call(OUTPUT_TOOL_NAME, {"n": 3}),
        ]
    )
    result = await Agent(model=model).run("x", output_type=count)
    assert result.output == [0, 1, 2] and calls == [3]  # never called with invalid arguments
    assert "n:" in str(model.requests[1].messages[-1].content)


# TestModel in every mode


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("output_type", [Weather, str | Weather, list[int]])
async def test_test_model_produces_valid_output_in_every_mode(
    mode: OutputMode, output_type: Any
) -> None:
    agent = Agent(model=TestModel(), output_type=output_type, output_mode=mode)
    result = await agent.run("weather?")
    expected = {Weather: Weather, list[int]: list}.get(output_type, Weather | str)
    assert isinstance(result.output, expected)


@pytest.mark.parametrize("mode", MODES)
async def test_test_model_calls_an_output_function_in_every_mode(mode: OutputMode) -> None:
    agent = Agent(model=TestModel(), output_type=to_kelvin, output_mode=mode)
    result = await agent.run("weather?", deps=Units("K"))
    assert result.output.endswith(" K")


async def test_test_model_in_prompted_mode_answers_with_json() -> None:
    model = TestModel(custom_output_args=Weather(city="Oslo", celsius=1))
    result = await Agent(model=model, output_mode="prompted").run("x", output_type=Weather)
    assert result.output == Weather(city="Oslo", celsius=1)
    assert model.requests[0].tools == []


# end strategy


def side_tools(ran: list[str]) -> list[Any]:
    @tool
    def note(text: str) -> str:
        """Write a note."""
        ran.append(text)
        return f"noted {text}"

    @tool(requires_approval=True)
    def pay(amount: int) -> str:
        """Pay."""
        ran.append(f"pay {amount}")
        return "paid"

    return [note, pay]


def final_turn() -> ScriptedModel:
    return ScriptedModel(
        [
            ScriptedModel.tool_calls(
                ("note", {"text": "a"}, "n1"),
                (OUTPUT_TOOL_NAME, {"city": "Oslo", "celsius": 1}, "f"),
                ("pay", {"amount": 5}, "p"),
                ("note", {"text": "b"}, "n2"),
            )
        ]
    )


async def test_early_end_answers_the_other_calls_as_not_run() -> None:
    ran: list[str] = []
    agent = Agent(model=final_turn(), tools=side_tools(ran), output_type=Weather)
    result = await agent.run("x")
    assert result.output == Weather(city="Oslo", celsius=1) and ran == []
    results = [m for m in result.new_messages if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in results] == ["f", "n1", "p", "n2"]
    assert all("Not run" in m.content for m in results[1:])


@pytest.mark.parametrize("where", ["agent", "run"])
async def test_exhaustive_end_runs_the_other_calls_before_ending(where: str) -> None:
    ran: list[str] = []
    if where == "agent":
        agent = Agent(
            model=final_turn(),
            tools=side_tools(ran),
            output_type=Weather,
            end_strategy="exhaustive",
        )
        result = await agent.run("x")
    else:
        agent = Agent(model=final_turn(), tools=side_tools(ran), output_type=Weather)
        result = await agent.run("x", end_strategy="exhaustive")
    assert result.output == Weather(city="Oslo", celsius=1)
    assert sorted(ran) == ["a", "b"]  # run concurrently; the call needing approval is not
    results = {m.tool_call_id: m.content for m in result.new_messages if isinstance(m, ToolMessage)}
    assert list(results) == ["f", "n1", "p", "n2"]  # one result each, in call order
    assert results["n1"] == "noted a" and results["n2"] == "noted b"
    assert "Not run" in results["p"]
    assert not result.is_deferred


async def test_exhaustive_end_in_a_streamed_run() -> None:
    ran: list[str] = []
    agent = Agent(model=final_turn(), tools=side_tools(ran), output_type=Weather)
    async with agent.stream("x", end_strategy="exhaustive") as run:
        async for _ in run:
            pass
    assert run.output == Weather(city="Oslo", celsius=1) and sorted(ran) == ["a", "b"]


# the output of a run waiting for approvals


async def test_the_output_of_a_deferred_run_raises_and_names_result_deferred() -> None:
    ran: list[str] = []
    model = ScriptedModel([ScriptedModel.tool_call("pay", {"amount": 5}, id="p1"), "Paid."])
    agent = Agent(model=model, tools=side_tools(ran))
    result = await agent.run("pay 5")
    assert result.is_deferred and result.output_or_none is None
    with pytest.raises(RunDeferredError, match=r"result\.deferred") as caught:
        _ = result.output
    assert "p1" in str(caught.value) and "approvals" in str(caught.value)
    finished = await agent.run(approvals={"p1": result.deferred[0].approve()})
    assert finished.output == "Paid." and finished.output_or_none == "Paid."
