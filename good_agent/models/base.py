"""The `LanguageModel` protocol: a normalized request in, a normalized response out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from good_agent.providers.streaming.deltas import (
    FinishDelta,
    ModelDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageDelta,
)
from good_agent.providers.types import ToolChoice
from good_agent.types.messages import Message, ModelResponse

__all__ = [
    "LanguageModel",
    "ModelRequest",
    "ModelResponse",
    "ModelStreamItem",
    "deltas_of",
    "stream_of",
    "stream_whole",
]


@dataclass(slots=True)
class ModelRequest:
    """What the agent asks a model for.

    ``tools`` are the LLM-visible tool signatures, exactly as adapters left them,
    in OpenAI function format. ``response_format`` is an OpenAI-style
    ``response_format`` (``json_schema`` / ``json_object``) for a typed answer.
    ``output_schema`` is the JSON schema of a typed answer given as JSON text
    (``"prompted"`` and ``"native"`` output modes), for models that read it, such as
    [`TestModel`][good_agent.testing.TestModel]; a provider gets it in the prompt or
    in ``response_format``, never as itself.
    """

    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: ToolChoice | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    response_format: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None

    def with_messages(self, messages: list[Message]) -> ModelRequest:
        """This request with other ``messages`` (the rest is shared, not copied)."""
        return ModelRequest(
            messages,
            self.tools,
            self.tool_choice,
            self.settings,
            self.response_format,
            self.output_schema,
        )


@runtime_checkable
class LanguageModel(Protocol):
    """Anything the agent loop can ask for a reply.

    A model of one's own needs ``model_name`` and
    [`request`][good_agent.LanguageModel.request]; subclassing
    ``LanguageModel`` gives it the default [`stream`][good_agent.LanguageModel.stream]
    (the whole reply as one
    stream), and the agent streams an object without ``stream`` the same way
    (`stream_of`).
    """

    @property
    def model_name(self) -> str:
        """The model's identifier, for logs and events."""
        ...

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Send ``request`` and return the normalized reply."""
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelStreamItem]:
        """Send ``request`` and yield deltas as they arrive, then the complete reply.

        The last item is always the [`ModelResponse`][good_agent.ModelResponse] that
        [`request`][good_agent.LanguageModel.request]
        would have returned; every item before it is a
        `ModelDelta`. Closing the
        iterator early (``aclose()``, leaving ``async for``) cancels the upstream
        request.

        The default (for a subclass that implements only
        [`request`][good_agent.LanguageModel.request]) is
        `stream_whole`: the reply as the deltas it would have streamed, at once.
        """
        return stream_whole(self, request)


ModelStreamItem = ModelDelta | ModelResponse
"""What `LanguageModel.stream` yields: deltas, then one final `ModelResponse`."""


def deltas_of(response: ModelResponse) -> list[ModelDelta]:
    """The deltas a stream of ``response`` would have carried, for models that reply whole."""
    deltas: list[ModelDelta] = []
    if response.reasoning:
        deltas.append(ReasoningDelta(response.reasoning))
    if response.content:
        deltas.append(TextDelta(response.content))
    for index, call in enumerate(response.tool_calls):
        deltas.append(ToolCallStart(index, call.id, call.name))
        deltas.append(ToolCallArgs(index, call.to_openai()["function"]["arguments"]))
        deltas.append(ToolCallEnd(index))
    usage = response.usage
    deltas.append(UsageDelta(usage.input_tokens, usage.output_tokens))
    deltas.append(FinishDelta(response.finish_reason))
    return deltas


async def stream_whole(
    model: LanguageModel, request: ModelRequest
) -> AsyncIterator[ModelStreamItem]:
    """Stream a reply that arrives whole: its `deltas_of`, then the reply itself."""
    response = await model.request(request)
    for delta in deltas_of(response):
        yield delta
    yield response


def stream_of(model: Any, request: ModelRequest) -> AsyncIterator[ModelStreamItem]:
    """``model.stream(request)``, or `stream_whole` for a model without ``stream``."""
    stream = getattr(model, "stream", None)
    if stream is None:
        return stream_whole(model, request)
    items: AsyncIterator[ModelStreamItem] = stream(request)
    return items
