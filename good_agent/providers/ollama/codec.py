"""Codec for Ollama's native ``/api/chat`` endpoint.

Tool call arguments are JSON objects, not strings; tool results carry
``tool_name``. Ollama cannot force a tool, so ``tool_choice`` is applied by
filtering the tool list (``none`` sends no tools, a named choice only that tool).

Reference: https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
"""

from __future__ import annotations

import uuid
from typing import Any

from good_agent.providers import thinking
from good_agent.providers.arguments import parsed_call
from good_agent.providers.history import call_arguments, history_tool_names, text_of
from good_agent.providers.parts import media_in, tool_media_as_user, unsupported
from good_agent.providers.reply_shape import (
    ReplyShapeError,
    field_list,
    field_object,
    items_of,
    reply_object,
)
from good_agent.providers.schema.normalize import object_root
from good_agent.providers.tool_choice import filter_tools, parse_tool_choice
from good_agent.providers.tool_names import (
    PERMISSIVE_NAMES,
    ToolNameMap,
    tool_function,
    tool_name,
    tool_parameters,
)
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

_OPTIONS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "max_tokens": "num_predict",
    "max_completion_tokens": "num_predict",
    "num_predict": "num_predict",
    "stop": "stop",
    "seed": "seed",
    "num_ctx": "num_ctx",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
}

_TOP_LEVEL = ("think", "keep_alive")
"""Settings that are ``/api/chat`` body fields, not ``options``."""

KNOWN_SETTINGS = frozenset((*_OPTIONS, *_TOP_LEVEL, "thinking"))
"""Every setting this codec takes (see `good_agent.providers.settings`)."""


def tool_names(request: ChatRequest) -> ToolNameMap:
    """The per-request tool name map (Ollama accepts most names as they are)."""
    names = [tool_name(t) for t in request.tools] + history_tool_names(request.messages)
    return ToolNameMap(PERMISSIVE_NAMES, names)


def encode_request(model: str, request: ChatRequest, names: ToolNameMap | None = None) -> JSONDict:
    """Return the ``/api/chat`` request body (non-streaming)."""
    names = names or tool_names(request)
    body: JSONDict = {
        "model": model,
        "messages": [encode_message(m, names) for m in tool_media_as_user(request.messages)],
        "stream": False,
    }
    tools = filter_tools(request.tools, parse_tool_choice(request.tool_choice))
    if tools:
        body["tools"] = [encode_tool(tool, names) for tool in tools]
    options = {
        wire: request.settings[key] for key, wire in _OPTIONS.items() if key in request.settings
    }
    if options:
        body["options"] = options
    fmt = request.response_format or {}
    if fmt.get("type") == "json_object":
        body["format"] = "json"
    elif fmt.get("type") == "json_schema":
        body["format"] = (fmt.get("json_schema") or {}).get("schema", {})
    for key in _TOP_LEVEL:
        if key in request.settings:
            body[key] = request.settings[key]
    asked = thinking.setting_of(request.settings)
    if asked is not None:
        body["think"] = asked is not False
    return body


def encode_tool(tool: JSONDict, names: ToolNameMap) -> JSONDict:
    """One tool in Ollama's (OpenAI-shaped) tool format."""
    function = tool_function(tool)
    out: JSONDict = {
        "name": names.to_provider(tool_name(tool)),
        "parameters": object_root(tool_parameters(tool)),
    }
    if function.get("description"):
        out["description"] = function["description"]
    return {"type": "function", "function": out}


def encode_message(message: JSONDict, names: ToolNameMap) -> JSONDict:
    """One neutral message in Ollama's format (arguments as objects)."""
    role = message.get("role")
    out: JSONDict = {"role": role, "content": text_of(message.get("content"))}
    images = _images(message)
    if images:
        out["images"] = images
    if role == "assistant" and message.get("tool_calls"):
        out["tool_calls"] = [
            {
                "function": {
                    "name": names.to_provider(str((call.get("function") or {}).get("name", ""))),
                    "arguments": call_arguments(call),
                }
            }
            for call in message["tool_calls"]
        ]
    if role == "tool" and message.get("name"):
        out["tool_name"] = names.to_provider(str(message["name"]))
    if role == "developer":
        out["role"] = "system"
    return out


def _images(message: JSONDict) -> list[str]:
    """The message's images as base64 strings (Ollama takes inline images only)."""
    images: list[str] = []
    for media in media_in([message]):
        if media.kind != "image":
            raise unsupported("Ollama", media, f"Ollama takes images only, not {media.kind}")
        if media.data is None:
            raise unsupported("Ollama", media, "Ollama fetches no URLs: send the image bytes")
        images.append(media.data)
    return images


def decode_response(raw: JSONDict, names: ToolNameMap | None = None) -> ModelResponse:
    """Normalize an ``/api/chat`` response body (a malformed one raises
    `ReplyShapeError`)."""
    raw = reply_object(raw, "ollama")
    message = field_object(raw, "message", "ollama")
    if raw.get("message") is None:
        raise ReplyShapeError("ollama", "no 'message' in the reply", raw)
    calls = []
    tool_calls = field_list(message, "tool_calls", "ollama", required=False)
    for item in items_of(tool_calls, "tool_calls", "ollama"):
        function: JSONDict = item.get("function") or {}
        name = str(function.get("name", ""))
        arguments: Any = function.get("arguments")
        calls.append(
            parsed_call(
                str(item.get("id") or f"call_{uuid.uuid4().hex[:24]}"),
                names.to_original(name) if names else name,
                arguments,
            )
        )
    reason = raw.get("done_reason")
    finish = "tool_calls" if calls else (str(reason) if reason else None)
    return ModelResponse(
        content=message.get("content") or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=Usage(
            input_tokens=int(raw.get("prompt_eval_count") or 0),
            output_tokens=int(raw.get("eval_count") or 0),
        ),
        reasoning=message.get("thinking") or None,
        model=raw.get("model"),
    )
