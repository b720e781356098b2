"""The :class:`ToolLogger`: structured log records, metrics and OpenTelemetry spans per tool call.

Default priority -1000 (the lowest: its ``adapt_parameters`` runs first, so the
measured duration covers unwrapping, cache lookups and rate-limit waits), conflict
strategy ``CHAIN`` (it changes no signature). The record is written on
``TOOL_CALL_AFTER`` (handler priority -10000, after every other handler).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from good_agent.adapters import ConflictStrategy, ToolAdapter
from good_agent.core.components import AgentComponent, on
from good_agent.core.events import AgentEvents, EventContext
from good_agent.core.payloads import ToolCallAfter, ToolCallErrorPayload
from good_agent.extensions._common import REDACTED, is_secret
from good_agent.extensions.auth import AuthInjector
from good_agent.tools import Tool

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

DEFAULT_BUCKETS_MS = (1.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 10000.0)
"""Upper bounds of the latency histogram buckets, in milliseconds (plus +inf)."""


@dataclass(slots=True)
class ToolMetrics:
    """Counters and a latency histogram of one tool.

    ``buckets[i]`` counts calls with a duration up to ``bounds[i]`` ms (and above
    the previous bound); the last bucket is unbounded.
    """

    calls: int = 0
    errors: int = 0
    total_ms: float = 0.0
    min_ms: float | None = None
    max_ms: float | None = None
    bounds: tuple[float, ...] = DEFAULT_BUCKETS_MS
    buckets: list[int] = field(default_factory=list)

    def observe(self, duration_ms: float, success: bool) -> None:
        """Count one call."""
        if not self.buckets:
            self.buckets = [0] * (len(self.bounds) + 1)
        self.calls += 1
        self.errors += 0 if success else 1
        self.total_ms += duration_ms
        self.min_ms = duration_ms if self.min_ms is None else min(self.min_ms, duration_ms)
        self.max_ms = duration_ms if self.max_ms is None else max(self.max_ms, duration_ms)
        position = next((i for i, b in enumerate(self.bounds) if duration_ms <= b), -1)
        self.buckets[position] += 1

    @property
    def mean_ms(self) -> float:
        """Mean duration (0.0 before any call)."""
        return self.total_ms / self.calls if self.calls else 0.0

    def quantile(self, q: float) -> float:
        """An upper estimate of the ``q`` quantile: the bound of the bucket holding it."""
        if not self.calls:
            return 0.0
        target, seen = q * self.calls, 0
        for bound, count in zip((*self.bounds, float("inf")), self.buckets, strict=True):
            seen += count
            if seen >= target:
                return min(bound, self.max_ms or bound)
        return self.max_ms or 0.0

    def copy(self) -> ToolMetrics:
        """An independent copy."""
        return replace(self, buckets=list(self.buckets))


@dataclass(frozen=True, slots=True)
class _Start:
    tool_name: str
    perf: float
    wall_ns: int


def _tracer(enabled: bool, tracer: Any) -> Any:
    if tracer is not None or not enabled:
        return tracer
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace.get_tracer("good_agent.extensions.tool_logging")


class LoggingAdapter(ToolAdapter):
    """Notes when a call starts; changes nothing."""

    def __init__(self, owner: ToolLogger, priority: int, conflict_strategy: ConflictStrategy):
        super().__init__(owner, priority, conflict_strategy)
        self.owner = owner

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Observe the selected tools (all by default)."""
        return self.owner.tools is None or tool.name in self.owner.tools

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        """Record the start time; the parameters pass through."""
        self.owner.started.set(_Start(tool_name, time.perf_counter(), time.time_ns()))
        return parameters


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
        sensitive: Argument names to redact in addition to :data:`DEFAULT_SENSITIVE`
            and the parameters of an installed :class:`~good_agent.AuthInjector`.
        tracer: An OpenTelemetry tracer (default: the global one, if available).
        tracing: Set ``False`` to emit no spans.
        max_chars: Longer string argument values are shortened in records.
        priority: Adapter priority (default -1000).
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
        priority: int = -1000,
        conflict_strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        super().__init__()
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self.level, self.error_level = level, error_level
        self.tools = frozenset(tools) if tools is not None else None
        self.sensitive = DEFAULT_SENSITIVE | {s.lower() for s in sensitive}
        self.tracer = _tracer(tracing, tracer)
        self.max_chars = max_chars
        self.bounds_ms = bounds_ms
        self.started: ContextVar[_Start | None] = ContextVar(f"tool_log_{id(self)}", default=None)
        self._failures: ContextVar[str | None] = ContextVar(f"tool_err_{id(self)}", default=None)
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
        if isinstance(payload, ToolCallErrorPayload):
            self._failures.set(type(payload.error).__name__)

    @on(AgentEvents.TOOL_CALL_AFTER, priority=-10_000)
    def _on_after(self, ctx: EventContext) -> None:
        payload = ctx.payload
        if not isinstance(payload, ToolCallAfter):
            return
        name = payload.call.name
        if self.tools is not None and name not in self.tools:
            return
        start = self.started.get()
        self.started.set(None)
        error_type = self._failures.get()
        self._failures.set(None)
        now_perf, now_ns = time.perf_counter(), time.time_ns()
        if start is None or start.tool_name != name:
            start = _Start(name, now_perf, now_ns)
        duration_ms = (now_perf - start.perf) * 1000.0
        response = payload.response
        arguments = self.redact(payload.parameters or payload.call.arguments)
        self._metrics.setdefault(name, ToolMetrics(bounds=self.bounds_ms)).observe(
            duration_ms, response.success
        )
        self.logger.log(
            self.level if response.success else self.error_level,
            "tool %s %s in %.1f ms",
            name,
            "succeeded" if response.success else "failed",
            duration_ms,
            extra={
                "tool_name": name,
                "tool_call_id": payload.call.id,
                "duration_ms": duration_ms,
                "success": response.success,
                "arguments": arguments,
                "arguments_bytes": len(json.dumps(payload.call.arguments, default=str)),
                "response_bytes": len(response.content_text().encode("utf-8")),
                "error": response.error,
            },
        )
        if self.tracer is not None:
            self._span(payload, start, now_ns, error_type)

    def _span(self, payload: ToolCallAfter, start: _Start, end_ns: int, error: str | None) -> None:
        name = payload.call.name
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": payload.call.id,
            "gen_ai.tool.type": "function",
        }
        if payload.tool is not None and payload.tool.description:
            attributes["gen_ai.tool.description"] = payload.tool.description[: self.max_chars]
        if not payload.response.success:
            attributes["error.type"] = error or "tool_error"
        span = self.tracer.start_span(
            f"execute_tool {name}", attributes=attributes, start_time=start.wall_ns
        )
        if not payload.response.success:
            try:
                from opentelemetry.trace import Status, StatusCode

                span.set_status(Status(StatusCode.ERROR))
            except ImportError:
                pass
        span.end(end_time=end_ns)
