"""Embeddings over Gemini's ``:embedContent`` and ``:batchEmbedContents``.

Both replies may carry ``usageMetadata.promptTokenCount`` (Gemini's
``EmbeddingUsageMetadata``); a reply without it (older API versions) counts 0.

Reference: https://ai.google.dev/api/embeddings
"""

from __future__ import annotations

from good_agent.providers.embeddings import Embedder, EmbeddingInput, Embeddings
from good_agent.providers.gemini.http_transport import GeminiHttpTransport
from good_agent.providers.types import JSONDict


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
            return Embeddings(self.vectors([values], 1, "embedding.values"), self.tokens(raw))
        raw = await self.send({"requests": requests})
        found = raw.get("embeddings")
        if not isinstance(found, list) or not all(isinstance(item, dict) for item in found):
            raise self.bad_reply("'embeddings' is not a list of objects", found)
        values_list = [item.get("values") for item in found]
        return Embeddings(self.vectors(values_list, len(inputs), "embeddings"), self.tokens(raw))

    def tokens(self, raw: JSONDict) -> int:
        """The input tokens in a reply's ``usageMetadata`` (0 without one)."""
        usage = raw.get("usageMetadata")
        return self.count(usage.get("promptTokenCount")) if isinstance(usage, dict) else 0
