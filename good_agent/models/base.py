"""The :class:`LanguageModel` protocol: a normalized request in, a normalized response out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from good_agent.core.messages import AssistantMessage, Message, ToolCall, Usage
from good_agent.providers.types import ParsedToolCall, ProviderResponse, ToolChoice


@dataclass(slots=True)
class ModelRequest:
    """What the agent asks a model for.

    ``tools`` are the LLM-visible tool signatures, exactly as adapters left them,
    in OpenAI function format.
    """

    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: ToolChoice | None = None
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ModelResponse:
    """A model's reply: text and/or tool calls, why it stopped, and token usage."""

    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    reasoning: str | None = None

    @classmethod
    def from_provider(cls, response: ProviderResponse) -> ModelResponse:
        """Build a reply from the provider layer's normalized response."""
        return _from_provider(cls, response)

    def to_message(self) -> AssistantMessage:
        """Return the assistant message this reply appends to the history."""
        return AssistantMessage(
            content=self.content,
            tool_calls=list(self.tool_calls),
            reasoning=self.reasoning,
            finish_reason=self.finish_reason,
            usage=self.usage,
        )


@runtime_checkable
class LanguageModel(Protocol):
    """Anything the agent loop can ask for a reply."""

    @property
    def model_name(self) -> str:
        """The model's identifier, for logs and events."""
        ...

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Send ``request`` and return the normalized reply."""
        ...


def tool_call_from_parsed(call: ParsedToolCall) -> ToolCall:
    """Convert a provider-layer call to the agent's :class:`ToolCall`."""
    return ToolCall(
        id=call.id,
        name=call.name,
        arguments=call.arguments if call.arguments is not None else {},
        raw_arguments=call.raw_arguments,
        arguments_error=call.error,
    )


def _from_provider(cls: type[ModelResponse], response: ProviderResponse) -> ModelResponse:
    return cls(
        content=response.content,
        tool_calls=[tool_call_from_parsed(call) for call in response.tool_calls],
        finish_reason=response.finish_reason,
        usage=Usage(
            input_tokens=response.usage.input_tokens, output_tokens=response.usage.output_tokens
        ),
        reasoning=response.reasoning,
    )
