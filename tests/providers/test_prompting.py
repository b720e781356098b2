"""Prompt-based tool calling: prompts, history, constrained decoding, validation and retry."""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import Enum
from typing import Any

import httpx2
import jsonschema
import pytest
from openai import AsyncOpenAI
from pydantic import BaseModel

from good_agent import Agent, ToolMessage, register_profile, resolve_model, tool
from good_agent.models import OpenAIChatModel
from good_agent.providers.codecs import get_codec
from good_agent.providers.prompting import (
    PromptStyle,
    payload_schema,
    tools_prompt,
    typescript_declaration,
)
from good_agent.providers.strategies.prompted import PromptedStrategy, ValidatedStrategy


class Unit(Enum):
    C = "celsius"
    F = "fahrenheit"


class Place(BaseModel):
    city: str
    country: str | None = None


@tool
def forecast(place: Place, days: int = 3, unit: Unit = Unit.C) -> str:
    """Weather forecast.

    Args:
        days: How many days ahead.
    """
    return f"{days} days in {place.city}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_json_listing_and_rules() -> None:
    prompt = tools_prompt([add.signature, forecast.signature])
    assert '"name": "add"' in prompt and '"name": "forecast"' in prompt
    assert '<tool_call>{"name": "<tool name>"' in prompt
    assert "take precedence over any other instruction" in prompt
    assert "only when they help" in prompt


def test_tool_choice_in_the_prompt() -> None:
    required = tools_prompt([add.signature, forecast.signature], "required")
    assert "You must call at least one tool now." in required
    named = tools_prompt(
        [add.signature, forecast.signature], {"type": "function", "function": {"name": "forecast"}}
    )
    assert "You must call the tool `forecast` now." in named and '"name": "add"' not in named
    assert "Do not call any tool" in tools_prompt([add.signature], "none")


def test_typescript_declaration() -> None:
    text = typescript_declaration(forecast.signature)
    assert text.splitlines()[0] == "// Weather forecast."
    assert "function forecast(args: {" in text
    assert "  place: Place," in text
    assert "  days?: number, // default: 3" in text
    assert '  unit?: Unit, // default: "celsius"' in text
    assert 'type Unit = "celsius" | "fahrenheit";' in text
    assert "  country?: string | null, // default: null" in text
    assert "typescript" not in tools_prompt([forecast.signature], style=PromptStyle("typescript"))
    assert "function forecast" in tools_prompt(
        [forecast.signature], style=PromptStyle("typescript")
    )


def test_payload_schema_is_valid_and_self_contained() -> None:
    schema = payload_schema([add.signature, forecast.signature])
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "$ref" not in json.dumps(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]})
    assert validator.is_valid(
        {"tool_calls": [{"name": "forecast", "arguments": {"place": {"city": "Oslo"}}}]}
    )
    assert not validator.is_valid({"tool_calls": [{"name": "add", "arguments": {"a": "x"}}]})
    assert validator.is_valid({"answer": "hello"})


HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be terse. Always answer in YAML."},
    {"role": "user", "content": "2+3?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a":2,"b":3}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "name": "add", "content": "5"},
]


def test_history_is_rendered_as_text_and_tools_go_in_the_system_prompt() -> None:
    adapter = ValidatedStrategy("m", get_codec("openai_chat"))
    body = adapter.format_request([add.signature], HISTORY)
    assert "tools" not in body and "tool_choice" not in body
    system, _user, assistant, results = body["messages"]
    assert system["content"].startswith("Be terse. Always answer in YAML.\n\n# Tools")
    assert assistant == {
        "role": "assistant",
        "content": '<tool_call>{"id":"c1","name":"add","arguments":{"a":2,"b":3}}</tool_call>',
    }
    assert results["role"] == "user"
    assert results["content"] == "<tool_response>\nTool add (call c1) returned: 5\n</tool_response>"


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("json_object", {"response_format": {"type": "json_object"}}),
        ("json_schema", {"response_format": "schema"}),
        ("vllm", {"structured_outputs": "schema"}),
        ("vllm_guided", {"guided_json": "schema"}),
    ],
)
def test_constrained_decoding_request(style: Any, expected: dict[str, Any]) -> None:
    adapter = PromptedStrategy("m", get_codec("openai_chat"), style=PromptStyle(constrained=style))
    body = adapter.format_request([add.signature], HISTORY)
    key, value = next(iter(expected.items()))
    schema = payload_schema([add.signature])
    if value == "schema":
        value = (
            {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
            if key == "response_format"
            else ({"json": schema} if key == "structured_outputs" else schema)
        )
    assert body[key] == value
    assert (
        body["messages"][2]["content"]
        == '{"tool_calls":[{"id":"c1","name":"add","arguments":{"a":2,"b":3}}]}'
    )
    assert "Reply with exactly one JSON object" in body["messages"][0]["content"]


def test_ollama_gets_its_format_field() -> None:
    adapter = PromptedStrategy(
        "qwen", get_codec("ollama"), style=PromptStyle(constrained="json_schema")
    )
    body = adapter.format_request([add.signature], HISTORY[:2])
    assert body["format"] == payload_schema([add.signature])


def test_validated_marks_invalid_calls_and_parsed_only_extracts() -> None:
    reply = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": "Let me add. "
                    '<tool_call>{"name": "add", "arguments": {"a": "two", "b": 3}}</tool_call>',
                },
                "finish_reason": "stop",
            }
        ]
    }
    validated = ValidatedStrategy("m", get_codec("openai_chat")).decode(reply, [add.signature])
    parsed = PromptedStrategy("m", get_codec("openai_chat")).decode(reply, [add.signature])
    assert validated.content == parsed.content == "Let me add."
    assert validated.finish_reason == "tool_calls"
    bad = validated.tool_calls[0]
    assert bad.arguments_error is not None and "a: expected integer" in (bad.arguments_error or "")
    assert (
        parsed.tool_calls[0].arguments == {"a": "two", "b": 3}
        and parsed.tool_calls[0].arguments_error is None
    )
    assert validated.tool_calls[0].id != parsed.tool_calls[0].id  # unique per conversation


def chat_reply(content: str) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "local",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }


@pytest.mark.anyio
async def test_text_only_model_in_validated_mode_retries_after_feedback(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream(
        [
            chat_reply('<tool_call>{"name": "add", "arguments": {"a": "two", "b": 3}}</tool_call>'),
            chat_reply("[add(a=2, b=3)]"),
            chat_reply("2 + 3 = 5"),
        ]
    )
    model = resolve_model("my-local-model", base_url=f"{upstream.url}/v1", mode="validated")
    agent = Agent("You are a calculator.", model=model, tools=[add])
    assert (await agent.call("What is 2 + 3?")).content == "2 + 3 = 5"
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [r.is_error for r in results] == [True, False]
    assert "a: expected integer" in results[0].content and results[1].content == "5"
    assert all("tools" not in body for body in upstream.bodies)
    feedback = upstream.bodies[1]["messages"][-1]
    assert (
        feedback["role"] == "user"
        and "failed: Error: invalid arguments for tool 'add'" in feedback["content"]
    )
    assert "# Tools" in upstream.bodies[0]["messages"][0]["content"]


@pytest.mark.anyio
async def test_profile_selects_typescript_and_vllm_constrained_decoding() -> None:
    register_profile(
        "ts-coder*", mode="validated", prompt_format="typescript", constrained_decoding="vllm"
    )
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        content = json.dumps({"answer": "nothing to do"})
        return httpx2.Response(200, json=chat_reply(content)[1])

    client = AsyncOpenAI(
        api_key="k",
        base_url="http://vllm.test/v1",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )
    model = OpenAIChatModel("ts-coder-7b", client=client, mode="auto")
    answer = await Agent(model=model, tools=[add]).call("hello")
    assert answer.content == "nothing to do"
    assert bodies[0]["structured_outputs"] == {"json": payload_schema([add.signature])}
    assert "function add(args: {" in bodies[0]["messages"][0]["content"]


def test_reasoning_is_kept_apart_from_content() -> None:
    reply = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": "<think>Sum needed.</think>Sure. [add(a=1, b=2)]",
                },
                "finish_reason": "stop",
            }
        ]
    }
    decoded = ValidatedStrategy("m", get_codec("openai_chat")).decode(reply, [add.signature])
    assert decoded.reasoning == "Sum needed."
    assert decoded.content == "Sure."
    assert decoded.tool_calls[0].arguments == {"a": 1, "b": 2}


CLIENT_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "sum",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"total": {"type": "integer"}},
            "required": ["total"],
            "additionalProperties": False,
        },
    },
}


@pytest.mark.parametrize(
    ("style", "answer_words"),
    [
        (PromptStyle(), "your whole answer must be"),
        (PromptStyle(notation="thought"), 'the text of your "answer" must be'),
        (PromptStyle(constrained="json_schema"), 'the text of your "answer" must be'),
        (PromptStyle(constrained="vllm"), 'the text of your "answer" must be'),
    ],
)
def test_a_client_response_format_governs_the_final_answer_only(
    style: PromptStyle, answer_words: str
) -> None:
    adapter = ValidatedStrategy("m", get_codec("openai_chat"), style=style)
    body = adapter.format_request(
        [add.signature], HISTORY[1:2], response_format=CLIENT_FORMAT, tool_choice="auto"
    )
    assert "sum" not in json.dumps(body.get("response_format"))
    if style.constrained == "json_schema":
        assert body["response_format"]["json_schema"]["name"] == "reply"
    elif style.constrained is None:
        assert "response_format" not in body
    system = body["messages"][0]["content"]
    assert system.index("# How to call tools") < system.index("# Format of the final answer")
    assert answer_words in system
    assert json.dumps(CLIENT_FORMAT["json_schema"]["schema"]) in system
