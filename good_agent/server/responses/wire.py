"""The OpenAI Responses wire format on the client side of the bridge (``/v1/responses``).

`parse_responses_request` validates a request body, naming the offending
field in every 400, and translates it into neutral chat messages and tools:
``instructions`` become the system message; ``input`` (a string, or items)
becomes user, assistant and tool messages (``message`` items with
``input_text`` / ``input_image`` / ``input_file`` parts, ``function_call`` items
as an assistant's ``tool_calls``, ``function_call_output`` items as ``role: tool``
messages); function ``tools``, ``tool_choice`` and ``text.format`` become their
Chat Completions forms. ``reasoning`` items in ``input`` are left out of what is
sent upstream (the neutral request has no place for them).

`response_body` writes the ``response`` object: a ``reasoning`` item when
the upstream sent reasoning, a ``message`` item with the text, one
``function_call`` item per call, and ``usage``.

Reference: https://platform.openai.com/docs/api-reference/responses
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field

from good_agent.providers.builtin_tools import RESPONSES_ITEM_TYPES
from good_agent.providers.history import text_of
from good_agent.providers.types import JSONDict, ToolChoice
from good_agent.server import builtin_tools
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.server.media import FetchHosts, MediaLimits, check_media
from good_agent.server.request_schemas import Count, Probability, Temperature, _Open, check_body
from good_agent.server.served import finish_of
from good_agent.server.tool_schemas import check_output_schema, check_tool_schema
from good_agent.types.builtin_tools import BuiltinTool
from good_agent.types.messages import REPLAY_KEY, ModelResponse
from good_agent.types.usage import Usage

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ROLES = ("user", "assistant", "system", "developer")
DROPPED_ITEMS = ("reasoning",)
"""Input item types left out of what is sent upstream (a model's earlier reasoning)."""


class ResponsesBody(_Open):
    """The body of ``POST /v1/responses``, as far as the bridge reads it."""

    model: str = Field(min_length=1)
    input: str | list[dict[str, Any]] | None = None
    instructions: str | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: Literal["auto", "none", "required"] | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    text: dict[str, Any] | None = None
    max_output_tokens: Count | None = None
    temperature: Temperature | None = None
    top_p: Probability | None = None
    stream: bool | None = None
    store: bool | None = None
    previous_response_id: str | None = None
    metadata: dict[str, str] | None = None
    reasoning: dict[str, Any] | None = None
    user: str | None = None


@dataclass(slots=True)
class ResponsesCall:
    """A validated Responses request: the translated conversation and settings, and
    the fields a response object repeats back to its client."""

    model: str
    messages: list[JSONDict]
    """The new ``input`` as neutral chat messages (without ``instructions``)."""
    instructions: str | None
    tools: list[JSONDict]
    """The tools in Chat Completions form."""
    tool_choice: ToolChoice | None
    parallel_tool_calls: bool | None
    response_format: JSONDict | None
    settings: JSONDict
    stream: bool = False
    store: bool = True
    previous_response_id: str | None = None
    echo: JSONDict = field(default_factory=dict)
    """The request's own fields a response object repeats (``tools``, ``text``...)."""
    outputs: dict[str, str] = field(default_factory=dict)
    """The ``call_id`` of each ``function_call_output`` item, with its path."""
    paths: list[str] = field(default_factory=list)
    """The ``input`` path each of `messages` comes from."""


def _text_part(part: JSONDict, where: str) -> str:
    value = part.get("refusal") if part.get("type") == "refusal" else part.get("text")
    if not isinstance(value, str):
        key = "refusal" if part.get("type") == "refusal" else "text"
        raise bad_request(f"{where}.{key} must be a string", f"{where}.{key}")
    return value


def _media_part(part: JSONDict, where: str) -> JSONDict:
    if part["type"] == "input_image":
        url = part.get("image_url")
        if not isinstance(url, str) or not url:
            what = "file_id is not supported: send image_url" if part.get("file_id") else ""
            raise bad_request(
                f"{where}.image_url must be a URL or a data: URL{'; ' + what if what else ''}",
                f"{where}.image_url",
            )
        image: JSONDict = {"url": url}
        if isinstance(part.get("detail"), str):
            image["detail"] = part["detail"]
        return {"type": "image_url", "image_url": image}
    data, url = part.get("file_data"), part.get("file_url")
    if isinstance(data, str) and data:
        file: JSONDict = {"file_data": data}
        if isinstance(part.get("filename"), str):
            file["filename"] = part["filename"]
        return {"type": "file", "file": file}
    if isinstance(url, str) and url:
        return {"type": "file", "file": {"file_url": url}}
    raise bad_request(
        f"{where}.file_data must be a base64 data: URL (file_id is not supported)",
        f"{where}.file_data",
    )


def _content(content: Any, role: str, where: str) -> str | list[JSONDict]:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise bad_request(f"{where} must be a string or an array of parts", where)
    parts: list[JSONDict] = []
    for number, part in enumerate(content):
        path = f"{where}[{number}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("input_text", "output_text", "refusal", "text"):
            parts.append({"type": "text", "text": _text_part(part, path)})
        elif kind in ("input_image", "input_file") and role == "user":
            parts.append(_media_part(part, path))
        else:
            raise bad_request(
                f"{path}.type {kind!r} is not supported in a {role} message "
                "(input_text, input_image and input_file parts are)",
                f"{path}.type",
            )
    if all(part["type"] == "text" for part in parts):
        return "".join(part["text"] for part in parts)
    return parts


def _string(item: JSONDict, key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or (key != "arguments" and not value):
        raise bad_request(f"{where}.{key} must be a string", f"{where}.{key}")
    return value


def _input(items: Any, outputs: dict[str, str], paths: list[str]) -> list[JSONDict]:
    """``input`` as chat messages; each ``function_call_output``'s call id goes into
    ``outputs`` with its path, and the path of each message into ``paths``."""
    if isinstance(items, str):
        paths.append("input")
        return [{"role": "user", "content": items}]
    if items is None:
        return []
    messages: list[JSONDict] = []
    for index, item in enumerate(items):
        where = f"input[{index}]"
        del paths[len(messages) :]
        paths.append(where)
        kind = item.get("type", "message" if "role" in item else None)
        if kind in DROPPED_ITEMS:
            continue
        if isinstance(kind, str) and kind in RESPONSES_ITEM_TYPES:
            # A built-in tool's item goes upstream again as it is, with its turn.
            last = messages[-1] if messages else None
            if last is None or last["role"] != "assistant":
                last = {"role": "assistant", "content": None}
                messages.append(last)
            last.setdefault(REPLAY_KEY, []).append(builtin_tools.replay_item(item))
            continue
        if kind == "message":
            role = item.get("role")
            if role not in _ROLES:
                raise bad_request(
                    f"{where}.role must be one of {', '.join(_ROLES)}", f"{where}.role"
                )
            content = _content(item.get("content"), str(role), f"{where}.content")
            last = messages[-1] if messages else None
            if (
                role == "assistant"
                and last is not None
                and last["role"] == "assistant"
                and last.get("content") is None
                and not last.get("tool_calls")
            ):
                last["content"] = content  # the text after the turn's built-in tool items
            else:
                messages.append({"role": role, "content": content})
        elif kind == "function_call":
            call = {
                "id": _string(item, "call_id", where),
                "type": "function",
                "function": {
                    "name": _string(item, "name", where),
                    "arguments": _string(item, "arguments", where),
                },
            }
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            call_id = _string(item, "call_id", where)
            output = item.get("output")
            if not isinstance(output, str | list):
                raise bad_request(f"{where}.output must be a string or an array", f"{where}.output")
            outputs.setdefault(call_id, f"{where}.call_id")
            messages.append({"role": "tool", "tool_call_id": call_id, "content": text_of(output)})
        else:
            raise bad_request(
                f"{where}.type {kind!r} is not supported (message, function_call, "
                "function_call_output and reasoning items are)",
                f"{where}.type",
            )
    return messages


def _tools(tools: list[JSONDict] | None, builtin: list[BuiltinTool]) -> list[JSONDict]:
    """The function tools; hosted tools (``web_search``...) go to ``builtin``."""
    out: list[JSONDict] = []
    seen: set[str] = set()
    for index, tool in enumerate(tools or []):
        where = f"tools[{index}]"
        hosted = builtin_tools.responses_tool(tool, where)
        if hosted is not None:
            builtin.append(hosted)
            continue
        name = tool.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise bad_request(
                f"{where}.name must match ^[a-zA-Z0-9_-]{{1,64}}$, got {name!r}", f"{where}.name"
            )
        if name in seen:
            raise bad_request(f"tool name '{name}' is used twice", f"{where}.name")
        seen.add(name)
        check_tool_schema(tool.get("parameters"), f"{where}.parameters")
        function: JSONDict = {"name": name}
        for key in ("description", "parameters", "strict"):
            if tool.get(key) is not None:
                function[key] = tool[key]
        out.append({"type": "function", "function": function})
    return out


def _tool_choice(choice: Any, tools: list[JSONDict]) -> ToolChoice | None:
    if choice is None or isinstance(choice, str):
        if choice == "required" and not tools:
            raise bad_request("tool_choice 'required' needs at least one tool", "tool_choice")
        return choice
    name = choice.get("name")
    if choice.get("type") != "function":
        raise bad_request(
            "tool_choice must be 'auto', 'none', 'required' or "
            '{"type": "function", "name": ...}',
            "tool_choice.type",
        )
    known = {str(tool["function"]["name"]) for tool in tools}
    if not isinstance(name, str) or name not in known:
        offered = ", ".join(sorted(known)) or "none"
        raise bad_request(
            f"tool_choice names tool {name!r}, which is not in tools (offered: {offered})",
            "tool_choice.name",
        )
    return {"type": "function", "function": {"name": name}}


def _response_format(text: JSONDict | None) -> JSONDict | None:
    fmt = (text or {}).get("format")
    if fmt is None:
        return None
    kind = fmt.get("type") if isinstance(fmt, dict) else None
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "json_object"}
    if kind != "json_schema":
        raise bad_request(
            "text.format.type must be 'text', 'json_object' or 'json_schema'", "text.format.type"
        )
    name = fmt.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise bad_request("text.format.name must match ^[a-zA-Z0-9_-]{1,64}$", "text.format.name")
    if "schema" not in fmt:
        raise bad_request("'text.format.schema' is required", "text.format.schema")
    check_output_schema(fmt["schema"], "text.format.schema")
    spec: JSONDict = {"name": name, "schema": fmt["schema"]}
    for key in ("strict", "description"):
        if fmt.get(key) is not None:
            spec[key] = fmt[key]
    return {"type": "json_schema", "json_schema": spec}


def parse_responses_request(body: Any) -> ResponsesCall:
    """A Responses request body parsed into its call: field types first (the body
    parsed once into `ResponsesBody`), then meaning. The input items and tools are
    translated as the client wrote them."""
    parsed = check_body(ResponsesBody, body)
    if parsed.input is None and not parsed.previous_response_id:
        raise bad_request("'input' is required", "input")
    outputs: dict[str, str] = {}
    paths: list[str] = []
    messages = _input(body.get("input"), outputs, paths)
    del paths[len(messages) :]
    builtin: list[BuiltinTool] = []
    tools = _tools(body.get("tools"), builtin)
    choice = _tool_choice(body.get("tool_choice"), tools)
    fmt = _response_format(body.get("text"))
    settings: JSONDict = {
        key: body[key] for key in ("temperature", "top_p") if body.get(key) is not None
    }
    if body.get("max_output_tokens") is not None:
        settings["max_tokens"] = body["max_output_tokens"]
    settings = builtin_tools.with_builtin(settings, builtin)
    echo: JSONDict = {
        "tools": body.get("tools") or [],
        "tool_choice": body.get("tool_choice") or "auto",
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "text": {"format": (body.get("text") or {}).get("format") or {"type": "text"}},
        "max_output_tokens": body.get("max_output_tokens"),
        "temperature": body.get("temperature"),
        "top_p": body.get("top_p"),
        "metadata": body.get("metadata") or {},
        "user": body.get("user"),
    }
    return ResponsesCall(
        model=parsed.model,
        messages=messages,
        instructions=parsed.instructions,
        tools=tools,
        tool_choice=choice,
        parallel_tool_calls=parsed.parallel_tool_calls,
        response_format=fmt,
        settings=settings,
        stream=bool(parsed.stream),
        store=parsed.store is not False,
        previous_response_id=parsed.previous_response_id,
        echo=echo,
        outputs=outputs,
        paths=paths,
    )


def check_input_media(
    call: ResponsesCall, limits: MediaLimits, fetch: FetchHosts | None = None
) -> None:
    """Check the media parts of ``call``'s input (see `check_media`); a refusal
    names the part by its ``input`` path (``input[2].content[1]``)."""
    try:
        check_media(call.messages, limits, fetch)
    except BridgeError as exc:
        found = re.match(r"messages\[(\d+)\]", exc.param or "")
        if found is None:
            raise
        index = int(found.group(1))
        before, after = found.group(0), call.paths[index]
        raise BridgeError(
            exc.status,
            exc.message.replace(before, after, 1),
            exc.type,
            after + (exc.param or "")[len(before) :],
            exc.code,
            exc.headers,
        ) from None


def conversation(previous: list[JSONDict], call: ResponsesCall) -> list[JSONDict]:
    """The stored conversation ``previous`` continued by ``call``'s input; a 400
    names an empty conversation, or a ``function_call_output`` whose ``call_id`` no
    earlier call has."""
    messages = previous + call.messages
    if not messages:
        raise bad_request("'input' must hold at least one message or item", "input")
    known = {
        str(tool_call.get("id"))
        for message in messages
        for tool_call in message.get("tool_calls") or []
    }
    for call_id, where in call.outputs.items():
        if call_id not in known:
            raise bad_request(
                f"{where} {call_id!r} matches no function_call in the conversation", where
            )
    return messages


def with_instructions(call: ResponsesCall, messages: list[JSONDict]) -> list[JSONDict]:
    """``messages`` as sent upstream: ``instructions`` first, as the system message."""
    if call.instructions:
        return [{"role": "system", "content": call.instructions}, *messages]
    return messages


def response_id() -> str:
    """A fresh ``resp_`` id."""
    return f"resp_{uuid.uuid4().hex}"


def item_id(prefix: str) -> str:
    """A fresh output item id (``msg_``, ``fc_``, ``rs_`` and hex)."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


def usage_body(usage: Usage) -> JSONDict:
    """Responses ``usage``."""
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {
            "cached_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
        },
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.total_tokens,
    }


def message_item(text: str, item: str, status: str = "completed") -> JSONDict:
    """An assistant ``message`` output item holding ``text`` (no parts when empty and
    in progress)."""
    content = [output_text(text)] if status == "completed" else []
    return {
        "type": "message",
        "id": item,
        "role": "assistant",
        "status": status,
        "content": content,
    }


def output_text(text: str) -> JSONDict:
    """An ``output_text`` content part."""
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def call_item(call_id: str, name: str, arguments: str, item: str, status: str) -> JSONDict:
    """A ``function_call`` output item."""
    return {
        "type": "function_call",
        "id": item,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def reasoning_item(text: str, item: str, status: str = "completed") -> JSONDict:
    """A ``reasoning`` output item with the upstream's reasoning as ``reasoning_text``."""
    content = [{"type": "reasoning_text", "text": text}] if status == "completed" else []
    return {"type": "reasoning", "id": item, "summary": [], "content": content, "status": status}


def output_items(reply: ModelResponse) -> list[JSONDict]:
    """The ``output`` of a whole reply: reasoning, built-in tool items (from a Responses
    upstream, as it sent them), message (with the citations as ``url_citation``
    annotations), then the calls."""
    items: list[JSONDict] = []
    if reply.reasoning:
        items.append(reasoning_item(reply.reasoning, item_id("rs")))
    items.extend(builtin_tools.responses_items(reply))
    if reply.content:
        message = message_item(reply.content, item_id("msg"))
        message["content"][0]["annotations"] = builtin_tools.url_annotations(reply)
        items.append(message)
    items.extend(
        call_item(call.id, call.name, call.arguments_text or "{}", item_id("fc"), "completed")
        for call in reply.tool_calls
    )
    return items


INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}
"""OpenAI finish reasons that leave a response ``incomplete``, with the reason given."""


def response_body(
    call: ResponsesCall,
    ident: str,
    created_at: int,
    *,
    status: str,
    output: list[JSONDict],
    usage: Usage | None = None,
    finish_reason: str | None = None,
    error: JSONDict | None = None,
) -> JSONDict:
    """A ``response`` object; a ``length`` or ``content_filter`` finish makes it
    ``incomplete``."""
    incomplete = INCOMPLETE.get(finish_reason or "")
    if status == "completed" and incomplete:
        status = "incomplete"
    return {
        "id": ident,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "error": error,
        "incomplete_details": {"reason": incomplete} if status == "incomplete" else None,
        "instructions": call.instructions,
        "model": call.model,
        "output": output,
        "previous_response_id": call.previous_response_id,
        "reasoning": {"effort": None, "summary": None},
        "store": call.store,
        "truncation": "disabled",
        "usage": usage_body(usage) if usage is not None else None,
        **call.echo,
    }


def whole_body(call: ResponsesCall, ident: str, reply: ModelResponse) -> JSONDict:
    """The ``response`` object of a non-streamed reply."""
    return response_body(
        call,
        ident,
        int(time.time()),
        status="completed",
        output=output_items(reply),
        usage=reply.usage,
        finish_reason=finish_of(reply),
    )


def assistant_message(output: list[JSONDict]) -> JSONDict:
    """The chat message a response's ``output`` adds to the conversation."""
    text = "".join(
        part["text"]
        for item in output
        if item["type"] == "message"
        for part in item["content"]
        if part.get("type") == "output_text"
    )
    calls = [
        {
            "id": item["call_id"],
            "type": "function",
            "function": {"name": item["name"], "arguments": item["arguments"]},
        }
        for item in output
        if item["type"] == "function_call"
    ]
    message: JSONDict = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    hosted = [dict(item) for item in output if item["type"] in RESPONSES_ITEM_TYPES]
    if hosted:
        message[REPLAY_KEY] = hosted
    return message
