"""A fake embeddings upstream on loopback speaking the three vendor dialects.

``POST /v1/embeddings`` (OpenAI-compatible), ``POST /api/embed`` (Ollama) and
``POST /v1beta/models/{model}:embedContent`` / ``:batchEmbedContents`` (Gemini).
Each checks the request as its vendor documents it (a violation is a 400, recorded
in ``problems``) and answers with :func:`vector_of` each input, so a test knows
the vectors to expect.
"""

from __future__ import annotations

from typing import Any

from bridge_fakes import UPSTREAM_KEY
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


def vector_of(item: str | list[int], dimensions: int | None = None) -> list[float]:
    """A vector that depends on the input (and its requested size)."""
    text = item if isinstance(item, str) else " ".join(map(str, item))
    base = [float(len(text)), float(sum(map(ord, text)) % 97) / 4, 0.5, -1.25]
    return base[: dimensions or 3]


class EmbeddingFake:
    """Answers embedding requests in each vendor's format; ``fail_status`` makes it fail."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.problems: list[str] = []
        self.fail_status: int | None = None
        self.bad_reply: Any = None

    def _check(self, ok: bool, problem: str) -> None:
        if not ok:
            self.problems.append(problem)

    async def _start(self, request: Request) -> tuple[dict[str, Any], Response | None]:
        body = await request.json()
        self.requests.append((request.url.path, body))
        if self.fail_status is not None:
            error = {"error": {"message": "fake failure", "code": self.fail_status}}
            return body, JSONResponse(error, status_code=self.fail_status)
        return body, None

    def _reply(self, payload: dict[str, Any], before: int) -> Response:
        if len(self.problems) > before:
            return JSONResponse({"error": {"message": "; ".join(self.problems)}}, 400)
        return JSONResponse(self.bad_reply if self.bad_reply is not None else payload)

    async def openai(self, request: Request) -> Response:
        before = len(self.problems)
        body, failed = await self._start(request)
        if failed:
            return failed
        self._check(
            request.headers.get("authorization") == f"Bearer {UPSTREAM_KEY}", "bad bearer key"
        )
        self._check(isinstance(body.get("model"), str), "model must be a string")
        self._check(body.get("encoding_format") in (None, "float"), "asked for base64")
        inputs = body.get("input")
        self._check(isinstance(inputs, list) and bool(inputs), "input must be a list")
        dims = body.get("dimensions")
        data = [
            {"object": "embedding", "index": i, "embedding": vector_of(item, dims)}
            for i, item in enumerate(inputs or [])
        ]
        tokens = 5 * len(data)
        # OpenAI may list the data in any order; each item carries its index
        payload = {
            "object": "list",
            "data": list(reversed(data)),
            "model": body.get("model"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return self._reply(payload, before)

    async def ollama(self, request: Request) -> Response:
        before = len(self.problems)
        body, failed = await self._start(request)
        if failed:
            return failed
        inputs = body.get("input")
        self._check(
            isinstance(inputs, list) and all(isinstance(x, str) for x in inputs),
            "ollama input must be a list of strings",
        )
        self._check("stream" not in body, "/api/embed takes no stream field")
        dims = body.get("dimensions")
        payload = {
            "model": body.get("model"),
            "embeddings": [vector_of(item, dims) for item in inputs or []],
            "prompt_eval_count": 4 * len(inputs or []),
        }
        return self._reply(payload, before)

    async def gemini(self, request: Request) -> Response:
        before = len(self.problems)
        body, failed = await self._start(request)
        if failed:
            return failed
        self._check(request.headers.get("x-goog-api-key") == UPSTREAM_KEY, "bad x-goog-api-key")
        call = request.path_params["call"]
        model, _, method = call.rpartition(":")

        def embed(one: dict[str, Any]) -> dict[str, Any]:
            parts = (one.get("content") or {}).get("parts") or []
            self._check(len(parts) == 1 and isinstance(parts[0].get("text"), str), "bad content")
            text = parts[0].get("text", "") if parts else ""
            return {"values": vector_of(text, one.get("outputDimensionality"))}

        if method == "embedContent":
            self._check("model" not in body, "the model belongs in the URL")
            payload: dict[str, Any] = {
                "embedding": embed(body),
                "usageMetadata": {"promptTokenCount": 3},
            }
        elif method == "batchEmbedContents":
            requests = body.get("requests") or []
            for one in requests:
                self._check(one.get("model") == f"models/{model}", "each request names the model")
            payload = {
                "embeddings": [embed(one) for one in requests],
                "usageMetadata": {"promptTokenCount": 3 * len(requests)},
            }
        else:
            self._check(False, f"unknown method {method}")
            payload = {}
        return self._reply(payload, before)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/embeddings", self.openai, methods=["POST"]),
                Route("/api/embed", self.ollama, methods=["POST"]),
                Route("/v1beta/models/{call:path}", self.gemini, methods=["POST"]),
            ]
        )
