"""The shapes of the two request bodies the bridge accepts, checked before anything else.

`ChatCompletionsBody` (``POST /v1/chat/completions``) and `MessagesBody`
(``POST /v1/messages``) are strict pydantic models of the fields the bridge reads:
a boolean is not a number (``n: true`` and ``max_tokens: true`` are refused), a
number is not a boolean (``stream: 0``), a string is not a boolean (``stream: "yes"``),
and ``content`` is a string, a list of parts or null. Unknown fields are allowed,
as the official APIs add fields over time. `check_body` turns the first
problem into a 400 whose ``param`` is the field's path (``messages[0].content``), and
returns the parsed body: its endpoint reads the fields from it, and forwards the
messages, tools and settings it holds as the client wrote them (unknown fields kept).

Their JSON Schemas (``ChatCompletionsBody.model_json_schema()``) document the
accepted bodies and seed the bridge's fuzz tests.

References: https://platform.openai.com/docs/api-reference/chat/create and
https://docs.anthropic.com/en/api/messages
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from good_agent.server.common.errors import bad_request

MAX_COUNT = 2**31 - 1
"""The largest token count (``max_tokens``...) accepted: a signed 32-bit integer."""

Finite = Annotated[float, Field(allow_inf_nan=False)]
Count = Annotated[int, Field(ge=1, le=MAX_COUNT)]
Temperature = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Probability = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Seed = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]

Body = TypeVar("Body", bound=BaseModel)


class _Open(BaseModel):
    """Strict types for the known fields; unknown fields pass."""

    model_config = ConfigDict(extra="allow", strict=True)


class ImageURL(_Open):
    """The ``image_url`` of an image part: a URL or a ``data:`` URL."""

    url: str
    detail: str | None = None


class ContentPart(_Open):
    """One part of a list ``content`` (``{"type": "text", "text": ...}``, images...)."""

    type: Literal["text", "image_url", "input_audio", "file", "refusal"]
    text: str | None = None
    image_url: ImageURL | None = None

    @model_validator(mode="after")
    def _required_by_type(self) -> ContentPart:
        needed = {"text": "text", "image_url": "image_url"}.get(self.type)
        if needed is not None and getattr(self, needed) is None:
            shape = '{"url": ...}' if needed == "image_url" else "a string"
            raise ValueError(f"a {self.type} part needs '{needed}' ({shape})")
        return self


class FunctionCall(_Open):
    """The ``function`` of an assistant's tool call."""

    name: str
    arguments: str | None = None


class ToolCall(_Open):
    """One entry of an assistant message's ``tool_calls``."""

    id: str
    type: Literal["function"] | None = None
    function: FunctionCall


class ChatMessage(_Open):
    """One message of a Chat Completions request."""

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None
    name: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None


class FunctionDefinition(_Open):
    """A tool's ``function``: name, description and parameter schema."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class ToolDefinition(_Open):
    """One entry of ``tools``."""

    type: Literal["function"]
    function: FunctionDefinition


class NamedFunction(_Open):
    """The ``function`` of a named ``tool_choice``."""

    name: str


class NamedToolChoice(_Open):
    """``{"type": "function", "function": {"name": ...}}``."""

    type: Literal["function"]
    function: NamedFunction


class StreamOptions(_Open):
    """``stream_options``."""

    include_usage: bool | None = None


class ResponseFormat(_Open):
    """``response_format``."""

    type: Literal["text", "json_object", "json_schema"]
    json_schema: dict[str, Any] | None = None


class ChatCompletionsBody(_Open):
    """The body of ``POST /v1/chat/completions``, as far as the bridge reads it."""

    model: str = Field(min_length=1)
    messages: list[ChatMessage] = Field(min_length=1)
    tools: list[ToolDefinition] | None = None
    tool_choice: Literal["auto", "none", "required"] | NamedToolChoice | None = None
    parallel_tool_calls: bool | None = None
    n: Count | None = None
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    response_format: ResponseFormat | None = None
    temperature: Temperature | None = None
    top_p: Probability | None = None
    max_tokens: Count | None = None
    max_completion_tokens: Count | None = None
    stop: str | list[str] | None = None
    seed: Seed | None = None
    presence_penalty: Finite | None = None
    frequency_penalty: Finite | None = None
    logprobs: bool | None = None
    top_logprobs: Annotated[int, Field(ge=0, le=20)] | None = None
    logit_bias: dict[str, Finite] | None = None
    user: str | None = None


class MessagesBlock(_Open):
    """A content block of a Messages request (``text``, ``tool_use``, ``tool_result``...)."""

    type: str
    text: str | None = None
    id: str | None = None
    name: str | None = None
    input: dict[str, Any] | None = None
    tool_use_id: str | None = None
    content: str | list[dict[str, Any]] | None = None
    is_error: bool | None = None

    @model_validator(mode="after")
    def _required_by_type(self) -> MessagesBlock:
        needed = {"text": ("text",), "tool_use": ("id", "name"), "tool_result": ("tool_use_id",)}
        for field in needed.get(self.type, ()):
            if getattr(self, field) is None:
                raise ValueError(f"a {self.type} block needs '{field}' (a string)")
        return self


class MessagesMessage(_Open):
    """One message of a Messages request."""

    role: Literal["user", "assistant"]
    content: str | list[MessagesBlock]


class MessagesTool(_Open):
    """One entry of ``tools``: a client tool with its input schema, or a server tool
    (``{"type": "web_search_20250305", "name": "web_search", ...}``), whose ``type``
    names it (the function tools' ``input_schema`` is checked on translation)."""

    name: str
    description: str | None = None
    input_schema: dict[str, Any] | None = None
    type: str | None = None


class MessagesToolChoice(_Open):
    """``tool_choice``: ``auto``, ``any``, ``none`` or a named ``tool``."""

    type: Literal["auto", "any", "none", "tool"]
    name: str | None = None
    disable_parallel_tool_use: bool | None = None


class ThinkingConfig(_Open):
    """``thinking``: extended thinking on (with a token budget) or off."""

    type: Literal["enabled", "disabled", "adaptive"]
    budget_tokens: Count | None = None


class MessagesBody(_Open):
    """The body of ``POST /v1/messages``, as far as the bridge reads it."""

    model: str = Field(min_length=1)
    max_tokens: Count
    messages: list[MessagesMessage] = Field(min_length=1)
    system: str | list[MessagesBlock] | None = None
    tools: list[MessagesTool] | None = None
    tool_choice: MessagesToolChoice | None = None
    stream: bool | None = None
    temperature: Temperature | None = None
    top_p: Probability | None = None
    top_k: Annotated[int, Field(ge=0, le=MAX_COUNT)] | None = None
    stop_sequences: list[str] | None = None
    metadata: dict[str, Any] | None = None
    thinking: ThinkingConfig | None = None


def check_body(shape: type[Body], body: Any) -> Body:
    """``body`` parsed into ``shape``; a 400 naming the first bad field otherwise."""
    if not isinstance(body, dict):
        raise bad_request("the request body must be a JSON object")
    try:
        return shape.model_validate(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        found = [(locate(error, body), error) for error in errors]
        # The most specific location: a union's deepest member error names the field.
        first = max(found, key=lambda item: _depth(item[0][0]))
        (path, value), error = first
        if error["type"] == "missing":
            raise bad_request(f"'{path}' is required", path) from None
        reasons: list[str] = []
        for (where, _), other in found:
            reason = _reason(other)
            if where == path and reason not in reasons:
                reasons.append(reason)
        shown = json.dumps(value, ensure_ascii=True)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        message = f"'{path}' is invalid: {', or '.join(reasons)} (got {shown})"
        raise bad_request(message, path) from None


def _depth(path: str) -> int:
    return path.count(".") + path.count("[")


_PLAIN_WORDS = (
    (re.compile(r"a valid dictionary or instance of \w+"), "an object"),
    (re.compile(r"a valid dictionary"), "an object"),
    (re.compile(r"a valid list"), "an array"),
)


def _reason(error: ErrorDetails) -> str:
    text = str(error["msg"]).removeprefix("Value error, ")
    for pattern, plain in _PLAIN_WORDS:
        text = pattern.sub(plain, text)
    return text[:1].lower() + text[1:]


def locate(error: ErrorDetails, body: Any) -> tuple[str, Any]:
    """The request field an error is about (``messages[0].content``) and its value,
    skipping the union member names pydantic puts in an error's location."""
    path = ""
    node: Any = body
    loc = error["loc"]
    for number, part in enumerate(loc):
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
            path += f"[{part}]"
        elif isinstance(part, str) and isinstance(node, dict) and part in node:
            node = node[part]
            path += f".{part}" if path else part
        elif error["type"] == "missing" and number == len(loc) - 1:
            path += f".{part}" if path else str(part)
            node = None
    return path, node
