"""Codec for the Gemini API ``generateContent`` method.

Tools become ``function_declarations`` (parameters in Gemini's schema subset);
assistant tool calls become ``function_call`` parts and tool results
``function_response`` parts, the function name recovered by call id from the
history; ``tool_choice`` maps to ``tool_config.function_calling_config`` (mode
``AUTO``/``ANY``/``NONE`` and ``allowed_function_names``). Gemini may omit call
ids: ids are then generated (prefixed ``gemini_call_``) and left out of the next
request. The body uses snake_case field names, which the REST API and the
``google-genai`` SDK both accept; responses are decoded in either casing.

References:
https://ai.google.dev/api/generate-content,
https://ai.google.dev/gemini-api/docs/function-calling and
https://ai.google.dev/gemini-api/docs/thought-signatures
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from good_agent.providers import builtin_tools, thinking
from good_agent.providers.arguments import parsed_call
from good_agent.providers.gemini.schema import to_gemini_schema
from good_agent.providers.history import (
    call_arguments,
    call_names_by_id,
    history_tool_names,
    system_text,
    text_of,
)
from good_agent.providers.parts import read_part, tool_media_as_user
from good_agent.providers.reply_shape import ReplyShapeError, reply_object
from good_agent.providers.tool_choice import parse_tool_choice
from good_agent.providers.tool_names import (
    GEMINI_NAMES,
    ToolNameMap,
    tool_function,
    tool_name,
    tool_parameters,
)
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.messages import REPLAY_KEY, ModelResponse, ToolCall
from good_agent.types.usage import Usage, token_count

GENERATED_ID_PREFIX = "gemini_call_"
"""Prefix of call ids generated for calls Gemini returned without one."""

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The documented placeholder thought signature for calls whose signature is unknown."""

FINISH_REASONS = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}
"""Gemini ``finishReason`` values mapped to the OpenAI finish reasons."""

_GENERATION = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "max_tokens": "max_output_tokens",
    "max_completion_tokens": "max_output_tokens",
    "max_output_tokens": "max_output_tokens",
    "stop": "stop_sequences",
    "stop_sequences": "stop_sequences",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "thinking_config": "thinking_config",
    "candidate_count": "candidate_count",
    "response_logprobs": "response_logprobs",
    "logprobs": "logprobs",
    "response_modalities": "response_modalities",
    "media_resolution": "media_resolution",
    "speech_config": "speech_config",
}

_TOP_LEVEL = ("safety_settings", "cached_content", "labels")
"""Settings that are ``generateContent`` body fields, not generation config."""

KNOWN_SETTINGS = frozenset((*_GENERATION, *_TOP_LEVEL, "thinking"))
"""Every setting this codec takes (see `good_agent.providers.settings`)."""


def tool_names(request: ChatRequest) -> ToolNameMap:
    """The per-request tool name map (tools first, then names in the history)."""
    names = [tool_name(t) for t in request.tools] + history_tool_names(request.messages)
    return ToolNameMap(GEMINI_NAMES, names)


def encode_request(
    model: str,
    request: ChatRequest,
    names: ToolNameMap | None = None,
    *,
    thought_signatures: Mapping[str, str] | None = None,
) -> JSONDict:
    """Return the ``generateContent`` body (``model`` is kept for the transport).

    ``thought_signatures`` maps call ids to the signatures Gemini returned with
    them; Gemini 3 models require them back on their function calls.
    """
    names = names or tool_names(request)
    signatures = dict(thought_signatures or {})
    if model.startswith("gemini-3") or "/gemini-3" in model:
        signatures = _with_placeholders(request.messages, signatures)
    body: JSONDict = {
        "model": model,
        "contents": encode_contents(request.messages, names, signatures),
    }
    system = system_text(request.messages)
    if system:
        body["system_instruction"] = {"parts": [{"text": system}]}
    if request.tools:
        declarations = [encode_tool(tool, names) for tool in request.tools]
        body["tools"] = [{"function_declarations": declarations}]
        config = _function_calling_config(request, names)
        if config is not None:
            body["tool_config"] = {"function_calling_config": config}
    hosted = builtin_tools.gemini_tools(builtin_tools.requested(request.settings))
    if hosted:
        body["tools"] = [*body.get("tools", []), *hosted]
    generation = _generation_config(request)
    thinking_config = thinking.gemini(model, request.settings)
    if thinking_config is not None:
        generation["thinking_config"] = {**thinking_config, **generation.get("thinking_config", {})}
    if generation:
        body["generation_config"] = generation
    for key in _TOP_LEVEL:
        if key in request.settings:
            body[key] = request.settings[key]
    return body


def encode_tool(tool: JSONDict, names: ToolNameMap) -> JSONDict:
    """One OpenAI function-format tool as a Gemini function declaration."""
    function = tool_function(tool)
    out: JSONDict = {"name": names.to_provider(tool_name(tool))}
    if function.get("description"):
        out["description"] = function["description"]
    params = to_gemini_schema(tool_parameters(tool))
    if params.get("properties"):
        out["parameters"] = params
    return out


def _function_calling_config(request: ChatRequest, names: ToolNameMap) -> JSONDict | None:
    choice = parse_tool_choice(request.tool_choice)
    if choice.kind == "none":
        return {"mode": "NONE"}
    if choice.kind == "required":
        return {"mode": "ANY"}
    if choice.kind == "named" and choice.name is not None:
        return {"mode": "ANY", "allowed_function_names": [names.to_provider(choice.name)]}
    return {"mode": "AUTO"} if request.tool_choice is not None else None


def _generation_config(request: ChatRequest) -> JSONDict:
    config: JSONDict = {}
    for key, wire in _GENERATION.items():
        if key in request.settings:
            value = request.settings[key]
            config[wire] = [value] if wire == "stop_sequences" and isinstance(value, str) else value
    fmt = request.response_format or {}
    if fmt.get("type") == "json_object":
        config["response_mime_type"] = "application/json"
    elif fmt.get("type") == "json_schema":
        config["response_mime_type"] = "application/json"
        config["response_json_schema"] = (fmt.get("json_schema") or {}).get("schema", {})
    return config


def _with_placeholders(messages: list[JSONDict], signatures: dict[str, str]) -> dict[str, str]:
    out = dict(signatures)
    for message in messages:
        calls = message.get("tool_calls") or []
        if calls and str(calls[0].get("id")) not in out:
            out[str(calls[0].get("id"))] = SKIP_SIGNATURE
    return out


def encode_contents(
    messages: list[JSONDict], names: ToolNameMap, signatures: Mapping[str, str] | None = None
) -> list[JSONDict]:
    """Translate the neutral history into ``contents``; same-role turns are merged."""
    by_id = call_names_by_id(messages)
    contents: list[JSONDict] = []
    for message in tool_media_as_user(messages):
        role = message.get("role")
        if role in ("system", "developer"):
            continue
        if role == "assistant":
            parts = _model_parts(message, names, signatures or {})
            wire_role = "model"
        elif role == "tool":
            parts = [_function_response(message, names, by_id)]
            wire_role = "user"
        else:
            parts = _user_parts(message.get("content"))
            wire_role = "user"
        if not parts:
            continue
        if contents and contents[-1]["role"] == wire_role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": wire_role, "parts": parts})
    return contents


def _user_parts(content: Any) -> list[JSONDict]:
    """Text parts, and media as ``inline_data`` (base64) or ``file_data`` (a URI)."""
    if not isinstance(content, list):
        text = text_of(content)
        return [{"text": text}] if text else []
    parts: list[JSONDict] = []
    for part in content:
        media = read_part(part)
        if media is None:
            text = text_of([part])
            if text:
                parts.append({"text": text})
        elif media.url is not None:
            parts.append({"file_data": {"mime_type": media.media_type, "file_uri": media.url}})
        else:
            parts.append({"inline_data": {"mime_type": media.media_type, "data": media.data}})
    return parts


def _model_parts(
    message: JSONDict, names: ToolNameMap, signatures: Mapping[str, str]
) -> list[JSONDict]:
    # Code execution parts (executable_code, code_execution_result) go back first.
    parts: list[JSONDict] = [
        dict(item)
        for item in message.get(REPLAY_KEY) or []
        if isinstance(item, dict) and any(k in item for k in builtin_tools.GEMINI_PART_KEYS)
    ]
    text = text_of(message.get("content"))
    if text:
        parts.append({"text": text})
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        call_id = str(call.get("id") or "")
        wire: JSONDict = {
            "name": names.to_provider(str(function.get("name", ""))),
            "args": call_arguments(call),
        }
        if call_id and not call_id.startswith(GENERATED_ID_PREFIX):
            wire["id"] = call_id
        part: JSONDict = {"function_call": wire}
        if call_id in signatures:
            part["thought_signature"] = signatures[call_id]
        parts.append(part)
    return parts


def _function_response(message: JSONDict, names: ToolNameMap, by_id: Mapping[str, str]) -> JSONDict:
    call_id = str(message.get("tool_call_id") or "")
    name = by_id.get(call_id) or str(message.get("name") or "")
    text = text_of(message.get("content"))
    key = "error" if message.get("is_error") else "output"
    response: JSONDict = {"name": names.to_provider(name), "response": {key: _json_or_text(text)}}
    if call_id and not call_id.startswith(GENERATED_ID_PREFIX):
        response["id"] = call_id
    return {"function_response": response}


def _json_or_text(text: str) -> Any:
    if text[:1] in ("{", "["):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def field_of(mapping: Any, snake: str) -> Any:
    """Read ``snake`` or its camelCase spelling from a response object (``None`` if absent)."""
    if not isinstance(mapping, dict):
        return None
    if snake in mapping:
        return mapping[snake]
    head, *rest = snake.split("_")
    return mapping.get(head + "".join(word.title() for word in rest))


def new_call_id() -> str:
    """A fresh id for a call Gemini returned without one."""
    return f"{GENERATED_ID_PREFIX}{uuid.uuid4().hex[:16]}"


def decode_response(raw: JSONDict, names: ToolNameMap | None = None) -> ModelResponse:
    """Normalize a ``generateContent`` response (first candidate)."""
    return decode_with_signatures(raw, names)[0]


def decode_with_signatures(
    raw: JSONDict, names: ToolNameMap | None = None
) -> tuple[ModelResponse, dict[str, str]]:
    """Like `decode_response`, also returning call id -> thought signature.

    Code execution parts and the candidate's grounding and URL context metadata fill
    the reply's ``builtin_calls``, ``builtin_results`` and ``citations``; the code
    execution parts are kept in ``replay`` to go back with the turn.
    """
    raw = reply_object(raw, "gemini")
    candidates = field_of(raw, "candidates") or []
    if not isinstance(candidates, list) or not all(isinstance(c, dict) for c in candidates):
        raise ReplyShapeError("gemini", "'candidates' is not a list of objects", raw)
    blocked = field_of(field_of(raw, "prompt_feedback"), "block_reason")
    if not candidates and not blocked:
        raise ReplyShapeError("gemini", "the reply has no candidates", raw)
    candidate = candidates[0] if candidates else {}
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    signatures: dict[str, str] = {}
    hosted = builtin_tools.Parts()
    replay: list[JSONDict] = []
    for part in field_of(field_of(candidate, "content"), "parts") or []:
        call = field_of(part, "function_call")
        kept = builtin_tools.gemini_part(part, hosted) if isinstance(part, dict) else None
        if kept is not None:
            replay.append(kept)
        elif isinstance(call, dict):
            call_id = str(call.get("id") or new_call_id())
            name = str(call.get("name") or "")
            args = call.get("args")
            calls.append(
                parsed_call(call_id, names.to_original(name) if names else name, args or {})
            )
            signature = field_of(part, "thought_signature")
            if isinstance(signature, str):
                signatures[call_id] = signature
        elif isinstance(part.get("text"), str):
            (thoughts if part.get("thought") else texts).append(part["text"])
    usage = field_of(raw, "usage_metadata") or {}
    reason = field_of(candidate, "finish_reason")
    finish = FINISH_REASONS.get(str(reason), str(reason).lower()) if reason else None
    if calls and finish == "stop":
        finish = "tool_calls"
    if not candidates:
        finish = "content_filter"  # the prompt was blocked (promptFeedback.blockReason)
    response = ModelResponse(
        content="".join(texts) if texts else None,
        tool_calls=calls,
        finish_reason=finish,
        usage=Usage(
            input_tokens=token_count(field_of(usage, "prompt_token_count")) or 0,
            output_tokens=(token_count(field_of(usage, "candidates_token_count")) or 0)
            + (token_count(field_of(usage, "thoughts_token_count")) or 0),
            cache_read_tokens=token_count(field_of(usage, "cached_content_token_count")) or 0,
        ),
        reasoning="".join(thoughts) if thoughts else None,
        model=field_of(raw, "model_version"),
        replay=replay,
    )
    builtin_tools.gemini_grounding(candidate, hosted)
    response.builtin_calls = hosted.calls
    response.builtin_results = hosted.results
    response.citations = hosted.citations
    return response, signatures
