"""The :class:`ToolCache`: answers repeated tool calls from a store, without running the tool.

Default priority 900 (below :class:`~good_agent.AuthInjector`, above the rate limiter
and logger: a hit is answered before a rate-limit token is spent), conflict strategy
``CHAIN`` (it only adds the optional ``use_cache`` parameter).

The key is the tool name, the canonical JSON of the unwrapped arguments (secrets
left out) and the auth scope (a keyed hash of the call's credentials), hashed with
SHA-256. Values are the JSON of the :class:`~good_agent.ToolResponse`, with an expiry.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from pydantic import ValidationError

from good_agent.adapters import ConflictStrategy, ToolAdapter
from good_agent.core.components import AgentComponent, on
from good_agent.core.errors import ToolError
from good_agent.core.events import AgentEvents, EventContext
from good_agent.core.messages import ToolResponse
from good_agent.core.payloads import ToolCallBefore, ToolCallErrorPayload
from good_agent.extensions._common import (
    canonical_json,
    digest,
)
from good_agent.extensions.auth import cache_scope
from good_agent.extensions.cache_stores import CacheStore, MemoryStore
from good_agent.tools import Tool

logger = logging.getLogger("good_agent.extensions.cache")

CacheEventKind = Literal["hit", "miss", "set", "coalesced", "bypass", "uncacheable"]
"""What happened: a hit, a miss, a stored entry, a call that waited for an identical
one (single-flight), a bypass through ``use_cache=false``, a response that could not
be stored."""

_INFLIGHT: dict[tuple[int, str], anyio.Event] = {}
"""Calls running now, per store and key: identical misses run the tool once per process."""

USE_CACHE_SCHEMA = {
    "type": "boolean",
    "default": True,
    "description": "false: ignore any cached result and run the tool again.",
}


@dataclass(frozen=True, slots=True)
class CacheEvent:
    """One cache event, as passed to ``on_event`` and logged (DEBUG) with ``extra=``."""

    kind: CacheEventKind
    tool_name: str
    key: str


@dataclass(slots=True)
class CacheStats:
    """Counters of a :class:`ToolCache`, in total and per tool."""

    hits: int = 0
    misses: int = 0
    sets: int = 0
    coalesced: int = 0
    bypasses: int = 0
    uncacheable: int = 0
    by_tool: dict[str, Counter[str]] = field(default_factory=dict)

    def record(self, kind: CacheEventKind, tool_name: str) -> None:
        """Count one event."""
        name = {"hit": "hits", "miss": "misses", "set": "sets", "bypass": "bypasses"}.get(
            kind, kind
        )
        setattr(self, name, getattr(self, name) + 1)
        self.by_tool.setdefault(tool_name, Counter())[kind] += 1

    @property
    def hit_ratio(self) -> float:
        """Hits over lookups (0.0 before any lookup)."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0


@dataclass(frozen=True, slots=True)
class _Call:
    tool_name: str
    key: str | None = None
    bypass: bool = False
    store: bool = False
    flight: tuple[int, str] | None = None


class CacheAdapter(ToolAdapter):
    """The adapter behind :class:`ToolCache` (see there)."""

    def __init__(self, cache: ToolCache, priority: int, conflict_strategy: ConflictStrategy):
        super().__init__(cache, priority, conflict_strategy)
        self.cache = cache

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Adapt the tools that opted in."""
        return tool.name in self.cache.ttls

    def adapt_signature(self, tool: Tool, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        """Add the optional ``use_cache`` flag when it is enabled."""
        if not self.cache.use_cache_flag:
            return signature
        function = dict(signature["function"])
        parameters = dict(function.get("parameters") or {"type": "object"})
        parameters["properties"] = {
            **(parameters.get("properties") or {}),
            "use_cache": dict(USE_CACHE_SCHEMA),
        }
        function["parameters"] = parameters
        return {**signature, "function": function}

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        """Take the ``use_cache`` flag out; start this call's cache state."""
        bypass = False
        if self.cache.use_cache_flag and "use_cache" in parameters:
            parameters = dict(parameters)
            bypass = parameters.pop("use_cache") is False
        self.cache.state.set(_Call(tool_name, bypass=bypass))
        return parameters

    async def intercept(
        self, tool_name: str, parameters: dict[str, Any], agent: Any
    ) -> ToolResponse | None:
        """Answer from the store, or let the tool run (once per identical key)."""
        return await self.cache.lookup(tool_name, parameters, agent)

    async def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
        """Store the response of a miss; identical waiting calls then read it."""
        return await self.cache.finish(tool_name, response)


class ToolCache(AgentComponent):
    """Caches the responses of the tools that opt in; a hit does not run the tool.

    Args:
        store: A :class:`CacheStore`: :class:`MemoryStore` (default),
            :class:`SQLiteStore` or :class:`RedisStore`.
        tools: The tools to cache: names, or ``{name: ttl}`` for per-tool TTLs.
        ttl: Seconds an entry stays fresh (``None``: no expiry).
        cache_errors: Also store error responses.
        use_cache_flag: Show the model an optional ``use_cache`` boolean; ``false``
            runs the tool again and stores the fresh result.
        scope: ``(tool_name, parameters) -> str | None``, the auth scope of a call.
            By default the installed :class:`AuthInjector`'s :meth:`~AuthInjector.scope_of`,
            else :func:`credential_scope`.
        clock: Wall-clock seconds used for expiry (inject one in tests).
        on_event: Called with every :class:`CacheEvent`.
        flight_timeout: Seconds an identical call waits for a running one before it
            runs the tool itself.
        priority: Adapter priority (default 900).
        conflict_strategy: Adapter conflict strategy (default ``CHAIN``).
    """

    def __init__(
        self,
        store: CacheStore | None = None,
        *,
        tools: Iterable[str] | Mapping[str, float | None],
        ttl: float | None = 300.0,
        cache_errors: bool = False,
        use_cache_flag: bool = False,
        scope: Callable[[str, Mapping[str, Any]], str | None] | None = None,
        clock: Callable[[], float] = time.time,
        on_event: Callable[[CacheEvent], Any] | None = None,
        flight_timeout: float = 30.0,
        priority: int = 900,
        conflict_strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        super().__init__()
        self.store: CacheStore = store if store is not None else MemoryStore()
        if isinstance(tools, Mapping):
            self.ttls: dict[str, float | None] = dict(tools)
        elif isinstance(tools, str):
            raise TypeError("tools must be a collection of tool names, not a string")
        else:
            self.ttls = dict.fromkeys(tools, ttl)
        self.cache_errors = cache_errors
        self.use_cache_flag = use_cache_flag
        self.scope = scope
        self.clock = clock
        self.on_event = on_event
        self.flight_timeout = flight_timeout
        self.stats = CacheStats()
        self.state: ContextVar[_Call | None] = ContextVar(f"tool_cache_{id(self)}", default=None)
        self.adapter = CacheAdapter(self, priority, conflict_strategy)
        self.register_tool_adapter(self.adapter)

    def _scope(self, tool_name: str, parameters: Mapping[str, Any]) -> str | None:
        return cache_scope(self.agent, tool_name, parameters, self.store)

    def key_for(self, tool_name: str, parameters: Mapping[str, Any]) -> str:
        """The store key of a call with these unwrapped ``parameters``."""
        try:
            # Fast path: plain JSON arguments, so there is no secret in them.
            arguments = json.dumps(
                parameters, sort_keys=True, separators=(",", ":"), ensure_ascii=False
            )
            secretless = True
        except (TypeError, ValueError):
            arguments, secretless = canonical_json(parameters), False
        if self.scope is not None:
            scope = self.scope(tool_name, parameters)
        else:
            scope = None if secretless else self._scope(tool_name, parameters)
        body = f"{arguments}\x00{scope or ''}"
        return f"v1:{tool_name}:{digest(body, size=64)}"

    def _emit(self, kind: CacheEventKind, tool_name: str, key: str) -> None:
        self.stats.record(kind, tool_name)
        logger.debug(
            "tool cache %s: %s",
            kind,
            tool_name,
            extra={"cache_event": kind, "tool_name": tool_name, "cache_key": key},
        )
        if self.on_event is not None:
            self.on_event(CacheEvent(kind, tool_name, key))

    async def get(self, key: str) -> ToolResponse | None:
        """The fresh response stored under ``key``, or ``None``."""
        raw = await self.store.get(key)
        if raw is None:
            return None
        try:
            entry = json.loads(raw)
            expires = entry.get("expires_at")
            if expires is not None and self.clock() >= expires:
                return None
            data = {**entry["response"], "tool_call_id": ""}
            return ToolResponse.model_validate(data)
        except (ValueError, KeyError, TypeError, AttributeError, ValidationError):
            logger.warning("tool cache: unreadable entry %s ignored", key)
            return None

    async def lookup(
        self, tool_name: str, parameters: Mapping[str, Any], agent: Any
    ) -> ToolResponse | None:
        """The intercept step: a hit, or ``None`` after claiming the key (single-flight)."""
        call = self.state.get()
        bypass = call is not None and call.tool_name == tool_name and call.bypass
        key = self.key_for(tool_name, parameters)
        if bypass:
            self._emit("bypass", tool_name, key)
            self.state.set(_Call(tool_name, key, store=True))
            return None
        flight = (id(self.store), key)
        waited = False
        while True:
            hit = await self.get(key)
            if hit is not None:
                self._emit("hit", tool_name, key)
                self.state.set(_Call(tool_name, key))
                return hit
            running = _INFLIGHT.get(flight)
            if running is None:
                _INFLIGHT[flight] = anyio.Event()
                self._emit("miss", tool_name, key)
                self.state.set(_Call(tool_name, key, store=True, flight=flight))
                return None
            if not waited:
                self._emit("coalesced", tool_name, key)
                waited = True
            with anyio.move_on_after(self.flight_timeout) as scope:
                await running.wait()
            if scope.cancelled_caught:
                self._emit("miss", tool_name, key)
                self.state.set(_Call(tool_name, key, store=True))
                return None

    async def finish(self, tool_name: str, response: ToolResponse) -> ToolResponse:
        """The response step: store a miss's response and release identical calls."""
        call = self.state.get()
        if call is None or call.tool_name != tool_name:
            return response
        self.state.set(None)
        try:
            if call.store and call.key is not None and (response.success or self.cache_errors):
                response = await self.put(call.key, tool_name, response)
        finally:
            self._release(call)
        return response

    async def put(self, key: str, tool_name: str, response: ToolResponse) -> ToolResponse:
        """Store ``response`` under ``key``; return it as it will read back from the store."""
        ttl = self.ttls.get(tool_name)
        now = self.clock()
        try:
            stored = response.model_dump(mode="json", exclude={"tool_call_id"})
            entry = {
                "stored_at": now,
                "expires_at": None if ttl is None else now + ttl,
                "response": stored,
            }
            text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            self._emit("uncacheable", tool_name, key)
            return response
        await self.store.set(key, text, ttl)
        self._emit("set", tool_name, key)
        return ToolResponse.model_validate({**stored, "tool_call_id": response.tool_call_id})

    def _release(self, call: _Call) -> None:
        if call.flight is not None:
            event = _INFLIGHT.pop(call.flight, None)
            if event is not None:
                event.set()

    async def clear(self) -> None:
        """Remove every entry from the store."""
        await self.store.clear()

    @on(AgentEvents.TOOL_CALL_BEFORE, priority=10_000)
    def _other_answer(self, ctx: EventContext) -> None:
        call = self.state.get()
        payload = ctx.payload
        answered = isinstance(payload, ToolCallBefore) and payload.response is not None
        if answered and call and call.store and call.tool_name == payload.call.name:
            # Another adapter answered instead of the tool: that is not a result to keep.
            self.state.set(_Call(call.tool_name, call.key, flight=call.flight))

    @on(AgentEvents.TOOL_CALL_ERROR, priority=10_000)
    def _on_error(self, ctx: EventContext) -> None:
        payload = ctx.payload
        call = self.state.get()
        if not isinstance(payload, ToolCallErrorPayload) or call is None:
            return
        propagates = getattr(ctx.agent, "tool_errors", "report") == "raise" and not isinstance(
            payload.error, ToolError
        )
        if propagates and call.tool_name == payload.call.name:
            self.state.set(None)
            self._release(call)
