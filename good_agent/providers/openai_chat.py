"""Codec for the OpenAI Chat Completions wire format.

Reference: https://platform.openai.com/docs/api-reference/chat/create
"""

from __future__ import annotations

from typing import Any

from good_agent.providers.arguments import parsed_call
from good_agent.providers.types import ChatRequest, JSONDict, ProviderResponse, Usage

_SETTING_KEYS = (
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "user",
)


def encode_request(model: str, request: ChatRequest) -> JSONDict:
    """Return the Chat Completions request body (also the SDK's keyword arguments)."""
    body: JSONDict = {"model": model, "messages": [_wire_message(m) for m in request.messages]}
    if request.tools:
        body["tools"] = request.tools
        if request.tool_choice is not None:
            body["tool_choice"] = request.tool_choice
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    if request.response_format is not None:
        body["response_format"] = request.response_format
    for key in _SETTING_KEYS:
        if key in request.settings:
            body[key] = request.settings[key]
    return body


def _wire_message(message: JSONDict) -> JSONDict:
    """Drop the extra keys the neutral format carries that OpenAI does not accept."""
    if message.get("role") == "tool":
        return {k: v for k, v in message.items() if k in ("role", "tool_call_id", "content")}
    return message


def decode_response(raw: JSONDict) -> ProviderResponse:
    """Normalize a Chat Completions response body (first choice)."""
    choices: list[JSONDict] = raw.get("choices") or []
    if not choices:
        return ProviderResponse(content=None, usage=_usage(raw.get("usage")), model=raw.get("model"))
    choice = choices[0]
    message: JSONDict = choice.get("message") or {}
    calls = tuple(
        parsed_call(
            str(item.get("id") or f"call_{index}"),
            str((item.get("function") or {}).get("name", "")),
            (item.get("function") or {}).get("arguments"),
        )
        for index, item in enumerate(message.get("tool_calls") or [])
    )
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    return ProviderResponse(
        content=message.get("content"),
        tool_calls=calls,
        finish_reason=choice.get("finish_reason"),
        usage=_usage(raw.get("usage")),
        reasoning=reasoning if isinstance(reasoning, str) else None,
        model=raw.get("model"),
    )


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=int(raw.get("prompt_tokens") or 0),
        output_tokens=int(raw.get("completion_tokens") or 0),
    )
