"""The `RateLimiter`: a token bucket per tool, in memory or in Redis.

Default priority 500 (below `ToolCache`, so a cache hit spends no
token; above `ToolLogger`, so logged durations include waits),
conflict strategy ``CHAIN`` (it changes no signature). It works in ``around_call``:
it lets the call through (after waiting, in ``"wait"`` mode) or refuses it with a
`ToolError` the model reads (``"error"`` mode, or when the wait
would exceed ``max_wait``); a refusal is never cached.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import anyio

from good_agent.adapters import CallContext, CallNext, ConflictStrategy, ToolAdapter
from good_agent.core.components import AgentComponent
from good_agent.extensions._common import redis_client
from good_agent.tools import Tool
from good_agent.types.errors import ToolError
from good_agent.types.messages import ToolResponse


@dataclass(frozen=True, slots=True)
class Rate:
    """``limit`` calls per ``per`` seconds, with bursts of up to ``burst`` (default ``limit``)."""

    limit: float
    per: float = 1.0
    burst: float | None = None

    def __post_init__(self) -> None:
        if self.limit <= 0 or self.per <= 0 or (self.burst is not None and self.burst < 1):
            raise ValueError("a rate needs limit > 0, per > 0 and burst >= 1")

    @property
    def tokens_per_second(self) -> float:
        """The refill rate."""
        return self.limit / self.per

    @property
    def capacity(self) -> float:
        """The bucket size."""
        return self.burst if self.burst is not None else max(1.0, self.limit)

    def __str__(self) -> str:
        return f"{self.limit:g} per {self.per:g}s"


@runtime_checkable
class BucketBackend(Protocol):
    """Where token buckets live."""

    async def acquire(
        self, key: str, rate: Rate, now: float, max_wait: float
    ) -> tuple[bool, float]:
        """Take one token from bucket ``key``.

        Returns ``(True, delay)`` when the token is taken and usable after ``delay``
        seconds (0 for now; it is taken only when ``delay <= max_wait``), else
        ``(False, retry_after)`` and nothing is taken.
        """
        ...


class MemoryBuckets:
    """Token buckets in this process."""

    def __init__(self) -> None:
        self._buckets: dict[str, tuple[float, float]] = {}

    async def acquire(
        self, key: str, rate: Rate, now: float, max_wait: float
    ) -> tuple[bool, float]:
        """See `BucketBackend.acquire`."""
        tokens, last = self._buckets.get(key, (rate.capacity, now))
        if now > last:
            tokens = min(rate.capacity, tokens + (now - last) * rate.tokens_per_second)
            last = now
        wait = 0.0 if tokens >= 1 else (1 - tokens) / rate.tokens_per_second
        granted = wait <= max_wait
        self._buckets[key] = (tokens - 1 if granted else tokens, last)
        return granted, wait


_LUA = """
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local max_wait = tonumber(ARGV[4])
local data = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(data[1])
local ts = tonumber(data[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
if now > ts then
  tokens = math.min(capacity, tokens + (now - ts) * rate)
  ts = now
end
local wait = 0
if tokens < 1 then
  wait = (1 - tokens) / rate
end
local granted = 0
if wait <= max_wait then
  tokens = tokens - 1
  granted = 1
end
local fmt = '%.17g'
redis.call('HSET', KEYS[1], 'tokens', string.format(fmt, tokens), 'ts', string.format(fmt, ts))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity / rate + wait) * 1000) + 1000)
return {granted, string.format('%.17g', wait)}
"""


class RedisBuckets:
    """Token buckets in Redis, updated atomically by a Lua script; shared by processes.

    The time comes from the limiter's clock (``time.time`` by default), so the
    processes sharing a bucket need roughly synchronised clocks.

    Args:
        client: A ``redis.asyncio.Redis`` client, or
        url: A Redis URL to build one.
        prefix: Namespace for the bucket keys.
    """

    def __init__(
        self, client: Any = None, *, url: str | None = None, prefix: str = "good_agent:rate:"
    ) -> None:
        if client is None:
            client = redis_client(url, "RedisBuckets")
        self.client = client
        self.prefix = prefix
        self._script = client.register_script(_LUA)

    async def acquire(
        self, key: str, rate: Rate, now: float, max_wait: float
    ) -> tuple[bool, float]:
        """See `BucketBackend.acquire`."""
        limit = max_wait if math.isfinite(max_wait) else 1e18
        args = [rate.tokens_per_second, rate.capacity, repr(now), limit]
        granted, wait = await self._script(keys=[self.prefix + key], args=args)
        return bool(int(granted)), float(wait)

    async def close(self) -> None:
        """Close the client's connections."""
        await self.client.aclose()


@dataclass(slots=True)
class RateLimitStats:
    """How many calls went through at once, after waiting, or were refused."""

    allowed: int = 0
    waited: int = 0
    rejected: int = 0
    wait_seconds: float = 0.0


class RateLimitAdapter(ToolAdapter):
    """The adapter behind `RateLimiter` (see there)."""

    def __init__(self, limiter: RateLimiter, priority: int, conflict_strategy: ConflictStrategy):
        super().__init__(limiter, priority, conflict_strategy)
        self.limiter = limiter

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Adapt the tools that have a rate."""
        return self.limiter.rate_for(tool.name) is not None

    async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
        """Let the call through (perhaps after waiting), or refuse it with a tool error."""
        await self.limiter.admit(ctx.call.name, ctx.parameters)
        return await call_next(ctx)


class RateLimiter(AgentComponent):
    """Limits how often tools run, with a token bucket per tool (or per key).

    Args:
        limits: ``{tool_name: Rate}``.
        default: The rate of every other tool (``None``: unlimited).
        mode: ``"wait"`` sleeps until a token is free; ``"error"`` answers the model
            with a tool error saying when to retry.
        max_wait: In ``"wait"`` mode, longer waits become tool errors (``None``: no limit).
        backend: `MemoryBuckets` (default) or `RedisBuckets`.
        key: ``(tool_name, parameters) -> bucket key`` (default: the tool name), e.g.
            to limit per user.
        clock: Seconds (``time.time``); ``sleep``: the async sleep (``anyio.sleep``).
        priority: Adapter priority (default 500).
        conflict_strategy: Adapter conflict strategy (default ``CHAIN``).
    """

    def __init__(
        self,
        limits: Mapping[str, Rate] | None = None,
        *,
        default: Rate | None = None,
        mode: Literal["wait", "error"] = "wait",
        max_wait: float | None = None,
        backend: BucketBackend | None = None,
        key: Callable[[str, Mapping[str, Any]], str] | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[Any]] = anyio.sleep,
        priority: int = 500,
        conflict_strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        super().__init__()
        if mode not in ("wait", "error"):
            raise ValueError("mode must be 'wait' or 'error'")
        self.limits = dict(limits or {})
        self.default = default
        self.mode = mode
        self.max_wait = max_wait
        self.backend: BucketBackend = backend if backend is not None else MemoryBuckets()
        self.key = key
        self.clock = clock
        self.sleep = sleep
        self.stats = RateLimitStats()
        self.adapter = RateLimitAdapter(self, priority, conflict_strategy)
        self.register_tool_adapter(self.adapter)

    def rate_for(self, tool_name: str) -> Rate | None:
        """The rate of ``tool_name``, or ``None`` when it is unlimited."""
        return self.limits.get(tool_name, self.default)

    async def admit(self, tool_name: str, parameters: Mapping[str, Any]) -> None:
        """Take a token for a call, waiting if needed; raise [`ToolError`][good_agent.ToolError] to
        refuse it."""
        rate = self.rate_for(tool_name)
        if rate is None:
            return
        bucket = self.key(tool_name, parameters) if self.key is not None else tool_name
        if self.mode == "error":
            limit = 0.0
        else:
            limit = math.inf if self.max_wait is None else self.max_wait
        granted, delay = await self.backend.acquire(bucket, rate, self.clock(), limit)
        if not granted:
            self.stats.rejected += 1
            raise ToolError(
                f"rate limit for tool '{tool_name}' exceeded ({rate}); "
                f"retry in {max(delay, 0.001):.3g} s"
            )
        if delay > 0:
            self.stats.waited += 1
            self.stats.wait_seconds += delay
            await self.sleep(delay)
        else:
            self.stats.allowed += 1
