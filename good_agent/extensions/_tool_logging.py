"""The `ToolLogger`: structured log records, metrics and OpenTelemetry spans per tool call.

Default priority 10000 (the highest of the built-ins: its ``around_call`` is the
outermost, so it sees every call, cache hits and rate-limit refusals included, and
the measured duration covers cache lookups and rate-limit waits), conflict strategy
``CHAIN`` (it changes no signature). The record is written when the call returns,
with the response of the tool (or of the adapter that answered instead), before
``adapt_response``; an injected secret in it is redacted by the installed
`AuthInjector`. Arguments are serialized for a record only when
the logger is enabled for its level.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from good_agent.adapters import CallContext, CallNext, ConflictStrategy, ToolAdapter
from good_agent.core.components import AgentComponent, on
from good_agent.core.events import AgentEvents, EventContext
from good_agent.core.payloads import ToolCallErrorPayload
from good_agent.extensions._common import REDACTED, is_secret
from good_agent.extensions._tool_metrics import DEFAULT_BUCKETS_MS, ToolMetrics
from good_agent.extensions.auth import AuthInjector
from good_agent.tools import Tool
from good_agent.types.errors import ToolError
from good_agent.types.messages import ToolCall, ToolResponse

DEFAULT_SENSITIVE = frozenset(
    {
        "api_key",
        "apikey",
        "authorization",
        "auth",
        "cookie",
        "credentials",
        "password",
        "secret",
        "token",
        "access_token",
        "refresh_token",
        "x-api-key",
    }
)
"""Argument names (case-insensitive) whose values are always redacted."""

try:
    from opentelemetry import trace as _trace
    from opentelemetry.trace import Status, StatusCode

    _ERROR_STATUS: Any = Status(StatusCode.ERROR)
except ImportError:  # the opentelemetry-api package is optional
    _trace = None  # type: ignore[assignment]
    _ERROR_STATUS = None


_UNKNOWN = object()


def _global_tracing_configured() -> bool:
    """Whether a tracer provider is installed (else global spans record nothing).

    ``get_tracer_provider()`` reads the environment on every call until one is set,
    so the API module's global is read first; the public call is the fallback.
    """
    if _trace is None:
        return False
    installed = getattr(_trace, "_TRACER_PROVIDER", _UNKNOWN)
    if installed is None:
        return False
    if installed is _UNKNOWN:
        return not isinstance(_trace.get_tracer_provider(), _trace.ProxyTracerProvider)
    return True


def _tracer(enabled: bool, tracer: Any) -> Any:
    if tracer is not None or not enabled:
        return tracer
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace.get_tracer("good_agent.extensions.tool_logging")


class LoggingAdapter(ToolAdapter):
    """Times each call around everything below it and hands the outcome to the logger."""

    def __init__(self, owner: ToolLogger, priority: int, conflict_strategy: ConflictStrategy):
        super().__init__(owner, priority, conflict_strategy)
        self.owner = owner

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Observe the selected tools (all by default)."""
        return self.owner.tools is None or tool.name in self.owner.tools

    async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
        """Run the call, then record it (also when it raises)."""
        owner = self.owner
        call_id = ctx.call.id
        owner.open_calls.add(call_id)
        start = time.perf_counter()
        try:
            response = await call_next(ctx)
        except Exception as error:
            elapsed = (time.perf_counter() - start) * 1000.0
            owner.open_calls.discard(call_id)
            owner.recorded_failures.add(call_id)
            owner.record(_Outcome(ctx, None, elapsed, _started_ns(elapsed), error))
            raise
        elapsed = (time.perf_counter() - start) * 1000.0
        owner.open_calls.discard(call_id)
        owner.returned(ctx, response, elapsed)
        return response


def _started_ns(elapsed_ms: float) -> int:
    """The wall-clock start, in ns, of a call that ended now after ``elapsed_ms``."""
    return time.time_ns() - int(elapsed_ms * 1_000_000)


@dataclass(slots=True)
class _Outcome:
    """One finished call as the logger records it."""

    ctx: CallContext | ToolCallErrorPayload
    response: ToolResponse | None
    duration_ms: float
    start_ns: int
    raised: BaseException | None

    @property
    def call(self) -> ToolCall:
        return self.ctx.call

    @property
    def parameters(self) -> Mapping[str, Any]:
        return self.ctx.parameters if isinstance(self.ctx, CallContext) else self.ctx.call.arguments

    @property
    def description(self) -> str | None:
        return self.ctx.tool.description if isinstance(self.ctx, CallContext) else None


class ToolLogger(AgentComponent):
    """Logs every tool call as a structured record, keeps metrics, and emits spans.

    Each record has ``extra`` fields ``tool_name``, ``tool_call_id``, ``duration_ms``,
    ``success``, ``arguments`` (the tool's parameters, secrets and sensitive names
    redacted, long strings shortened), ``arguments_bytes``, ``response_bytes`` and
    ``error``. When ``opentelemetry-api`` is importable, each call is also an
    ``execute_tool {tool_name}`` span (OpenTelemetry GenAI semantic conventions).

    Args:
        logger: A logger or logger name (default ``good_agent.tool_calls``).
        level: Level of successful calls (``INFO``); failures use ``error_level``.
        tools: Only these tools (default: all).
        sensitive: Argument names to redact in addition to `DEFAULT_SENSITIVE`
            and the parameters of an installed [`AuthInjector`][good_agent.AuthInjector].
        tracer: An OpenTelemetry tracer (default: the global one, if available).
        tracing: Set ``False`` to emit no spans.
        max_chars: Longer string argument values are shortened in records.
        priority: Adapter priority (default 10000: the outermost ``around_call``).
        conflict_strategy: Adapter conflict strategy (default ``CHAIN``).
    """

    def __init__(
        self,
        logger: logging.Logger | str = "good_agent.tool_calls",
        *,
        level: int = logging.INFO,
        error_level: int = logging.WARNING,
        tools: Iterable[str] | None = None,
        sensitive: Iterable[str] = (),
        tracer: Any = None,
        tracing: bool = True,
        max_chars: int = 200,
        bounds_ms: tuple[float, ...] = DEFAULT_BUCKETS_MS,
        priority: int = 10_000,
        conflict_strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        super().__init__()
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self.level, self.error_level = level, error_level
        self.tools = frozenset(tools) if tools is not None else None
        self.sensitive = DEFAULT_SENSITIVE | {s.lower() for s in sensitive}
        self.tracer = _tracer(tracing, tracer)
        # The global tracer records nothing until a provider is installed: no span
        # is built before then (checked at each call, so one installed later counts).
        self._global_tracer = tracer is None and self.tracer is not None
        self.max_chars = max_chars
        self.bounds_ms = bounds_ms
        self._error_types: dict[str, str] = {}
        self.open_calls: set[str] = set()
        self.recorded_failures: set[str] = set()
        self._metrics: dict[str, ToolMetrics] = {}
        self.adapter = LoggingAdapter(self, priority, conflict_strategy)
        self.register_tool_adapter(self.adapter)

    def snapshot(self) -> dict[str, ToolMetrics]:
        """A copy of the metrics of every tool called so far."""
        return {name: metrics.copy() for name, metrics in self._metrics.items()}

    def reset(self) -> None:
        """Forget all metrics."""
        self._metrics.clear()

    def _sensitive_names(self) -> set[str]:
        names = set(self.sensitive)
        for component in getattr(self.agent, "components", ()):
            if isinstance(component, AuthInjector):
                names |= {p.lower() for p in component.parameters}
        return names

    def redact(self, value: Any, names: set[str] | None = None) -> Any:
        """A JSON-compatible copy of ``value`` with secrets and sensitive names redacted."""
        names = self._sensitive_names() if names is None else names
        if is_secret(value):
            return REDACTED
        if isinstance(value, Mapping):
            return {
                str(k): REDACTED if str(k).lower() in names else self.redact(v, names)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.redact(v, names) for v in value]
        if isinstance(value, str) and len(value) > self.max_chars:
            return value[: self.max_chars] + f"...(+{len(value) - self.max_chars} chars)"
        if value is None or isinstance(value, int | float | bool | str):
            return value
        return self.redact(str(value), names)

    @on(AgentEvents.TOOL_CALL_ERROR, priority=-10_000)
    def _on_error(self, ctx: EventContext) -> None:
        payload = ctx.payload
        if not isinstance(payload, ToolCallErrorPayload):
            return
        call = payload.call
        if call.id in self.recorded_failures:
            # Raised through this logger's around_call, which recorded it already.
            self.recorded_failures.discard(call.id)
        elif call.id in self.open_calls:
            # The tool's exception became an error response below this logger's
            # around_call, which records the call; its type names the span's error.
            if self.tracer is not None:
                self._error_types[call.id] = type(payload.error).__name__
        elif self.tools is None or call.name in self.tools:
            # Rejected before any around_call ran (unknown tool, invalid arguments).
            now = time.time_ns() if self.tracer is not None else 0
            self.record(_Outcome(payload, None, 0.0, now, payload.error))

    def record(self, outcome: _Outcome) -> None:
        """Count one finished call, log it and end its span."""
        response = outcome.response
        success = response is not None and response.success
        self._count(outcome.call.name, outcome.duration_ms, success)
        self._report(outcome, success)

    def returned(self, ctx: CallContext, response: ToolResponse, duration_ms: float) -> None:
        """Count a call that returned ``response``; log it and end its span when a
        handler or tracer listens (else no record is built)."""
        success = response.success
        self._count(ctx.call.name, duration_ms, success)
        if self._error_types or self._listening(success):
            outcome = _Outcome(ctx, response, duration_ms, _started_ns(duration_ms), None)
            self._report(outcome, success)

    def _count(self, tool_name: str, duration_ms: float, success: bool) -> None:
        metrics = self._metrics.get(tool_name)
        if metrics is None:
            metrics = self._metrics[tool_name] = ToolMetrics(bounds=self.bounds_ms)
        metrics.observe(duration_ms, success)

    def _tracing(self) -> bool:
        return self.tracer is not None and (not self._global_tracer or _global_tracing_configured())

    def _listening(self, success: bool) -> bool:
        level = self.level if success else self.error_level
        return self.logger.isEnabledFor(level) or self._tracing()

    def _report(self, outcome: _Outcome, success: bool) -> None:
        call = outcome.call
        error_type = self._error_types.pop(call.id, None)
        if outcome.raised is not None:
            error_type = type(outcome.raised).__name__
        level = self.level if success else self.error_level
        if self.logger.isEnabledFor(level):
            self._log(outcome, success, level)
        if self._tracing():
            self._span(outcome, success, error_type)

    def _log(self, outcome: _Outcome, success: bool, level: int) -> None:
        call, response, raised = outcome.call, outcome.response, outcome.raised
        auth = self._auth()
        if response is not None and auth is not None:
            response = auth.redact_response(response)
        if response is None:
            error: str | None = (
                str(raised)
                if isinstance(raised, ToolError)
                else (f"{type(raised).__name__}: {raised}")
            )
            if auth is not None and error is not None:
                error = auth.redact(error)
            response_bytes = 0
        else:
            error = response.error
            response_bytes = len(response.content_text().encode("utf-8"))
        self.logger.log(
            level,
            "tool %s %s in %.1f ms",
            call.name,
            "succeeded" if success else "failed",
            outcome.duration_ms,
            extra={
                "tool_name": call.name,
                "tool_call_id": call.id,
                "duration_ms": outcome.duration_ms,
                "success": success,
                "arguments": self.redact(outcome.parameters),
                "arguments_bytes": len(json.dumps(call.arguments, default=str)),
                "response_bytes": response_bytes,
                "error": error,
            },
        )

    def _auth(self) -> AuthInjector | None:
        for component in getattr(self.agent, "components", ()):
            if isinstance(component, AuthInjector):
                return component
        return None

    def _span(self, outcome: _Outcome, success: bool, error: str | None) -> None:
        call = outcome.call
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.id,
            "gen_ai.tool.type": "function",
        }
        if outcome.description:
            attributes["gen_ai.tool.description"] = outcome.description[: self.max_chars]
        if not success:
            attributes["error.type"] = error or "tool_error"
        span = self.tracer.start_span(
            f"execute_tool {call.name}", attributes=attributes, start_time=outcome.start_ns
        )
        if not success and _ERROR_STATUS is not None:
            span.set_status(_ERROR_STATUS)
        span.end(end_time=time.time_ns())
