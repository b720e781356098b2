"""The `ToolCache`: answers repeated tool calls from a store, without running the tool.

Default priority 900 (below `AuthInjector`, above the rate limiter:
its ``around_call`` is outside the limiter's, so a hit is answered before a
rate-limit token is spent), conflict strategy ``CHAIN`` (it only adds the optional
``use_cache`` parameter).

The key is the tool name, the canonical JSON of the unwrapped arguments (secrets
left out) and the scope (a ``scope`` function's answer, which may read the run's
context: its deps name the user; else the auth scope, a keyed hash of the call's
credentials), hashed with SHA-256. Identical calls running at once are coalesced by
the same key, so a call never waits for, nor gets, the result of another scope's.
A tool that takes the [`RunContext`][good_agent.RunContext] may answer differently per
run (its deps), so caching one without a ``scope`` is refused at install
([`CacheScopeError`][good_agent.extensions.CacheScopeError]).

Values are the JSON of the tool's `ToolResponse` (with any
injected secret redacted), with an expiry. A hit goes through ``adapt_response``
like the tool's own response.

A store that fails never costs a result: a failed lookup runs the tool, a failed
write returns the result unstored; both are logged (WARNING) and counted in
`CacheStats`, and the next call uses the store again.
"""

from __future__ import annotations

import inspect
import json
import logging
import math
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import Any

import anyio
from pydantic import ValidationError

from good_agent.adapters import CallContext, CallNext, ConflictStrategy, ToolAdapter
from good_agent.core.components import AgentComponent
from good_agent.extensions._cache_stats import CacheEvent, CacheEventKind, CacheStats
from good_agent.extensions._cache_stores import (
    CacheStore,
    CacheStoreUnavailable,
    InFlight,
    MemoryStore,
)
from good_agent.extensions._common import canonical_json, digest, key_json
from good_agent.extensions.auth import AuthInjector, cache_scope
from good_agent.tools import Tool
from good_agent.types.errors import GoodAgentError
from good_agent.types.messages import ToolResponse

logger = logging.getLogger("good_agent.extensions.cache")

_PLAIN = (str, int, float, bool, type(None))
_RESPONSE_JSON = ToolResponse.__pydantic_serializer__.to_json
_NOT_STORED = {"tool_call_id"}
"""A stored response is addressed to the call it answers when it is read."""

USE_CACHE_SCHEMA = {
    "type": "boolean",
    "default": True,
    "description": "false: ignore any cached result and run the tool again.",
}


Scope = Callable[[str, Mapping[str, Any]], str | None] | Callable[
    [Any, str, Mapping[str, Any]], str | None
]
"""A cache scope function: ``(tool_name, parameters)`` or ``(ctx, tool_name, parameters)``
with ``ctx`` the run's [`RunContext`][good_agent.RunContext] (``None`` outside a run)."""


class CacheScopeError(GoodAgentError, ValueError):
    """A cached tool may answer differently per run (it takes the ``RunContext``) and
    the cache has no ``scope`` telling runs apart."""


def takes_run(scope: Callable[..., Any]) -> bool:
    """Whether ``scope`` is the three-argument form ``(ctx, tool_name, parameters)``."""
    try:
        parameters = inspect.signature(scope).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [
        p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return len(positional) >= 3


def reads_run(tool: Tool) -> bool:
    """Whether ``tool`` is given the run's ``RunContext`` (so may read its deps)."""
    return "run" in tool.injected.values()


class CacheAdapter(ToolAdapter):
    """The adapter behind `ToolCache` (see there)."""

    def __init__(self, cache: ToolCache, priority: int, conflict_strategy: ConflictStrategy):
        super().__init__(cache, priority, conflict_strategy)
        self.cache = cache

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Adapt the tools that opted in."""
        return tool.name in self.cache.ttls

    def around_call(
        self, ctx: CallContext, call_next: CallNext
    ) -> Coroutine[Any, Any, ToolResponse]:
        """Answer from the store, or run the tool (once per identical key) and store."""
        return self.cache.around(ctx, call_next)


class FlaggedCacheAdapter(CacheAdapter):
    """A `CacheAdapter` that shows the model the optional ``use_cache`` flag."""

    def adapt_signature(self, tool: Tool, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        """Add the optional ``use_cache`` flag when it is enabled."""
        function = dict(signature["function"])
        parameters = dict(function.get("parameters") or {"type": "object"})
        parameters["properties"] = {
            **(parameters.get("properties") or {}),
            "use_cache": dict(USE_CACHE_SCHEMA),
        }
        function["parameters"] = parameters
        return {**signature, "function": function}

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        """Take the ``use_cache`` flag out (the tool does not know it)."""
        if "use_cache" in parameters:
            parameters = dict(parameters)
            del parameters["use_cache"]
        return parameters


class ToolCache(AgentComponent):
    """Caches the responses of the tools that opt in; a hit does not run the tool.

    Args:
        store: A `CacheStore`: [`MemoryStore`][good_agent.MemoryStore] (default),
            [`SQLiteStore`][good_agent.SQLiteStore] or [`RedisStore`][good_agent.RedisStore].
        tools: The tools to cache: names, or ``{name: ttl}`` for per-tool TTLs.
        ttl: Seconds an entry stays fresh (``None``: no expiry).
        cache_errors: Also store error responses.
        use_cache_flag: Show the model an optional ``use_cache`` boolean; ``false``
            runs the tool again and stores the fresh result.
        scope: What tells calls apart besides their arguments: ``(ctx, tool_name,
            parameters) -> str | None`` with ``ctx`` the run's
            [`RunContext`][good_agent.RunContext] (``ctx.deps`` names the user:
            return their id), or ``(tool_name, parameters) -> str | None``. Only calls
            of one scope share entries and in-flight results. Required for a tool that
            takes the ``RunContext`` (refused at install otherwise). By default the
            installed [`AuthInjector`][good_agent.AuthInjector]'s
            [`scope_of`][good_agent.AuthInjector.scope_of], else `credential_scope`.
        clock: Wall-clock seconds used for expiry (inject one in tests).
        on_event: Called with every `CacheEvent`.
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
        scope: Scope | None = None,
        clock: Callable[[], float] = time.time,
        on_event: Callable[[CacheEvent], Any] | None = None,
        flight_timeout: float = 30.0,
        priority: int = 900,
        conflict_strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        super().__init__()
        self.store: CacheStore = store if store is not None else MemoryStore()
        found = getattr(self.store, "in_flight", None)
        self.in_flight: InFlight = found if isinstance(found, dict) else {}
        """Calls running now per key: the store's (shared by every cache on it), else
        this cache's own."""
        if isinstance(tools, Mapping):
            self.ttls: dict[str, float | None] = dict(tools)
        elif isinstance(tools, str):
            raise TypeError("tools must be a collection of tool names, not a string")
        else:
            self.ttls = dict.fromkeys(tools, ttl)
        self.cache_errors = cache_errors
        self.use_cache_flag = use_cache_flag
        self.scope = scope
        self._scope_takes_run = scope is not None and takes_run(scope)
        self.clock = clock
        self.on_event = on_event
        self.flight_timeout = flight_timeout
        self.stats = CacheStats()
        self._last_scope: tuple[str, list[Any], str | None] | None = None
        # Only a cache that shows the flag adapts signatures and parameters.
        adapter = FlaggedCacheAdapter if use_cache_flag else CacheAdapter
        self.adapter: CacheAdapter = adapter(self, priority, conflict_strategy)
        self.register_tool_adapter(self.adapter)

    async def install(self, agent: Any) -> None:
        """Attach to ``agent``; refuse a cached tool that takes the ``RunContext`` when
        this cache has no ``scope``."""
        if self.scope is None:
            for name in self.ttls:
                if name in agent.tools and reads_run(agent.tools.get(name)):
                    raise self._unscoped(name)
        await super().install(agent)

    @staticmethod
    def _unscoped(name: str) -> CacheScopeError:
        return CacheScopeError(
            f"ToolCache: tool '{name}' takes the RunContext, so its result may depend on "
            "the run (ctx.deps, e.g. the current user), and this cache has no scope: one "
            "user would be served another's result. Give the cache a scope that tells "
            "runs apart, e.g. ToolCache(tools=[...], scope=lambda ctx, tool, params: "
            "ctx.deps.user_id), or return one constant from it to share entries "
            "knowingly."
        )

    def _auth(self) -> AuthInjector | None:
        for component in getattr(self.agent, "components", ()):
            if isinstance(component, AuthInjector):
                return component
        return None

    def _scope(self, tool_name: str, parameters: Mapping[str, Any]) -> str | None:
        return cache_scope(self.agent, tool_name, parameters, self.store)

    def key_for(self, tool_name: str, parameters: Mapping[str, Any], run: Any = None) -> str:
        """The store key of a call with these unwrapped ``parameters`` in the run whose
        context is ``run``."""
        try:
            arguments, found = key_json(parameters)
        except (TypeError, ValueError):
            arguments, found = canonical_json(parameters), [None]
        if self.scope is not None:
            function: Callable[..., str | None] = self.scope
            if self._scope_takes_run:
                scope = function(run, tool_name, parameters)
            else:
                scope = function(tool_name, parameters)
        elif not found:
            scope = None  # plain JSON arguments carry no secret, so no credential scope
        else:
            scope = self._scope_of_secrets(tool_name, parameters, found)
        body = f"{arguments}\x00{scope or ''}"
        return f"v1:{tool_name}:{digest(body, size=64)}"

    def _scope_of_secrets(
        self, tool_name: str, parameters: Mapping[str, Any], secrets: list[Any]
    ) -> str | None:
        # The same secrets as the last call (an injected credential usually is): the
        # same scope, without hashing the credentials again. Secrets compare by value;
        # where they sit is in the arguments' JSON, which is part of the key too.
        last = self._last_scope
        # List equality compares identity first, then value (SecretStr compares secrets).
        if last is not None and last[0] == tool_name and last[1] == secrets:
            return last[2]
        scope = self._scope(tool_name, parameters)
        self._last_scope = (tool_name, list(secrets), scope)
        return scope

    def _emit(self, kind: CacheEventKind, tool_name: str, key: str) -> None:
        self.stats.record(kind, tool_name)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "tool cache %s: %s",
                kind,
                tool_name,
                extra={"cache_event": kind, "tool_name": tool_name, "cache_key": key},
            )
        if self.on_event is not None:
            self.on_event(CacheEvent(kind, tool_name, key))

    def _store_failed(
        self, kind: CacheEventKind, tool_name: str, key: str, error: Exception
    ) -> None:
        action = (
            "lookup failed; running the tool"
            if kind == "lookup_error"
            else ("write failed; returning the result unstored")
        )
        # A store that cannot be used at all warned once itself: counted, not logged again.
        level = logging.DEBUG if isinstance(error, CacheStoreUnavailable) else logging.WARNING
        logger.log(
            level,
            "tool cache: store %s (%s: %s)",
            action,
            type(error).__name__,
            error,
            extra={"cache_event": kind, "tool_name": tool_name, "cache_key": key},
        )
        self._emit(kind, tool_name, key)

    async def get(self, key: str, call: CallContext | None = None) -> ToolResponse | None:
        """The fresh response stored under ``key``, or ``None``; addressed to ``call``.

        Raises what the store raises; [`around`][good_agent.ToolCache.around] turns that
        into a miss.
        """
        raw = await self.store.get(key)
        return None if raw is None else self._read(key, raw, call)

    def _read(self, key: str, raw: str, call: CallContext | None) -> ToolResponse | None:
        """The response in the stored text ``raw``; ``None`` if it expired or is unreadable."""
        try:
            entry = json.loads(raw)
            expires = entry.get("expires_at")
            if expires is not None and self.clock() >= expires:
                return None
            call_id = call.call.id if call is not None else ""
            return ToolResponse.model_validate({**entry["response"], "tool_call_id": call_id})
        except (ValueError, KeyError, TypeError, AttributeError, ValidationError):
            logger.warning("tool cache: unreadable entry %s ignored", key)
            return None

    async def around(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
        """The ``around_call`` of the cache: a hit, or the tool's response (stored).

        The store is called directly from here (one coroutine per call on the way
        to the tool, not one per step).
        """
        tool_name = ctx.call.name
        if self.scope is None and ctx.tool.injected and reads_run(ctx.tool):
            raise self._unscoped(tool_name)  # a tool added after install
        key = self.key_for(tool_name, ctx.parameters, ctx.run)
        flight: str | None = None
        in_flight = self.in_flight
        if self.use_cache_flag and ctx.arguments.get("use_cache") is False:
            self._emit("bypass", tool_name, key)
        else:
            flight = key
            waited = False
            while True:
                try:
                    raw = await self.store.get(key)
                    hit = None if raw is None else self._read(key, raw, ctx)
                except Exception as error:  # any store failure: the tool answers instead
                    self._store_failed("lookup_error", tool_name, key, error)
                    hit = None
                if hit is not None:
                    self._emit("hit", tool_name, key)
                    return hit
                if flight not in in_flight:
                    in_flight[flight] = None
                    self._emit("miss", tool_name, key)
                    break
                running = in_flight[flight]
                if running is None:
                    running = in_flight[flight] = anyio.Event()
                if not waited:
                    self._emit("coalesced", tool_name, key)
                    waited = True
                with anyio.move_on_after(self.flight_timeout) as scope:
                    await running.wait()
                if scope.cancelled_caught:
                    self._emit("miss", tool_name, key)
                    flight = None
                    break
        try:
            # An exception from below (a refusal such as a rate limit) is not a
            # result of the tool: it passes through, unstored.
            response = await call_next(ctx)
            if not (response.success or self.cache_errors):
                return response
            entry = self._entry(key, tool_name, response)
            if entry is None:
                return response
            text, ttl, stored = entry
            try:
                await self.store.set(key, text, ttl)
            except Exception as error:  # any store failure: the result is still returned
                self._store_failed("store_error", tool_name, key, error)
                return response
            self._emit("set", tool_name, key)
            return self._as_read_back(response, stored)
        finally:
            if flight is not None:
                waiting = in_flight.pop(flight, None)
                if waiting is not None:
                    waiting.set()

    async def put(self, key: str, tool_name: str, response: ToolResponse) -> ToolResponse:
        """Store ``response`` under ``key``; return it as it will read back from the store.

        A store that fails is logged and counted; ``response`` is returned all the same.
        """
        entry = self._entry(key, tool_name, response)
        if entry is None:
            return response
        text, ttl, stored = entry
        try:
            await self.store.set(key, text, ttl)
        except Exception as error:  # any store failure: the result is still returned
            self._store_failed("store_error", tool_name, key, error)
            return response
        self._emit("set", tool_name, key)
        return self._as_read_back(response, stored)

    def _entry(
        self, key: str, tool_name: str, response: ToolResponse
    ) -> tuple[str, float | None, str | None] | None:
        """The stored text of ``response``, its TTL, and its JSON when it may read back
        differently; ``None`` (counted) when the response is not JSON."""
        ttl = self.ttls.get(tool_name)
        now = self.clock()
        auth = self._auth()
        kept = auth.redact_response(response) if auth is not None else response
        try:
            stored = _RESPONSE_JSON(kept, exclude=_NOT_STORED).decode()
        except ValueError:  # pydantic's serialization error: not JSON
            self._emit("uncacheable", tool_name, key)
            return None
        end = None if ttl is None else float(now + ttl)
        # Microseconds are plenty for an expiry; ``repr`` of a float costs more.
        expires = f"{end:.6f}" if end is not None and math.isfinite(end) else "null"
        text = f'{{"stored_at":{float(now):.6f},"expires_at":{expires},"response":{stored}}}'
        if kept is not response or isinstance(response.response, _PLAIN):
            # A JSON scalar reads back as itself: the response is what a hit returns.
            return text, ttl, None
        return text, ttl, stored

    @staticmethod
    def _as_read_back(response: ToolResponse, stored: str | None) -> ToolResponse:
        """``response`` as a hit on its entry will return it."""
        if stored is None:
            return response
        data = json.loads(stored)
        if data.get("response") == response.response:
            return response  # JSON-native already: it reads back equal
        return ToolResponse.model_validate({**data, "tool_call_id": response.tool_call_id})

    async def clear(self) -> None:
        """Remove every entry from the store."""
        await self.store.clear()
