"""``previous_response_id`` and ``GET /v1/responses/{id}`` through the response store:
SQLite by default, a real ``redis-server`` when configured; each key sees only its own."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY
from openai import AsyncOpenAI, BadRequestError, NotFoundError
from responses_harness import AUTH, OTHER, R_WEATHER, RESP, post, respond, start_responses_bridge

from good_agent.server.background import BackgroundServer
from good_agent.server.common.auth import owner_of
from good_agent.server.responses.store import (
    RedisResponseStore,
    SQLiteResponseStore,
    StoredResponse,
)

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]
MODELS = ["gpt", RESP]
"""A Chat Completions route (always translated) and a Responses one (passed through
when the path is on: stored by the bridge under the upstream's id)."""


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def store_bridge(
    request: pytest.FixtureRequest,
    fakes: dict[str, tuple[Fake, str]],
    tmp_path_factory: pytest.TempPathFactory,
    pass_through: bool,
) -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    """Two bridges (two workers) sharing one store."""
    if request.param == "redis":
        port = request.getfixturevalue("redis_port")
        os.environ["GA_TEST_RESPONSES_REDIS"] = f"redis://127.0.0.1:{port}/3"
        config = {"store": "redis", "redis_url_env": "GA_TEST_RESPONSES_REDIS"}
    else:
        config = {"path": str(tmp_path_factory.mktemp("store") / "responses.sqlite3")}
    servers = tuple(
        start_responses_bridge(fakes, config, pass_through=pass_through) for _ in range(2)
    )
    yield servers
    for server in servers:
        server.stop()


def client_for(server: BackgroundServer, key: str = CLIENT_KEY) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{server.url}/v1", api_key=key, max_retries=0)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("stream", [False, True])
async def test_a_conversation_continues_on_another_worker(
    store_bridge: tuple[BackgroundServer, BackgroundServer],
    fakes: dict[str, tuple[Fake, str]],
    stream: bool,
    model: str,
) -> None:
    first_worker, second_worker = store_bridge
    fake = fakes["openai" if model == "gpt" else "responses"][0]
    fake.reply = Reply(calls=[("get_weather", {"city": "Paris"})])
    async with client_for(first_worker) as one, client_for(second_worker) as two:
        tools: Any = [R_WEATHER]
        first = await respond(
            one, stream, model=model, input="Weather?", instructions="Be brief.", tools=tools
        )
        call = next(item for item in first.output if item.type == "function_call")
        fake.reply = Reply(text="21C and sunny.")
        second = await two.responses.create(
            model=model,
            previous_response_id=first.id,
            input=[{"type": "function_call_output", "call_id": call.call_id, "output": "21C"}],
            tools=tools,
        )
        assert second.output_text == "21C and sunny."
        assert second.previous_response_id == first.id
        # The earlier instructions are not carried over, as OpenAI's API does.
        if model == "gpt":
            sent = fake.requests[-1]["messages"]
            assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
            assert sent[1]["tool_calls"][0]["id"] == call.call_id
            assert sent[2] == {"role": "tool", "tool_call_id": call.call_id, "content": "21C"}
        else:
            sent = fake.requests[-1]["input"]
            assert [item.get("type", "message") for item in sent] == [
                "message",
                "function_call",
                "function_call_output",
            ]
            assert sent[1]["call_id"] == call.call_id
            assert sent[2] == {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": "21C",
            }
        fetched = await two.responses.retrieve(first.id)
        assert fetched.id == first.id and fetched.output[0].type == "function_call"
        assert not fake.problems, fake.problems


@pytest.mark.parametrize("model", MODELS)
async def test_a_key_sees_only_its_own_responses(
    store_bridge: tuple[BackgroundServer, BackgroundServer], model: str
) -> None:
    bridge = store_bridge[0]
    async with client_for(bridge) as mine, client_for(bridge, "second-client-key") as theirs:
        kept = await mine.responses.create(model=model, input="Hi")
        with pytest.raises(NotFoundError) as missing:
            await theirs.responses.retrieve(kept.id)
        assert missing.value.status_code == 404
        with pytest.raises(BadRequestError) as refused:
            await theirs.responses.create(model=model, input="Go on", previous_response_id=kept.id)
        assert refused.value.body["param"] == "previous_response_id"  # type: ignore[index]
        assert (await mine.responses.retrieve(kept.id)).id == kept.id


@pytest.mark.parametrize("model", MODELS)
async def test_store_false_keeps_nothing(
    store_bridge: tuple[BackgroundServer, BackgroundServer], model: str
) -> None:
    bridge = store_bridge[0]
    for stream in (False, True):
        body = {"model": model, "input": "Hi", "store": False, "stream": stream}
        response = await post(bridge, body)
        text = response.text
        ident = json.loads(text)["id"] if not stream else text.split('"id": "', 1)[1].split('"')[0]
        assert ident.startswith("resp_")
        async with httpx2.AsyncClient() as http:
            fetched = await http.get(f"{bridge.url}/v1/responses/{ident}", headers=AUTH)
        assert fetched.status_code == 404, fetched.text
        assert fetched.json()["error"]["code"] == "not_found"
        unknown = await post(bridge, {"model": "gpt", "input": "x", "previous_response_id": ident})
        assert unknown.status_code == 400
        assert unknown.json()["error"]["param"] == "previous_response_id"


async def test_get_needs_a_key(store_bridge: tuple[BackgroundServer, BackgroundServer]) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.get(f"{store_bridge[0].url}/v1/responses/resp_x")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"


def all_bytes(directory: Path) -> bytes:
    return b"".join(path.read_bytes() for path in directory.iterdir())


async def test_the_sqlite_file_holds_the_keys_hash_never_the_key(tmp_path: Path) -> None:
    store = SQLiteResponseStore(tmp_path / "r.sqlite3", ttl_seconds=60)
    owner = owner_of(AUTH)
    await store.put("resp_1", owner, StoredResponse({"id": "resp_1"}, []))
    assert (await store.get("resp_1", owner)) == StoredResponse({"id": "resp_1"}, [])
    assert await store.get("resp_1", owner_of(OTHER)) is None
    await store.aclose()
    raw = all_bytes(tmp_path)  # the database and its WAL files
    assert CLIENT_KEY.encode() not in raw
    with sqlite3.connect(tmp_path / "r.sqlite3") as db:
        assert db.execute("SELECT owner FROM responses").fetchall() == [(owner,)]


async def test_an_expired_response_is_gone(tmp_path: Path) -> None:
    store = SQLiteResponseStore(tmp_path / "r.sqlite3", ttl_seconds=-1)
    await store.put("resp_1", "", StoredResponse({}, []))
    assert await store.get("resp_1", "") is None
    await store.aclose()


async def test_the_redis_store_keeps_the_hash_and_an_expiry(redis_port: int) -> None:
    import redis.asyncio

    store = RedisResponseStore(f"redis://127.0.0.1:{redis_port}/4", ttl_seconds=100)
    owner = owner_of(AUTH)
    await store.put("resp_2", owner, StoredResponse({"id": "resp_2"}, []))
    assert await store.get("resp_2", owner_of(OTHER)) is None
    raw = redis.asyncio.Redis.from_url(f"redis://127.0.0.1:{redis_port}/4")
    value = await raw.get(RedisResponseStore.PREFIX + "resp_2")
    assert CLIENT_KEY.encode() not in value and owner.encode() in value
    assert 0 < await raw.ttl(RedisResponseStore.PREFIX + "resp_2") <= 100
    await raw.aclose()
    await store.aclose()
