"""One configured model: its tool-calling strategy, its upstream, and the two call paths.

A :class:`ModelRoute` builds the upstream body with the strategy chosen for the
model (:func:`good_agent.providers.modes.adapter_for_profile`), then either sends
it whole and decodes the reply with the same strategy (:meth:`ModelRoute.complete`)
or streams it through the provider's decoder and the mode's shaper
(:meth:`ModelRoute.stream`), yielding neutral events as the upstream produces them.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

from good_agent.core.errors import ModelError, ModelResponseError
from good_agent.models import fallback
from good_agent.providers.history import history_tool_names
from good_agent.providers.modes import adapter_for_profile
from good_agent.providers.profiles import get_profile
from good_agent.providers.reply_shape import ReplyShapeError
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.native import CodecAdapter
from good_agent.providers.tool_names import tool_function, tool_name
from good_agent.providers.types import (
    ChatRequest,
    JSONDict,
    ParsedToolCall,
    ProviderResponse,
    Usage,
)
from good_agent.server.config import ModelConfig
from good_agent.server.events import CallDelta, Finish, StreamEvent, TextDelta, UsageDelta
from good_agent.server.shaping import (
    NativeShaper,
    Shaper,
    StructuredShaper,
    TextCallShaper,
    new_call_id,
)
from good_agent.server.upstream import HttpUpstream

_PROMPTED = (ToolCallingMode.VALIDATED, ToolCallingMode.PARSED)


BridgeRequest = ChatRequest
"""A request as received from a client: the provider layer's neutral
:class:`~good_agent.providers.types.ChatRequest` (OpenAI chat messages and tools)."""


@dataclass(slots=True)
class BridgeReply:
    """A whole reply: content, tool calls, OpenAI finish reason, usage and reasoning."""

    content: str | None
    tool_calls: list[ParsedToolCall]
    finish_reason: str
    usage: Usage
    reasoning: str | None = None


class ModelRoute:
    """A configured model: strategy + upstream.

    Args:
        entry: The configuration entry.
        upstream: The upstream that serves it.
    """

    def __init__(self, entry: ModelConfig, upstream: HttpUpstream) -> None:
        self.entry = entry
        self.upstream = upstream
        prefix = upstream.profile_provider
        profile = get_profile(f"{prefix}:{entry.model}")
        mode = ToolCallingMode(entry.mode)
        auto = mode is ToolCallingMode.AUTO
        if mode is ToolCallingMode.AUTO:
            native_guess = profile.rule is None and prefix == "openai"
            mode = ToolCallingMode.NATIVE if native_guess else profile.mode
        overrides: dict[str, Any] = dict(entry.profile.values())
        profile = replace(profile, mode=mode, **overrides)
        self.adapter: CodecAdapter = adapter_for_profile(profile)
        if prefix == "openai" and entry.profile.supports_strict is None:
            self.adapter.strict = False
        self.mode = self.adapter.mode
        self.auto_native = auto and self.mode is ToolCallingMode.NATIVE
        self.fallback_key = f"{upstream.provider}:{entry.model}"
        self._prompted = adapter_for_profile(replace(profile, mode=ToolCallingMode.VALIDATED))

    def strategy(self) -> CodecAdapter:
        """The strategy for the next request: native, or prompted once tools were refused."""
        if self.auto_native and fallback.remembered_mode(self.fallback_key) is not None:
            return self._prompted
        return self.adapter

    def _falls_back(self, adapter: CodecAdapter, request: BridgeRequest, error: ModelError) -> bool:
        if adapter is not self.adapter or not self.auto_native or not request.tools:
            return False
        if not fallback.rejects_tools(error):
            return False
        reason = f"the server rejected tools ({error})"
        fallback.remember(self.fallback_key, ToolCallingMode.VALIDATED, reason)
        return True

    @property
    def name(self) -> str:
        """The name clients use."""
        return self.entry.name

    def _uses_strategy(self, request: BridgeRequest) -> bool:
        return bool(request.tools) or bool(history_tool_names(request.messages))

    def body(self, request: BridgeRequest, adapter: CodecAdapter | None = None) -> JSONDict:
        """The upstream request body for ``request`` (with ``adapter``, else the current one)."""
        adapter = adapter or self.strategy()
        kw: dict[str, Any] = {
            "tool_choice": request.tool_choice,
            "response_format": request.response_format,
            "settings": {**self.entry.settings, **request.settings},
        }
        if any(tool_function(tool).get("strict") is True for tool in request.tools):
            kw["settings"].setdefault("strict_tools", None)
        if request.parallel_tool_calls is not None and adapter.mode is ToolCallingMode.NATIVE:
            kw["parallel_tool_calls"] = request.parallel_tool_calls
        if not self._uses_strategy(request):
            return CodecAdapter.format_request(adapter, [], request.messages, **kw)
        return adapter.format_request(list(request.tools), request.messages, **kw)

    async def complete(self, request: BridgeRequest) -> BridgeReply:
        """Send ``request`` and decode the whole reply.

        In ``auto`` mode a native model whose server refuses tools is asked again in
        ``validated`` mode (and from then on), and calls written in its content are
        parsed (see :mod:`good_agent.models.fallback`). In ``validated`` mode an invalid
        call is sent back to the model with its errors, up to ``validation_retries``
        times; what it writes last is returned.
        """
        adapter = self.strategy()
        try:
            raw = await self.upstream.complete(self.body(request, adapter))
        except ModelError as error:
            if not self._falls_back(adapter, request, error):
                raise
            adapter = self._prompted
            raw = await self.upstream.complete(self.body(request, adapter))
        decoded = self._decode(adapter, request, raw)
        usage = decoded.usage
        retries = self.entry.validation_retries if adapter.mode is ToolCallingMode.VALIDATED else 0
        while retries and any(call.error for call in decoded.tool_calls):
            retries -= 1
            request = with_feedback(request, adapter.codec.decode_response(raw, None), decoded)
            raw = await self.upstream.complete(self.body(request, adapter))
            decoded = self._decode(adapter, request, raw)
            usage = Usage(
                usage.input_tokens + decoded.usage.input_tokens,
                usage.output_tokens + decoded.usage.output_tokens,
            )
        calls = list(decoded.tool_calls)
        if adapter.mode is not ToolCallingMode.NATIVE:
            calls = [replace(call, id=new_call_id()) for call in calls]
        if request.parallel_tool_calls is False:
            calls = calls[:1]
        reason = "tool_calls" if calls else (decoded.finish_reason or "stop")
        return BridgeReply(decoded.content, calls, reason, usage, decoded.reasoning)

    def _decode(
        self, adapter: CodecAdapter, request: BridgeRequest, raw: JSONDict
    ) -> ProviderResponse:
        try:
            if not request.tools:
                return adapter.codec.decode_response(raw, None)
            decoded = adapter.decode(raw, list(request.tools))
        except ReplyShapeError as exc:
            provider = self.upstream.provider
            message = f"{provider} sent a malformed reply: {exc.problem}"
            raise ModelResponseError(message, provider=provider, body=raw) from exc
        if adapter is self.adapter and self.auto_native:
            decoded = fallback.calls_from_content(self.fallback_key, decoded, request.tools)
        return decoded

    def shaper(self, request: BridgeRequest, adapter: CodecAdapter | None = None) -> Shaper:
        """The stream shaper for the strategy's mode."""
        adapter = adapter or self.strategy()
        parallel = request.parallel_tool_calls
        if not request.tools:
            return NativeShaper(parallel=parallel)
        names = [tool_name(tool) for tool in request.tools]
        if adapter.mode in _PROMPTED:
            return TextCallShaper(names, text_format=self.entry.text_format, parallel=parallel)
        if adapter.mode is ToolCallingMode.STRUCTURED:
            return StructuredShaper(list(request.tools), parallel=parallel)
        if self.auto_native:
            # Native calls pass through; calls the model writes as text are parsed.
            return TextCallShaper(names, parallel=parallel)
        return NativeShaper(parallel=parallel)

    async def stream(self, request: BridgeRequest) -> AsyncGenerator[StreamEvent, None]:
        """Stream ``request``: neutral events, a :class:`Finish` last.

        Usage arrives as :class:`UsageDelta` events whenever the upstream reports it.
        A refusal of tools before the first event falls back as in :meth:`complete`.
        """
        adapter = self.strategy()
        try:
            async for event in self._stream_with(adapter, request):
                yield event
        except _RefusedBeforeOutput as refused:
            if not self._falls_back(adapter, request, refused.error):
                raise refused.error from None
            async for event in self._stream_with(self._prompted, request):
                yield event

    async def _stream_with(
        self, adapter: CodecAdapter, request: BridgeRequest
    ) -> AsyncGenerator[StreamEvent, None]:
        body = self.body(request, adapter)
        names = None
        if adapter.mode is ToolCallingMode.NATIVE and self._uses_strategy(request):
            names = adapter.names(list(request.tools), request.messages)
        decoder = self.upstream.decoder(names)
        shaper = self.shaper(request, adapter)
        reason: str | None = None
        started = False
        upstream = self.upstream.stream(body)
        try:
            async for raw in upstream:
                started = True
                for event in decoder.feed(raw):
                    if isinstance(event, Finish):
                        reason = event.reason
                        continue
                    for out in shaper.feed(event):
                        yield out
        except ModelError as error:
            if started:
                raise
            raise _RefusedBeforeOutput(error) from error
        for out in shaper.finish():
            yield out
        yield Finish("tool_calls" if shaper.calls else (reason or "stop"))


def with_feedback(
    request: BridgeRequest, said: ProviderResponse, decoded: ProviderResponse
) -> BridgeRequest:
    """``request`` followed by the model's reply and the errors of its invalid calls."""
    problems = "\n".join(
        f"- {call.name or 'a tool call'}: {call.error}" for call in decoded.tool_calls if call.error
    )
    feedback = (
        "These tool calls could not be used:\n"
        f"{problems}\n"
        "Write the calls again, with arguments that match the tools' parameters."
    )
    messages = [
        *request.messages,
        {"role": "assistant", "content": said.content or ""},
        {"role": "user", "content": feedback},
    ]
    return replace(request, messages=messages)


class _RefusedBeforeOutput(Exception):
    """The upstream failed before sending anything: the request may be retried."""

    def __init__(self, error: ModelError) -> None:
        super().__init__(str(error))
        self.error = error


async def collect(events: AsyncIterator[StreamEvent]) -> BridgeReply:
    """Gather a neutral stream into a whole reply (for tests and benchmarks)."""
    text: list[str] = []
    calls: dict[int, list[str]] = {}
    heads: dict[int, tuple[str, str]] = {}
    reason = "stop"
    usage = Usage()
    async for event in events:
        if isinstance(event, TextDelta):
            text.append(event.text)
        elif isinstance(event, CallDelta):
            if event.index not in heads:
                heads[event.index] = (event.id or "", event.name or "")
            calls.setdefault(event.index, []).append(event.arguments)
        elif isinstance(event, Finish):
            reason = event.reason or reason
        elif isinstance(event, UsageDelta):
            usage = merge_usage(usage, event)
    parsed = [
        ParsedToolCall(heads[i][0], heads[i][1], None, "".join(parts))
        for i, parts in sorted(calls.items())
    ]
    return BridgeReply("".join(text) or None, parsed, reason, usage)


def merge_usage(usage: Usage, delta: UsageDelta) -> Usage:
    """``usage`` with the counts ``delta`` reports."""
    return Usage(
        input_tokens=usage.input_tokens if delta.input_tokens is None else int(delta.input_tokens),
        output_tokens=(
            usage.output_tokens if delta.output_tokens is None else int(delta.output_tokens)
        ),
    )
