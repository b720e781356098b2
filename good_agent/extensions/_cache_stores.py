"""Stores for `ToolCache`: one small async protocol, three backends.

Keys and values are strings (values are JSON). ``ttl`` is a hint in seconds for
the store's own eviction; `ToolCache` checks freshness itself
with its own clock, so a store may keep an entry a little longer, never shorter.

Each built-in store also holds ``in_flight``: the calls running now on it, per key,
so that identical misses of every `ToolCache` on one store run the
tool once (a store of your own without it coalesces per ``ToolCache``).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, runtime_checkable

import anyio
import anyio.to_thread

from good_agent._util.private_file import create_private
from good_agent.extensions._common import redis_client
from good_agent.types.errors import GoodAgentError

logger = logging.getLogger("good_agent.extensions.cache")

T = TypeVar("T")

InFlight = dict[str, anyio.Event | None]
"""Calls running now, per key: ``None`` until an identical call waits, then the event
the first call sets when it is done."""


@runtime_checkable
class CacheStore(Protocol):
    """What `ToolCache` needs from a store."""

    async def get(self, key: str) -> str | None:
        """The value stored under ``key``, or ``None``."""
        ...

    async def set(self, key: str, value: str, ttl: float | None) -> None:
        """Store ``value`` under ``key``; it may be evicted after ``ttl`` seconds."""
        ...

    async def delete(self, key: str) -> None:
        """Remove ``key`` (no error if absent)."""
        ...

    async def clear(self) -> None:
        """Remove every entry of this store."""
        ...


class MemoryStore:
    """An in-process LRU store (the default).

    Args:
        max_entries: Least recently used entries are evicted beyond this count.
        clock: Monotonic seconds, for TTL eviction.
    """

    def __init__(
        self, max_entries: int = 1024, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._clock = clock
        self._data: OrderedDict[str, tuple[str, float | None]] = OrderedDict()
        self.in_flight: InFlight = {}

    async def get(self, key: str) -> str | None:
        """The value under ``key``, or ``None`` if absent or expired."""
        item = self._data.get(key)
        if item is None:
            return None
        value, expires = item
        if expires is not None and self._clock() >= expires:
            del self._data[key]
            return None
        self._data.move_to_end(key)
        return value

    async def set(self, key: str, value: str, ttl: float | None) -> None:
        """Store ``value``, evicting the least recently used entries beyond the limit."""
        expires = None if ttl is None else self._clock() + ttl
        self._data[key] = (value, expires)
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    async def delete(self, key: str) -> None:
        """Remove ``key``."""
        self._data.pop(key, None)

    async def clear(self) -> None:
        """Remove everything."""
        self._data.clear()

    async def items(self) -> list[tuple[str, str]]:
        """Every ``(key, value)`` pair, for inspection."""
        return [(k, v) for k, (v, _) in self._data.items()]

    def __len__(self) -> int:
        return len(self._data)


class CacheStoreUnavailable(GoodAgentError):
    """A store that cannot be used at all (its database cannot be opened).

    The store warns once when it first fails; `ToolCache` then
    counts each failed lookup or write (``lookup_errors`` / ``store_errors``) without
    logging it again: every call is a miss and its result is returned unstored.
    """


class SQLiteStore:
    """A store in an SQLite database (stdlib ``sqlite3``), queried in a worker thread.

    The database is opened on first use. A database that cannot be opened (a corrupt
    file, a read-only file or directory, a lock held by another process past
    ``timeout``) costs no call: the store logs one WARNING and raises
    `CacheStoreUnavailable`, so every lookup is a miss and nothing is stored;
    each later operation tries to open it again (a released lock is picked up).

    Args:
        path: Database file (a new one is created with mode ``0600``), ``":memory:"``,
            or an SQLite URI (``file:...?mode=ro``).
        table: Table name (created if missing).
        timeout: Seconds to wait for a lock held by another connection before the
            operation fails with ``sqlite3.OperationalError`` (the cache then runs the
            tool, or returns its result unstored).
    """

    def __init__(
        self, path: str = ":memory:", *, table: str = "good_agent_cache", timeout: float = 5.0
    ) -> None:
        if not table.replace("_", "").isalnum():
            raise ValueError(f"invalid table name: {table!r}")
        self.path = path
        self.table = table
        self.timeout = timeout
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._warned = False
        self.in_flight: InFlight = {}

    @property
    def _conn(self) -> sqlite3.Connection:
        """The open connection (opened here on first use); call with ``_lock`` held."""
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = None
        try:
            create_private(self.path)  # cached results may hold anything: mode 0600
            conn = sqlite3.connect(
                self.path,
                check_same_thread=False,
                isolation_level=None,
                timeout=self.timeout,
                uri=self.path.startswith("file:"),
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {self.table} "
                "(key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at REAL)"
            )
            # A write, rolled back: a read-only database fails here, not on every set.
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(f"DELETE FROM {self.table} WHERE rowid = -1")
            conn.execute("ROLLBACK")
        except (sqlite3.Error, OSError) as error:
            if conn is not None:
                conn.close()
            reason = f"{type(error).__name__}: {error}"
            if not self._warned:
                self._warned = True
                logger.warning(
                    "tool cache: SQLiteStore(%r) cannot be used (%s); every lookup is a "
                    "miss and nothing is stored until it can be opened",
                    self.path,
                    reason,
                    extra={"cache_event": "store_unavailable"},
                )
            raise CacheStoreUnavailable(f"SQLiteStore({self.path!r}): {reason}") from None
        return conn

    async def _run(self, function: Callable[..., T], *args: Any) -> T:
        return await anyio.to_thread.run_sync(functools.partial(self._locked, function, *args))

    def _locked(self, function: Callable[..., T], *args: Any) -> T:
        with self._lock:
            return function(*args)

    def _execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> None:
        self._conn.execute(sql, parameters)

    def _get(self, key: str) -> str | None:
        row = self._conn.execute(
            f"SELECT value, expires_at FROM {self.table} WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        if row[1] is not None and time.time() >= row[1]:
            self._conn.execute(f"DELETE FROM {self.table} WHERE key = ?", (key,))
            return None
        return str(row[0])

    def _set(self, key: str, value: str, ttl: float | None) -> None:
        expires = None if ttl is None else time.time() + ttl
        self._conn.execute(
            f"INSERT OR REPLACE INTO {self.table} (key, value, expires_at) VALUES (?, ?, ?)",
            (key, value, expires),
        )

    async def get(self, key: str) -> str | None:
        """The value under ``key``, or ``None`` if absent or expired."""
        return await self._run(self._get, key)

    async def set(self, key: str, value: str, ttl: float | None) -> None:
        """Store ``value`` under ``key``."""
        await self._run(self._set, key, value, ttl)

    async def delete(self, key: str) -> None:
        """Remove ``key``."""
        await self._run(self._execute, f"DELETE FROM {self.table} WHERE key = ?", (key,))

    async def clear(self) -> None:
        """Remove every entry of the table."""
        await self._run(self._execute, f"DELETE FROM {self.table}")

    async def purge_expired(self) -> None:
        """Delete expired rows."""
        sql = f"DELETE FROM {self.table} WHERE expires_at IS NOT NULL AND expires_at <= ?"
        await self._run(self._execute, sql, (time.time(),))

    async def items(self) -> list[tuple[str, str]]:
        """Every ``(key, value)`` pair, for inspection."""

        def fetch() -> list[tuple[str, str]]:
            rows = self._conn.execute(f"SELECT key, value FROM {self.table}").fetchall()
            return [(str(k), str(v)) for k, v in rows]

        return await self._run(fetch)

    def close(self) -> None:
        """Close the database connection (if it was opened)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class RedisStore:
    """A store in Redis through ``redis.asyncio`` (install the ``redis`` extra).

    Entries expire in Redis after ``ttl`` (``SET ... PX``), so several processes
    share one cache. Keys are prefixed with ``prefix``; [`clear`][good_agent.RedisStore.clear]
    removes only
    those.

    Args:
        client: A ``redis.asyncio.Redis`` client, or
        url: A Redis URL to build one (``redis://localhost:6379/0``).
        prefix: Namespace for this cache's keys.
    """

    def __init__(
        self, client: Any = None, *, url: str | None = None, prefix: str = "good_agent:cache:"
    ) -> None:
        if client is None:
            client = redis_client(url, "RedisStore")
        self.client = client
        self.prefix = prefix
        self.in_flight: InFlight = {}

    async def get(self, key: str) -> str | None:
        """The value under ``key``, or ``None``."""
        value = await self.client.get(self.prefix + key)
        if value is None:
            return None
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)

    async def set(self, key: str, value: str, ttl: float | None) -> None:
        """Store ``value`` with a Redis expiry of ``ttl`` seconds."""
        px = None if ttl is None else max(1, int(ttl * 1000))
        await self.client.set(self.prefix + key, value, px=px)

    async def delete(self, key: str) -> None:
        """Remove ``key``."""
        await self.client.delete(self.prefix + key)

    async def clear(self) -> None:
        """Remove every key under this store's prefix."""
        batch = []
        async for key in self.client.scan_iter(match=self.prefix + "*", count=500):
            batch.append(key)
            if len(batch) >= 500:
                await self.client.delete(*batch)
                batch.clear()
        if batch:
            await self.client.delete(*batch)

    async def items(self) -> list[tuple[str, str]]:
        """Every ``(key, value)`` pair under the prefix, for inspection."""
        pairs = []
        async for raw in self.client.scan_iter(match=self.prefix + "*", count=500):
            key = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
            value = await self.get(key[len(self.prefix) :])
            if value is not None:
                pairs.append((key[len(self.prefix) :], value))
        return pairs

    async def close(self) -> None:
        """Close the client's connections."""
        await self.client.aclose()
