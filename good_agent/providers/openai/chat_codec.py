"""Codec for the OpenAI Chat Completions wire format.

Tool names are sanitized to ``^[a-zA-Z0-9_-]{1,64}$`` through a per-request
`ToolNameMap`; with the ``strict_tools``
setting, parameters are made strict when the schema allows it.

References: https://platform.openai.com/docs/api-reference/chat/create and
https://platform.openai.com/docs/guides/function-calling
"""

from __future__ import annotations

import uuid
from typing import Any

from good_agent.providers import builtin_tools, thinking
from good_agent.providers.arguments import parsed_call
from good_agent.providers.history import history_tool_names, text_of
from good_agent.providers.openai.tools import function_definition, strict_setting
from good_agent.providers.parts import (
    read_part,
    tool_media_as_user,
    unsupported,
    without_media_key,
)
from good_agent.providers.reply_shape import (
    ReplyShapeError,
    field_list,
    field_object,
    items_of,
    reply_object,
)
from good_agent.providers.tool_choice import parse_tool_choice
from good_agent.providers.tool_names import OPENAI_NAMES, ToolNameMap, restore_call, tool_name
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.messages import REPLAY_KEY, ModelResponse
from good_agent.types.usage import Usage, token_count

SETTING_KEYS = (
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "user",
    "reasoning_effort",
)
"""The Chat Completions request keys that are sampling settings."""

PASSTHROUGH_KEYS = (
    "service_tier",
    "logit_bias",
    "logprobs",
    "top_logprobs",
    "n",
    "metadata",
    "store",
    "prediction",
    "modalities",
    "audio",
    "verbosity",
    "web_search_options",
    "prompt_cache_key",
    "safety_identifier",
)
"""Other Chat Completions request keys, sent as given."""

KNOWN_SETTINGS = frozenset((*SETTING_KEYS, *PASSTHROUGH_KEYS, "thinking"))
"""Every setting this codec takes (``thinking`` is translated for the API; see
`good_agent.providers.settings`)."""


PROVIDER = "openai"
"""The provider named in errors about malformed replies."""

API = "OpenAI Chat Completions"
"""The API named in errors about parts it has no form for."""


def tool_names(request: ChatRequest) -> ToolNameMap:
    """The per-request tool name map (tools first, then names in the history)."""
    names = [tool_name(t) for t in request.tools] + history_tool_names(request.messages)
    return ToolNameMap(OPENAI_NAMES, names)


def encode_request(model: str, request: ChatRequest, names: ToolNameMap | None = None) -> JSONDict:
    """Return the Chat Completions request body (also the SDK's keyword arguments)."""
    names = names or tool_names(request)
    body: JSONDict = {
        "model": model,
        "messages": [_wire_message(m, names) for m in tool_media_as_user(request.messages)],
    }
    if request.tools:
        strict = strict_setting(request.settings)
        tools = []
        for tool in request.tools:
            function, is_strict = function_definition(tool, names, strict)
            if is_strict:
                function["strict"] = True
            tools.append({"type": "function", "function": function})
        body["tools"] = tools
        if request.tool_choice is not None:
            choice = parse_tool_choice(request.tool_choice)
            body["tool_choice"] = (
                {"type": "function", "function": {"name": names.to_provider(choice.name)}}
                if choice.kind == "named" and choice.name is not None
                else choice.kind
            )
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    if request.response_format is not None:
        body["response_format"] = request.response_format
    if request.settings:  # none: nothing below adds a field
        _put_settings(body, request.settings)
    return body


_BODY_KEYS = (*SETTING_KEYS, *PASSTHROUGH_KEYS)


def _put_settings(body: JSONDict, settings: JSONDict) -> None:
    """The fields ``settings`` put on a request body: thinking, web search, the
    sampling and passed-through keys, then ``extra_body``."""
    body.update(thinking.openai_chat(settings))
    search = builtin_tools.chat_web_search_options(builtin_tools.requested(settings))
    if search is not None:
        body["web_search_options"] = search
    for key in _BODY_KEYS:
        if key in settings:
            body[key] = settings[key]
    # Server-specific fields (vLLM's structured_outputs / guided_json...) go on the body.
    body.update(settings.get("extra_body") or {})


def _wire_message(message: JSONDict, names: ToolNameMap) -> JSONDict:
    """Drop the extra keys OpenAI does not accept and sanitize tool names."""
    if message.get("role") == "tool":
        return {k: v for k, v in message.items() if k in ("role", "tool_call_id", "content")}
    if message.get("role") == "user" and isinstance(message.get("content"), list):
        return {**message, "content": [_wire_part(p) for p in message["content"]]}
    message = {k: v for k, v in message.items() if k != REPLAY_KEY}
    if message.get("tool_calls"):
        calls = []
        for call in message["tool_calls"]:
            function = dict(call.get("function") or {})
            function["name"] = names.to_provider(str(function.get("name", "")))
            calls.append({**call, "function": function})
        return {**message, "tool_calls": calls}
    return message


def _wire_part(part: Any) -> Any:
    """A content part as Chat Completions takes it: ``image_url`` (a URL or a data
    URL), ``input_audio`` (base64 and format), ``file`` (a data URL and a filename)."""
    media = read_part(part)
    if media is None:
        return part
    if media.url is not None and media.kind != "image":
        raise unsupported(API, media, f"Chat Completions takes {media.kind}s as inline data only")
    return without_media_key(part)


def decode_response(raw: JSONDict, names: ToolNameMap | None = None) -> ModelResponse:
    """Normalize a Chat Completions response body (first choice).

    A search model's ``url_citation`` annotations become the reply's ``citations``.
    A reply without choices, or with fields of the wrong shape, raises
    `ReplyShapeError`.
    """
    raw = reply_object(raw, PROVIDER)
    choices = items_of(field_list(raw, "choices", PROVIDER), "choices", PROVIDER)
    if not choices:
        raise ReplyShapeError(PROVIDER, "the reply has no choices (empty 'choices')", raw)
    choice = choices[0]
    message = field_object(choice, "message", PROVIDER, where="choices[0]")
    if not message and choice.get("message") is None:
        raise ReplyShapeError(PROVIDER, "choices[0] has no 'message'", raw)
    items = items_of(
        field_list(message, "tool_calls", PROVIDER, required=False), "tool_calls", PROVIDER
    )
    calls = [
        restore_call(
            parsed_call(
                str(item.get("id") or f"call_{uuid.uuid4().hex[:24]}"),
                str(field_object(item, "function", PROVIDER, where="tool_calls").get("name", "")),
                (item.get("function") or {}).get("arguments"),
            ),
            names,
        )
        for item in items
    ]
    content = message.get("content")
    if isinstance(content, list):
        content = text_of(content)
    elif content is not None and not isinstance(content, str):
        kind = type(content).__name__
        raise ReplyShapeError(PROVIDER, f"'message.content' is a {kind}, not text", raw)
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    cited = builtin_tools.Parts()
    builtin_tools.chat_annotations(message.get("annotations"), cited)
    return ModelResponse(
        content=content,
        tool_calls=calls,
        finish_reason=choice.get("finish_reason"),
        usage=_usage(raw.get("usage")),
        reasoning=reasoning if isinstance(reasoning, str) else None,
        model=raw.get("model"),
        citations=cited.citations,
    )


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    read, write = cache_counts(raw.get("prompt_tokens_details"))
    return Usage(
        input_tokens=token_count(raw.get("prompt_tokens")) or 0,
        output_tokens=token_count(raw.get("completion_tokens")) or 0,
        cache_read_tokens=read or 0,
        cache_write_tokens=write or 0,
    )


def cache_counts(details: Any) -> tuple[int | None, int | None]:
    """``cached_tokens`` and ``cache_write_tokens`` of an OpenAI usage details object
    (Chat Completions' ``prompt_tokens_details``, Responses' ``input_tokens_details``);
    ``None`` for a count it does not carry."""
    if not isinstance(details, dict):
        return None, None
    read, write = details.get("cached_tokens"), details.get("cache_write_tokens")
    return token_count(read), token_count(write)
