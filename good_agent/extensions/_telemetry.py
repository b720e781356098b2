"""OpenTelemetry spans for whole runs, following the GenAI semantic conventions.

`Telemetry` is a component built on the agent's events only: ``RUN_START``
and ``RUN_END`` bound an ``invoke_agent`` span, ``LLM_REQUEST_BEFORE`` and
``LLM_RESPONSE_AFTER`` a ``chat`` span per model request (streamed or not), and
``TOOL_CALL_BEFORE`` / ``TOOL_CALL_AFTER`` / ``TOOL_CALL_ERROR`` an
``execute_tool`` span per call (``agent.invoke`` included, outside any run). Each
span is the current span while its work runs, so spans of the tool's own code and of
instrumented HTTP clients nest inside.
Spans that an error leaves open (a model request that raised, a tool error with
``tool_errors="raise"``) are ended by ``RUN_END`` with status ``ERROR``.
With ``include_content=True`` the spans also hold what was said (off by default):
``chat`` spans ``gen_ai.system_instructions``, ``gen_ai.input.messages`` and
``gen_ai.output.messages``, ``execute_tool`` spans ``gen_ai.tool.call.arguments``
(the model's, never the parameters after credentials were injected) and
``gen_ai.tool.call.result``, every value with the agent's secrets redacted
(`good_agent.extensions._telemetry_content`).
Needs the ``otel`` extra (``opentelemetry-api``); an SDK decides where spans go.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from good_agent._extras import require_extra
from good_agent.core.components import AgentComponent, on
from good_agent.core.events import AgentEvents, EventContext
from good_agent.core.payloads import (
    RunEndPayload,
    RunStartPayload,
    ToolCallAfter,
    ToolCallBefore,
    ToolCallErrorPayload,
)
from good_agent.core.redaction import agent_secrets
from good_agent.extensions._telemetry_content import (
    as_json,
    input_messages,
    output_messages,
    system_instructions,
)
from good_agent.models.base import ModelRequest, ModelResponse
from good_agent.models.traits import model_profile, request_mode

REQUEST_SETTINGS = {
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "top_k": "gen_ai.request.top_k",
    "max_tokens": "gen_ai.request.max_tokens",
    "max_completion_tokens": "gen_ai.request.max_tokens",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
    "presence_penalty": "gen_ai.request.presence_penalty",
    "seed": "gen_ai.request.seed",
}
"""Model settings recorded on ``chat`` spans, and their attribute names."""


def provider_name(model: Any) -> str:
    """The ``gen_ai.provider.name`` of ``model``: its profile's provider, else ``good_agent``."""
    profile = model_profile(model)
    return profile.provider if profile is not None else "good_agent"


@dataclass(slots=True)
class _Open:
    span: Any
    token: Token[Any] | None = None


@dataclass(slots=True)
class _RunSpans:
    run: _Open
    chat: _Open | None = None
    tools: dict[str, _Open] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


class Telemetry(AgentComponent):
    """Emits ``invoke_agent``, ``chat`` and ``execute_tool`` spans for every run.

    Args:
        tracer: An OpenTelemetry tracer (default: the global provider's
            ``good_agent`` tracer).
        agent_name: ``gen_ai.agent.name`` and the suffix of the run span's name.
        include_content: Also record messages, tool arguments and tool results on
            the spans (GenAI semantic conventions), secrets redacted. Off by
            default: content may hold personal data.

    Raises:
        MissingExtraError: ``opentelemetry-api`` is not installed.
    """

    def __init__(
        self, tracer: Any = None, *, agent_name: str = "agent", include_content: bool = False
    ) -> None:
        require_extra("otel", "Telemetry")
        super().__init__()
        from opentelemetry import trace

        self.tracer = tracer if tracer is not None else trace.get_tracer("good_agent")
        self.agent_name = agent_name
        self.include_content = include_content
        self._runs: ContextVar[_RunSpans | None] = ContextVar(f"otel_run_{id(self)}", default=None)
        self._reset: dict[str, Token[_RunSpans | None]] = {}

    def _start(self, name: str, kind: str, attributes: dict[str, Any]) -> _Open:
        from opentelemetry import context, trace

        span = self.tracer.start_span(
            name, kind=getattr(trace.SpanKind, kind), attributes=attributes
        )
        return _Open(span, context.attach(trace.set_span_in_context(span)))

    @staticmethod
    def _end(opened: _Open, error: str | None = None, *, detach: bool = True) -> None:
        from opentelemetry import context, trace

        if error is not None:
            opened.span.set_attribute("error.type", error)
            opened.span.set_status(trace.Status(trace.StatusCode.ERROR, error))
        opened.span.end()
        if detach and opened.token is not None and trace.get_current_span() is opened.span:
            context.detach(opened.token)

    @on(AgentEvents.RUN_START, priority=100_000)
    def _run_start(self, ctx: EventContext) -> None:
        payload: RunStartPayload = ctx.payload
        model = ctx.agent.model
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": self.agent_name,
            "gen_ai.provider.name": provider_name(model),
            "gen_ai.request.model": model.model_name,
            "good_agent.run.id": payload.run_id,
            "good_agent.run.streamed": payload.streamed,
        }
        opened = self._start(f"invoke_agent {self.agent_name}", "INTERNAL", attributes)
        self._reset[payload.run_id] = self._runs.set(_RunSpans(opened))

    @on(AgentEvents.RUN_END, priority=-100_000)
    def _run_end(self, ctx: EventContext) -> None:
        payload: RunEndPayload = ctx.payload
        spans = self._runs.get()
        if spans is None or spans.run.span is None:
            return
        error = None if payload.error is None else type(payload.error).__name__
        for opened in spans.tools.values():
            self._end(opened, error or "run_ended", detach=False)
        if spans.chat is not None:
            self._end(spans.chat, error or "run_ended")
        usage = payload.usage
        if usage is not None:
            spans.run.span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
            spans.run.span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
        self._end(spans.run, error)
        token = self._reset.pop(payload.run_id, None)
        if token is not None and self._runs.get() is spans:
            self._runs.reset(token)

    @on(AgentEvents.LLM_REQUEST_BEFORE, priority=-100_000)
    def _chat_start(self, ctx: EventContext) -> None:
        spans = self._runs.get()
        request: ModelRequest = ctx.payload
        model = ctx.agent.model
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider_name(model),
            "gen_ai.request.model": model.model_name,
        }
        mode = request_mode(model, request)
        if mode is not None:
            attributes["good_agent.request.mode"] = mode
        for key, name in REQUEST_SETTINGS.items():
            value = request.settings.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                attributes[name] = value
        if self.include_content:
            secrets = agent_secrets(ctx.agent)
            system = system_instructions(request.messages)
            if system:
                attributes["gen_ai.system_instructions"] = as_json(system, secrets)
            attributes["gen_ai.input.messages"] = as_json(input_messages(request.messages), secrets)
        opened = self._start(f"chat {model.model_name}", "CLIENT", attributes)
        if spans is None:  # a request outside any run: end it with its reply
            self._runs.set(_RunSpans(_Open(None), chat=opened))
        else:
            spans.chat = opened

    @on(AgentEvents.LLM_RESPONSE_AFTER, priority=100_000)
    def _chat_end(self, ctx: EventContext) -> None:
        spans = self._runs.get()
        if spans is None or spans.chat is None:
            return
        response: ModelResponse = ctx.payload
        span = spans.chat.span
        span.set_attribute("gen_ai.response.model", ctx.agent.model.model_name)
        if response.finish_reason:
            span.set_attribute("gen_ai.response.finish_reasons", [response.finish_reason])
        span.set_attribute("gen_ai.usage.input_tokens", response.usage.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", response.usage.output_tokens)
        if self.include_content:
            messages = as_json(output_messages(response), agent_secrets(ctx.agent))
            span.set_attribute("gen_ai.output.messages", messages)
        self._end(spans.chat)
        spans.chat = None
        self._release(spans)

    def _tool_start(self, spans: _RunSpans, call: Any, tool: Any, agent: Any = None) -> _Open:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.id,
            "gen_ai.tool.type": "function",
        }
        description = getattr(tool, "description", None)
        if description:
            attributes["gen_ai.tool.description"] = description[:500]
        if self.include_content and agent is not None:
            # The model's arguments: the parameters may hold injected credentials.
            arguments = as_json(call.arguments, agent_secrets(agent))
            attributes["gen_ai.tool.call.arguments"] = arguments
        opened = self._start(f"execute_tool {call.name}", "INTERNAL", attributes)
        spans.tools[call.id] = opened
        return opened

    def _spans(self) -> _RunSpans:
        """The current run's spans; outside a run (``agent.invoke``), a runless holder."""
        spans = self._runs.get()
        if spans is None:
            spans = _RunSpans(_Open(None))
            self._runs.set(spans)
        return spans

    def _release(self, spans: _RunSpans) -> None:
        if spans.run.span is None and not spans.tools and spans.chat is None:
            self._runs.set(None)

    @on(AgentEvents.TOOL_CALL_BEFORE, priority=-100_000)
    def _tool_before(self, ctx: EventContext) -> None:
        spans = self._spans()
        payload: ToolCallBefore = ctx.payload
        if payload.call.id not in spans.tools:
            self._tool_start(spans, payload.call, payload.tool, ctx.agent)

    @on(AgentEvents.TOOL_CALL_ERROR, priority=100_000)
    def _tool_error(self, ctx: EventContext) -> None:
        spans = self._spans()
        payload: ToolCallErrorPayload = ctx.payload
        error = type(payload.error).__name__
        if payload.call.id not in spans.tools and error == "UnknownToolError":
            # No plan, so no TOOL_CALL_AFTER: the span is complete now.
            self._end(self._tool_start(spans, payload.call, None, ctx.agent), error)
            spans.tools.pop(payload.call.id)
            self._release(spans)
            return
        spans.errors[payload.call.id] = error

    @on(AgentEvents.TOOL_CALL_AFTER, priority=-100_000)
    def _tool_after(self, ctx: EventContext) -> None:
        spans = self._spans()
        payload: ToolCallAfter = ctx.payload
        opened = spans.tools.pop(payload.call.id, None)
        if opened is None:  # refused before TOOL_CALL_BEFORE (e.g. invalid arguments)
            opened = self._tool_start(spans, payload.call, payload.tool, ctx.agent)
            spans.tools.pop(payload.call.id)
        error = spans.errors.pop(payload.call.id, None)
        if not payload.response.success:
            error = error or "tool_error"
        if self.include_content and opened.span is not None:
            result = agent_secrets(ctx.agent).redact_text(payload.response.content_text())
            opened.span.set_attribute("gen_ai.tool.call.result", result)
        self._end(opened, error)
        self._release(spans)
