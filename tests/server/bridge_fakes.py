"""Fake upstream providers for the bridge tests, served on loopback by uvicorn.

Each fake validates the request it receives against its provider's documented
rules (a violation is answered with HTTP 400 and recorded in ``problems``) and
replies in the provider's real format, whole or streamed. A test scripts the
reply (``fake.reply``, or ``fake.script`` as a function of the body) and the
failure modes (``fail_status``, ``break_after`` (connection dropped),
``end_after`` (response ended cleanly before the final event), ``hang``,
``chunk_delay``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from good_agent.server.background import BackgroundServer

UPSTREAM_KEY = "sk-upstream-secret-123456"


@dataclass
class Reply:
    """What the fake model says: text, tool calls ``(name, arguments)``, usage."""

    text: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    input_tokens: int = 11
    output_tokens: int = 7


def pieces(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or []


class Fake:
    """Shared state and behaviour of a fake provider."""

    provider = "base"

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.reply = Reply(text="Hello from the fake.")
        self.script: Callable[[dict[str, Any]], Reply] | None = None
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.problems: list[str] = []
        self.fail_status: int | None = None
        self.fail_headers: dict[str, str] = {}
        self.break_after: int | None = None
        self.end_after: int | None = None
        self.hang = 0.0
        self.chunk_delay = 0.0
        self.chunk_size = 4
        self.cancelled = threading.Event()
        self.completed_streams = 0
        self.active_streams = 0

    def answer(self, body: dict[str, Any]) -> Reply:
        return self.script(body) if self.script else self.reply

    def problem(self, message: str) -> None:
        self.problems.append(message)

    async def handle(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        problems_before = len(self.problems)
        self.check_auth(request)
        if len(self.problems) > problems_before:
            return JSONResponse(self.error_body("invalid api key"), status_code=401)
        self.validate(body, request)
        if len(self.problems) > problems_before:
            return JSONResponse(self.error_body("; ".join(self.problems)), status_code=400)
        if self.fail_status is not None:
            return JSONResponse(
                self.error_body(f"fake failure {self.fail_status}"),
                status_code=self.fail_status,
                headers=self.fail_headers,
            )
        if self.hang:
            deadline = asyncio.get_running_loop().time() + self.hang
            while asyncio.get_running_loop().time() < deadline:
                if await request.is_disconnected():
                    self.cancelled.set()
                    return Response(status_code=499)
                await asyncio.sleep(0.02)
        reply = self.answer(body)
        if self.is_stream(body, request):
            return StreamingResponse(
                self.guarded(self.stream(reply, body)), media_type=self.stream_media_type
            )
        return JSONResponse(self.whole(reply, body))

    stream_media_type = "text/event-stream"

    async def guarded(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        self.active_streams += 1
        sent = 0
        finished = False
        try:
            async for chunk in chunks:
                if self.break_after is not None and sent >= self.break_after:
                    raise RuntimeError("fake upstream dies mid-stream")
                if self.end_after is not None and sent >= self.end_after:
                    break  # a clean end of the response, before the final event
                if self.chunk_delay:
                    await asyncio.sleep(self.chunk_delay)
                yield chunk
                sent += 1
            finished = True
            self.completed_streams += 1
        finally:
            self.active_streams -= 1
            if not finished:
                self.cancelled.set()

    # provider-specific parts
    def check_auth(self, request: Request) -> None:
        raise NotImplementedError

    def validate(self, body: dict[str, Any], request: Request) -> None:
        raise NotImplementedError

    def is_stream(self, body: dict[str, Any], request: Request) -> bool:
        return bool(body.get("stream"))

    def error_body(self, message: str) -> dict[str, Any]:
        return {"error": {"message": message, "type": "fake_error"}}

    def whole(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def stream(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        raise NotImplementedError

    def app(self) -> Starlette:
        raise NotImplementedError


def sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    text = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {text}\n\n".encode()


class OpenAIFake(Fake):
    """``POST /v1/chat/completions``; ``text_only`` refuses the tools API."""

    provider = "openai"

    def __init__(self, *, text_only: bool = False) -> None:
        self.text_only = text_only
        super().__init__()

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.handle, methods=["POST"])])

    def check_auth(self, request: Request) -> None:
        if request.headers.get("authorization") != f"Bearer {UPSTREAM_KEY}":
            self.problem("bad bearer key")

    def validate(self, body: dict[str, Any], request: Request) -> None:
        if not isinstance(body.get("model"), str):
            self.problem("model must be a string")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            self.problem("messages must be a non-empty list")
            return
        call_ids: set[str] = set()
        for i, m in enumerate(messages):
            role = m.get("role")
            if role not in ("system", "developer", "user", "assistant", "tool"):
                self.problem(f"messages[{i}].role invalid: {role}")
            if role == "assistant":
                for call in m.get("tool_calls") or []:
                    if call.get("type") != "function" or not call.get("id"):
                        self.problem(f"messages[{i}].tool_calls needs id and type function")
                    if not isinstance(call.get("function", {}).get("arguments"), str):
                        self.problem(f"messages[{i}] tool call arguments must be a string")
                    call_ids.add(call.get("id"))
            if role == "tool" and m.get("tool_call_id") not in call_ids:
                self.problem(f"messages[{i}].tool_call_id answers no earlier call")
            for part in m.get("content") if isinstance(m.get("content"), list) else []:
                kind = part.get("type")
                if kind not in ("text", "image_url", "input_audio", "file"):
                    self.problem(f"messages[{i}] has a content part of unknown type {kind}")
                elif set(part) != {"type", kind}:
                    self.problem(f"messages[{i}] {kind} part has keys {sorted(part)}")
            if self.text_only and (role == "tool" or m.get("tool_calls")):
                self.problem("a text-only server cannot take tool messages")
        tools = body.get("tools")
        if tools is not None:
            if self.text_only:
                self.problem("this server does not support tools")
            for tool in tools:
                fn = tool.get("function") or {}
                if tool.get("type") != "function" or not isinstance(fn.get("name"), str):
                    self.problem("bad tool")
                if fn.get("parameters", {}).get("type") != "object":
                    self.problem("tool parameters must be an object schema")
        choice = body.get("tool_choice")
        if choice is not None:
            if tools is None:
                self.problem("tool_choice without tools")
            if choice not in ("auto", "none", "required") and not (
                isinstance(choice, dict) and choice.get("type") == "function"
            ):
                self.problem("bad tool_choice")
        if "stream_options" in body and not body.get("stream"):
            self.problem("stream_options only with stream")

    def whole(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{uuid.uuid4().hex[:8]}",
                    "type": "function",
                    "function": {"name": n, "arguments": json.dumps(a)},
                }
                for n, a in reply.calls
            ]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": reply.input_tokens,
                "completion_tokens": reply.output_tokens,
                "total_tokens": reply.input_tokens + reply.output_tokens,
            },
        }

    async def stream(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return sse(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": body["model"],
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
            )

        yield chunk({"role": "assistant", "content": ""})
        for part in pieces(reply.text, self.chunk_size):
            yield chunk({"content": part})
        for index, (name, args) in enumerate(reply.calls):
            head = {
                "index": index,
                "id": f"call_{uuid.uuid4().hex[:8]}",
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
            yield chunk({"tool_calls": [head]})
            for part in pieces(json.dumps(args), 5):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
        yield chunk({}, "tool_calls" if reply.calls else "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            yield sse(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": body["model"],
                    "choices": [],
                    "usage": {
                        "prompt_tokens": reply.input_tokens,
                        "completion_tokens": reply.output_tokens,
                        "total_tokens": reply.input_tokens + reply.output_tokens,
                    },
                }
            )
        yield sse("[DONE]")


class AnthropicFake(Fake):
    """``POST /v1/messages``."""

    provider = "anthropic"

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/messages", self.handle, methods=["POST"])])

    def check_auth(self, request: Request) -> None:
        # The anthropic SDK sends its key as a bearer token; raw HTTP clients use x-api-key.
        bearer = request.headers.get("authorization") == f"Bearer {UPSTREAM_KEY}"
        if request.headers.get("x-api-key") != UPSTREAM_KEY and not bearer:
            self.problem("bad x-api-key")

    def error_body(self, message: str) -> dict[str, Any]:
        return {"type": "error", "error": {"type": "api_error", "message": message}}

    def validate(self, body: dict[str, Any], request: Request) -> None:
        if not request.headers.get("anthropic-version"):
            self.problem("anthropic-version header missing")
        if not isinstance(body.get("max_tokens"), int):
            self.problem("max_tokens is required")
        messages = body.get("messages") or []
        if not messages or messages[0].get("role") != "user":
            self.problem("messages must start with a user turn")
        tool_uses: set[str] = set()
        previous = None
        for i, m in enumerate(messages):
            role = m.get("role")
            if role not in ("user", "assistant"):
                self.problem(f"messages[{i}].role must be user or assistant")
            if role == previous:
                self.problem(f"messages[{i}] repeats role {role}")
            previous = role
            content = m.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            seen_other = False
            for block in blocks:
                kind = block.get("type")
                if kind == "tool_use":
                    if role != "assistant" or not isinstance(block.get("input"), dict):
                        self.problem("tool_use must be an assistant block with an object input")
                    tool_uses.add(block.get("id"))
                elif kind == "tool_result":
                    if role != "user" or seen_other:
                        self.problem("tool_result blocks must come first in a user turn")
                    if block.get("tool_use_id") not in tool_uses:
                        self.problem("tool_result answers no tool_use")
                elif kind == "text":
                    seen_other = True
                elif kind in ("image", "document") and role == "user":
                    seen_other = True
                    source = block.get("source") or {}
                    if source.get("type") not in ("base64", "url", "text"):
                        self.problem(f"{kind} block source type {source.get('type')}")
                    if source.get("type") == "base64" and not source.get("media_type"):
                        self.problem(f"{kind} block base64 source needs a media_type")
                else:
                    self.problem(f"unknown block type {kind}")
        for tool in body.get("tools") or []:
            if not isinstance(tool.get("name"), str) or "input_schema" not in tool:
                self.problem("tools need name and input_schema")
        choice = body.get("tool_choice")
        if choice is not None and choice.get("type") not in ("auto", "any", "tool", "none"):
            self.problem("bad tool_choice")

    def blocks(self, reply: Reply) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if reply.text:
            out.append({"type": "text", "text": reply.text})
        for name, args in reply.calls:
            out.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{uuid.uuid4().hex[:8]}",
                    "name": name,
                    "input": args,
                }
            )
        return out

    def whole(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": self.blocks(reply),
            "stop_reason": "tool_use" if reply.calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
        }

    async def stream(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        def ev(kind: str, payload: dict[str, Any]) -> bytes:
            return sse({"type": kind, **payload}, kind)

        start = self.whole(Reply(input_tokens=reply.input_tokens, output_tokens=1), body)
        start["content"], start["stop_reason"] = [], None
        yield ev("message_start", {"message": start})
        yield ev("ping", {})
        for index, block in enumerate(self.blocks(reply)):
            if block["type"] == "text":
                yield ev(
                    "content_block_start",
                    {"index": index, "content_block": {"type": "text", "text": ""}},
                )
                for part in pieces(block["text"], self.chunk_size):
                    yield ev(
                        "content_block_delta",
                        {"index": index, "delta": {"type": "text_delta", "text": part}},
                    )
            else:
                yield ev(
                    "content_block_start", {"index": index, "content_block": {**block, "input": {}}}
                )
                for part in pieces(json.dumps(block["input"]), 5):
                    yield ev(
                        "content_block_delta",
                        {
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": part},
                        },
                    )
            yield ev("content_block_stop", {"index": index})
        yield ev(
            "message_delta",
            {
                "delta": {
                    "stop_reason": "tool_use" if reply.calls else "end_turn",
                    "stop_sequence": None,
                },
                "usage": {"output_tokens": reply.output_tokens},
            },
        )
        yield ev("message_stop", {})


def _g(mapping: dict[str, Any], snake: str) -> Any:
    head, *rest = snake.split("_")
    return mapping.get(snake, mapping.get(head + "".join(w.title() for w in rest)))


class GeminiFake(Fake):
    """``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent``."""

    provider = "gemini"

    def app(self) -> Starlette:
        return Starlette(
            routes=[Route("/v1beta/models/{call:path}", self.handle, methods=["POST"])]
        )

    def check_auth(self, request: Request) -> None:
        if request.headers.get("x-goog-api-key") != UPSTREAM_KEY:
            self.problem("bad x-goog-api-key")

    def is_stream(self, body: dict[str, Any], request: Request) -> bool:
        return request.path_params["call"].endswith(":streamGenerateContent")

    def validate(self, body: dict[str, Any], request: Request) -> None:
        call = request.path_params["call"]
        if not call.endswith((":generateContent", ":streamGenerateContent")):
            self.problem(f"unknown method {call}")
        if call.endswith(":streamGenerateContent") and request.query_params.get("alt") != "sse":
            self.problem("streaming needs alt=sse")
        if "model" in body:
            self.problem("model belongs in the URL, not the body")
        pending: list[str] = []
        for i, content in enumerate(body.get("contents") or []):
            if content.get("role") not in ("user", "model"):
                self.problem(f"contents[{i}].role must be user or model")
            for part in content.get("parts") or []:
                kinds = [
                    k
                    for k in (
                        "text",
                        "function_call",
                        "functionCall",
                        "function_response",
                        "functionResponse",
                        "thought_signature",
                        "thoughtSignature",
                        "inline_data",
                        "inlineData",
                        "file_data",
                        "fileData",
                    )
                    if k in part
                ]
                if not kinds:
                    self.problem(f"contents[{i}] has an empty part")
                if _g(part, "function_call"):
                    pending.append(_g(part, "function_call")["name"])
                response = _g(part, "function_response")
                if response:
                    if response.get("name") not in pending:
                        self.problem("function_response follows no function_call")
                    if not isinstance(response.get("response"), dict):
                        self.problem("function_response.response must be an object")
        for tool in body.get("tools") or []:
            for decl in _g(tool, "function_declarations") or []:
                if not isinstance(decl.get("name"), str):
                    self.problem("function declaration needs a name")

    def candidate_parts(self, reply: Reply) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        if reply.text:
            parts.append({"text": reply.text})
        for name, args in reply.calls:
            parts.append({"functionCall": {"name": name, "args": args}})
        return parts

    def usage(self, reply: Reply) -> dict[str, Any]:
        return {
            "promptTokenCount": reply.input_tokens,
            "candidatesTokenCount": reply.output_tokens,
            "totalTokenCount": reply.input_tokens + reply.output_tokens,
        }

    def whole(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": self.candidate_parts(reply)},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": self.usage(reply),
            "modelVersion": "gemini-fake",
        }

    async def stream(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        for part in pieces(reply.text, self.chunk_size):
            yield sse(
                {
                    "candidates": [
                        {"content": {"role": "model", "parts": [{"text": part}]}, "index": 0}
                    ],
                    "modelVersion": "gemini-fake",
                }
            )
        calls = [{"functionCall": {"name": n, "args": a}} for n, a in reply.calls]
        yield sse(
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": calls},
                        "finishReason": "STOP",
                        "index": 0,
                    }
                ],
                "usageMetadata": self.usage(reply),
                "modelVersion": "gemini-fake",
            }
        )


class OllamaFake(Fake):
    """``POST /api/chat`` (NDJSON when streaming, which is Ollama's default)."""

    provider = "ollama"
    stream_media_type = "application/x-ndjson"

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/api/chat", self.handle, methods=["POST"])])

    def check_auth(self, request: Request) -> None:
        if request.headers.get("authorization") not in (None, f"Bearer {UPSTREAM_KEY}"):
            self.problem("bad bearer key")

    def is_stream(self, body: dict[str, Any], request: Request) -> bool:
        return body.get("stream", True) is not False

    def error_body(self, message: str) -> dict[str, Any]:
        return {"error": message}

    def validate(self, body: dict[str, Any], request: Request) -> None:
        for i, m in enumerate(body.get("messages") or []):
            if m.get("role") not in ("system", "user", "assistant", "tool"):
                self.problem(f"messages[{i}].role invalid")
            if not isinstance(m.get("content", ""), str):
                self.problem(f"messages[{i}].content must be a string")
            images = m.get("images", [])
            if not isinstance(images, list) or not all(isinstance(x, str) for x in images):
                self.problem(f"messages[{i}].images must be a list of base64 strings")
            for call in m.get("tool_calls") or []:
                if not isinstance(call.get("function", {}).get("arguments"), dict):
                    self.problem("ollama tool call arguments must be objects")
        for tool in body.get("tools") or []:
            if tool.get("type") != "function":
                self.problem("bad tool")
        if "tool_choice" in body:
            self.problem("ollama has no tool_choice")

    def message(self, reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.calls:
            message["tool_calls"] = [
                {"function": {"name": n, "arguments": a}} for n, a in reply.calls
            ]
        return message

    def whole(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": body["model"],
            "created_at": "2025-01-01T00:00:00Z",
            "message": self.message(reply),
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": reply.input_tokens,
            "eval_count": reply.output_tokens,
        }

    async def stream(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        def line(value: dict[str, Any]) -> bytes:
            return (json.dumps(value) + "\n").encode()

        for part in pieces(reply.text, self.chunk_size):
            yield line(
                {
                    "model": body["model"],
                    "message": {"role": "assistant", "content": part},
                    "done": False,
                }
            )
        if reply.calls:
            yield line(
                {
                    "model": body["model"],
                    "message": {**self.message(Reply(calls=reply.calls)), "content": ""},
                    "done": False,
                }
            )
        yield line(
            {
                **self.whole(
                    Reply(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens), body
                )
            }
        )


class ResponsesFake(Fake):
    """``POST /v1/responses``: OpenAI's Responses API, whole or streamed as typed events."""

    provider = "openai-responses"

    def reset(self) -> None:
        super().reset()
        self.ids: list[str] = []
        """The id of each response sent, in order."""

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/responses", self.handle, methods=["POST"])])

    def check_auth(self, request: Request) -> None:
        if request.headers.get("authorization") != f"Bearer {UPSTREAM_KEY}":
            self.problem("bad bearer key")

    def validate(self, body: dict[str, Any], request: Request) -> None:
        if not isinstance(body.get("model"), str):
            self.problem("model must be a string")
        if "messages" in body:
            self.problem("the Responses API takes input, not messages")
        items = body.get("input")
        if not isinstance(items, (str, list)) or not items:
            self.problem("input must be a string or a non-empty list")
            return
        call_ids: set[str] = set()
        for i, item in enumerate(items if isinstance(items, list) else []):
            kind = item.get("type", "message")
            if kind == "message":
                if item.get("role") not in ("system", "developer", "user", "assistant"):
                    self.problem(f"input[{i}].role invalid")
            elif kind == "function_call":
                if not item.get("call_id") or not isinstance(item.get("arguments"), str):
                    self.problem(f"input[{i}] function_call needs call_id and string arguments")
                call_ids.add(item.get("call_id"))
            elif kind == "function_call_output":
                if item.get("call_id") not in call_ids:
                    self.problem(f"input[{i}].call_id answers no earlier call")
            elif kind != "reasoning":
                self.problem(f"input[{i}] has unknown type {kind}")
        for tool in body.get("tools") or []:
            # flat tools: no nested "function" object, as in Chat Completions
            if tool.get("type") != "function" or not isinstance(tool.get("name"), str):
                self.problem("bad tool (Responses tools are flat)")
            if (tool.get("parameters") or {}).get("type") != "object":
                self.problem("tool parameters must be an object schema")
        for key in ("max_tokens", "stream_options", "response_format"):
            if key in body:
                self.problem(f"the Responses API has no {key}")

    def output(self, reply: Reply) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        if reply.text:
            items.append(
                {
                    "type": "message",
                    "id": "msg_fake",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
                }
            )
        for index, (name, args) in enumerate(reply.calls):
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{index}",
                    "call_id": f"call_{uuid.uuid4().hex[:8]}",
                    "name": name,
                    "arguments": json.dumps(args),
                    "status": "completed",
                }
            )
        return items

    def whole(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        self.ids.append(f"resp_{uuid.uuid4().hex}")  # the upstream's own id, fresh each time
        return {
            "id": self.ids[-1],
            "object": "response",
            "created_at": 1,
            "model": body["model"],
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "metadata": body.get("metadata") or {},
            "output": self.output(reply),
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "store": body.get("store", True),
            "temperature": body.get("temperature"),
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "top_p": body.get("top_p"),
            "usage": {
                "input_tokens": reply.input_tokens,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": reply.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": reply.input_tokens + reply.output_tokens,
            },
        }

    async def stream(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        sequence = iter(range(10_000))

        def ev(payload: dict[str, Any]) -> bytes:
            return sse({"sequence_number": next(sequence), **payload}, payload["type"])

        final = self.whole(reply, body)
        started = {**final, "status": "in_progress", "output": [], "usage": None}
        yield ev({"type": "response.created", "response": started})
        yield ev({"type": "response.in_progress", "response": started})
        for index, item in enumerate(final["output"]):
            if item["type"] == "message":
                where = {"item_id": item["id"], "output_index": index, "content_index": 0}
                opened = {**item, "status": "in_progress", "content": []}
                yield ev(
                    {"type": "response.output_item.added", "output_index": index, "item": opened}
                )
                part = {"type": "output_text", "text": "", "annotations": []}
                yield ev({"type": "response.content_part.added", **where, "part": part})
                for piece in pieces(reply.text, self.chunk_size):
                    delta = {"type": "response.output_text.delta", **where, "delta": piece}
                    yield ev({**delta, "logprobs": []})
                done = {"type": "response.output_text.done", **where, "text": reply.text}
                yield ev({**done, "logprobs": []})
                part = item["content"][0]
                yield ev({"type": "response.content_part.done", **where, "part": part})
                yield ev({"type": "response.output_item.done", "output_index": index, "item": item})
                continue
            yield ev(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "arguments": "", "status": "in_progress"},
                }
            )
            for part in pieces(item["arguments"], 5):
                yield ev(
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "delta": part,
                    }
                )
            yield ev(
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "arguments": item["arguments"],
                }
            )
            yield ev({"type": "response.output_item.done", "output_index": index, "item": item})
        yield ev({"type": "response.completed", "response": final})


class RawFake:
    """An upstream that answers every POST with exactly the bytes a test sets: a
    wrong-shaped JSON reply, an HTML page, an empty body, an error page."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.status = 200
        self.body = b""
        self.content_type = "application/json"
        self.requests = 0

    async def handle(self, request: Request) -> Response:
        await request.body()
        self.requests += 1
        return Response(self.body, status_code=self.status, media_type=self.content_type)

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self.handle, methods=["POST"])])


@contextmanager
def vendor_fakes() -> Iterator[dict[str, tuple[Fake, str]]]:
    """One fake upstream per vendor (and a text-only OpenAI one), each served on
    loopback: ``{name: (fake, url)}``, stopped on leaving."""
    instances: dict[str, Fake] = {
        "openai": OpenAIFake(),
        "text": OpenAIFake(text_only=True),
        "anthropic": AnthropicFake(),
        "gemini": GeminiFake(),
        "ollama": OllamaFake(),
        "responses": ResponsesFake(),
    }
    servers = {name: BackgroundServer(fake.app()).start() for name, fake in instances.items()}
    try:
        yield {name: (instances[name], servers[name].url) for name in instances}
    finally:
        for server in servers.values():
            server.stop()
