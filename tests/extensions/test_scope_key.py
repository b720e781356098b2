"""Cache keys scoped by credentials: an HMAC keyed by a deployment secret.

A listing of a shared store's keys must not confirm a guessed secret, processes that
share a store share entries only through a configured key, and a shared store used
without one is a warning.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from good_agent import Agent, tool
from good_agent.extensions import (
    AuthInjector,
    CacheStore,
    MemoryStore,
    RedisStore,
    SQLiteStore,
    ToolCache,
    UnkeyedScopeWarning,
    credential_scope,
)
from good_agent.extensions.credentials import SCOPE_KEY_ENV

pytestmark = pytest.mark.anyio

SECRET = "scope-canary-3b9d41"
PUBLIC_KEY = b"good-agent/auth-scope/v1"  # the key every installation used to share


@pytest.fixture(autouse=True)
def _no_configured_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCOPE_KEY_ENV, raising=False)


@pytest.fixture(params=["sqlite", "redis"])
async def shared_store(request: Any, tmp_path: Path) -> AsyncIterator[CacheStore]:
    if request.param == "sqlite":
        sqlite = SQLiteStore(str(tmp_path / "cache.db"))
        yield sqlite
        sqlite.close()
    else:
        port = request.getfixturevalue("redis_port")
        redis_store = RedisStore(url=f"redis://127.0.0.1:{port}/0", prefix=f"s:{uuid.uuid4().hex}:")
        yield redis_store
        await redis_store.clear()
        await redis_store.close()


@tool
def lookup(query: str, api_key: SecretStr) -> str:
    """Look something up."""
    return f"answer to {query}"


async def _cached_call(store: CacheStore, auth: AuthInjector) -> list[str]:
    async with Agent(
        tools=[lookup], extensions=[ToolCache(store, tools=["lookup"]), auth]
    ) as agent:
        await agent.invoke("lookup", query="q")
    return [key for key, _ in await store.items()]


async def test_a_key_listing_cannot_confirm_a_guessed_secret(shared_store: CacheStore) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnkeyedScopeWarning)
        listed = await _cached_call(shared_store, AuthInjector({"api_key": SECRET}))
    assert len(listed) == 1
    # Someone who can list the keys and knows the tool, the arguments and the code
    # tries guesses under every key they can know: none reproduces the stored key.
    for guess in (SECRET, "wrong-guess"):
        parameters = {"query": "q", "api_key": SecretStr(guess)}
        for known_key in (PUBLIC_KEY, b"", None):
            attacker = ToolCache(
                MemoryStore(),
                tools=["lookup"],
                scope=lambda _t, p, k=known_key: credential_scope(p, key=k or b"\x00"),
            )
            assert attacker.key_for("lookup", parameters) not in listed
    assert SECRET not in repr(listed)


async def test_a_configured_key_is_shared_by_every_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    params = {"api_key": SecretStr(SECRET)}
    unkeyed = credential_scope(params)
    monkeypatch.setenv(SCOPE_KEY_ENV, "deployment-key-1")
    first = credential_scope(params)
    # What another process computes with the same configuration: the HMAC under that key.
    assert first == credential_scope(params, key="deployment-key-1")
    assert first != unkeyed and first != credential_scope(params, key=PUBLIC_KEY)
    assert credential_scope(params, key="deployment-key-2") != first
    assert AuthInjector(scope_key="deployment-key-2").scope_of("t", params) == credential_scope(
        params, key="deployment-key-2"
    )
    assert AuthInjector().scope_of("t", params) == first


async def test_a_shared_store_without_a_key_warns_once(shared_store: CacheStore) -> None:
    auth = AuthInjector({"api_key": SECRET})
    with pytest.warns(UnkeyedScopeWarning, match=SCOPE_KEY_ENV) as caught:
        await _cached_call(shared_store, auth)
        await _cached_call(shared_store, auth)
    assert len([w for w in caught if w.category is UnkeyedScopeWarning]) == 1


async def test_no_warning_with_a_key_or_a_private_store(
    shared_store: CacheStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnkeyedScopeWarning)
        await _cached_call(MemoryStore(), AuthInjector({"api_key": SECRET}))
        await _cached_call(shared_store, AuthInjector({"api_key": SECRET}, scope_key="k" * 32))
        monkeypatch.setenv(SCOPE_KEY_ENV, "k" * 32)
        await _cached_call(shared_store, AuthInjector({"api_key": "other-secret"}))


async def test_a_blank_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="scope_key is blank"):
        AuthInjector(scope_key="   ")
    monkeypatch.setenv(SCOPE_KEY_ENV, " ")
    with pytest.raises(ValueError, match=f"{SCOPE_KEY_ENV} is blank"):
        credential_scope({"api_key": SecretStr(SECRET)})
