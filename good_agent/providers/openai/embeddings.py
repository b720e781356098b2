"""Embeddings over OpenAI's ``POST /embeddings`` (and every server that speaks it)."""

from __future__ import annotations

from good_agent.providers.embeddings import Embedder, EmbeddingInput, Embeddings
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.providers.types import JSONDict


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
        ordered = sorted(data, key=lambda item: self.count(item.get("index")))
        vectors = self.vectors([item.get("embedding") for item in ordered], len(inputs), "data")
        usage = raw.get("usage")
        tokens = self.count(usage.get("prompt_tokens")) if isinstance(usage, dict) else 0
        return Embeddings(vectors, tokens)
