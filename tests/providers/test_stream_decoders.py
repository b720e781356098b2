"""The per-vendor stream decoders: deltas, and the same reply as the codecs."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from good_agent.providers.anthropic import codec as anthropic_messages
from good_agent.providers.anthropic.stream import AnthropicDecoder
from good_agent.providers.codecs import get_codec
from good_agent.providers.gemini import codec as gemini
from good_agent.providers.gemini.stream import GeminiDecoder
from good_agent.providers.ollama import codec as ollama
from good_agent.providers.ollama.stream import OllamaDecoder
from good_agent.providers.openai import chat_codec as openai_chat
from good_agent.providers.openai import responses_codec as openai_responses
from good_agent.providers.openai.chat_stream import OpenAIChatDecoder
from good_agent.providers.openai.responses_stream import OpenAIResponsesDecoder
from good_agent.providers.streaming import (
    DONE_EVENT,
    FinishDelta,
    IncompleteStreamError,
    ModelDelta,
    StreamDecoder,
    StreamFailedError,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageDelta,
    WholeReplyDecoder,
)
from good_agent.providers.types import ChatRequest
from good_agent.types.messages import ModelResponse

ARGS = {"city": "São Paulo", "days": [1, 2, 3], "note": 'quote " and \\ slash', "deep": {"x": None}}
TEXT = json.dumps(ARGS, ensure_ascii=False)


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def run(decoder: StreamDecoder, events: list[dict[str, Any]]) -> list[ModelDelta]:
    out: list[ModelDelta] = []
    for event in events:
        out += decoder.feed(event)
    return out


def calls_of(response: ModelResponse) -> list[tuple[str, str, Any]]:
    return [(c.id, c.name, c.arguments) for c in response.tool_calls]


def chat_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def openai_stream(size: int) -> list[dict[str, Any]]:
    start = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}
    second = {"index": 1, "id": "call_2", "type": "function", "function": {"name": "g"}}
    events = [
        chat_chunk({"role": "assistant", "content": "Let me "}),
        chat_chunk({"content": "check."}),
    ]
    events.append(
        chat_chunk({"tool_calls": [{**start, "function": {"name": "f", "arguments": ""}}]})
    )
    for piece in pieces(TEXT, size):
        events.append(chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    events.append(
        chat_chunk({"tool_calls": [{**second, "function": {"name": "g", "arguments": "{}"}}]})
    )
    events.append(chat_chunk({}, "tool_calls"))
    events.append(
        {"model": "m", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 5}}
    )
    return events


@pytest.mark.parametrize("size", [1, 3, 17])
def test_openai_chat_equals_the_codec(size: int) -> None:
    decoder = OpenAIChatDecoder()
    deltas = run(decoder, openai_stream(size))
    whole = openai_chat.decode_response(
        {
            "model": "m",
            "choices": [
                {
                    "message": {
                        "content": "Let me check.",
                        "tool_calls": [
                            {"id": "call_1", "function": {"name": "f", "arguments": TEXT}},
                            {"id": "call_2", "function": {"name": "g", "arguments": "{}"}},
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 7, "completion_tokens": 5},
        }
    )
    assert decoder.finish() == whole
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "Let me check."
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert starts == [ToolCallStart(0, "call_1", "f"), ToolCallStart(1, "call_2", "g")]
    assert (
        "".join(d.arguments for d in deltas if isinstance(d, ToolCallArgs) and d.index == 0) == TEXT
    )
    assert [d for d in deltas if isinstance(d, ToolCallEnd)] == [ToolCallEnd(0), ToolCallEnd(1)]
    assert deltas[-2:] == [FinishDelta("tool_calls"), UsageDelta(7, 5)]


def test_openai_chat_distinct_ids_without_index_are_two_calls() -> None:
    decoder = OpenAIChatDecoder()
    run(
        decoder,
        [
            chat_chunk(
                {"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": '{"x"'}}]}
            ),
            chat_chunk({"tool_calls": [{"function": {"arguments": ": 1}"}}]}),
            chat_chunk({"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": "{}"}}]}),
            chat_chunk({}, "tool_calls"),
        ],
    )
    assert calls_of(decoder.finish()) == [("a", "f", {"x": 1}), ("b", "g", {})]


def test_openai_chat_distinct_ids_at_one_index_are_two_calls() -> None:
    decoder = OpenAIChatDecoder()
    run(
        decoder,
        [
            chat_chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}
                    ]
                }
            ),
            chat_chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "b", "function": {"name": "g", "arguments": "{}"}}
                    ]
                }
            ),
            chat_chunk({}, "stop"),
        ],
    )
    reply = decoder.finish()
    assert calls_of(reply) == [("a", "f", {}), ("b", "g", {})]
    assert reply.finish_reason == "tool_calls"


@pytest.mark.parametrize(
    ("decoder", "events"),
    [
        (OpenAIChatDecoder(), [chat_chunk({"content": "Hel"}), chat_chunk({"content": "lo"})]),
        (
            AnthropicDecoder(),
            [
                {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": "Hi"},
                },
            ],
        ),
        (OpenAIResponsesDecoder(), [{"type": "response.output_text.delta", "delta": "Hi"}]),
        (GeminiDecoder(), [{"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]}]),
        (OllamaDecoder(), [{"message": {"role": "assistant", "content": "Hi"}, "done": False}]),
    ],
)
def test_a_stream_without_its_final_event_is_an_error(
    decoder: StreamDecoder, events: list[dict[str, Any]]
) -> None:
    run(decoder, events)
    with pytest.raises(IncompleteStreamError, match="ended before its final event"):
        decoder.finish()


@pytest.mark.parametrize("size", [1, 5])
def test_responses_equals_the_codec(size: int) -> None:
    decoder = OpenAIResponsesDecoder()
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_9",
        "name": "f",
        "arguments": "",
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"model": "m", "status": "in_progress"}},
        {"type": "response.output_text.delta", "item_id": "msg", "delta": "Sure"},
        {"type": "response.output_item.added", "output_index": 1, "item": item},
    ]
    for piece in pieces(TEXT, size):
        events.append(
            {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": piece}
        )
    events.append(
        {"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": TEXT}
    )
    final = {
        "model": "m",
        "status": "completed",
        "output": [
            {"type": "message", "content": [{"type": "output_text", "text": "Sure"}]},
            {**item, "arguments": TEXT},
        ],
        "usage": {"input_tokens": 4, "output_tokens": 8},
    }
    events.append({"type": "response.completed", "response": final})
    deltas = run(decoder, events)
    assert decoder.finish() == openai_responses.decode_response(final)
    assert ToolCallEnd(0) in deltas


def test_responses_failure_raises() -> None:
    decoder = OpenAIResponsesDecoder()
    with pytest.raises(StreamFailedError, match="overloaded"):
        decoder.feed({"type": "response.failed", "response": {"error": {"message": "overloaded"}}})


@pytest.mark.parametrize("size", [1, 4])
def test_anthropic_equals_the_codec(size: int) -> None:
    decoder = AnthropicDecoder()
    block = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "model": "claude",
                "content": [],
                "usage": {"input_tokens": 12, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "hmm"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Ok."}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": block},
    ]
    for piece in pieces(TEXT, size):
        events.append(
            {
                "type": "content_block_delta",
                "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
        )
    events += [
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    deltas = run(decoder, events)
    whole = anthropic_messages.decode_response(
        {
            "model": "claude",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Ok."},
                {**block, "input": ARGS},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 12, "output_tokens": 9},
        }
    )
    streamed = decoder.finish()
    assert calls_of(streamed) == calls_of(whole)
    assert (streamed.content, streamed.reasoning, streamed.usage, streamed.finish_reason) == (
        whole.content,
        whole.reasoning,
        whole.usage,
        whole.finish_reason,
    )
    assert deltas[0] == UsageDelta(12, 1)
    assert ToolCallStart(0, "toolu_1", "f") in deltas


def test_anthropic_error_event_raises() -> None:
    with pytest.raises(StreamFailedError, match="Overloaded"):
        AnthropicDecoder().feed(
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        )


def test_gemini_equals_the_codec() -> None:
    decoder = GeminiDecoder()
    chunks: list[dict[str, Any]] = [
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Hi "}]}}],
            "modelVersion": "g",
        },
        {
            "candidates": [
                {"content": {"parts": [{"functionCall": {"id": "a", "name": "f", "args": ARGS}}]}}
            ]
        },
        {
            "candidates": [
                {
                    "content": {"parts": [{"functionCall": {"id": "b", "name": "g", "args": {}}}]},
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 6},
            "modelVersion": "g",
        },
    ]
    run(decoder, chunks)
    merged = {
        "candidates": [
            {
                "content": {
                    "parts": [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 6},
        "modelVersion": "g",
    }
    assert decoder.finish() == gemini.decode_response(merged)


def test_ollama_equals_the_codec() -> None:
    decoder = OllamaDecoder()
    call = {"function": {"name": "f", "arguments": ARGS}}
    lines: list[dict[str, Any]] = [
        {"model": "q", "message": {"role": "assistant", "content": "Hel"}, "done": False},
        {
            "model": "q",
            "message": {"role": "assistant", "content": "lo", "tool_calls": [call]},
            "done": False,
        },
        {
            "model": "q",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 3,
            "eval_count": 4,
        },
    ]
    run(decoder, lines)
    whole = ollama.decode_response(
        {
            "model": "q",
            "message": {"role": "assistant", "content": "Hello", "tool_calls": [call]},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 3,
            "eval_count": 4,
        }
    )
    streamed = decoder.finish()
    # Ollama gives no call id: each side draws a random one, never a guessable "call_0"
    ids = [streamed.tool_calls[0].id, whole.tool_calls[0].id]
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", i) for i in ids) and ids[0] != ids[1]
    same_id = [c.model_copy(update={"id": "x"}) for c in streamed.tool_calls]
    assert dataclasses.replace(streamed, tool_calls=same_id) == dataclasses.replace(
        whole, tool_calls=[c.model_copy(update={"id": "x"}) for c in whole.tool_calls]
    )


def test_names_map_back_to_the_original_tool_names() -> None:
    codec = get_codec("anthropic_messages")
    tool = {
        "type": "function",
        "function": {"name": "web.search", "parameters": {"type": "object"}},
    }
    names = codec.tool_names(ChatRequest(messages=[], tools=[tool]))
    wire = names.to_provider("web.search")
    assert wire != "web.search"
    decoder = codec.decoder(names)
    block = {"type": "tool_use", "id": "t", "name": wire, "input": {}}
    deltas = run(
        decoder,
        [
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
            {"type": "message_stop"},
        ],
    )
    assert ToolCallStart(0, "t", "web.search") in deltas
    assert decoder.finish().tool_calls[0].name == "web.search"


def test_whole_reply_decoder_reports_the_codec_reply() -> None:
    body = {
        "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2},
    }
    decoder = WholeReplyDecoder(openai_chat.decode_response)
    deltas = decoder.feed(body)
    assert deltas == [TextDelta("hi"), UsageDelta(1, 2), FinishDelta("stop")]
    assert decoder.finish() == openai_chat.decode_response(body)


def test_partial_arguments_on_demand_and_malformed_final() -> None:
    decoder = OpenAIChatDecoder()
    decoder.feed(chat_chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}))
    for piece in ['{"city": "Li', 'ma", "days": [1', ", 2"]:
        decoder.feed(chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    ((_, _, partial),) = decoder.partial_calls()
    assert partial == {"city": "Lima", "days": [1, 2]}
    decoder.feed(chat_chunk({}, "tool_calls"))
    (call,) = decoder.finish().tool_calls
    assert call.arguments == {} and call.arguments_error and call.raw_arguments.endswith(", 2")


def test_openai_chat_done_marker_ends_a_stream_without_finish_reason() -> None:
    decoder = OpenAIChatDecoder()
    run(decoder, [chat_chunk({"content": "Hi"}), DONE_EVENT])
    reply = decoder.finish()
    assert (reply.content, reply.finish_reason) == ("Hi", None)


def test_a_call_without_an_id_gets_a_random_one_never_call_0() -> None:
    """An id the framework assigns is not guessable: approvals are bound to call ids."""
    item = {"function": {"name": "f", "arguments": "{}"}}
    chat = {"choices": [{"message": {"role": "assistant", "tool_calls": [item]}}]}
    responses = {"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]}
    ollama_reply = {"message": {"role": "assistant", "tool_calls": [item]}, "done": True}
    ids = []
    for _ in range(2):
        ids.append(openai_chat.decode_response(chat).tool_calls[0].id)
        ids.append(openai_responses.decode_response(responses).tool_calls[0].id)
        ids.append(ollama.decode_response(ollama_reply).tool_calls[0].id)
        decoder = OpenAIChatDecoder()
        delta = {"tool_calls": [{"index": 0, **item}]}
        end = {"index": 0, "delta": {}, "finish_reason": "tool_calls"}
        run(decoder, [{"choices": [{"index": 0, "delta": delta}]}, {"choices": [end]}])
        ids.append(decoder.finish().tool_calls[0].id)
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", i) for i in ids), ids
    assert len(set(ids)) == len(ids)
