"""Where ``/v1/responses`` keeps the responses a client may continue or fetch again.

A stored response is the response object a client was sent and the conversation
that led to it (neutral chat messages, the reply last), so a request naming it in
``previous_response_id`` continues from there on any worker. Each is stored with
its *owner*: the SHA-256 of the client key that created it (never the key), and a
store answers only its owner; another key finds nothing.

`SQLiteResponseStore` is the default (stdlib ``sqlite3``, run in a worker
thread so the event loop never waits on the file; WAL mode, so the workers of
``--workers N`` share one file). `RedisResponseStore` serves many machines
(the ``redis`` extra). Both drop a response after ``ttl_seconds``, and keep at most
``max_per_owner`` responses of one owner and ``max_responses`` in all: storing one more
drops the oldest (of that owner first), so one client key cannot fill the store. The
SQLite file is created readable by its owner only (mode ``0600``): it holds
conversations.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import anyio

from good_agent._util.private_file import create_private
from good_agent.extensions._common import redis_client
from good_agent.providers.types import JSONDict
from good_agent.server.config import ConfigError, ResponsesConfig


@dataclass(frozen=True, slots=True)
class StoredResponse:
    """A response as sent to its client, and the conversation up to and including it."""

    body: JSONDict
    messages: list[JSONDict]

    def dumps(self) -> str:
        """The JSON text stored."""
        return json.dumps({"body": self.body, "messages": self.messages}, ensure_ascii=False)

    @classmethod
    def loads(cls, text: str | bytes) -> StoredResponse:
        """The response stored as ``text``."""
        data = json.loads(text)
        return cls(data["body"], data["messages"])


class ResponseStore(Protocol):
    """Stored responses by id, each answered only to its owner."""

    async def get(self, response_id: str, owner: str) -> StoredResponse | None:
        """The response ``response_id`` if ``owner`` stored it and it has not expired."""
        ...

    async def put(self, response_id: str, owner: str, stored: StoredResponse) -> None:
        """Keep ``stored`` as ``response_id`` for ``owner``."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


def default_path() -> Path:
    """``responses.sqlite3`` in the user's cache directory (``$XDG_CACHE_HOME`` or
    ``~/.cache``, then ``good-agent``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "good-agent" / "responses.sqlite3"


DEFAULT_MAX_PER_OWNER = 1000
"""How many stored responses one owner (client key) keeps by default."""

DEFAULT_MAX_RESPONSES = 100_000
"""How many stored responses a store keeps in all by default."""


class SQLiteResponseStore:
    """Responses in one SQLite file, opened on first use.

    Args:
        path: The database file (created with mode ``0600``, its directory with
            ``0700``, if needed).
        ttl_seconds: How long a response is kept.
        max_per_owner: The most responses one owner keeps (the oldest go first).
        max_responses: The most responses kept in all (the oldest go first).
    """

    def __init__(
        self,
        path: str | Path,
        ttl_seconds: float,
        *,
        max_per_owner: int = DEFAULT_MAX_PER_OWNER,
        max_responses: int = DEFAULT_MAX_RESPONSES,
    ) -> None:
        self.path = Path(path)
        self.ttl_seconds = ttl_seconds
        self.max_per_owner = max_per_owner
        self.max_responses = max_responses
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            create_private(self.path, parents=True)
            db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS responses (id TEXT PRIMARY KEY, owner TEXT NOT NULL,"
                " expires REAL NOT NULL, record TEXT NOT NULL)"
            )
            db.execute("CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires)")
            db.execute(
                "CREATE INDEX IF NOT EXISTS responses_owner ON responses (owner, expires)"
            )
            db.commit()
            self._db = db
        return self._db

    def _get(self, response_id: str, owner: str) -> StoredResponse | None:
        with self._lock:
            row = (
                self._connection()
                .execute(
                    "SELECT record FROM responses WHERE id = ? AND owner = ? AND expires > ?",
                    (response_id, owner, time.time()),
                )
                .fetchone()
            )
        return StoredResponse.loads(row[0]) if row else None

    def _put(self, response_id: str, owner: str, record: str) -> None:
        now = time.time()
        with self._lock:
            db = self._connection()
            with db:
                db.execute("DELETE FROM responses WHERE expires <= ?", (now,))
                db.execute(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                    (response_id, owner, now + self.ttl_seconds, record),
                )
                (mine,) = db.execute(
                    "SELECT COUNT(*) FROM responses WHERE owner = ?", (owner,)
                ).fetchone()
                if mine > self.max_per_owner:
                    db.execute(
                        "DELETE FROM responses WHERE id IN (SELECT id FROM responses "
                        "WHERE owner = ? ORDER BY expires LIMIT ?)",
                        (owner, mine - self.max_per_owner),
                    )
                (total,) = db.execute("SELECT COUNT(*) FROM responses").fetchone()
                if total > self.max_responses:
                    db.execute(
                        "DELETE FROM responses WHERE id IN (SELECT id FROM responses "
                        "ORDER BY expires LIMIT ?)",
                        (total - self.max_responses,),
                    )

    async def get(self, response_id: str, owner: str) -> StoredResponse | None:
        """The response ``response_id`` if ``owner`` stored it and it has not expired."""
        return await anyio.to_thread.run_sync(self._get, response_id, owner)

    async def put(self, response_id: str, owner: str, stored: StoredResponse) -> None:
        """Keep ``stored`` (expired responses are deleted on the way)."""
        await anyio.to_thread.run_sync(self._put, response_id, owner, stored.dumps())

    async def aclose(self) -> None:
        """Close the file."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class RedisResponseStore:
    """Responses in Redis, each under ``good-agent:response:<id>`` with an expiry; the
    ids of each owner's responses, by time, in the sorted set
    ``good-agent:response-owner:<owner>``, and of all in ``good-agent:response-all``.

    Args:
        url: The server's URL (``redis://host:6379/0``).
        ttl_seconds: How long a response is kept.
        max_per_owner: The most responses one owner keeps (the oldest go first).
        max_responses: The most responses kept in all (the oldest go first).
    """

    PREFIX = "good-agent:response:"
    """The prefix of every response key this store writes."""

    OWNER_PREFIX = "good-agent:response-owner:"
    """The prefix of the sorted set of one owner's response ids."""

    ALL = "good-agent:response-all"
    """The sorted set of every response id."""

    def __init__(
        self,
        url: str,
        ttl_seconds: float,
        *,
        max_per_owner: int = DEFAULT_MAX_PER_OWNER,
        max_responses: int = DEFAULT_MAX_RESPONSES,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.max_per_owner = max_per_owner
        self.max_responses = max_responses
        self._redis: Any = redis_client(url, "The Redis response store")

    async def get(self, response_id: str, owner: str) -> StoredResponse | None:
        """The response ``response_id`` if ``owner`` stored it (expired ones are gone)."""
        raw = await self._redis.get(self.PREFIX + response_id)
        if raw is None:
            return None
        data = json.loads(raw)
        return StoredResponse.loads(data["record"]) if data.get("owner") == owner else None

    async def put(self, response_id: str, owner: str, stored: StoredResponse) -> None:
        """Keep ``stored`` for ``ttl_seconds``."""
        value = json.dumps({"owner": owner, "record": stored.dumps()}, ensure_ascii=False)
        now = time.time()
        ttl = int(self.ttl_seconds)
        mine = self.OWNER_PREFIX + owner
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self.PREFIX + response_id, value, ex=ttl)
            for index in (mine, self.ALL):
                pipe.zremrangebyscore(index, "-inf", now - ttl)
                pipe.zadd(index, {response_id: now})
                pipe.expire(index, ttl)
            pipe.zcard(mine)
            pipe.zcard(self.ALL)
            *_, owned, total = await pipe.execute()
        dropped: list[Any] = []
        if owned > self.max_per_owner:
            dropped += await self._redis.zpopmin(mine, owned - self.max_per_owner)
            await self._redis.zrem(self.ALL, *(item[0] for item in dropped))
            total -= len(dropped)
        if total > self.max_responses:
            dropped += await self._redis.zpopmin(self.ALL, total - self.max_responses)
        if dropped:
            ids = {item[0].decode() if isinstance(item[0], bytes) else item[0] for item in dropped}
            await self._redis.delete(*(self.PREFIX + old for old in ids))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()


def open_store(config: ResponsesConfig) -> ResponseStore:
    """The store ``config`` describes (nothing is opened before first use)."""
    if config.store == "redis":
        url = os.environ.get(config.redis_url_env or "")
        if not url:
            raise ConfigError(
                f"[responses] store = 'redis', but the variable {config.redis_url_env} "
                "(redis_url_env) is not set"
            )
        return RedisResponseStore(
            url,
            config.ttl_seconds,
            max_per_owner=config.max_per_owner,
            max_responses=config.max_responses,
        )
    return SQLiteResponseStore(
        config.path or default_path(),
        config.ttl_seconds,
        max_per_owner=config.max_per_owner,
        max_responses=config.max_responses,
    )
