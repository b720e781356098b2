"""Codec for the Anthropic Messages API.

The system prompt is hoisted to ``system``; assistant tool calls become ``tool_use``
blocks and tool results ``tool_result`` blocks (with ``is_error``) in a user turn,
consecutive results merged into one turn; tools carry ``input_schema``;
``tool_choice`` maps to ``auto``/``any``/``tool``/``none``, and
``parallel_tool_calls=False`` to ``disable_parallel_tool_use``.

References:
https://docs.anthropic.com/en/api/messages and
https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use
"""

from __future__ import annotations

import base64
from typing import Any

from good_agent.providers import builtin_tools, thinking
from good_agent.providers.anthropic.schema import to_anthropic_schema
from good_agent.providers.arguments import parsed_call
from good_agent.providers.history import (
    call_arguments,
    history_tool_names,
    system_text,
    text_of,
)
from good_agent.providers.parts import read_part, unsupported
from good_agent.providers.reply_shape import field_list, field_object, items_of, reply_object
from good_agent.providers.tool_choice import parse_tool_choice
from good_agent.providers.tool_names import (
    ANTHROPIC_NAMES,
    ToolNameMap,
    tool_function,
    tool_name,
    tool_parameters,
)
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.messages import MEDIA_RESULT_KEY, REPLAY_KEY, ModelResponse, ToolCall
from good_agent.types.usage import Usage, token_count

PROVIDER = "anthropic"
"""The provider named in errors about malformed replies."""

THINKING_TYPES = ("thinking", "redacted_thinking")
"""Content block types replayed on the assistant turn that follows them."""

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` sent when the request does not set one (the API requires it)."""

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
"""Anthropic ``stop_reason`` values mapped to the OpenAI finish reasons."""

_SETTINGS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "stop": "stop_sequences",
    "stop_sequences": "stop_sequences",
    "metadata": "metadata",
    "service_tier": "service_tier",
}

CACHE_SETTINGS = (
    "anthropic_cache_instructions",
    "anthropic_cache_tool_definitions",
    "anthropic_cache_messages",
)
"""Settings putting a ``cache_control`` breakpoint on the system prompt, the last tool
definition and the last block of the last message: ``True`` (the default 5-minute
cache), ``"5m"`` or ``"1h"`` (pydantic-ai's names and values)."""

CACHE_TTLS = ("5m", "1h")
"""The cache lifetimes Anthropic offers."""

KNOWN_SETTINGS = frozenset(
    (
        *_SETTINGS,
        *CACHE_SETTINGS,
        "max_tokens",
        "max_completion_tokens",
        "max_output_tokens",
        "thinking",
    )
)
"""Every setting this codec takes (see `good_agent.providers.settings`)."""


def tool_names(request: ChatRequest) -> ToolNameMap:
    """The per-request tool name map (tools first, then names in the history)."""
    names = [tool_name(t) for t in request.tools] + history_tool_names(request.messages)
    return ToolNameMap(ANTHROPIC_NAMES, names)


def encode_request(model: str, request: ChatRequest, names: ToolNameMap | None = None) -> JSONDict:
    """Return the Messages API request body (also ``messages.create`` keyword arguments)."""
    names = names or tool_names(request)
    body: JSONDict = {"model": model, "max_tokens": _max_tokens(request.settings)}
    system = system_blocks(request.messages) or system_text(request.messages)
    if system:
        body["system"] = system
    body["messages"] = encode_messages(request.messages, names)
    if request.tools:
        body["tools"] = [encode_tool(tool, names) for tool in request.tools]
        choice = _tool_choice(request, names)
        if choice is not None:
            body["tool_choice"] = choice
    server_tools = builtin_tools.anthropic_tools(builtin_tools.requested(request.settings))
    if server_tools:
        body["tools"] = [*body.get("tools", []), *server_tools]
    for key, wire in _SETTINGS.items():
        if key in request.settings:
            value = request.settings[key]
            body[wire] = [value] if wire == "stop_sequences" and isinstance(value, str) else value
    thinking.anthropic(body, request.settings)
    _cache_breakpoints(body, request.settings)
    return body


def cache_control(value: Any, setting: str) -> JSONDict | None:
    """The ``cache_control`` object a cache setting asks for (``None``: no breakpoint);
    a value other than a bool, ``"5m"`` or ``"1h"`` is a ``ValueError`` naming it."""
    if value is None or value is False:
        return None
    if value is True:
        return {"type": "ephemeral"}
    if value in CACHE_TTLS:
        return {"type": "ephemeral", "ttl": value}
    raise ValueError(f"{setting} must be true, false, '5m' or '1h', not {value!r}")


def _cache_breakpoints(body: JSONDict, settings: JSONDict) -> None:
    """Mark the system prompt, the last tool and the last message's last block for
    caching, as the ``anthropic_cache_*`` settings ask."""
    instructions, tools, messages = (cache_control(settings.get(k), k) for k in CACHE_SETTINGS)
    if instructions is not None and body.get("system"):
        system = body["system"]
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) else system
        blocks[-1] = {**blocks[-1], "cache_control": instructions}
        body["system"] = blocks
    if tools is not None and body.get("tools"):
        body["tools"][-1] = {**body["tools"][-1], "cache_control": tools}
    if messages is not None and body.get("messages"):
        last = body["messages"][-1]
        content = last.get("content")
        if isinstance(content, list) and content:
            content[-1] = {**content[-1], "cache_control": messages}


def encode_tool(tool: JSONDict, names: ToolNameMap) -> JSONDict:
    """One OpenAI function-format tool as an Anthropic tool definition."""
    function = tool_function(tool)
    out: JSONDict = {
        "name": names.to_provider(tool_name(tool)),
        "input_schema": to_anthropic_schema(tool_parameters(tool)),
    }
    if function.get("description"):
        out["description"] = function["description"]
    return _cached(out, tool)


def _max_tokens(settings: JSONDict) -> int:
    for key in ("max_tokens", "max_completion_tokens", "max_output_tokens"):
        if settings.get(key):
            return int(settings[key])
    return DEFAULT_MAX_TOKENS


def _tool_choice(request: ChatRequest, names: ToolNameMap) -> JSONDict | None:
    choice = parse_tool_choice(request.tool_choice)
    out: JSONDict
    if choice.kind == "none":
        return {"type": "none"}
    if choice.kind == "required":
        out = {"type": "any"}
    elif choice.kind == "named" and choice.name is not None:
        out = {"type": "tool", "name": names.to_provider(choice.name)}
    elif request.tool_choice is None and request.parallel_tool_calls is not False:
        return None
    else:
        out = {"type": "auto"}
    if request.parallel_tool_calls is False:
        out["disable_parallel_tool_use"] = True
    return out


def encode_messages(messages: list[JSONDict], names: ToolNameMap) -> list[JSONDict]:
    """Translate the neutral history; consecutive same-role turns are merged."""
    turns: list[JSONDict] = []
    for message in messages:
        role = message.get("role")
        if role in ("system", "developer"):
            continue
        if role == "tool":
            blocks = [_tool_result(message)]
            wire_role = "user"
        elif role == "assistant":
            blocks = _assistant_blocks(message, names)
            wire_role = "assistant"
        else:
            blocks = _user_blocks(message.get("content"))
            wire_role = "user"
        if not blocks:
            continue
        if turns and turns[-1]["role"] == wire_role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": wire_role, "content": blocks})
    return turns


def _user_blocks(content: Any) -> list[JSONDict]:
    if isinstance(content, list):
        return [_user_block(part) for part in content if isinstance(part, dict)]
    text = text_of(content)
    return [{"type": "text", "text": text}] if text else []


def _user_block(part: JSONDict) -> JSONDict:
    """A text part, or a media part as an ``image`` or ``document`` block with a
    ``base64``, ``url`` or (plain text documents) ``text`` source."""
    if part.get("type") == "text":
        return _cached({"type": "text", "text": part["text"]}, part)
    media = read_part(part)
    if media is None:
        return part
    if media.kind == "audio":
        raise unsupported("Anthropic Messages", media, "the Messages API takes no audio")
    source: JSONDict
    if media.url is not None:
        source = {"type": "url", "url": media.url}
    elif media.kind == "document" and media.media_type == "text/plain":
        text = base64.b64decode(media.data or "").decode("utf-8", errors="replace")
        source = {"type": "text", "media_type": "text/plain", "data": text}
    else:
        source = {"type": "base64", "media_type": media.media_type, "data": media.data}
    return _cached({"type": media.kind, "source": source}, part)


def _assistant_blocks(message: JSONDict, names: ToolNameMap) -> list[JSONDict]:
    # Thinking blocks go back first, signatures intact: with extended thinking and
    # tools, the turn carrying tool_use must start with the thinking that led to it.
    # Server tool blocks (server_tool_use and its result) follow, as the API sent them.
    replay = [item for item in message.get(REPLAY_KEY) or [] if isinstance(item, dict)]
    blocks: list[JSONDict] = [dict(i) for i in replay if i.get("type") in THINKING_TYPES]
    blocks += [dict(i) for i in replay if i.get("type") in builtin_tools.ANTHROPIC_SERVER_TYPES]
    text = text_of(message.get("content"))
    if text:
        blocks.append({"type": "text", "text": text})
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        blocks.append(
            {
                "type": "tool_use",
                "id": call.get("id"),
                "name": names.to_provider(str(function.get("name", ""))),
                "input": call_arguments(call),
            }
        )
    if blocks and CACHE_KEY in message:
        blocks[-1] = _cached(blocks[-1], message)
    return blocks


def _tool_result(message: JSONDict) -> JSONDict:
    """A ``tool_result`` block; media the tool returned go in its content blocks."""
    text = text_of(message.get("content"))
    media = [_user_block(part) for part in message.get(MEDIA_RESULT_KEY) or []]
    block: JSONDict = {
        "type": "tool_result",
        "tool_use_id": message.get("tool_call_id"),
        "content": [{"type": "text", "text": text}, *media] if media else text,
    }
    if message.get("is_error"):
        block["is_error"] = True
    return _cached(block, message)


CACHE_KEY = "cache_control"
"""The key of a cache breakpoint on a neutral part, message or tool (a bridge client's
own ``cache_control``), sent on the block made from it."""


def _cached(block: JSONDict, neutral: JSONDict) -> JSONDict:
    """``block`` with the breakpoint of the ``neutral`` item it was made from."""
    control = neutral.get(CACHE_KEY)
    return {**block, CACHE_KEY: control} if isinstance(control, dict) else block


def system_blocks(messages: list[JSONDict]) -> list[JSONDict] | None:
    """The system prompt as text blocks when a part of it carries a cache breakpoint
    (else ``None``: the plain text is sent)."""
    blocks: list[JSONDict] = []
    marked = False
    for message in messages:
        if message.get("role") not in ("system", "developer"):
            continue
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "text":
                    marked = marked or CACHE_KEY in part
                    blocks.append(_cached({"type": "text", "text": part["text"]}, part))
        elif text_of(content):
            blocks.append({"type": "text", "text": text_of(content)})
    return blocks if marked else None


def decode_response(raw: JSONDict, names: ToolNameMap | None = None) -> ModelResponse:
    """Normalize a Messages API response body.

    ``thinking`` and ``redacted_thinking`` blocks, and the blocks of server tools
    (``server_tool_use``, ``web_search_tool_result``...), are kept whole in
    ``ModelResponse.replay`` so the next request can send them back; the server tools'
    calls, results and the text's citations fill the reply's ``builtin_calls``,
    ``builtin_results`` and ``citations``. A reply whose
    ``content`` is not a list of blocks raises
    `ReplyShapeError`.
    """
    raw = reply_object(raw, PROVIDER)
    texts: list[str] = []
    thinking: list[str] = []
    replay: list[JSONDict] = []
    calls: list[ToolCall] = []
    server = builtin_tools.Parts()
    for block in items_of(field_list(raw, "content", PROVIDER), "content", PROVIDER):
        kind = block.get("type")
        if builtin_tools.anthropic_block(block, server):
            replay.append({k: v for k, v in block.items() if v is not None})
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind in THINKING_TYPES:
            if kind == "thinking":
                thinking.append(str(block.get("thinking") or ""))
            replay.append({k: v for k, v in block.items() if v is not None})
        elif kind == "tool_use":
            name = str(block.get("name", ""))
            calls.append(
                parsed_call(
                    str(block.get("id") or f"toolu_{len(calls)}"),
                    names.to_original(name) if names else name,
                    block.get("input"),
                )
            )
    usage = field_object(raw, "usage", PROVIDER)
    stop = raw.get("stop_reason")
    return ModelResponse(
        content="".join(texts) if texts else None,
        tool_calls=calls,
        finish_reason=STOP_REASONS.get(str(stop), stop) if stop else None,
        usage=decode_usage(usage),
        reasoning="".join(thinking) if thinking else None,
        model=raw.get("model"),
        replay=replay,
        **server.as_fields(),
    )


def usage_counts(usage: JSONDict) -> tuple[int | None, int | None, int | None, int | None]:
    """Input (the uncached, cache-read and cache-write tokens added up), output,
    cache-read and cache-write counts of a Messages ``usage`` object; ``None`` for a
    count it does not carry."""
    read = usage.get("cache_read_input_tokens")
    write = usage.get("cache_creation_input_tokens")
    given = usage.get("input_tokens")
    given, read, write = token_count(given), token_count(read), token_count(write)
    total = None if given is None else given + (read or 0) + (write or 0)
    return total, token_count(usage.get("output_tokens")), read, write


def decode_usage(usage: JSONDict) -> Usage:
    """A Messages ``usage`` object as [`Usage`][good_agent.Usage] (``input_tokens``
    counting the cached tokens, as the other providers report them)."""
    total, out, read, write = usage_counts(usage)
    return Usage(total or 0, out or 0, read or 0, write or 0, hour_writes(usage) or 0)


def hour_writes(usage: JSONDict) -> int | None:
    """``cache_creation.ephemeral_1h_input_tokens``: the cache writes kept for an hour."""
    creation = usage.get("cache_creation")
    count = creation.get("ephemeral_1h_input_tokens") if isinstance(creation, dict) else None
    return token_count(count)
