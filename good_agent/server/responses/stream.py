"""A streamed ``/v1/responses`` reply: the model core's deltas as Responses events.

The events are OpenAI's: ``response.created`` and ``response.in_progress``; per
output item ``response.output_item.added``, its content
(``response.content_part.added``, ``response.output_text.delta`` / ``.done``,
``response.content_part.done`` for a message; ``response.function_call_arguments.delta``
/ ``.done`` for a call; ``response.reasoning_text.delta`` / ``.done`` for reasoning)
and ``response.output_item.done``; then ``response.completed`` (or
``response.incomplete`` when the reply was cut by a token limit). Every event has a
``sequence_number``. A failure once the stream has begun ends it with an ``error``
event (the bridge's error code and message) and ``response.failed``, never
``response.completed``.

A message or reasoning item is closed when another item begins; call items stay
open until the reply ends (an upstream may interleave the arguments of parallel
calls), then close in order.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable

from good_agent.providers.streaming import ToolCallArgs, ToolCallStart
from good_agent.providers.types import JSONDict
from good_agent.server import builtin_tools
from good_agent.server.common.errors import BridgeError
from good_agent.server.common.utf8 import utf8
from good_agent.server.responses.wire import (
    ResponsesCall,
    call_item,
    item_id,
    message_item,
    output_text,
    reasoning_item,
    response_body,
)
from good_agent.server.served import finish_of
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

Finished = Callable[[JSONDict], Awaitable[None]]
"""Called with the final ``response`` object before ``response.completed`` is sent."""


class ResponseEventWriter:
    """Writes the events of one streamed response and keeps its output items."""

    def __init__(self, call: ResponsesCall, ident: str, finished: Finished | None = None) -> None:
        self.request = call
        self.id = ident
        self.finished = finished
        """Called with the final ``response`` object (to store it) before
        ``response.completed`` is sent."""
        self.usage = Usage()
        """The reply's usage so far (kept by the stream's relay)."""
        self._completed = False
        self.created_at = int(time.time())
        self.output: list[JSONDict] = []
        self._sequence = 0
        self._open: int | None = None
        """The output index of the open message or reasoning item."""
        self._text: dict[int, str] = {}
        self._calls: dict[int, int] = {}
        """Output index of each call, by the stream's call index."""
        self._closed: set[int] = set()

    def event(self, kind: str, payload: JSONDict) -> bytes:
        """One event, numbered."""
        data = {"type": kind, "sequence_number": self._sequence, **payload}
        self._sequence += 1
        return utf8(f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n")

    def body(
        self,
        status: str,
        usage: Usage | None = None,
        *,
        finish_reason: str | None = None,
        error: JSONDict | None = None,
    ) -> JSONDict:
        """The ``response`` object as it stands."""
        return response_body(
            self.request,
            self.id,
            self.created_at,
            status=status,
            output=self.output,
            usage=usage,
            finish_reason=finish_reason,
            error=error,
        )

    def start(self) -> bytes:
        """``response.created`` and ``response.in_progress``."""
        body = self.body("in_progress")
        return self.event("response.created", {"response": body}) + self.event(
            "response.in_progress", {"response": body}
        )

    def _add(self, item: JSONDict) -> bytes:
        self.output.append(item)
        index = len(self.output) - 1
        return self.event("response.output_item.added", {"output_index": index, "item": item})

    def _close(self, index: int) -> bytes:
        if index in self._closed:
            return b""
        self._closed.add(index)
        item = self.output[index]
        where = {"output_index": index, "item_id": item["id"]}
        out = b""
        if item["type"] == "message":
            text = self._text.get(index, "")
            part = output_text(text)
            out += self.event(
                "response.output_text.done",
                {**where, "content_index": 0, "text": text, "logprobs": []},
            )
            out += self.event(
                "response.content_part.done", {**where, "content_index": 0, "part": part}
            )
            item.update(message_item(text, item["id"]))
        elif item["type"] == "reasoning":
            text = self._text.get(index, "")
            out += self.event(
                "response.reasoning_text.done", {**where, "content_index": 0, "text": text}
            )
            item.update(reasoning_item(text, item["id"]))
        else:
            out += self.event(
                "response.function_call_arguments.done",
                {**where, "arguments": item["arguments"]},
            )
            item["status"] = "completed"
        return out + self.event("response.output_item.done", {"output_index": index, "item": item})

    def _close_open(self) -> bytes:
        index, self._open = self._open, None
        return b"" if index is None else self._close(index)

    def text(self, text: str) -> bytes:
        """An ``output_text`` delta, opening a message item first if needed."""
        out = b""
        if self._open is None or self.output[self._open]["type"] != "message":
            out += self._close_open()
            out += self._add(message_item("", item_id("msg"), "in_progress"))
            self._open = len(self.output) - 1
            out += self.event(
                "response.content_part.added",
                {
                    "output_index": self._open,
                    "item_id": self.output[self._open]["id"],
                    "content_index": 0,
                    "part": output_text(""),
                },
            )
        index = self._open
        self._text[index] = self._text.get(index, "") + text
        return out + self.event(
            "response.output_text.delta",
            {
                "output_index": index,
                "item_id": self.output[index]["id"],
                "content_index": 0,
                "delta": text,
                "logprobs": [],
            },
        )

    def reasoning(self, text: str) -> bytes:
        """A ``reasoning_text`` delta, opening a reasoning item first if needed."""
        out = b""
        if self._open is None or self.output[self._open]["type"] != "reasoning":
            out += self._close_open()
            out += self._add(reasoning_item("", item_id("rs"), "in_progress"))
            self._open = len(self.output) - 1
        index = self._open
        self._text[index] = self._text.get(index, "") + text
        return out + self.event(
            "response.reasoning_text.delta",
            {
                "output_index": index,
                "item_id": self.output[index]["id"],
                "content_index": 0,
                "delta": text,
            },
        )

    def call(self, delta: ToolCallStart | ToolCallArgs) -> bytes:
        """A call's ``output_item.added`` or an arguments delta."""
        if isinstance(delta, ToolCallStart):
            out = self._close_open()
            out += self._add(call_item(delta.id, delta.name, "", item_id("fc"), "in_progress"))
            self._calls[delta.index] = len(self.output) - 1
            return out
        index = self._calls.get(delta.index)
        if index is None or not delta.arguments:
            return b""
        self.output[index]["arguments"] += delta.arguments
        return self.event(
            "response.function_call_arguments.delta",
            {"output_index": index, "item_id": self.output[index]["id"], "delta": delta.arguments},
        )

    def _missing(self, response: ModelResponse) -> bytes:
        """Items of the final reply that no delta carried (a reply decoded once whole)."""
        out = b""
        if response.content and not any(item["type"] == "message" for item in self.output):
            out += self.text(response.content)
        streamed = {item["call_id"] for item in self.output if item["type"] == "function_call"}
        for call in response.tool_calls:
            if call.id not in streamed:
                number = max(self._calls, default=-1) + 1
                out += self.call(ToolCallStart(number, call.id, call.name))
                out += self.call(ToolCallArgs(number, call.arguments_text or "{}"))
        return out

    def finish(self, response: ModelResponse) -> tuple[bytes, JSONDict]:
        """Close every item; the closing bytes and the final ``response`` object.

        The built-in tool items of a Responses upstream follow whole (added and done),
        and the message's text carries the citations as ``url_citation`` annotations.
        """
        out = self._missing(response)
        out += self._close_open()
        for index in sorted(self._calls.values()):
            out += self._close(index)
        for item in builtin_tools.responses_items(response):
            out += self._add(item)
            index = len(self.output) - 1
            self._closed.add(index)
            out += self.event("response.output_item.done", {"output_index": index, "item": item})
        notes = builtin_tools.url_annotations(response)
        for item in self.output:
            if notes and item["type"] == "message" and item["content"]:
                item["content"][0]["annotations"] = notes
        body = self.body("completed", response.usage, finish_reason=finish_of(response))
        return out, body

    def failed(self, error: BridgeError, usage: Usage) -> bytes:
        """An ``error`` event and ``response.failed``."""
        code = "rate_limit_exceeded" if error.status == 429 else "server_error"
        failure = {"code": code, "message": error.message}
        body = self.body("failed", usage, error=failure)
        return self.event(
            "error", {"code": error.code, "message": error.message, "param": error.param}
        ) + self.event("response.failed", {"response": body})

    def opening(self) -> bytes:
        """``response.created`` and ``response.in_progress``."""
        return self.start()

    async def reply(self, reply: ModelResponse) -> bytes:
        """Every item closed, then ``response.completed`` (or ``.incomplete``) once
        the final object was handed to `finished`."""
        closing, body = self.finish(reply)
        if self.finished is not None:
            await self.finished(body)
        self._completed = True
        return closing + self.event(f"response.{body['status']}", {"response": body})

    def ending(self) -> bytes:
        """Nothing more; a stream that held no reply is a failure."""
        if not self._completed:
            raise BridgeError(
                502,
                f"upstream '{self.request.model}': the stream ended without a reply",
                "upstream_error",
                code="upstream_stream_cut",
            )
        return b""

    def failure(self, error: BridgeError, request_id: str) -> bytes:
        """An ``error`` event and ``response.failed``."""
        return self.failed(error, self.usage)
