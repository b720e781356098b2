"""Embeddings from the vendors that have them: the shared base of their embedders.

Each vendor's embedder (``providers/<vendor>/embeddings.py``, listed by provider
name in `good_agent.providers.builtin_transports.EMBEDDERS`) is its HTTP
transport pointed at the embeddings endpoint, so keys, pooling, time limits and
error mapping are the transport's own:

- OpenAI and every compatible server: ``POST {base}/embeddings`` (strings or token
  arrays, ``dimensions``), usage from ``usage.prompt_tokens``;
- Ollama: ``POST /api/embed`` (``input`` a list of strings, ``dimensions``), usage
  from ``prompt_eval_count``;
- Gemini: ``POST models/{model}:embedContent`` for one input and
  ``:batchEmbedContents`` for several (``outputDimensionality``); Gemini reports no
  token counts, so the usage is zero.

A reply of the wrong shape is a `ModelResponseError`.

References: https://platform.openai.com/docs/api-reference/embeddings,
https://github.com/ollama/ollama/blob/main/docs/api.md#generate-embeddings and
https://ai.google.dev/api/embeddings
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from good_agent.http.http_transport import HttpTransport
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

    def count(self, value: Any) -> int:
        """A token count from a reply (0 when it is not a count)."""
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    def bad_reply(self, problem: str, value: Any) -> ModelResponseError:
        """The error for an embeddings reply of the wrong shape."""
        return ModelResponseError(
            f"{self.provider} sent an invalid embeddings reply: {problem} (got {preview(value)})",
            provider=self.provider,
        )
