"""Where a served agent keeps each thread's history: SQLite by default, Redis or Postgres
for many workers.

A history is stored as `dump_messages` bytes under its
thread id, with its *owner* (the identity of whoever started the thread: the SHA-256 of
a client key, an identity the app's owner hook returned, or ``""`` on a server with
neither), after every run (also a failed or cancelled one), so any worker can continue
the thread. A store answers a thread only to its owner: a load by anyone else raises
[`ThreadNotFound`][good_agent.server.ui.ThreadNotFound], and so does a save, checked in
the same statement that writes (the row, the key), so two workers agree. Deps are never
stored: they are not in the history. Two requests on one thread at the same time are not
merged: the last run to end wins.

Bounds: a thread not saved for ``ttl`` seconds is gone (treated as never seen, and
deleted on a later save); the in-memory SQLite store (the default) also keeps at most
``max_threads`` threads and ``max_bytes`` of histories, dropping the least recently
used first.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
import zlib
from typing import Any, Protocol

import anyio.to_thread

from good_agent._util.private_file import create_private
from good_agent.types.history import dump_messages, load_messages
from good_agent.types.messages import Message

MEMORY_TTL = 3600.0
"""Seconds an in-memory thread is kept after its last run, by default (one hour)."""

MEMORY_MAX_THREADS = 1000
"""The most threads the in-memory store keeps, by default."""

MEMORY_MAX_BYTES = 256_000_000
"""The most history bytes the in-memory store keeps, by default (256 MB)."""


class ThreadNotFound(LookupError):
    """The thread belongs to another owner: to this one it does not exist."""

    def __init__(self, thread_id: str) -> None:
        super().__init__("thread not found")
        self.thread_id = thread_id


class ThreadStore(Protocol):
    """Loads and saves thread histories by thread id, each for its owner only."""

    async def load(self, thread_id: str, owner: str = "") -> list[Message] | None:
        """The thread's history, or ``None`` for a thread this store does not hold
        (never seen, or expired); raises
        [`ThreadNotFound`][good_agent.server.ui.ThreadNotFound] when another owner
        holds it."""
        ...

    async def save(self, thread_id: str, messages: list[Message], owner: str = "") -> None:
        """Replace the thread's history with ``messages`` (a new thread is ``owner``'s);
        raises [`ThreadNotFound`][good_agent.server.ui.ThreadNotFound], writing
        nothing, when another owner holds it."""
        ...


def _expiry(ttl: float | None) -> float:
    """The oldest ``updated`` time still alive (``0``: no expiry)."""
    return 0.0 if ttl is None else time.time() - ttl


class SQLiteThreadStore:
    """Histories in an SQLite database (stdlib ``sqlite3``, called off the event loop).

    Args:
        path: The database file; ``":memory:"`` (the default) keeps the threads for
            the life of the process only. Give a file for threads that outlive a
            restart or that several worker processes on one machine share; a new
            file is created readable by its owner only (mode ``0600``).
        ttl: Seconds a thread is kept after its last run. ``None``: one hour
            (`MEMORY_TTL`) in memory, for
            ever in a file; ``float("inf")``: for ever.
        max_threads: The most threads kept; the least recently used go first.
            ``None``: 1,000 in memory, no limit in a file.
        max_bytes: The most bytes of histories kept, likewise. ``None``: 256 MB in
            memory, no limit in a file.
    """

    def __init__(
        self,
        path: str = ":memory:",
        *,
        ttl: float | None = None,
        max_threads: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        memory = path == ":memory:"
        self.path = path
        self.ttl = (MEMORY_TTL if memory else None) if ttl is None else ttl
        if self.ttl == float("inf"):
            self.ttl = None
        if max_threads is None and memory:
            max_threads = MEMORY_MAX_THREADS
        if max_bytes is None and memory:
            max_bytes = MEMORY_MAX_BYTES
        self.max_threads, self.max_bytes = max_threads, max_bytes
        self._lock = threading.Lock()
        with contextlib.suppress(OSError):  # sqlite3 says what is wrong with the path
            create_private(path)  # a file holds conversations: mode 0600
        self._connection = sqlite3.connect(path, check_same_thread=False, timeout=30)
        with self._lock, self._connection:
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, history BLOB NOT NULL,"
                " updated REAL NOT NULL, owner TEXT NOT NULL DEFAULT '')"
            )
            columns = {row[1] for row in self._connection.execute("PRAGMA table_info(threads)")}
            if "owner" not in columns:  # a database written before threads had owners
                self._connection.execute(
                    "ALTER TABLE threads ADD COLUMN owner TEXT NOT NULL DEFAULT ''"
                )
            self._connection.execute(
                "CREATE INDEX IF NOT EXISTS threads_updated ON threads (updated)"
            )

    def _load(self, thread_id: str, owner: str) -> bytes | None:
        with self._lock:
            row = self._connection.execute(
                "SELECT history, owner FROM threads WHERE id = ? AND updated >= ?",
                (thread_id, _expiry(self.ttl)),
            ).fetchone()
        if row is None:
            return None
        if row[1] != owner:
            raise ThreadNotFound(thread_id)
        return bytes(row[0])

    def _save(self, thread_id: str, data: bytes, owner: str) -> None:
        now = time.time()
        with self._lock, self._connection:
            cursor = self._connection.execute(
                "INSERT INTO threads (id, history, updated, owner) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET history = excluded.history, "
                "updated = excluded.updated, owner = excluded.owner "
                "WHERE threads.owner = excluded.owner OR threads.updated < ?",
                (thread_id, data, now, owner, _expiry(self.ttl)),
            )
            if cursor.rowcount == 0:
                raise ThreadNotFound(thread_id)
            self._evict(thread_id, now)

    def _evict(self, kept: str, now: float) -> None:
        """Drop expired threads, then the least recently used beyond the caps."""
        db = self._connection
        if self.ttl is not None:
            db.execute("DELETE FROM threads WHERE updated < ?", (now - self.ttl,))
        if self.max_threads is not None:
            db.execute(
                "DELETE FROM threads WHERE id IN (SELECT id FROM threads "
                "ORDER BY updated DESC LIMIT -1 OFFSET ?) AND id != ?",
                (max(1, self.max_threads), kept),
            )
        if self.max_bytes is not None:
            db.execute(
                "DELETE FROM threads WHERE id IN (SELECT id FROM (SELECT id, "
                "SUM(length(history)) OVER (ORDER BY updated DESC, id) AS total "
                "FROM threads) WHERE total > ?) AND id != ?",
                (self.max_bytes, kept),
            )

    async def load(self, thread_id: str, owner: str = "") -> list[Message] | None:
        """The thread's history, or ``None`` for an unknown (or expired) thread;
        [`ThreadNotFound`][good_agent.server.ui.ThreadNotFound] for another owner's."""
        data = await anyio.to_thread.run_sync(self._load, thread_id, owner)
        return None if data is None else load_messages(data)

    async def save(self, thread_id: str, messages: list[Message], owner: str = "") -> None:
        """Replace the thread's history (another owner's: `ThreadNotFound`, nothing written)."""
        await anyio.to_thread.run_sync(self._save, thread_id, dump_messages(messages), owner)

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._connection.close()


_REDIS_LOAD = """
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return false end
if kind == 'string' then return {'', redis.call('GET', KEYS[1])} end
return redis.call('HMGET', KEYS[1], 'owner', 'history')
"""

_REDIS_SAVE = """
local kind = redis.call('TYPE', KEYS[1])['ok']
local owner = ''
if kind == 'hash' then owner = redis.call('HGET', KEYS[1], 'owner') or '' end
if kind ~= 'none' and owner ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'history', ARGV[2])
if tonumber(ARGV[3]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return 1
"""
"""Load and save check the owner in the server, in one step (a key written before
threads had owners is a plain string, the local owner's)."""


class RedisThreadStore:
    """Histories in Redis (``redis.asyncio``), shared by every worker that reaches it.

    Each thread is a hash (``owner``, ``history``) under its key; the owner is checked
    by a script on the server, so concurrent workers agree.

    Args:
        client: A ``redis.asyncio.Redis`` client, or a URL (``redis://host:6379/0``).
        prefix: Put before each thread id to make its key.
        ttl: Seconds a thread is kept after its last run (``None``: for ever).
    """

    def __init__(
        self, client: Any, *, prefix: str = "good-agent:thread:", ttl: float | None = None
    ) -> None:
        if isinstance(client, str):
            from good_agent._extras import missing_extra

            try:
                import redis.asyncio as redis_asyncio
            except ImportError as exc:
                raise missing_extra("redis", "RedisThreadStore", exc) from None
            client = redis_asyncio.Redis.from_url(client)
        self.client = client
        self.prefix = prefix
        self.ttl = ttl

    async def load(self, thread_id: str, owner: str = "") -> list[Message] | None:
        """The thread's history, or ``None`` for an unknown (or expired) thread;
        [`ThreadNotFound`][good_agent.server.ui.ThreadNotFound] for another owner's."""
        found = await self.client.eval(_REDIS_LOAD, 1, self.prefix + thread_id)
        if not found:
            return None
        stored_owner, data = found
        if _text(stored_owner) != owner:
            raise ThreadNotFound(thread_id)
        return None if data is None else load_messages(data)

    async def save(self, thread_id: str, messages: list[Message], owner: str = "") -> None:
        """Replace the thread's history (and restart its time to live); another
        owner's: `ThreadNotFound`, nothing written."""
        expiry = 0 if self.ttl is None else max(1, round(self.ttl))
        saved = await self.client.eval(
            _REDIS_SAVE, 1, self.prefix + thread_id, owner, dump_messages(messages), expiry
        )
        if not saved:
            raise ThreadNotFound(thread_id)


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else str(value)


class PostgresThreadStore:
    """Histories in a Postgres table (``psycopg``), shared by every worker that reaches it.

    Each load or save opens its own connection, so the store serves any event loop.
    The owner is checked in the statement that writes, so concurrent workers agree.

    Args:
        url: The server's connection URL (``postgresql://user@host:5432/db``).
        table: The table that holds the histories (created when missing; a table made
            before threads had owners gets its ``owner`` column).
        ttl: Seconds a thread is kept after its last run (``None``: for ever). An
            expired thread is treated as never seen, and deleted by a later save.
    """

    def __init__(
        self, url: str, *, table: str = "good_agent_threads", ttl: float | None = None
    ) -> None:
        if not table.isidentifier():
            raise ValueError(f"table {table!r} is not a plain SQL name")
        try:
            import psycopg
        except ImportError as exc:
            from good_agent._extras import missing_extra

            raise missing_extra("postgres", "PostgresThreadStore", exc) from None
        self._psycopg = psycopg
        self.url = url
        self.table = table
        self.ttl = ttl
        self._ready = False

    async def _connect(self) -> Any:
        connection = await self._psycopg.AsyncConnection.connect(self.url, autocommit=True)
        if not self._ready:
            try:
                await self._create(connection)
            except BaseException:
                await connection.close()
                raise
            self._ready = True
        return connection

    async def _create(self, connection: Any) -> None:
        """Create the table and its index; workers starting at once take turns (an
        advisory lock), since concurrent ``CREATE ... IF NOT EXISTS`` can still collide."""
        async with connection.transaction():
            await connection.execute(
                "SELECT pg_advisory_xact_lock(%s)", (zlib.crc32(self.table.encode()),)
            )
            await connection.execute(
                f"CREATE TABLE IF NOT EXISTS {self.table} "
                "(id TEXT PRIMARY KEY, history BYTEA NOT NULL, updated DOUBLE PRECISION NOT NULL,"
                " owner TEXT NOT NULL DEFAULT '')"
            )
            await connection.execute(
                f"ALTER TABLE {self.table} ADD COLUMN IF NOT EXISTS owner TEXT NOT NULL DEFAULT ''"
            )
            await connection.execute(
                f"CREATE INDEX IF NOT EXISTS {self.table}_updated ON {self.table} (updated)"
            )

    async def load(self, thread_id: str, owner: str = "") -> list[Message] | None:
        """The thread's history, or ``None`` for an unknown (or expired) thread;
        [`ThreadNotFound`][good_agent.server.ui.ThreadNotFound] for another owner's."""
        async with await self._connect() as connection:
            cursor = await connection.execute(
                f"SELECT history, owner FROM {self.table} WHERE id = %s AND updated >= %s",
                (thread_id, _expiry(self.ttl)),
            )
            row = await cursor.fetchone()
        if row is None:
            return None
        if row[1] != owner:
            raise ThreadNotFound(thread_id)
        return load_messages(bytes(row[0]))

    async def save(self, thread_id: str, messages: list[Message], owner: str = "") -> None:
        """Replace the thread's history (another owner's: `ThreadNotFound`, nothing
        written); expired threads are deleted on the way."""
        now = time.time()
        async with await self._connect() as connection:
            cursor = await connection.execute(
                f"INSERT INTO {self.table} AS t (id, history, updated, owner) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (id) DO UPDATE SET "
                "history = excluded.history, updated = excluded.updated, owner = excluded.owner "
                "WHERE t.owner = excluded.owner OR t.updated < %s",
                (thread_id, dump_messages(messages), now, owner, _expiry(self.ttl)),
            )
            if cursor.rowcount == 0:
                raise ThreadNotFound(thread_id)
            if self.ttl is not None:
                await connection.execute(
                    f"DELETE FROM {self.table} WHERE updated < %s", (now - self.ttl,)
                )
