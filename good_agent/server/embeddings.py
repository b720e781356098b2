"""``POST /v1/embeddings``: OpenAI's embeddings API, served by routes that embed.

A route embeds when its ``[[models]]`` entry says ``kind = "embedding"`` (its
provider must have an embeddings API: OpenAI-compatible, Ollama or Gemini; see
`good_agent.providers.embeddings`). ``input`` is a string, an array of strings,
or token arrays (for OpenAI-compatible upstreams only); ``encoding_format`` is
``float`` (the default) or ``base64`` (little-endian float32, as OpenAI sends);
``dimensions`` asks for shorter vectors. A chat route, or a token array for an
upstream that takes only text, gets a 400 saying so. Errors are OpenAI-shaped.

Reference: https://platform.openai.com/docs/api-reference/embeddings/create
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp

from good_agent.providers.embeddings import EmbeddingInput, Embeddings
from good_agent.providers.registry import embedder_of
from good_agent.providers.types import JSONDict
from good_agent.server.bridge import Bridge
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.server.common.ids import REQUEST_ID_HEADER
from good_agent.server.exchange import Exchange, with_fallback
from good_agent.server.served import ServedModel
from good_agent.types.usage import Usage

MAX_INPUTS = 2048
"""The most inputs one request may embed (OpenAI's limit)."""


@dataclass(slots=True)
class EmbeddingsCall:
    """A validated embeddings request."""

    model: str
    inputs: EmbeddingInput
    tokens: bool
    encoding: str = "float"
    dimensions: int | None = None


def _is_tokens(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in value)
    )


def _inputs(value: Any) -> tuple[EmbeddingInput, bool]:
    """The inputs as a list, and whether they are token arrays."""
    if isinstance(value, str) or _is_tokens(value):
        value = [value]
    if not isinstance(value, list) or not value:
        raise bad_request(
            "'input' must be a string, an array of strings or an array of token arrays",
            "input",
        )
    if len(value) > MAX_INPUTS:
        raise bad_request(f"'input' holds {len(value)} items; at most {MAX_INPUTS}", "input")
    if all(isinstance(item, str) for item in value):
        for index, item in enumerate(value):
            if not item:
                raise bad_request(f"'input[{index}]' is empty", f"input[{index}]")
        return [str(item) for item in value], False
    for index, item in enumerate(value):
        if not _is_tokens(item):
            raise bad_request(
                f"'input[{index}]' must be a string or a non-empty array of token ids, like "
                "the other items",
                f"input[{index}]",
            )
    return [list(item) for item in value], True


def parse_embeddings_request(body: Any) -> EmbeddingsCall:
    """Validate an embeddings request body; a 400 names the bad field."""
    if not isinstance(body, dict):
        raise bad_request("the request body must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise bad_request("'model' is required", "model")
    inputs, tokens = _inputs(body.get("input"))
    encoding = body.get("encoding_format") or "float"
    if encoding not in ("float", "base64"):
        raise bad_request("'encoding_format' must be 'float' or 'base64'", "encoding_format")
    dimensions = body.get("dimensions")
    if dimensions is not None and (
        isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1
    ):
        raise bad_request("'dimensions' must be a positive integer", "dimensions")
    return EmbeddingsCall(model, inputs, tokens, encoding, dimensions)


def check_route(route: ServedModel, call: EmbeddingsCall) -> None:
    """A 400 unless ``route`` embeds, and takes the kind of input ``call`` has."""
    embedder = route.embedder
    if embedder is None:
        provider = route.entry.provider
        why = (
            'it is configured as a chat model; set kind = "embedding" on an entry of an '
            "embedding model"
            if embedder_of(provider) is not None
            else f"its provider, {provider}, has no embeddings API"
        )
        raise bad_request(
            f"model '{route.name}' cannot embed: {why}", "model", "model_not_supported"
        )
    if call.tokens and not embedder.takes_tokens:
        raise bad_request(
            f"model '{route.name}' embeds text only (its provider, {route.entry.provider}, "
            "takes no token arrays); send strings",
            "input",
        )


def vector_value(vector: list[float], encoding: str) -> list[float] | str:
    """A vector as floats, or as base64 of little-endian float32 values."""
    if encoding == "float":
        return vector
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def embeddings_body(found: Embeddings, call: EmbeddingsCall) -> JSONDict:
    """OpenAI's embeddings ``list`` reply."""
    data = [
        {"object": "embedding", "index": index, "embedding": vector_value(vector, call.encoding)}
        for index, vector in enumerate(found.vectors)
    ]
    tokens = found.input_tokens
    return {
        "object": "list",
        "data": data,
        "model": call.model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


async def _embed(route: ServedModel, call: EmbeddingsCall) -> Embeddings:
    check_route(route, call)
    assert route.embedder is not None  # checked above
    return await route.embedder.embed(call.inputs, call.dimensions)


def _openai_error(error: BridgeError, request_id: str) -> JSONResponse:
    headers = {**error.headers, REQUEST_ID_HEADER: request_id}
    return JSONResponse(error.openai_body(), status_code=error.status, headers=headers)


async def handle_embeddings(bridge: Bridge, request: Request) -> ASGIApp:
    """Serve one ``POST /v1/embeddings`` request."""
    exchange = Exchange(bridge, request)

    async def serve() -> ASGIApp:
        bridge.authorize(request)
        call = parse_embeddings_request(await bridge.read_json(request))
        exchange.route = route = bridge.route(call.model)
        check_route(route, call)
        chosen, found = await with_fallback(
            bridge.candidates(route),
            lambda r: exchange.watch.run(lambda: _embed(r, call)),
        )
        exchange.log(200, Usage(found.input_tokens, 0), chosen)
        return exchange.json(embeddings_body(found, call))

    return await exchange.answer(serve, _openai_error)
