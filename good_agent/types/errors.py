"""Exception types raised by good-agent. Every one derives from `GoodAgentError`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from good_agent.types.messages import Message


class GoodAgentError(Exception):
    """Base class of every error raised by good-agent."""


class ToolDefinitionError(GoodAgentError, ValueError):
    """A tool cannot be built or registered (bad signature, duplicate name...)."""


class ToolResultError(GoodAgentError, TypeError):
    """A tool returned a value that cannot be rendered as JSON for the model.

    The message names the tool and the type that could not be rendered.
    """

    def __init__(self, tool_name: str | None, type_name: str, detail: str = "") -> None:
        self.tool_name = tool_name
        self.type_name = type_name
        who = f"tool '{tool_name}'" if tool_name else "a tool"
        super().__init__(
            f"{who} returned a value of type '{type_name}' that cannot be rendered as JSON"
            + (f" ({detail})" if detail else "")
            + "; return a str, a JSON value, a dataclass, a TypedDict or a pydantic model,"
            " or convert the value in the tool"
        )


class ToolError(GoodAgentError):
    """Raise from a tool or an adapter to send ``message`` back to the model as an error.

    The model reads the message and may try again; the call counts against the
    tool's retry limit.
    """


class ToolRetry(ToolError):
    """Raise from a tool to ask the model to try again: ``message`` is the tool's result.

    It is not a crash: it is not logged as an error and ``tool_errors="raise"``
    does not propagate it. It counts against the tool's retry limit
    (``@tool(retries=...)`` or the agent's ``max_tool_retries``).
    """


ModelRetry = ToolRetry
"""The name other frameworks use for [`ToolRetry`][good_agent.ToolRetry]: raise it from a tool or an
output validator to send the model back with the message."""


class ToolTimeoutError(ToolError, TimeoutError):
    """A tool ran past its time limit (``@tool(timeout=...)`` or ``Agent(tool_timeout=...)``).

    The call is cancelled and the model is told; it counts against the tool's retry
    limit. A sync tool's worker thread cannot be stopped: it runs on, and its result
    is dropped.
    """

    def __init__(self, tool_name: str, seconds: float) -> None:
        self.tool_name = tool_name
        self.seconds = seconds
        super().__init__(
            f"tool '{tool_name}' did not finish within its time limit of {seconds:g}s "
            "and was cancelled"
        )


class ToolArgumentsError(ToolError, ValueError):
    """Arguments for a tool failed validation; the message is written for a model."""

    def __init__(self, tool_name: str, problems: Sequence[str]) -> None:
        self.tool_name = tool_name
        self.problems = list(problems)
        listed = "; ".join(self.problems)
        super().__init__(f"invalid arguments for tool '{tool_name}': {listed}")


class UnknownToolError(GoodAgentError, LookupError):
    """A tool name that no registered tool has."""

    def __init__(self, tool_name: str, available: Sequence[str]) -> None:
        self.tool_name = tool_name
        self.available = list(available)
        names = ", ".join(self.available) or "none"
        super().__init__(f"unknown tool '{tool_name}'; available tools: {names}")


class AgentRunError(GoodAgentError):
    """A run of the agent loop stopped; ``messages`` holds the history so far."""

    def __init__(self, message: str, messages: Sequence[Message]) -> None:
        super().__init__(message)
        self.messages = list(messages)


class MaxIterationsError(AgentRunError):
    """The model kept calling tools past ``max_iterations`` model requests."""


class ToolRetriesExceededError(AgentRunError):
    """A tool failed more times in one run than its retry limit allows."""


class OutputValidationError(AgentRunError):
    """The model's answer did not match the run's output type after every retry.

    ``problems`` lists what was wrong with the last answer; ``messages`` holds the
    history, every failed answer and retry prompt included.
    """

    def __init__(self, message: str, messages: Sequence[Message], problems: Sequence[str]) -> None:
        super().__init__(message, messages)
        self.problems = list(problems)


class ApprovalError(GoodAgentError, ValueError):
    """Approvals do not match the calls waiting for them (missing, unknown, none waiting)."""


class RunDeferredError(GoodAgentError):
    """The output of a run that stopped to wait for approvals was read: it has none.

    The calls waiting are on ``result.deferred``; ``result.output_or_none`` reads
    the output of a run that may have stopped.
    """


class ModelError(GoodAgentError):
    """A model request failed. ``provider`` and ``status_code`` say where and how;
    ``retry_after`` is the wait in seconds the server asked for (``Retry-After``), if any."""

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status_code: int | None = None,
        body: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status_code = status_code
        self.body = body
        self.retry_after = retry_after


class ModelAuthenticationError(ModelError):
    """The provider refused the credentials (HTTP 401 or 403)."""


class ModelRateLimitError(ModelError):
    """The provider is rate limiting (HTTP 429)."""


class ModelOverloadedError(ModelError):
    """The provider is overloaded or failing (HTTP 5xx, 529)."""


class ModelBadRequestError(ModelError):
    """The provider rejected the request as malformed (HTTP 400, 404, 422)."""


class ModelCapabilityError(ModelBadRequestError, ValueError):
    """A message holds a part (an image, a document, audio) the model cannot take.

    Raised before any request is sent; ``model`` (the model's name) and ``part`` say
    which, ``api`` the wire API that has no form for the part when that is the reason.
    A bad request the client made, so the bridge answers it with a 400.
    """

    def __init__(self, model: str, part: str, reason: str = "", *, api: str | None = None) -> None:
        detail = f": {reason}" if reason else ""
        through = f" through {api}" if api else ""
        super().__init__(f"model {model!r} cannot take {part}{through}{detail}")
        self.model = model
        self.part = part
        self.reason = reason
        self.api = api

    def for_model(self, model: str) -> ModelCapabilityError:
        """The same refusal naming ``model`` (a codec knows its API, not the model)."""
        error = ModelCapabilityError(model, self.part, self.reason, api=self.api)
        error.__traceback__ = self.__traceback__
        return error


class ModelTimeoutError(ModelError):
    """The provider did not answer in time."""


class ModelConnectionError(ModelError):
    """The provider could not be reached."""


class ModelIncompleteStreamError(ModelOverloadedError):
    """A streamed reply ended before the provider's final event (connection cut mid-reply)."""


class ModelResponseError(ModelError):
    """The provider answered, but not with a reply of its API's shape.

    An empty ``choices`` list, a 200 reply that is not JSON, a field of the wrong
    type: ``provider`` names who answered and the message says what was wrong.
    """


class ModelConfigError(GoodAgentError, ValueError):
    """A model cannot be built from the given name or settings."""


class ScriptExhaustedError(GoodAgentError):
    """A [`ScriptedModel`][good_agent.testing.ScriptedModel] ran out of scripted replies."""
