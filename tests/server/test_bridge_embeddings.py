"""``POST /v1/embeddings`` driven by the openai SDK, to OpenAI-, Ollama- and
Gemini-shaped embedding upstreams on loopback."""

from __future__ import annotations

import base64
import struct
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import openai
import pytest
from bad_input import EMBEDDINGS_BAD, Case, refused, send
from bridge_harness import CLIENT_KEY
from embedding_fakes import EmbeddingFake, vector_of

from good_agent.server import ConfigError, create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio
AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}
EMBEDDERS = ["embed-openai", "embed-responses", "embed-ollama", "embed-gemini"]
TOKENS = {"embed-openai": 5, "embed-responses": 5, "embed-ollama": 4, "embed-gemini": 3}
"""The tokens each upstream counts for one input."""


def entry(name: str, provider: str, base_url: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "provider": provider,
        "model": "text-embedder",
        "base_url": base_url,
        "api_key_env": "GA_TEST_UPSTREAM_KEY",
        **extra,
    }


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[EmbeddingFake, str]]:
    fake = EmbeddingFake()
    server = BackgroundServer(fake.app()).start()
    yield fake, server.url
    server.stop()


@pytest.fixture(scope="module")
def embed_bridge(upstream: tuple[EmbeddingFake, str]) -> Iterator[BackgroundServer]:
    url = upstream[1]
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS"},
            "models": [
                entry("embed-openai", "openai", url + "/v1", kind="embedding"),
                # an OpenAI Responses route embeds through the same account's /embeddings
                entry("embed-responses", "openai-responses", url + "/v1", kind="embedding"),
                entry("embed-ollama", "ollama", url, kind="embedding"),
                entry("embed-gemini", "gemini", url, kind="embedding"),
                entry(
                    "embed-dead",
                    "openai",
                    "http://127.0.0.1:9/v1",
                    kind="embedding",
                    fallback=["embed-ollama"],
                ),
                entry("chat-gpt", "openai", url + "/v1", mode="native"),
                entry("claude", "anthropic", url),
            ],
        }
    )
    server = BackgroundServer(create_app(config)).start()
    yield server
    server.stop()


@pytest.fixture
async def sdk(
    embed_bridge: BackgroundServer, upstream: tuple[EmbeddingFake, str], anyio_backend: str
) -> AsyncIterator[openai.AsyncOpenAI]:
    upstream[0].reset()
    async with openai.AsyncOpenAI(
        base_url=f"{embed_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


async def post(bridge: BackgroundServer, body: Any) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(f"{bridge.url}/v1/embeddings", json=body, headers=AUTH)


@pytest.mark.parametrize("model", EMBEDDERS)
async def test_every_embedding_upstream_through_the_openai_sdk(
    sdk: openai.AsyncOpenAI, upstream: tuple[EmbeddingFake, str], model: str
) -> None:
    fake = upstream[0]
    texts = ["first text", "the second one", "3"]
    # the SDK asks for base64 unless told otherwise, and decodes it
    reply = await sdk.embeddings.create(model=model, input=texts)
    assert [item.embedding for item in reply.data] == [vector_of(t) for t in texts]
    assert [item.index for item in reply.data] == [0, 1, 2]
    assert reply.model == model
    assert reply.usage.prompt_tokens == reply.usage.total_tokens == 3 * TOKENS[model]
    single = await sdk.embeddings.create(
        model=model, input="just one", encoding_format="float", dimensions=2
    )
    assert [item.embedding for item in single.data] == [vector_of("just one", 2)]
    assert single.usage.prompt_tokens == TOKENS[model]
    assert not fake.problems, fake.problems
    paths = [path for path, _ in fake.requests]
    if model == "embed-gemini":
        assert paths == [
            "/v1beta/models/text-embedder:batchEmbedContents",
            "/v1beta/models/text-embedder:embedContent",
        ]
        assert fake.requests[1][1]["outputDimensionality"] == 2
    else:
        assert fake.requests[1][1]["dimensions"] == 2
        assert paths == {"embed-ollama": ["/api/embed"] * 2}.get(model, ["/v1/embeddings"] * 2)


async def test_base64_is_little_endian_float32(embed_bridge: BackgroundServer) -> None:
    response = await post(
        embed_bridge, {"model": "embed-openai", "input": "abc", "encoding_format": "base64"}
    )
    assert response.status_code == 200, response.text
    raw = base64.b64decode(response.json()["data"][0]["embedding"])
    assert list(struct.unpack(f"<{len(raw) // 4}f", raw)) == vector_of("abc")


async def test_token_arrays_go_only_to_upstreams_that_take_them(
    sdk: openai.AsyncOpenAI, embed_bridge: BackgroundServer, upstream: tuple[EmbeddingFake, str]
) -> None:
    reply = await sdk.embeddings.create(
        model="embed-openai", input=[[1, 2, 3], [4]], encoding_format="float"
    )
    assert [item.embedding for item in reply.data] == [vector_of([1, 2, 3]), vector_of([4])]
    assert upstream[0].requests[-1][1]["input"] == [[1, 2, 3], [4]]
    sent = len(upstream[0].requests)
    for model in ("embed-ollama", "embed-gemini"):
        response = await post(embed_bridge, {"model": model, "input": [5, 6]})
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["param"] == "input" and "text only" in error["message"]
    assert len(upstream[0].requests) == sent


@pytest.mark.parametrize(
    ("model", "says"),
    [
        ("chat-gpt", 'kind = "embedding"'),
        ("claude", "anthropic, has no embeddings API"),
    ],
)
async def test_a_route_that_cannot_embed_is_a_400(
    sdk: openai.AsyncOpenAI, model: str, says: str
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await sdk.embeddings.create(model=model, input="hi")
    assert says in refused.value.message and "cannot embed" in refused.value.message
    assert refused.value.param == "model"  # type: ignore[attr-defined]


async def test_an_embedding_route_refuses_chat(embed_bridge: BackgroundServer) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(
            f"{embed_bridge.url}/v1/chat/completions",
            json={"model": "embed-openai", "messages": [{"role": "user", "content": "hi"}]},
            headers=AUTH,
        )
    assert response.status_code == 400
    assert "embedding model" in response.json()["error"]["message"]


@pytest.mark.parametrize("case", EMBEDDINGS_BAD)
async def test_bad_fields_are_named(
    embed_bridge: BackgroundServer, upstream: tuple[EmbeddingFake, str], case: Case
) -> None:
    upstream[0].reset()
    refused(await send(embed_bridge, case), case)
    assert upstream[0].requests == []


async def test_upstream_faults_and_fallback(
    sdk: openai.AsyncOpenAI, embed_bridge: BackgroundServer, upstream: tuple[EmbeddingFake, str]
) -> None:
    fake = upstream[0]
    # the dead route falls back to the Ollama one
    reply = await sdk.embeddings.create(model="embed-dead", input="hi", encoding_format="float")
    assert reply.data[0].embedding == vector_of("hi")
    assert fake.requests[-1][0] == "/api/embed"
    fake.fail_status = 503
    failed = await post(embed_bridge, {"model": "embed-gemini", "input": "hi"})
    assert failed.status_code == 502
    assert "upstream 'embed-gemini'" in failed.json()["error"]["message"]
    fake.fail_status = None
    fake.bad_reply = {"embeddings": [["not", "numbers"]]}
    invalid = await post(embed_bridge, {"model": "embed-ollama", "input": "hi"})
    assert invalid.status_code == 502
    assert invalid.json()["error"]["code"] == "upstream_invalid_reply"
    fake.bad_reply = {"data": [{"index": 0, "embedding": [1.0]}]}
    short = await post(embed_bridge, {"model": "embed-openai", "input": ["a", "b"]})
    assert short.status_code == 502 and "2 non-empty vectors" in short.json()["error"]["message"]


async def test_missing_key_is_a_401(embed_bridge: BackgroundServer) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(
            f"{embed_bridge.url}/v1/embeddings", json={"model": "embed-openai", "input": "a"}
        )
    assert response.status_code == 401


def test_the_config_refuses_an_embedding_route_without_an_embeddings_api() -> None:
    with pytest.raises(ConfigError, match="has none"):
        parse_config(
            {"models": [{"name": "c", "provider": "anthropic", "model": "m", "kind": "embedding"}]}
        )
    with pytest.raises(ConfigError, match="kind"):
        parse_config({"models": [{"name": "c", "provider": "openai", "model": "m", "kind": "x"}]})


@pytest.mark.parametrize(
    ("first", "second"), [("embedding", "chat"), ("chat", "embedding")], ids=["embed", "chat"]
)
def test_the_config_refuses_a_fallback_of_the_other_kind(first: str, second: str) -> None:
    models = [
        {"name": "a", "provider": "openai", "model": "m", "kind": first, "fallback": ["b"]},
        {"name": "b", "provider": "ollama", "model": "m", "kind": second},
    ]
    with pytest.raises(ConfigError) as caught:
        parse_config({"models": models}, "bridge.toml")
    message = str(caught.value)
    assert message.startswith("bridge.toml: invalid configuration")
    assert f"model 'a' ({first}) falls back to 'b', a {second} model" in message
    # the same kind on both sides is accepted
    parse_config({"models": [models[0], {**models[1], "kind": first}]})


async def test_a_gemini_reply_without_usage_metadata_counts_no_tokens(
    sdk: openai.AsyncOpenAI, upstream: tuple[EmbeddingFake, str]
) -> None:
    # older Gemini API versions send no usageMetadata with embeddings
    upstream[0].bad_reply = {"embedding": {"values": [0.5, 1.5]}}
    reply = await sdk.embeddings.create(model="embed-gemini", input="hi", encoding_format="float")
    assert reply.data[0].embedding == [0.5, 1.5]
    assert reply.usage.prompt_tokens == reply.usage.total_tokens == 0
