"""Embeddings over Ollama's ``POST /api/embed``."""

from __future__ import annotations

from good_agent.providers.embeddings import Embedder, EmbeddingInput, Embeddings
from good_agent.providers.ollama.http_transport import OllamaHttpTransport
from good_agent.providers.types import JSONDict


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
        return Embeddings(vectors, self.count(raw.get("prompt_eval_count")))
