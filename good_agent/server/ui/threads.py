"""Where a served agent keeps each thread's history: SQLite by default, Redis or Postgres
for many workers.

A history is stored as :func:`~good_agent.messages.dump_messages` bytes under its
thread id, after every run (also a failed or cancelled one), so any worker can
continue the thread. Deps are never stored: they are not in the history. Two
requests on one thread at the same time are not merged: the last run to end wins.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from typing import Any, Protocol

import anyio.to_thread

from good_agent._util.private_file import create_private
from good_agent.types.history import dump_messages, load_messages
from good_agent.types.messages import Message


class ThreadStore(Protocol):
    """Loads and saves thread histories by thread id."""

    async def load(self, thread_id: str) -> list[Message] | None:
        """The thread's history, or ``None`` for a thread this store has never seen."""
        ...

    async def save(self, thread_id: str, messages: list[Message]) -> None:
        """Replace the thread's history with ``messages``."""
        ...


class SQLiteThreadStore:
    """Histories in an SQLite database (stdlib ``sqlite3``, called off the event loop).

    Args:
        path: The database file; ``":memory:"`` (the default) keeps the threads for
            the life of the process only. Give a file for threads that outlive a
            restart or that several worker processes on one machine share; a new
            file is created readable by its owner only (mode ``0600``).
    """

    def __init__(self, path: str = ":memory:") -> None:
        self.path = path
        self._lock = threading.Lock()
        with contextlib.suppress(OSError):  # sqlite3 says what is wrong with the path
            create_private(path)  # a file holds conversations: mode 0600
        self._connection = sqlite3.connect(path, check_same_thread=False, timeout=30)
        with self._lock, self._connection:
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS threads "
                "(id TEXT PRIMARY KEY, history BLOB NOT NULL, updated REAL NOT NULL)"
            )

    def _load(self, thread_id: str) -> bytes | None:
        with self._lock:
            row = self._connection.execute(
                "SELECT history FROM threads WHERE id = ?", (thread_id,)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def _save(self, thread_id: str, data: bytes) -> None:
        with self._lock, self._connection:
            self._connection.execute(
                "INSERT INTO threads (id, history, updated) VALUES (?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET history = excluded.history, "
                "updated = excluded.updated",
                (thread_id, data, time.time()),
            )

    async def load(self, thread_id: str) -> list[Message] | None:
        """The thread's history, or ``None`` for an unknown thread."""
        data = await anyio.to_thread.run_sync(self._load, thread_id)
        return None if data is None else load_messages(data)

    async def save(self, thread_id: str, messages: list[Message]) -> None:
        """Replace the thread's history."""
        await anyio.to_thread.run_sync(self._save, thread_id, dump_messages(messages))

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._connection.close()


class RedisThreadStore:
    """Histories in Redis (``redis.asyncio``), shared by every worker that reaches it.

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

    async def load(self, thread_id: str) -> list[Message] | None:
        """The thread's history, or ``None`` for an unknown thread."""
        data = await self.client.get(self.prefix + thread_id)
        return None if data is None else load_messages(data)

    async def save(self, thread_id: str, messages: list[Message]) -> None:
        """Replace the thread's history (and restart its time to live)."""
        expiry = None if self.ttl is None else max(1, round(self.ttl))
        await self.client.set(self.prefix + thread_id, dump_messages(messages), ex=expiry)


class PostgresThreadStore:
    """Histories in a Postgres table (``psycopg``), shared by every worker that reaches it.

    Each load or save opens its own connection, so the store serves any event loop.

    Args:
        url: The server's connection URL (``postgresql://user@host:5432/db``).
        table: The table that holds the histories (created when missing).
    """

    def __init__(self, url: str, *, table: str = "good_agent_threads") -> None:
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
        self._ready = False

    async def _connect(self) -> Any:
        connection = await self._psycopg.AsyncConnection.connect(self.url, autocommit=True)
        if not self._ready:
            await connection.execute(
                f"CREATE TABLE IF NOT EXISTS {self.table} "
                "(id TEXT PRIMARY KEY, history BYTEA NOT NULL, updated DOUBLE PRECISION NOT NULL)"
            )
            self._ready = True
        return connection

    async def load(self, thread_id: str) -> list[Message] | None:
        """The thread's history, or ``None`` for an unknown thread."""
        async with await self._connect() as connection:
            cursor = await connection.execute(
                f"SELECT history FROM {self.table} WHERE id = %s", (thread_id,)
            )
            row = await cursor.fetchone()
        return None if row is None else load_messages(bytes(row[0]))

    async def save(self, thread_id: str, messages: list[Message]) -> None:
        """Replace the thread's history."""
        async with await self._connect() as connection:
            await connection.execute(
                f"INSERT INTO {self.table} (id, history, updated) VALUES (%s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET history = excluded.history, "
                "updated = excluded.updated",
                (thread_id, dump_messages(messages), time.time()),
            )
