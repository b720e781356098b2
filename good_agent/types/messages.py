"""Conversation messages, tool calls, tool responses and a model's reply.

Messages are pydantic models discriminated by ``role``. Each converts itself to the
OpenAI Chat Completions message dict with `to_openai`, the shape the provider
layer speaks. A reply is decoded from the wire straight into a `ModelResponse`
(with `ToolCall` s) and enters the history as the `AssistantMessage` of
`ModelResponse.to_message`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field

from good_agent.types.builtin_tools import BuiltinToolCall, BuiltinToolResult, Citation
from good_agent.types.content import (
    AudioUrl,
    BinaryContent,
    ContentPart,
    DocumentUrl,
    ImageUrl,
    UserContent,
    content_to_openai,
)
from good_agent.types.errors import ToolResultError
from good_agent.types.usage import Usage

REPLAY_KEY = "replay_items"
"""Key of an assistant message dict holding provider items to send back verbatim on
the next request: Anthropic ``thinking``/``redacted_thinking`` blocks (with their
signatures) and OpenAI Responses ``reasoning`` items. Each codec sends the items of
its own API and drops the rest."""


class ToolCall(BaseModel):
    """A model's request to run one tool.

    ``arguments_error`` is set when the model's raw argument text could not be
    decoded or was found invalid while parsing; ``raw_arguments`` then keeps the
    original text and ``arguments_problems`` lists each problem. Such a call is
    answered with a validation error, never run with empty arguments.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)
    __tool_injection__: ClassVar[str] = "call"

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None
    arguments_error: str | None = None
    arguments_problems: list[str] = Field(default_factory=list)

    @property
    def arguments_text(self) -> str:
        """The argument text as the model wrote it (``raw_arguments``), else the
        arguments as JSON."""
        if self.raw_arguments is not None:
            return self.raw_arguments
        return json.dumps(self.arguments, ensure_ascii=False)

    def to_openai(self) -> dict[str, Any]:
        """Return the OpenAI ``tool_calls`` entry for this call."""
        raw = self.raw_arguments if self.arguments_error else None
        text = raw if raw is not None else json.dumps(self.arguments, ensure_ascii=False)
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": text},
        }


class ToolResponse(BaseModel):
    """The outcome of one tool call: a response value, or an error for the model."""

    model_config = ConfigDict(defer_build=True)

    tool_name: str
    tool_call_id: str
    response: Any = None
    success: bool = True
    error: str | None = None

    def content_text(self) -> str:
        """Render the response (or the error) as the text the model reads."""
        if not self.success:
            return f"Error: {self.error}" if self.error else "Error"
        return render_value(self.response, self.tool_name)


MEDIA_RESULT_KEY = "media"
"""Key of a tool message dict holding the media parts the tool returned (neutral
content parts): Anthropic sends them in its ``tool_result`` block, OpenAI Responses in
its ``function_call_output``, the other codecs in a user message after the tool results."""

_MEDIA_TYPES = (ImageUrl, DocumentUrl, AudioUrl, BinaryContent)


def media_of(value: Any) -> list[ContentPart]:
    """The media parts a tool returned: the value itself, or the parts in a list of them."""
    if isinstance(value, _MEDIA_TYPES):
        return [value]
    if isinstance(value, list | tuple) and any(isinstance(v, _MEDIA_TYPES) for v in value):
        return [v for v in value if isinstance(v, _MEDIA_TYPES)]
    return []


def render_value(value: Any, tool_name: str | None = None) -> str:
    """Render a tool's return value as text: strings as-is, the rest as JSON.

    JSON the way pydantic renders it (`pydantic_core.to_jsonable_python`): enums by
    value, dates and times in ISO 8601, dataclasses, pydantic models and TypedDicts as
    objects, sets and tuples as lists, bytes as base64. A value with no JSON form is a
    [`ToolResultError`][good_agent.ToolResultError] naming the tool (``tool_name``) and
    the type. Media parts (an image a tool drew) are named, not dumped: they travel
    beside the text (see [`ToolMessage.media`][good_agent.ToolMessage.media]).
    """
    if isinstance(value, str):
        return value
    media = media_of(value)
    if media:
        texts = [v for v in value if isinstance(v, str)] if isinstance(value, list | tuple) else []
        named = ", ".join(f"{part.media_kind} {_media_type(part)}" for part in media)
        return "\n".join([*texts, f"[returned: {named}]"])
    try:
        if isinstance(value, BaseModel):  # its own JSON settings apply
            return value.model_dump_json()
        jsonable = pydantic_core.to_jsonable_python(value, bytes_mode="base64")
    except pydantic_core.PydanticSerializationError as exc:
        raise ToolResultError(tool_name, _unrenderable(value, str(exc))) from None
    return json.dumps(jsonable, ensure_ascii=False)


def _unrenderable(value: Any, message: str) -> str:
    """The name of the type pydantic could not render (from its message), else the value's."""
    marker = "Unable to serialize unknown type: "
    if marker in message:
        return message.split(marker, 1)[1].strip().strip("<>").removeprefix("class ").strip("'")
    return type(value).__qualname__


def _media_type(part: ContentPart) -> str:
    return part.media_type or part.to_openai()["media_type"]


class SystemMessage(BaseModel):
    """Instructions for the model."""

    model_config = ConfigDict(defer_build=True)

    role: Literal["system"] = "system"
    content: str

    def to_openai(self) -> dict[str, Any]:
        """Return the OpenAI chat message dict."""
        return {"role": "system", "content": self.content}


class UserMessage(BaseModel):
    """A message from the user: text, or a list of text and media parts.

    ``UserMessage(content=["What is this?", BinaryContent(png, "image/png")])``; the
    parts are [`ImageUrl`][good_agent.ImageUrl], [`DocumentUrl`][good_agent.DocumentUrl],
    [`AudioUrl`][good_agent.AudioUrl] and [`BinaryContent`][good_agent.BinaryContent].
    """

    model_config = ConfigDict(defer_build=True)

    role: Literal["user"] = "user"
    content: str | list[UserContent]
    id: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """The message's id on a client's wire (an AG-UI or UI message id), kept so a client
    resending it is recognized; never sent to a model."""

    def to_openai(self) -> dict[str, Any]:
        """Return the OpenAI chat message dict (content parts for a list)."""
        return {"role": "user", "content": content_to_openai(self.content)}

    @property
    def text(self) -> str:
        """The message's text parts joined (the whole content when it is a string)."""
        if isinstance(self.content, str):
            return self.content
        return "".join(item for item in self.content if isinstance(item, str))


class AssistantMessage(BaseModel):
    """A model turn: text, tool calls, or both."""

    model_config = ConfigDict(defer_build=True)

    role: Literal["assistant"] = "assistant"
    content: str | None = None
    id: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """The message's id on a client's wire (an AG-UI or UI message id), kept so a client
    resending it is recognized; never sent to a model."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: Usage | None = None
    replay: list[dict[str, Any]] = Field(default_factory=list)
    """Provider items sent back verbatim with this turn (Anthropic thinking blocks with
    their signatures, OpenAI Responses reasoning items); codecs send their own kind."""
    incomplete: bool = False
    """The turn was cut short while it streamed (the run was left early, cancelled or
    failed mid-reply): ``content`` is the text that had arrived, tool calls not yet
    complete are dropped. It keeps the history one user turn, one assistant turn."""
    builtin_calls: list[BuiltinToolCall] = Field(default_factory=list)
    """Built-in tools the provider ran in this turn (web search, code execution...);
    the agent does not run them. Sent back to the same provider through ``replay``."""
    builtin_results: list[BuiltinToolResult] = Field(default_factory=list)
    """What those built-in tools returned."""
    citations: list[Citation] = Field(default_factory=list)
    """The sources the provider cites for this turn's text."""

    def to_openai(self) -> dict[str, Any]:
        """Return the OpenAI chat message dict (``replay_items`` when there are any)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.replay:
            message[REPLAY_KEY] = [dict(item) for item in self.replay]
        if self.tool_calls:
            message["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        return message


@dataclass(slots=True)
class ModelResponse:
    """A model's reply: text and/or tool calls, why it stopped, and token usage.

    Every codec decodes a whole reply into one, every stream decoder ends with one;
    the agent appends its [`to_message`][good_agent.ModelResponse.to_message] to the
    history and the bridge writes it in the client's wire format. ``finish_reason``
    uses the OpenAI vocabulary (``stop``, ``tool_calls``, ``length``,
    ``content_filter``); ``model`` is the model id the upstream reported, if any.
    """

    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    reasoning: str | None = None
    replay: list[dict[str, Any]] = field(default_factory=list)
    """Provider items the next request must carry back (thinking blocks, reasoning items)."""
    model: str | None = None
    builtin_calls: list[BuiltinToolCall] = field(default_factory=list)
    """Built-in tools the provider ran (never run by the agent)."""
    builtin_results: list[BuiltinToolResult] = field(default_factory=list)
    """What the built-in tools returned."""
    citations: list[Citation] = field(default_factory=list)
    """The sources the provider cites."""

    def with_tool_calls(self, tool_calls: list[ToolCall]) -> ModelResponse:
        """This reply with other ``tool_calls`` (the rest is shared, not copied)."""
        return ModelResponse(
            self.content,
            tool_calls,
            self.finish_reason,
            self.usage,
            self.reasoning,
            self.replay,
            self.model,
            self.builtin_calls,
            self.builtin_results,
            self.citations,
        )

    def to_message(self) -> AssistantMessage:
        """Return the assistant message this reply appends to the history."""
        return AssistantMessage(
            content=self.content,
            tool_calls=list(self.tool_calls),
            reasoning=self.reasoning,
            finish_reason=self.finish_reason,
            usage=self.usage,
            replay=[dict(item) for item in self.replay],
            builtin_calls=list(self.builtin_calls),
            builtin_results=list(self.builtin_results),
            citations=list(self.citations),
        )


class ToolMessage(BaseModel):
    """The result of one tool call, as the model will read it."""

    model_config = ConfigDict(defer_build=True)

    role: Literal["tool"] = "tool"
    tool_call_id: str
    tool_name: str
    content: str
    is_error: bool = False
    media: list[ContentPart] = Field(default_factory=list)
    """Images and documents the tool returned (a ``BinaryContent`` return value)."""
    id: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """The message's id on a client's wire (an AG-UI or UI message id), kept so a client
    resending it is recognized; never sent to a model."""

    @classmethod
    def from_response(cls, response: ToolResponse) -> ToolMessage:
        """Build the message that carries ``response`` back to the model."""
        value = response.response
        if response.success and not isinstance(value, str):
            media = media_of(value)
            if media:
                return cls(
                    tool_call_id=response.tool_call_id,
                    tool_name=response.tool_name,
                    content=response.content_text(),
                    media=media,
                )
        # No media (the usual text result): the field keeps its default.
        return cls(
            tool_call_id=response.tool_call_id,
            tool_name=response.tool_name,
            content=response.content_text(),
            is_error=not response.success,
        )

    def to_openai(self) -> dict[str, Any]:
        """Return the OpenAI chat message dict.

        ``name`` and, for failures, ``is_error: true`` are kept as extra keys so codecs
        for providers with an error slot (Anthropic, Gemini) can use them; the OpenAI
        codec removes them.
        """
        message: dict[str, Any] = {
            "role": "tool",
            "tool_call_id": self.tool_call_id,
            "name": self.tool_name,
            "content": self.content,
        }
        if self.is_error:
            message["is_error"] = True
        if self.media:
            message[MEDIA_RESULT_KEY] = [part.to_openai() for part in self.media]
        return message


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage,
    Field(discriminator="role"),
]
"""Any message of a conversation."""


def to_openai_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Convert a history to OpenAI chat message dicts."""
    return [message.to_openai() for message in messages]
