"""``POST /v1/responses`` with the openai SDK: whole and streamed, every upstream kind."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bridge_fakes import Fake, Reply
from media_files import pdf, png
from media_requests import data_url, responses_image, responses_user
from openai import AsyncOpenAI
from responses_harness import (
    R_TIME,
    R_WEATHER,
    events_of,
    post,
    strict_response,
)

from good_agent.server import ConfigError, create_app, parse_config
from good_agent.server.background import BackgroundServer
from good_agent.server.responses.stream import ResponseEventWriter
from good_agent.server.responses.wire import parse_responses_request, whole_body
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]

HERMES = (
    "Let me check. <tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    '<tool_call>{"name": "get_time", "arguments": {"zone": "CET"}}</tool_call>'
)
UPSTREAMS = {
    "gpt": "openai",
    "claude": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
    "structured": "openai",
    "resp": "responses",  # a Responses upstream: passed through when the path is on
}


async def test_text_reply_whole(
    rbridge: BackgroundServer, rclient: AsyncOpenAI, fakes: dict[str, tuple[Fake, str]]
) -> None:
    response = await rclient.responses.create(
        model="gpt", input="Hi", instructions="Be brief.", max_output_tokens=50, temperature=0.2
    )
    assert response.output_text == "Hello from the fake."
    assert response.status == "completed" and response.id.startswith("resp_")
    assert response.usage is not None
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (11, 7, 18)
    sent = fakes["openai"][0].requests[-1]
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert sent["max_tokens"] == 50 and sent["temperature"] == 0.2
    raw = await post(rbridge, {"model": "gpt", "input": "Hi"})
    assert raw.status_code == 200
    strict_response(raw.json())


@pytest.mark.parametrize("model", sorted(UPSTREAMS))
async def test_function_calls_from_every_native_upstream(
    rclient: AsyncOpenAI, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fake = fakes[UPSTREAMS[model]][0]
    fake.reply = Reply(calls=[("get_weather", {"city": "Paris"})])
    if model == "structured":  # the reply is one JSON object naming the call
        call = {"tool": "get_weather", "arguments": {"city": "Paris"}, "scratchpad": None}
        fake.reply = Reply(text=json.dumps({"action": call}))
    response = await rclient.responses.create(
        model=model,
        input="Weather in Paris?",
        tools=[R_WEATHER, R_TIME],  # type: ignore[list-item]
    )
    calls = [item for item in response.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert calls[0].call_id and calls[0].status == "completed"
    async with rclient.responses.stream(
        model=model,
        input="Weather in Paris?",
        tools=[R_WEATHER, R_TIME],  # type: ignore[list-item]
    ) as stream:
        kinds = [event.type async for event in stream]
        final = await stream.get_final_response()
    streamed = [item for item in final.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in streamed] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.done" in kinds
    assert not fake.problems, fake.problems


@pytest.mark.parametrize("model", ["local", "local-parsed", "ollama-text"])
@pytest.mark.parametrize("chunk_size", [1, 3, 50])
async def test_a_prompted_text_model_gives_function_call_items(
    rclient: AsyncOpenAI, fakes: dict[str, tuple[Fake, str]], model: str, chunk_size: int
) -> None:
    fake = fakes["ollama" if model.startswith("ollama") else "text"][0]
    fake.reply = Reply(text=HERMES)
    fake.chunk_size = chunk_size
    tools: Any = [R_WEATHER, R_TIME]
    expected = [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})]
    whole = await rclient.responses.create(model=model, input="Weather?", tools=tools)
    calls = [item for item in whole.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == expected
    assert whole.output_text.strip() == "Let me check."
    async with rclient.responses.stream(model=model, input="Weather?", tools=tools) as stream:
        deltas: dict[str, str] = {}
        done: dict[str, str] = {}
        text = ""
        async for event in stream:
            if event.type == "response.function_call_arguments.delta":
                deltas[event.item_id] = deltas.get(event.item_id, "") + event.delta
            elif event.type == "response.function_call_arguments.done":
                done[event.item_id] = event.arguments
            elif event.type == "response.output_text.delta":
                text += event.delta
        final = await stream.get_final_response()
    streamed = [item for item in final.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in streamed] == expected
    assert deltas == done and {c.id: c.arguments for c in streamed} == done
    assert text.strip() == "Let me check." and "<" not in text
    assert len({c.call_id for c in streamed}) == 2
    assert not fake.problems, fake.problems


async def test_stream_events_are_the_sdks_types_in_order(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fakes["openai"][0].reply = Reply(text="Sunny.", calls=[("get_weather", {"city": "Paris"})])
    body = {"model": "gpt", "input": "Weather?", "tools": [R_WEATHER], "stream": True}
    response = await post(rbridge, body)
    assert response.status_code == 200
    events = events_of(response.text)
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert [e.type for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        *["response.function_call_arguments.delta"] * 4,
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    final = events[-1].response
    assert final.output_text == "Sunny." and final.usage.total_tokens == 18
    assert [item.type for item in final.output] == ["message", "function_call"]


async def test_reasoning_comes_back_as_a_reasoning_item(
    rclient: AsyncOpenAI, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fakes["text"][0].reply = Reply(text="<think>The user wants weather.</think>" + HERMES)
    tools: Any = [R_WEATHER, R_TIME]
    whole = await rclient.responses.create(model="local", input="Weather?", tools=tools)
    reasoning = [item for item in whole.output if item.type == "reasoning"]
    assert [part.text for part in reasoning[0].content or []] == ["The user wants weather."]
    async with rclient.responses.stream(model="local", input="Weather?", tools=tools) as stream:
        pieces = [e.delta async for e in stream if e.type == "response.reasoning_text.delta"]
        final = await stream.get_final_response()
    assert "".join(pieces) == "The user wants weather."
    assert final.output[0].type == "reasoning"


async def test_input_items_become_the_conversation(
    rclient: AsyncOpenAI, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    items: Any = [
        {"role": "developer", "content": "Use metric units."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Paris?"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking."}],
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "21C"},
    ]
    await rclient.responses.create(model="gpt", input=items, tools=[R_WEATHER])  # type: ignore[list-item]
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    assert fake.requests[-1]["messages"] == [
        {"role": "developer", "content": "Use metric units."},
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "21C"},
    ]
    assert not fake.problems


async def test_tool_choice_parallel_calls_and_json_schema_reach_the_upstream(
    rclient: AsyncOpenAI, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    fake.reply = Reply(text='{"city": "Paris"}')
    response = await rclient.responses.create(
        model="gpt",
        input="Which city?",
        tools=[R_WEATHER],  # type: ignore[list-item]
        tool_choice={"type": "function", "name": "get_weather"},
        parallel_tool_calls=False,
        text={"format": {"type": "json_schema", "name": "city", "schema": schema, "strict": True}},
    )
    sent = fake.requests[-1]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert sent["parallel_tool_calls"] is False
    assert sent["response_format"]["json_schema"]["schema"] == schema
    assert response.text.format.type == "json_schema"
    assert response.parallel_tool_calls is False


def test_a_reply_cut_by_the_token_limit_is_incomplete() -> None:
    call = parse_responses_request({"model": "gpt", "input": "Hi", "max_output_tokens": 5})
    reply = ModelResponse("cut sh", [], "length", Usage(3, 5))
    body = strict_response(whole_body(call, "resp_1", reply))
    assert body.status == "incomplete"
    assert body.incomplete_details is not None
    assert body.incomplete_details.reason == "max_output_tokens"
    writer = ResponseEventWriter(call, "resp_2")
    writer.start()
    writer.text("cut sh")
    _, final = writer.finish(ModelResponse("cut sh", finish_reason="length", usage=Usage(3, 5)))
    assert strict_response(final).status == "incomplete"


def test_the_redis_store_needs_its_url_variable() -> None:
    entry = {"name": "m", "provider": "openai", "model": "x"}
    with pytest.raises(ConfigError, match="redis_url_env"):
        parse_config({"models": [entry], "responses": {"store": "redis"}})
    config = parse_config(
        {"models": [entry], "responses": {"store": "redis", "redis_url_env": "GA_TEST_UNSET_URL"}}
    )
    with pytest.raises(ConfigError, match="GA_TEST_UNSET_URL"):
        create_app(config)


async def test_images_and_files_reach_each_upstream_in_its_own_form(
    rclient: AsyncOpenAI, fakes: dict[str, tuple[Fake, str]]
) -> None:
    image, document = data_url(png(), "image/png"), data_url(pdf(), "application/pdf")
    items: Any = responses_user(
        responses_image(image, detail=None),
        {"type": "input_file", "file_data": document, "filename": "a.pdf"},
        text="What is this?",
    )
    await rclient.responses.create(model="gpt", input=items)
    parts = fakes["openai"][0].requests[-1]["messages"][0]["content"]
    assert [part["type"] for part in parts] == ["text", "image_url", "file"]
    assert parts[1]["image_url"]["url"] == image
    assert parts[2]["file"]["file_data"] == document
    await rclient.responses.create(model="claude", input=items)
    blocks = fakes["anthropic"][0].requests[-1]["messages"][0]["content"]
    assert [block["type"] for block in blocks] == ["text", "image", "document"]
    assert not fakes["openai"][0].problems and not fakes["anthropic"][0].problems
