"""Tool-calling modes, the strategy protocol and the validation result."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from good_agent.providers.types import JSONDict, ToolChoice
from good_agent.types.messages import ModelResponse, ToolCall


class ToolCallingMode(enum.Enum):
    """How tools reach a model and how calls come back.

    ``AUTO`` picks from the model's profile; ``NATIVE`` uses the provider's tools
    API; ``STRUCTURED`` asks for a strict JSON-schema reply naming a tool;
    ``VALIDATED`` and ``PARSED`` describe tools in the prompt and parse calls out of
    text (``VALIDATED`` also validates the calls against each tool's schema).
    """

    AUTO = "auto"
    NATIVE = "native"
    STRUCTURED = "structured"
    VALIDATED = "validated"
    PARSED = "parsed"


@dataclass(frozen=True, slots=True)
class ToolCallValidation:
    """The outcome of validating one tool-call payload.

    ``arguments`` holds the validated arguments when ``is_valid``; otherwise
    ``error_message`` explains the problem in words meant for the model and
    ``problems`` lists the argument problems one by one (empty when the payload
    failed for another reason, such as an unknown tool).
    """

    is_valid: bool
    error_message: str | None = None
    arguments: JSONDict | None = None
    problems: tuple[str, ...] = ()


@runtime_checkable
class ToolCallingStrategy(Protocol):
    """A tool-calling strategy for one model: request building and reply reading.

    ``tools`` are OpenAI function-format definitions and ``messages`` OpenAI chat
    message dicts. Methods taking ``tools=`` use them to map sanitized names back.
    """

    mode: ToolCallingMode
    model: str

    def format_request(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> JSONDict:
        """The provider request body; ``kw`` may hold ``tool_choice``,
        ``parallel_tool_calls`` and ``settings``."""
        ...

    def decode(self, response: JSONDict, tools: list[JSONDict] | None = None) -> ModelResponse:
        """The whole reply, decoded into the model's reply."""
        ...

    def extract_tool_call(
        self, response: JSONDict, tools: list[JSONDict] | None = None
    ) -> JSONDict | None:
        """The first call as ``{"tool", "arguments", "scratchpad"}``, or
        ``{"answer", "scratchpad"}`` for a text answer, ``None`` for neither."""
        ...

    def extract_tool_calls(
        self, response: JSONDict, tools: list[JSONDict] | None = None
    ) -> list[ToolCall]:
        """Every tool call in the reply."""
        ...

    def validate_tool_call(
        self, payload: JSONDict, tools_by_name: dict[str, JSONDict]
    ) -> ToolCallValidation:
        """Check a payload's tool name and arguments against the tool's schema."""
        ...

    def assistant_turn(self, response: ModelResponse) -> list[JSONDict]:
        """The reply as history entries in the provider's own format."""
        ...

    def tool_result_turn(self, results: list[JSONDict]) -> list[JSONDict]:
        """Tool messages (neutral ``role: tool`` dicts) in the provider's format."""
        ...


ChoiceArg = ToolChoice | None
"""A ``tool_choice`` keyword argument."""
