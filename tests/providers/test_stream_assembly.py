from __future__ import annotations

import json

import pytest

from good_agent.providers import anthropic_messages, gemini, openai_chat, openai_responses
from good_agent.providers.streaming import (
    AnthropicAssembler,
    GeminiAssembler,
    OpenAIChatAssembler,
    OpenAIResponsesAssembler,
)

ARGS = {"city": "São Paulo", "days": [1, 2, 3], "note": 'quote " and \\ slash', "deep": {"x": None}}
TEXT = json.dumps(ARGS, ensure_ascii=False)


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 3, 17])
def test_openai_chat_deltas(size: int) -> None:
    assembler = OpenAIChatAssembler()
    start = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": ""},
    }
    second = {
        "index": 1,
        "id": "call_2",
        "type": "function",
        "function": {"name": "g", "arguments": "{}"},
    }
    assembler.feed(
        {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [start]}}]}
    )
    for piece in pieces(TEXT, size):
        delta = {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
        assembler.feed({"choices": [{"index": 0, "delta": delta}]})
    assembler.feed({"choices": [{"index": 0, "delta": {"tool_calls": [second]}}]})
    whole = openai_chat.decode_response(
        {
            "choices": [
                {
                    "message": {
                        "tool_calls": [
                            {"id": "call_1", "function": {"name": "f", "arguments": TEXT}},
                            {"id": "call_2", "function": {"name": "g", "arguments": "{}"}},
                        ]
                    }
                }
            ]
        }
    )
    assert assembler.tool_calls() == list(whole.tool_calls)


@pytest.mark.parametrize("size", [1, 5])
def test_responses_events(size: int) -> None:
    assembler = OpenAIResponsesAssembler()
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_9",
        "name": "f",
        "arguments": "",
    }
    assembler.feed({"type": "response.output_item.added", "output_index": 0, "item": item})
    for piece in pieces(TEXT, size):
        assembler.feed(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "output_index": 0,
                "delta": piece,
            }
        )
    whole = openai_responses.decode_response(
        {"output": [{**item, "arguments": TEXT}], "status": "completed"}
    )
    assert assembler.tool_calls() == list(whole.tool_calls)


@pytest.mark.parametrize("size", [1, 4])
def test_anthropic_input_json_delta(size: int) -> None:
    assembler = AnthropicAssembler()
    assembler.feed({"type": "message_start", "message": {"id": "msg", "content": []}})
    assembler.feed(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    )
    assembler.feed(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Ok."}}
    )
    block = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
    assembler.feed({"type": "content_block_start", "index": 1, "content_block": block})
    for piece in pieces(TEXT, size):
        delta = {"type": "input_json_delta", "partial_json": piece}
        assembler.feed({"type": "content_block_delta", "index": 1, "delta": delta})
    assembler.feed({"type": "content_block_stop", "index": 1})
    whole = anthropic_messages.decode_response(
        {"content": [{"type": "text", "text": "Ok."}, {**block, "input": ARGS}]}
    )
    streamed = assembler.tool_calls()
    assert [(c.id, c.name, c.arguments) for c in streamed] == [
        (c.id, c.name, c.arguments) for c in whole.tool_calls
    ]
    assert assembler.text == "Ok."


def test_gemini_chunks() -> None:
    assembler = GeminiAssembler()
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi "}]}}]},
        {
            "candidates": [
                {"content": {"parts": [{"functionCall": {"id": "a", "name": "f", "args": ARGS}}]}}
            ]
        },
        {
            "candidates": [
                {"content": {"parts": [{"functionCall": {"id": "b", "name": "g", "args": {}}}]}}
            ]
        },
    ]
    for chunk in chunks:
        assembler.feed(chunk)
    merged = {
        "candidates": [
            {
                "content": {
                    "parts": [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
                }
            }
        ]
    }
    whole = gemini.decode_response(merged)
    assert [(c.id, c.name, c.arguments) for c in assembler.tool_calls()] == [
        (c.id, c.name, c.arguments) for c in whole.tool_calls
    ]


def test_partial_arguments_on_demand_and_malformed_final() -> None:
    assembler = OpenAIChatAssembler()
    assembler.feed(
        {
            "choices": [
                {"delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}}
            ]
        }
    )
    for piece in ['{"city": "Li', 'ma", "days": [1', ", 2"]:
        assembler.feed(
            {
                "choices": [
                    {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}
                ]
            }
        )
    ((_, _, partial),) = assembler.partial_calls()
    assert partial == {"city": "Lima", "days": [1, 2]}
    (call,) = assembler.tool_calls()
    assert call.arguments is None and call.error and call.raw_arguments.endswith(", 2")
