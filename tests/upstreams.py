"""What the loopback fake upstream (`fake_upstream` in `conftest.py`) answers, and the
models pointed at it, written once for the model and the bridge tests.

A reply in the fake's script is ``(status, json)`` or ``(status, bytes, headers)``;
``sse`` makes the second of a list of events. Each vendor's whole reply is built by
one function here (``chat_completion``, ``anthropic_message``,
``gemini_reply``); ``anthropic_events`` streams an Anthropic message block by block.
``model_of`` is a model of one API at the fake's URL, ``closing`` closes it after.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from good_agent.models import (
    AnthropicModel,
    GeminiModel,
    OllamaModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
)
from good_agent.models.provider_model import ProviderModel

NAMES = {
    "chat": "gpt-4o",
    "responses": "gpt-4o",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "ollama": "llama3.1",
}
"""The model each API's ``model_of`` asks for when no name is given."""


def sse(events: list[dict[str, Any]], named: bool = True) -> tuple[int, bytes, dict[str, str]]:
    """A fake's reply streaming ``events`` (each with an ``event:`` line of its
    ``type`` if ``named``)."""
    text = "".join(
        (f"event: {e['type']}\n" if named and "type" in e else "") + f"data: {json.dumps(e)}\n\n"
        for e in events
    )
    return 200, text.encode(), {"content-type": "text/event-stream"}


def model_of(kind: str, url: str, name: str | None = None, **options: Any) -> ProviderModel:
    """A model of the API ``kind`` (chat, responses, anthropic, gemini, ollama) at the
    fake's ``url``; ``options`` go to its class."""
    name = name or NAMES[kind]
    if kind == "chat":
        return OpenAIChatModel(name, base_url=f"{url}/v1", api_key="k", **options)
    if kind == "responses":
        return OpenAIResponsesModel(name, base_url=f"{url}/v1", api_key="k", **options)
    if kind == "anthropic":
        return AnthropicModel(name, base_url=url, api_key="k", **options)
    if kind == "ollama":
        return OllamaModel(name, base_url=url, api_key="k", **options)
    return GeminiModel(name, base_url=url, api_key="k", **options)


def chat_completion(
    content: str | None = "Sunny.",
    *,
    model: str = "gpt-4o",
    usage: dict[str, Any] | None = None,
    **message: Any,
) -> dict[str, Any]:
    """A Chat Completions reply of one choice: ``content`` and ``message``'s fields."""
    reply: dict[str, Any] = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": "stop",
            }
        ],
    }
    return reply if usage is None else {**reply, "usage": usage}


def anthropic_message(
    *blocks: dict[str, Any],
    usage: dict[str, Any] | None = None,
    stop: str = "end_turn",
    model: str = "claude-sonnet-4-5",
) -> dict[str, Any]:
    """An Anthropic Messages reply of ``blocks``."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage or {"input_tokens": 3, "output_tokens": 2},
    }


def anthropic_events(
    message: dict[str, Any],
    *blocks: tuple[dict[str, Any], list[dict[str, Any]]],
    output_tokens: int = 5,
) -> list[dict[str, Any]]:
    """``message`` streamed as Anthropic events: its start (no content yet, its usage as
    it is), each ``(block, deltas)`` in turn, then its stop reason and ``output_tokens``."""
    start = {**message, "content": [], "stop_reason": None}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, (block, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": output_tokens}
    events.append({"type": "message_delta", "delta": stop, "usage": usage})
    events.append({"type": "message_stop"})
    return events


def anthropic_text_events(message: dict[str, Any], text: str = "Sunny.") -> list[dict[str, Any]]:
    """``message`` streamed as one text block of ``text``: its usage at the start (one
    output token so far), five output tokens at the end."""
    started = {**message, "usage": {**message["usage"], "output_tokens": 1}}
    text_block = {"type": "text", "text": ""}
    return anthropic_events(started, (text_block, [{"type": "text_delta", "text": text}]))


@asynccontextmanager
async def closing(model: ProviderModel) -> AsyncIterator[ProviderModel]:
    """``model``, closed on leaving."""
    try:
        yield model
    finally:
        await model.aclose()


def gemini_reply(
    *parts: dict[str, Any], usage: dict[str, Any] | None = None, **fields: Any
) -> dict[str, Any]:
    """A Gemini ``generateContent`` reply of one candidate holding ``parts``."""
    return {
        "candidates": [
            {"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}
        ],
        "usageMetadata": usage or {"promptTokenCount": 3, "candidatesTokenCount": 2},
        **fields,
    }
