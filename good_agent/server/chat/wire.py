"""The OpenAI Chat Completions wire format on the client side of the bridge.

`parse_chat_request` validates a request body and names the offending field
in every error; `completion_body` and `ChunkWriter` write replies and
stream chunks exactly as the OpenAI API does (role first, a call's ``id`` and
``name`` on its first delta, a finish chunk, an optional usage chunk, ``[DONE]``).

Reference: https://platform.openai.com/docs/api-reference/chat
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from good_agent.providers.openai.chat_codec import SETTING_KEYS
from good_agent.providers.streaming import ToolCallArgs, ToolCallStart
from good_agent.providers.types import JSONDict
from good_agent.server import builtin_tools
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.server.common.ids import fresh_id
from good_agent.server.common.utf8 import utf8
from good_agent.server.media import tool_result_media
from good_agent.server.request_schemas import ChatCompletionsBody, check_body
from good_agent.server.served import BridgeRequest, finish_of
from good_agent.server.tool_schemas import check_output_schema, check_tool_schema
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ROLES = ("system", "developer", "user", "assistant", "tool")


@dataclass(slots=True)
class ChatCall:
    """A validated Chat Completions request: the model name, the neutral request
    and the streaming options."""

    model: str
    request: BridgeRequest
    stream: bool = False
    include_usage: bool = False


def validate_tools(tools: Any, param: str = "tools") -> list[JSONDict]:
    """Check OpenAI function-format tools; a 400 names the bad field."""
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise bad_request(f"'{param}' must be an array of tools", param)
    seen: set[str] = set()
    for index, tool in enumerate(tools):
        where = f"{param}[{index}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise bad_request(f"{where}.type must be 'function'", f"{where}.type")
        function = tool.get("function")
        if not isinstance(function, dict):
            raise bad_request(f"{where}.function must be an object", f"{where}.function")
        name = function.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise bad_request(
                f"{where}.function.name must match ^[a-zA-Z0-9_-]{{1,64}}$, got {name!r}",
                f"{where}.function.name",
            )
        if name in seen:
            raise bad_request(f"tool name '{name}' is used twice", f"{where}.function.name")
        seen.add(name)
        check_tool_schema(function.get("parameters"), f"{where}.function.parameters")
    return list(tools)


def validate_tool_choice(choice: Any, tools: list[JSONDict], param: str = "tool_choice") -> Any:
    """Check ``tool_choice`` against the offered tools."""
    if choice is None or choice in ("auto", "none"):
        return choice
    if choice == "required":
        if not tools:
            raise bad_request("tool_choice 'required' needs at least one tool", param)
        return choice
    if isinstance(choice, dict) and choice.get("type") == "function":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        known = {str(tool["function"]["name"]) for tool in tools}
        if not isinstance(name, str) or name not in known:
            names = ", ".join(sorted(known)) or "none"
            raise bad_request(
                f"tool_choice names tool {name!r}, which is not in tools (offered: {names})",
                f"{param}.function.name",
            )
        return choice
    raise bad_request(
        "tool_choice must be 'auto', 'none', 'required' or "
        '{"type": "function", "function": {"name": ...}}',
        param,
    )


def _check_messages(messages: Any) -> list[JSONDict]:
    if not isinstance(messages, list) or not messages:
        raise bad_request("'messages' must be a non-empty array", "messages")
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise bad_request(f"{where} must be an object", where)
        if message.get("role") not in _ROLES:
            raise bad_request(f"{where}.role must be one of {', '.join(_ROLES)}", f"{where}.role")
        if message["role"] == "tool" and not isinstance(message.get("tool_call_id"), str):
            raise bad_request(f"{where}.tool_call_id is required", f"{where}.tool_call_id")
        calls = message.get("tool_calls")
        if calls is not None and (message["role"] != "assistant" or not isinstance(calls, list)):
            raise bad_request(
                f"{where}.tool_calls must be an array on an assistant message",
                f"{where}.tool_calls",
            )
        for number, call in enumerate(calls or []):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                field = f"{where}.tool_calls[{number}].function"
                raise bad_request(f"{field} must be an object with a name", field)
    return [tool_result_media(message) for message in messages]


def parse_chat_request(body: Any) -> ChatCall:
    """A Chat Completions request body parsed into its call: field types first (the
    body parsed once into `ChatCompletionsBody`), then meaning. The messages, tools
    and settings are forwarded as the client wrote them."""
    parsed = check_body(ChatCompletionsBody, body)
    messages = _check_messages(body["messages"])
    tools = validate_tools(body.get("tools"))
    choice = validate_tool_choice(body.get("tool_choice"), tools)
    if parsed.n not in (None, 1):
        raise bad_request("only n=1 is supported", "n")
    fmt: JSONDict | None = None
    if parsed.response_format is not None and parsed.response_format.type != "text":
        fmt = body["response_format"]
        spec = parsed.response_format.json_schema
        if parsed.response_format.type == "json_schema":
            if spec is None:
                raise bad_request(
                    "response_format.json_schema must be an object", "response_format.json_schema"
                )
            if "schema" in spec:
                check_output_schema(spec["schema"], "response_format.json_schema.schema")
    settings = {key: body[key] for key in SETTING_KEYS if body.get(key) is not None}
    search = builtin_tools.chat_web_search(body.get("web_search_options"))
    settings = builtin_tools.with_builtin(settings, search)
    request = BridgeRequest(messages, tools, choice, parsed.parallel_tool_calls, fmt, settings)
    options = parsed.stream_options
    include_usage = bool(options is not None and options.include_usage)
    return ChatCall(parsed.model, request, bool(parsed.stream), include_usage)


def usage_body(usage: Usage) -> JSONDict:
    """OpenAI ``usage`` (with ``prompt_tokens_details.cached_tokens`` when input was
    read from the prompt cache)."""
    body: JSONDict = {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }
    if usage.cache_read_tokens or usage.cache_write_tokens:
        details = {"cached_tokens": usage.cache_read_tokens}
        if usage.cache_write_tokens:
            details["cache_write_tokens"] = usage.cache_write_tokens
        body["prompt_tokens_details"] = details
    return body


def completion_id() -> str:
    """A fresh ``chatcmpl-`` id."""
    return fresh_id("chatcmpl-")


def completion_body(reply: ModelResponse, model: str) -> JSONDict:
    """A ``chat.completion`` object (the reply's citations as ``url_citation``
    annotations, as a search model writes them)."""
    message: JSONDict = {"role": "assistant", "content": reply.content, "refusal": None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.citations:
        message["annotations"] = builtin_tools.chat_annotations(reply)
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_text or "{}"},
            }
            for call in reply.tool_calls
        ]
    return {
        "id": completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_of(reply), "logprobs": None}
        ],
        "usage": usage_body(reply.usage),
    }


JSON = json.JSONEncoder(ensure_ascii=False)
"""The JSON encoder of the replies: made once (``json.dumps`` with options makes
one a call), non-ASCII text kept as it is."""


_QUOTE: Callable[[str], str] = json.encoder.encode_basestring
"""A string as JSON text, non-ASCII kept (what `JSON` writes for a string)."""


def sse(payload: JSONDict | str) -> bytes:
    """One server-sent event line pair."""
    data = payload if isinstance(payload, str) else JSON.encode(payload)
    return utf8(f"data: {data}\n\n")


class ChunkWriter:
    """Writes ``chat.completion.chunk`` events for one streamed reply.

    What every chunk of the reply repeats (id, created, model, the choice's frame)
    is encoded once; a chunk encodes only its delta. The bytes are those of
    ``json.dumps`` of the whole chunk.
    """

    def __init__(self, model: str, *, include_usage: bool = False) -> None:
        self.usage = Usage()
        """The reply's usage so far (kept by the stream's relay)."""
        self.id = completion_id()
        self.created = int(time.time())
        self.model = model
        self.include_usage = include_usage
        # What `JSON` writes for the chunk's first fields, written out (no encoder
        # call for a dict of four fields).
        self._head = (
            f'data: {{"id": {_QUOTE(self.id)}, "object": "chat.completion.chunk", '
            f'"created": {self.created}, "model": {_QUOTE(model)}, '
            '"choices": [{"index": 0, "delta": '
        )
        self._usage = ', "usage": null' if include_usage else ""
        self._tail = self._end(None)

    def _end(self, finish_reason: str | None) -> str:
        reason = "null" if finish_reason is None else _QUOTE(finish_reason)
        return f', "finish_reason": {reason}, "logprobs": null}}]{self._usage}}}\n\n'

    def role(self) -> bytes:
        """The opening chunk: the assistant role."""
        return utf8(f'{self._head}{{"role": "assistant", "content": ""}}{self._tail}')

    def text(self, text: str) -> bytes:
        """A content delta."""
        chunk = f'{self._head}{{"content": {_QUOTE(text)}}}{self._tail}'
        try:
            return chunk.encode()
        except UnicodeEncodeError:
            return utf8(chunk)

    def reasoning(self, text: str) -> bytes:
        """A reasoning delta (``reasoning_content``, as vLLM and DeepSeek send it)."""
        return utf8(f'{self._head}{{"reasoning_content": {_QUOTE(text)}}}{self._tail}')

    def call(self, delta: ToolCallStart | ToolCallArgs) -> bytes:
        """A tool-call delta (id, type and name on the call's first delta)."""
        if isinstance(delta, ToolCallStart):
            item = (
                f'{{"index": {int(delta.index)}, "id": {_QUOTE(delta.id)}, "type": "function", '
                f'"function": {{"name": {_QUOTE(delta.name)}, "arguments": ""}}}}'
            )
        else:
            function = f'{{"arguments": {_QUOTE(delta.arguments)}}}'
            item = f'{{"index": {int(delta.index)}, "function": {function}}}'
        return utf8(f'{self._head}{{"tool_calls": [{item}]}}{self._tail}')

    def finish(self, reason: str) -> bytes:
        """The chunk carrying ``finish_reason``."""
        return utf8(f"{self._head}{{}}{self._end(reason)}")

    def usage_chunk(self) -> bytes:
        """The usage chunk (empty ``choices``)."""
        return sse(
            {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": [],
                "usage": usage_body(self.usage),
            }
        )

    def opening(self) -> bytes:
        """The role chunk."""
        return self.role()

    async def reply(self, reply: ModelResponse) -> bytes:
        """The chunk with the finish reason."""
        return self.finish(finish_of(reply))

    def ending(self) -> bytes:
        """The usage chunk when asked for, then ``data: [DONE]``."""
        done = sse("[DONE]")
        return self.usage_chunk() + done if self.include_usage else done

    def failure(self, error: BridgeError, request_id: str) -> bytes:
        """The error as an OpenAI error object."""
        return sse(error.openai_body())
