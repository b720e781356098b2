"""Codec for the OpenAI Responses API.

History becomes ``input`` items: messages, ``function_call`` items (``call_id``,
``name``, string ``arguments``) and ``function_call_output`` items (whose ``output`` is
the tool's text, or, when the tool returned images or documents, a list of
``input_text``, ``input_image`` and ``input_file`` parts). Function tools
are flat (``{"type": "function", "name", "parameters", "strict"}``); ``strict`` is
always sent because the Responses API defaults it to true.

Reference: https://platform.openai.com/docs/api-reference/responses/create and
https://platform.openai.com/docs/guides/function-calling
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from good_agent.providers import builtin_tools, thinking
from good_agent.providers.arguments import parsed_call
from good_agent.providers.history import history_tool_names, text_of
from good_agent.providers.openai.chat_codec import cache_counts
from good_agent.providers.openai.tools import function_definition, strict_setting
from good_agent.providers.parts import media_in, read_part, unsupported
from good_agent.providers.reply_shape import field_list, field_object, items_of, reply_object
from good_agent.providers.tool_choice import parse_tool_choice
from good_agent.providers.tool_names import OPENAI_NAMES, ToolNameMap, restore_call, tool_name
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.messages import MEDIA_RESULT_KEY, REPLAY_KEY, ModelResponse, ToolCall
from good_agent.types.usage import Usage, token_count

PROVIDER = "openai-responses"
"""The provider named in errors about malformed replies."""

_SETTINGS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_tokens": "max_output_tokens",
    "max_completion_tokens": "max_output_tokens",
    "max_output_tokens": "max_output_tokens",
    "reasoning": "reasoning",
    "user": "user",
    "store": "store",
    "include": "include",
    "service_tier": "service_tier",
    "metadata": "metadata",
    "truncation": "truncation",
    "top_logprobs": "top_logprobs",
    "max_tool_calls": "max_tool_calls",
    "prompt_cache_key": "prompt_cache_key",
    "safety_identifier": "safety_identifier",
}

KNOWN_SETTINGS = frozenset((*_SETTINGS, "thinking"))
"""Every setting this codec takes (see `good_agent.providers.settings`)."""


def tool_names(request: ChatRequest) -> ToolNameMap:
    """The per-request tool name map (tools first, then names in the history)."""
    names = [tool_name(t) for t in request.tools] + history_tool_names(request.messages)
    return ToolNameMap(OPENAI_NAMES, names)


def encode_request(model: str, request: ChatRequest, names: ToolNameMap | None = None) -> JSONDict:
    """Return the ``responses.create`` body."""
    names = names or tool_names(request)
    body: JSONDict = {"model": model, "input": encode_input(request.messages, names)}
    if request.tools:
        strict = strict_setting(request.settings)
        tools = []
        for tool in request.tools:
            function, is_strict = function_definition(tool, names, strict)
            tools.append({"type": "function", **function, "strict": is_strict})
        body["tools"] = tools
        choice = parse_tool_choice(request.tool_choice)
        if choice.kind == "named" and choice.name is not None:
            body["tool_choice"] = {"type": "function", "name": names.to_provider(choice.name)}
        elif request.tool_choice is not None:
            body["tool_choice"] = choice.kind
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    hosted = builtin_tools.responses_tools(builtin_tools.requested(request.settings))
    if hosted:
        body["tools"] = [*body.get("tools", []), *hosted]
    fmt = request.response_format
    if fmt is not None and fmt.get("type") == "json_schema":
        body["text"] = {"format": {"type": "json_schema", **(fmt.get("json_schema") or {})}}
    elif fmt is not None:
        body["text"] = {"format": fmt}
    body.update(thinking.openai_responses(request.settings))
    for key, wire in _SETTINGS.items():
        if key in request.settings:
            body[wire] = request.settings[key]
    return body


def encode_input(messages: list[JSONDict], names: ToolNameMap) -> list[JSONDict]:
    """Translate the neutral history into Responses ``input`` items."""
    items: list[JSONDict] = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            items.append(_call_output(message))
            continue
        item_ids: dict[str, str] = {}
        if role == "assistant":
            # Reasoning items go back before the calls they led to (reasoning models
            # need them to continue after a function call), and those calls keep their
            # item ids so the API can pair them with the reasoning.
            replay = [i for i in message.get(REPLAY_KEY) or [] if isinstance(i, dict)]
            reasoning = [dict(i) for i in replay if i.get("type") == "reasoning"]
            items.extend(reasoning)
            # Built-in tool items (web_search_call...) go back as the API sent them.
            items.extend(
                dict(i) for i in replay if i.get("type") in builtin_tools.RESPONSES_ITEM_TYPES
            )
            if reasoning:
                item_ids = {
                    str(i["call_id"]): str(i["id"])
                    for i in replay
                    if i.get("type") == "function_call" and i.get("id") and i.get("call_id")
                }
        content = message.get("content")
        if role == "user" and isinstance(content, list) and media_in([message]):
            items.append({"role": role, "content": [_input_part(p) for p in content]})
        else:
            text = text_of(content)
            if text or role != "assistant":
                items.append({"role": role, "content": text})
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            raw = function.get("arguments")
            item: JSONDict = {
                "type": "function_call",
                "call_id": call.get("id"),
                "name": names.to_provider(str(function.get("name", ""))),
                "arguments": raw if isinstance(raw, str) else json.dumps(raw or {}),
            }
            if str(call.get("id")) in item_ids:
                item["id"] = item_ids[str(call.get("id"))]
            items.append(item)
    return items


def _call_output(message: JSONDict) -> JSONDict:
    """A ``function_call_output`` item; media the tool returned go in its ``output``
    list after the text (the Responses API's own slot for them)."""
    text = text_of(message.get("content"))
    media = message.get(MEDIA_RESULT_KEY) or []
    output: str | list[JSONDict] = text
    if media:
        output = [{"type": "input_text", "text": text}, *map(_input_part, media)]
    return {
        "type": "function_call_output",
        "call_id": message.get("tool_call_id"),
        "output": output,
    }


def _input_part(part: Any) -> JSONDict:
    """A content part as a Responses ``input_text``, ``input_image`` or ``input_file``."""
    media = read_part(part)
    if media is None:
        return {"type": "input_text", "text": text_of([part])}
    if media.kind == "audio":
        raise unsupported("OpenAI Responses", media, "the Responses API takes no audio input")
    if media.kind == "image":
        return {"type": "input_image", "image_url": media.as_url()}
    if media.url is not None:
        return {"type": "input_file", "file_url": media.url}
    return {
        "type": "input_file",
        "filename": media.filename or "document",
        "file_data": media.as_url(),
    }


def decode_response(raw: JSONDict, names: ToolNameMap | None = None) -> ModelResponse:
    """Normalize a Responses API response object.

    ``reasoning`` items are kept whole in ``ModelResponse.replay`` for the next
    request, with the item ids of the function calls (to pair them again), and so are
    the items of built-in tools (``web_search_call``, ``code_interpreter_call``,
    ``file_search_call``), which also fill ``builtin_calls`` and ``builtin_results``;
    ``url_citation`` annotations become ``citations``. A reply
    whose ``output`` is not a list of items raises
    `ReplyShapeError`.
    """
    raw = reply_object(raw, PROVIDER)
    texts: list[str] = []
    reasoning: list[str] = []
    replay: list[JSONDict] = []
    calls: list[ToolCall] = []
    hosted = builtin_tools.Parts()
    for item in items_of(field_list(raw, "output", PROVIDER), "output", PROVIDER):
        kind = item.get("type")
        if builtin_tools.responses_item(item, hosted):
            replay.append({k: v for k, v in item.items() if v is not None})
        if kind == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    texts.append(str(part.get("text") or ""))
                elif part.get("type") == "refusal":
                    texts.append(str(part.get("refusal") or ""))
        elif kind == "function_call":
            call = parsed_call(
                str(item.get("call_id") or item.get("id") or f"call_{uuid.uuid4().hex[:24]}"),
                str(item.get("name", "")),
                item.get("arguments"),
            )
            calls.append(restore_call(call, names))
            if item.get("id"):
                replay.append({"type": "function_call", "id": item["id"], "call_id": call.id})
        elif kind == "reasoning":
            replay.append({k: v for k, v in item.items() if v is not None and k != "status"})
            for part in item.get("summary") or []:
                reasoning.append(str(part.get("text") or ""))
    usage = field_object(raw, "usage", PROVIDER)
    return ModelResponse(
        content="".join(texts) if texts else None,
        tool_calls=calls,
        finish_reason=_finish(raw, bool(calls)),
        usage=Usage(
            input_tokens=token_count(usage.get("input_tokens")) or 0,
            output_tokens=token_count(usage.get("output_tokens")) or 0,
            cache_read_tokens=cache_counts(usage.get("input_tokens_details"))[0] or 0,
            cache_write_tokens=cache_counts(usage.get("input_tokens_details"))[1] or 0,
        ),
        reasoning="\n".join(reasoning) if reasoning else None,
        model=raw.get("model"),
        replay=replay,
        **hosted.as_fields(),
    )


def _finish(raw: JSONDict, has_calls: bool) -> str | None:
    if has_calls:
        return "tool_calls"
    if raw.get("status") == "incomplete":
        reason = (raw.get("incomplete_details") or {}).get("reason")
        return "content_filter" if reason == "content_filter" else "length"
    return "stop" if raw.get("status") == "completed" else raw.get("status")
