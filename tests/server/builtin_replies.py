"""Provider replies holding built-in tool parts (checked against the SDKs' own types),
whole and streamed, shared by the model tests and the bridge tests."""

from __future__ import annotations

from typing import Any

from anthropic import types as anthropic_types
from google.genai import types as genai_types
from openai.types import responses as responses_types
from openai.types.chat import ChatCompletion
from upstreams import anthropic_events, anthropic_message, chat_completion
from upstreams import sse as sse  # the bridge and model tests take it from here

# Replies, checked against the SDKs' own response types.

ANTHROPIC_REPLY = anthropic_types.Message.model_validate(
    {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "Paris news"},
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [
                    {
                        "type": "web_search_result",
                        "url": "https://example.org/paris",
                        "title": "Paris today",
                        "encrypted_content": "enc-1",
                        "page_age": "1 day",
                    }
                ],
            },
            {
                "type": "text",
                "text": "A new bridge opened.",
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "url": "https://example.org/paris",
                        "title": "Paris today",
                        "cited_text": "The bridge opened on Monday.",
                        "encrypted_index": "ei-1",
                    }
                ],
            },
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 30, "output_tokens": 12},
    }
).model_dump(mode="json", exclude_none=True)

RESPONSES_REPLY = responses_types.Response.model_validate(
    {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-4.1",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": [
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "Paris news"},
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": "A new bridge opened.",
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": "https://example.org/paris",
                                "title": "Paris today",
                                "start_index": 0,
                                "end_index": 20,
                            }
                        ],
                    }
                ],
            },
        ],
        "usage": {
            "input_tokens": 30,
            "output_tokens": 12,
            "total_tokens": 42,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }
).model_dump(mode="json", exclude_none=True)

GEMINI_REPLY = genai_types.GenerateContentResponse.model_validate(
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"executable_code": {"language": "PYTHON", "code": "print(6 * 7)"}},
                        {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "42\n"}},
                        {"text": "A new bridge opened; 6 * 7 = 42."},
                    ],
                },
                "finish_reason": "STOP",
                "grounding_metadata": {
                    "web_search_queries": ["Paris news"],
                    "grounding_chunks": [
                        {"web": {"uri": "https://example.org/paris", "title": "Paris today"}}
                    ],
                    "grounding_supports": [
                        {
                            "segment": {
                                "start_index": 0,
                                "end_index": 20,
                                "text": "A new bridge opened",
                            },
                            "grounding_chunk_indices": [0],
                        }
                    ],
                },
            }
        ],
        "usage_metadata": {"prompt_token_count": 30, "candidates_token_count": 12},
        "model_version": "gemini-2.5-flash",
    }
).model_dump(mode="json", exclude_none=True, by_alias=True)

CHAT_SEARCH_REPLY = ChatCompletion.model_validate(
    chat_completion(
        "A new bridge opened.",
        model="gpt-4o-search-preview",
        usage={"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
        annotations=[
            {
                "type": "url_citation",
                "url_citation": {
                    "url": "https://example.org/paris",
                    "title": "Paris today",
                    "start_index": 0,
                    "end_index": 20,
                },
            }
        ],
    )
).model_dump(mode="json", exclude_none=True)
"""A Chat Completions search model's reply citing one page."""

ANTHROPIC_STREAM = anthropic_events(
    anthropic_message(usage={"input_tokens": 30, "output_tokens": 0}),
    (
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search"},
        [
            {"type": "input_json_delta", "partial_json": '{"query": "Pa'},
            {"type": "input_json_delta", "partial_json": 'ris news"}'},
        ],
    ),
    (ANTHROPIC_REPLY["content"][1], []),
    (
        {"type": "text", "text": ""},
        [
            {"type": "citations_delta", "citation": ANTHROPIC_REPLY["content"][2]["citations"][0]},
            {"type": "text_delta", "text": "A new bridge opened."},
        ],
    ),
    output_tokens=12,
)

WEB_ITEM = RESPONSES_REPLY["output"][0]
RESPONSES_STREAM = [
    {
        "type": "response.created",
        "response": {**RESPONSES_REPLY, "status": "in_progress", "output": []},
    },
    {"type": "response.output_item.added", "output_index": 0, "item": WEB_ITEM},
    {"type": "response.output_item.done", "output_index": 0, "item": WEB_ITEM},
    {"type": "response.output_text.delta", "item_id": "msg_1", "delta": "A new bridge opened."},
    {"type": "response.completed", "response": RESPONSES_REPLY},
]


def gemini_chunks() -> list[dict[str, Any]]:
    candidate = GEMINI_REPLY["candidates"][0]
    parts = candidate["content"]["parts"]
    first = {"candidates": [{"content": {"role": "model", "parts": parts[:2]}}]}
    last = {
        "candidates": [
            {
                "content": {"role": "model", "parts": parts[2:]},
                "finishReason": "STOP",
                "groundingMetadata": candidate["groundingMetadata"],
            }
        ],
        "usageMetadata": GEMINI_REPLY["usageMetadata"],
        "modelVersion": "gemini-2.5-flash",
    }
    return [first, last]
