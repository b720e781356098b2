"""Embeddings from the vendors that have them: OpenAI-compatible, Ollama and Gemini.

Each embedder is its vendor's HTTP transport pointed at the embeddings endpoint, so
keys, pooling, time limits and error mapping are the transport's own:

- OpenAI and every compatible server: ``POST {base}/embeddings`` (strings or token
  arrays, ``dimensions``), usage from ``usage.prompt_tokens``;
- Ollama: ``POST /api/embed`` (``input`` a list of strings, ``dimensions``), usage
  from ``prompt_eval_count``;
- Gemini: ``POST models/{model}:embedContent`` for one input and
  ``:batchEmbedContents`` for several (``outputDimensionality``); Gemini reports no
  token counts, so the usage is zero.

A reply of the wrong shape is a :class:`~good_agent.types.errors.ModelResponseError`.

References: https://platform.openai.com/docs/api-reference/embeddings,
https://github.com/ollama/ollama/blob/main/docs/api.md#generate-embeddings and
https://ai.google.dev/api/embeddings
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from good_agent.providers.gemini.http_transport import GeminiHttpTransport
from good_agent.providers.http_transport import HttpTransport
from good_agent.providers.ollama.http_transport import OllamaHttpTransport
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.providers.reply_shape import preview
from good_agent.providers.types import JSONDict
from good_agent.types.errors import ModelResponseError

EmbeddingInput = list[str] | list[list[int]]
"""What is embedded: texts, or (where the vendor takes them) token arrays."""


@dataclass(frozen=True, slots=True)
class Embeddings:
    """One vector per input, in input order, and the input tokens the vendor counted."""

    vectors: list[list[float]]
    input_tokens: int = 0


class Embedder(HttpTransport):
    """The base of the embedders: ``embed`` on top of the vendor's transport."""

    takes_tokens: ClassVar[bool] = False
    """Whether the vendor embeds token arrays as well as strings."""

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """The body as built (never a stream)."""
        return body

    async def embed(self, inputs: EmbeddingInput, dimensions: int | None = None) -> Embeddings:
        """Embed ``inputs`` (``dimensions``: the vector size asked for, if any)."""
        raise NotImplementedError

    def vectors(self, raw: Any, count: int, where: str) -> list[list[float]]:
        """``raw`` checked as ``count`` vectors of finite numbers (``where`` names it)."""
        if (
            not isinstance(raw, list)
            or len(raw) != count
            or not all(isinstance(vector, list) and vector for vector in raw)
        ):
            raise self.bad_reply(f"'{where}' is not {count} non-empty vectors", raw)
        out: list[list[float]] = []
        for vector in raw:
            numbers = [float(x) for x in vector if isinstance(x, int | float)]
            if len(numbers) != len(vector) or not all(map(math.isfinite, numbers)):
                raise self.bad_reply(f"'{where}' holds a value that is not a number", vector)
            out.append(numbers)
        return out

    def bad_reply(self, problem: str, value: Any) -> ModelResponseError:
        """The error for an embeddings reply of the wrong shape."""
        return ModelResponseError(
            f"{self.provider} sent an invalid embeddings reply: {problem} (got {preview(value)})",
            provider=self.provider,
        )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class OpenAIEmbedder(Embedder, OpenAIHttpTransport):
    """``POST /embeddings`` of OpenAI and the servers that speak its API."""

    takes_tokens = True

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The embeddings endpoint."""
        return f"{self.base_url}/embeddings"

    async def embed(self, inputs: EmbeddingInput, dimensions: int | None = None) -> Embeddings:
        """Embed ``inputs`` (floats asked for, whatever the client wants)."""
        body: JSONDict = {"model": self.model, "input": inputs, "encoding_format": "float"}
        if dimensions is not None:
            body["dimensions"] = dimensions
        raw = await self.send(body)
        data = raw.get("data")
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            raise self.bad_reply("'data' is not a list of objects", data)
        ordered = sorted(data, key=lambda item: _count(item.get("index")))
        vectors = self.vectors([item.get("embedding") for item in ordered], len(inputs), "data")
        usage = raw.get("usage")
        tokens = _count(usage.get("prompt_tokens")) if isinstance(usage, dict) else 0
        return Embeddings(vectors, tokens)


class OllamaEmbedder(Embedder, OllamaHttpTransport):
    """Ollama's ``POST /api/embed``."""

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The embed endpoint."""
        return f"{self.base_url}/api/embed"

    async def embed(self, inputs: EmbeddingInput, dimensions: int | None = None) -> Embeddings:
        """Embed ``inputs`` (strings)."""
        body: JSONDict = {"model": self.model, "input": inputs}
        if dimensions is not None:
            body["dimensions"] = dimensions
        raw = await self.send(body)
        vectors = self.vectors(raw.get("embeddings"), len(inputs), "embeddings")
        return Embeddings(vectors, _count(raw.get("prompt_eval_count")))


class GeminiEmbedder(Embedder, GeminiHttpTransport):
    """Gemini's ``:embedContent`` (one input) and ``:batchEmbedContents`` (several)."""

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The method URL: batched when the body holds ``requests``."""
        method = "batchEmbedContents" if "requests" in body else "embedContent"
        root = self.base_url.removesuffix(f"/{self.api_version}")
        return f"{root}/{self.api_version}/models/{self.model.removeprefix('models/')}:{method}"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """The body as built (the model is in the URL)."""
        return body

    async def embed(self, inputs: EmbeddingInput, dimensions: int | None = None) -> Embeddings:
        """Embed ``inputs`` (strings)."""
        name = f"models/{self.model.removeprefix('models/')}"
        requests: list[JSONDict] = []
        for text in inputs:
            one: JSONDict = {"model": name, "content": {"parts": [{"text": text}]}}
            if dimensions is not None:
                one["outputDimensionality"] = dimensions
            requests.append(one)
        if len(requests) == 1:
            single = {k: v for k, v in requests[0].items() if k != "model"}
            raw = await self.send(single)
            embedding = raw.get("embedding")
            values = embedding.get("values") if isinstance(embedding, dict) else None
            return Embeddings(self.vectors([values], 1, "embedding.values"))
        raw = await self.send({"requests": requests})
        found = raw.get("embeddings")
        if not isinstance(found, list) or not all(isinstance(item, dict) for item in found):
            raise self.bad_reply("'embeddings' is not a list of objects", found)
        values_list = [item.get("values") for item in found]
        return Embeddings(self.vectors(values_list, len(inputs), "embeddings"))


EMBEDDERS: dict[str, type[Embedder]] = {
    "openai": OpenAIEmbedder,
    "ollama": OllamaEmbedder,
    "gemini": GeminiEmbedder,
}
"""The embedder of each built-in provider that has an embeddings API (Anthropic has none)."""
