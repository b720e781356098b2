"""The Anthropic Messages wire format on the client side of the bridge (``/v1/messages``).

Requests are translated into the neutral `BridgeRequest`
(``tool_use`` blocks become assistant ``tool_calls``, ``tool_result`` blocks
``role: tool`` messages, ``image`` and ``document`` blocks the neutral media parts,
those inside a ``tool_result`` in the tool message's ``media`` list),
so an Anthropic client can use any upstream; replies and
stream events are written back in the Messages format.

Reference: https://docs.anthropic.com/en/api/messages and
https://docs.anthropic.com/en/docs/build-with-claude/streaming
"""

from __future__ import annotations

import base64
import json
import mimetypes
import re
from dataclasses import dataclass
from typing import Any

from good_agent.providers.builtin_tools import ANTHROPIC_SERVER_TYPES
from good_agent.providers.history import text_of
from good_agent.providers.streaming import ToolCallArgs, ToolCallStart
from good_agent.providers.types import JSONDict, ToolChoice
from good_agent.server import builtin_tools
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.server.common.ids import fresh_id
from good_agent.server.request_schemas import MessagesBody, check_body
from good_agent.server.served import BridgeRequest, finish_of
from good_agent.server.tool_schemas import check_tool_schema
from good_agent.types.builtin_tools import BuiltinTool
from good_agent.types.content import MEDIA_KEY, guess_media_type, kind_of_media
from good_agent.types.messages import MEDIA_RESULT_KEY, REPLAY_KEY, ModelResponse
from good_agent.types.usage import Usage

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
"""OpenAI finish reasons mapped to Anthropic stop reasons."""

SERVER_TOOL_BLOCKS = ANTHROPIC_SERVER_TYPES
"""Assistant blocks of server tools (``server_tool_use``, ``web_search_tool_result``...),
sent upstream again as they are."""

DROPPED_BLOCKS = ("thinking", "redacted_thinking")
"""Assistant blocks left out of the history sent upstream: a model's earlier
reasoning, which the neutral request has no place for. Any other block type the
bridge does not translate is a 400 naming its path."""


@dataclass(slots=True)
class MessagesCall:
    """A validated Messages request: model name, neutral request, stream flag."""

    model: str
    request: BridgeRequest
    stream: bool = False


CACHE_KEY = "cache_control"
"""A client's cache breakpoint, kept on the neutral part, message or tool it was on
(sent on to an Anthropic upstream, left out for any other)."""


def _cache(block: Any, path: str) -> JSONDict:
    """``{"cache_control": ...}`` when ``block`` carries a valid breakpoint (``{}``
    when none); a 400 naming the field for a malformed one."""
    control = block.get(CACHE_KEY) if isinstance(block, dict) else None
    if control is None:
        return {}
    where = f"{path}.{CACHE_KEY}"
    if not isinstance(control, dict) or control.get("type") != "ephemeral":
        raise bad_request(f"{where} must be {{type: ephemeral}} (with an optional ttl)", where)
    if control.get("ttl") not in (None, "5m", "1h"):
        raise bad_request(f"{where}.ttl must be '5m' or '1h'", f"{where}.ttl")
    return {CACHE_KEY: dict(control)}


def _tools(tools: Any, builtin: list[BuiltinTool]) -> list[JSONDict]:
    """The function tools; server tools (``web_search_20250305``...) go to ``builtin``."""
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise bad_request("'tools' must be an array", "tools")
    out: list[JSONDict] = []
    seen: set[str] = set()
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, dict):
            raise bad_request(f"{where} must be an object", where)
        server = builtin_tools.anthropic_tool(tool, where)
        if server is not None:
            builtin.append(server)
            continue
        name = tool.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise bad_request(f"{where}.name must match ^[a-zA-Z0-9_-]{{1,64}}$", f"{where}.name")
        if name in seen:
            raise bad_request(f"{where}.name: tool name '{name}' is used twice", f"{where}.name")
        seen.add(name)
        schema = tool.get("input_schema")
        if not isinstance(schema, dict):
            raise bad_request(f"{where}.input_schema is required", f"{where}.input_schema")
        check_tool_schema(schema, f"{where}.input_schema")
        function: JSONDict = {"name": name, "parameters": schema}
        if tool.get("description"):
            function["description"] = str(tool["description"])
        out.append({"type": "function", "function": function, **_cache(tool, where)})
    return out


def _tool_choice(choice: Any, tools: list[JSONDict]) -> tuple[ToolChoice | None, bool | None]:
    if choice is None:
        return None, None
    kind = choice.get("type") if isinstance(choice, dict) else None
    parallel = (
        False if isinstance(choice, dict) and choice.get("disable_parallel_tool_use") else None
    )
    names = {tool["function"]["name"] for tool in tools}
    if kind in ("auto", "none"):
        return str(kind), parallel
    if kind == "any" and tools:
        return "required", parallel
    name = choice.get("name") if isinstance(choice, dict) else None
    if kind == "tool" and isinstance(name, str) and name in names:
        return {"type": "function", "function": {"name": name}}, parallel
    raise bad_request(
        "tool_choice must be {type: auto|any|none} or {type: tool, name: <a tool in tools>}",
        "tool_choice",
    )


def _media_part(block: JSONDict, path: str) -> JSONDict:
    """An ``image`` or ``document`` block as the neutral part (``image_url`` or
    ``file``), its bytes or URL untouched (checked later by the media rules)."""
    kind = block["type"]
    source = block.get("source")
    source_type = source.get("type") if isinstance(source, dict) else None
    where = f"{path}.source"
    if not isinstance(source, dict) or source_type not in ("base64", "url", "text"):
        raise bad_request(f"{where}.type must be 'base64' or 'url'", f"{where}.type")
    if source_type == "text" and kind == "document":
        text = str(source.get("data") or "").encode()
        source = {"media_type": "text/plain", "data": base64.b64encode(text).decode("ascii")}
        source_type = "base64"
    if source_type == "url":
        url = source.get("url")
        if not isinstance(url, str) or not url:
            raise bad_request(f"{where}.url must be a string", f"{where}.url")
        if kind == "image":
            media = guess_media_type(url, "image/png")
            return {"type": "image_url", "image_url": {"url": url}, MEDIA_KEY: media}
        media = guess_media_type(url, "application/pdf")
        return {"type": "file", "file": {"file_url": url}, MEDIA_KEY: media}
    media_type, data = source.get("media_type"), source.get("data")
    if not isinstance(media_type, str) or not media_type or not isinstance(data, str):
        raise bad_request(
            f"{where} needs a media_type and base64 data (strings)", f"{where}.media_type"
        )
    if kind_of_media(media_type) != kind:
        raise bad_request(f"{where}.media_type {media_type!r} is not a {kind}", where)
    data_url = f"data:{media_type};base64,{data}"
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": data_url}, MEDIA_KEY: media_type}
    extension = mimetypes.guess_extension(media_type) or ".bin"
    file = {"file_data": data_url, "filename": f"document{extension}"}
    return {"type": "file", "file": file, MEDIA_KEY: media_type}


def _user(blocks: list[Any], where: str) -> list[JSONDict]:
    results: list[JSONDict] = []
    parts: list[JSONDict] = []
    for number, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        path = f"{where}.content[{number}]"
        if kind == "text":
            text = {"type": "text", "text": str(block.get("text") or "")}
            parts.append({**text, **_cache(block, path)})
        elif kind in ("image", "document"):
            parts.append({**_media_part(block, path), **_cache(block, path)})
        elif kind == "tool_result":
            results.append({**_tool_result(block, path), **_cache(block, path)})
        else:
            raise _unsupported(kind, f"{path}.type")
    if any(part["type"] != "text" or CACHE_KEY in part for part in parts):
        results.append({"role": "user", "content": parts})
    elif parts:
        results.append({"role": "user", "content": "\n".join(part["text"] for part in parts)})
    return results


def _tool_result(block: JSONDict, where: str) -> JSONDict:
    """A ``tool_result`` block as a ``role: tool`` message; its ``image`` and
    ``document`` blocks go in the message's ``media`` list."""
    content = block.get("content")
    blocks = content if isinstance(content, list) else []
    media = [
        _media_part(item, f"{where}.content[{number}]")
        for number, item in enumerate(blocks)
        if isinstance(item, dict) and item.get("type") in ("image", "document")
    ]
    message: JSONDict = {
        "role": "tool",
        "tool_call_id": str(block.get("tool_use_id") or ""),
        "content": text_of(content),
    }
    if block.get("is_error"):
        message["is_error"] = True
    if media:
        message[MEDIA_RESULT_KEY] = media
    return message


def _unsupported(kind: Any, path: str) -> Exception:
    return bad_request(f"{path}: unsupported content block type {kind!r}", path)


def _assistant(blocks: list[Any], where: str) -> JSONDict:
    texts: list[str] = []
    calls: list[JSONDict] = []
    server: list[JSONDict] = []
    cache: JSONDict = {}
    for number, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in DROPPED_BLOCKS:
            continue
        if isinstance(kind, str) and kind in SERVER_TOOL_BLOCKS:
            server.append(builtin_tools.replay_item(block))
            continue
        cache = _cache(block, f"{where}.content[{number}]") or cache
        if kind not in ("text", "tool_use"):
            raise _unsupported(kind, f"{where}.content[{number}].type")
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        else:
            arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
            calls.append(
                {
                    "id": str(block.get("id") or ""),
                    "type": "function",
                    "function": {"name": str(block.get("name") or ""), "arguments": arguments},
                }
            )
    message: JSONDict = {"role": "assistant", "content": "".join(texts) or None, **cache}
    if calls:
        message["tool_calls"] = calls
    if server:
        message[REPLAY_KEY] = server
    return message


def _system(system: Any) -> JSONDict:
    """The system prompt as a system message: its text blocks kept as parts when one
    carries a cache breakpoint."""
    if isinstance(system, list):
        cached = [_cache(block, f"system[{n}]") for n, block in enumerate(system)]
        if any(cached):
            parts = [
                {"type": "text", "text": str(block.get("text") or ""), **cache}
                for block, cache in zip(system, cached, strict=True)
                if isinstance(block, dict)
            ]
            return {"role": "system", "content": parts}
    return {"role": "system", "content": text_of(system)}


def _messages(system: Any, messages: Any) -> list[JSONDict]:
    if not isinstance(messages, list) or not messages:
        raise bad_request("'messages' must be a non-empty array", "messages")
    out: list[JSONDict] = []
    if system:
        out.append(_system(system))
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise bad_request(f"{where}.role must be 'user' or 'assistant'", f"{where}.role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            raise bad_request(f"{where}.content must be a string or an array", f"{where}.content")
        if message["role"] == "user":
            out += _user(blocks, where)
        else:
            out.append(_assistant(blocks, where))
    return out


def parse_messages_request(body: Any) -> MessagesCall:
    """A Messages request body parsed into its call: field types first (the body parsed
    once into `MessagesBody`), then meaning. The messages, tools and settings are
    forwarded as the client wrote them."""
    parsed = check_body(MessagesBody, body)
    max_tokens = parsed.max_tokens
    builtin: list[BuiltinTool] = []
    tools = _tools(body.get("tools"), builtin)
    choice, parallel = _tool_choice(body.get("tool_choice"), tools)
    settings: JSONDict = {"max_tokens": max_tokens}
    for key in ("temperature", "top_p", "top_k"):
        if body.get(key) is not None:
            settings[key] = body[key]
    if body.get("stop_sequences"):
        settings["stop"] = body["stop_sequences"]
    messages = _messages(body.get("system"), body.get("messages"))
    settings = builtin_tools.with_builtin(settings, builtin)
    request = BridgeRequest(messages, tools, choice, parallel, None, settings)
    return MessagesCall(parsed.model, request, bool(parsed.stream))


def message_id() -> str:
    """A fresh ``msg_`` id."""
    return fresh_id("msg_")


def _input(arguments: str) -> Any:
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def message_body(reply: ModelResponse, model: str) -> JSONDict:
    """A Messages ``message`` object (server tool blocks first, as an Anthropic upstream
    sent them)."""
    content: list[JSONDict] = builtin_tools.anthropic_blocks(reply)
    if reply.content:
        content.append({"type": "text", "text": reply.content})
    for call in reply.tool_calls:
        content.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": _input(call.arguments_text),
            }
        )
    return {
        "id": message_id(),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": STOP_REASONS.get(finish_of(reply), "end_turn"),
        "stop_sequence": None,
        "usage": usage_body(reply.usage),
    }


def usage_body(usage: Usage | None) -> JSONDict:
    """Messages ``usage``: ``input_tokens`` counts the uncached input only, the cache
    reads and writes go in ``cache_read_input_tokens`` and
    ``cache_creation_input_tokens`` (when there are any)."""
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    cached = usage.cache_read_tokens + usage.cache_write_tokens
    body: JSONDict = {
        "input_tokens": max(usage.input_tokens - cached, 0),
        "output_tokens": usage.output_tokens,
    }
    if usage.cache_read_tokens:
        body["cache_read_input_tokens"] = usage.cache_read_tokens
    if usage.cache_write_tokens:
        body["cache_creation_input_tokens"] = usage.cache_write_tokens
    return body


def event(kind: str, payload: JSONDict) -> bytes:
    """One named server-sent event."""
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n".encode()


class MessageStreamWriter:
    """Writes Messages stream events for one reply, content blocks opened as needed."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.usage = Usage()
        """The reply's usage so far (kept by the stream's relay)."""
        self._started = False
        self._block = -1
        self._open: str | None = None
        self._calls: dict[int, int] = {}

    def _begin(self) -> bytes:
        """``message_start`` before the first content (so that it carries the input
        tokens whenever the upstream reports them first, as Anthropic does)."""
        if self._started:
            return b""
        self._started = True
        return self.start(self.usage)

    def start(self, usage: Usage | None = None) -> bytes:
        """``message_start``, with the input tokens known so far."""
        message: JSONDict = {
            "id": message_id(),
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage_body(usage),
        }
        return event("message_start", {"message": message})

    def _close(self) -> bytes:
        if self._open is None:
            return b""
        self._open = None
        return event("content_block_stop", {"index": self._block})

    def opening(self) -> bytes:
        """Nothing: ``message_start`` waits for the first content."""
        return b""

    def reasoning(self, text: str) -> bytes:
        """Only ``message_start`` when it is due (reasoning is not relayed)."""
        return self._begin()

    def text(self, text: str) -> bytes:
        """A text delta, opening a text block first if needed."""
        out = self._begin()
        if self._open != "text":
            out += self._close()
            self._block += 1
            self._open = "text"
            out += event(
                "content_block_start",
                {"index": self._block, "content_block": {"type": "text", "text": ""}},
            )
        delta = {"type": "text_delta", "text": text}
        return out + event("content_block_delta", {"index": self._block, "delta": delta})

    def call(self, delta: ToolCallStart | ToolCallArgs) -> bytes:
        """A tool-use block start or an ``input_json_delta``."""
        out = self._begin()
        if isinstance(delta, ToolCallStart):
            out += self._close()
            self._block += 1
            self._open = "tool_use"
            self._calls[delta.index] = self._block
            block = {"type": "tool_use", "id": delta.id, "name": delta.name, "input": {}}
            out += event("content_block_start", {"index": self._block, "content_block": block})
            return out
        if delta.arguments and delta.index in self._calls:
            json_delta = {"type": "input_json_delta", "partial_json": delta.arguments}
            out += event(
                "content_block_delta", {"index": self._calls[delta.index], "delta": json_delta}
            )
        return out

    def finish(self, reason: str, usage: Usage) -> bytes:
        """Close the open block, then ``message_delta`` and ``message_stop``."""
        stop = {"stop_reason": STOP_REASONS.get(reason, "end_turn"), "stop_sequence": None}
        return (
            self._close()
            + event(
                "message_delta",
                {
                    "delta": stop,
                    "usage": usage_body(usage),
                },
            )
            + event("message_stop", {})
        )

    async def reply(self, reply: ModelResponse) -> bytes:
        """The server tool blocks of an Anthropic upstream (whole), then ``message_delta``
        and ``message_stop`` (after ``message_start`` when due)."""
        out = self._begin()
        for block in builtin_tools.anthropic_blocks(reply):
            out += self._close()
            self._block += 1
            out += event("content_block_start", {"index": self._block, "content_block": block})
            out += event("content_block_stop", {"index": self._block})
        return out + self.finish(finish_of(reply), self.usage)

    def ending(self) -> bytes:
        """Nothing more: ``message_stop`` ended the stream."""
        return b""

    def failure(self, error: BridgeError, request_id: str) -> bytes:
        """An ``error`` event (after ``message_start`` when due)."""
        body = {"error": error.anthropic_body()["error"], "request_id": request_id}
        return self._begin() + event("error", body)
