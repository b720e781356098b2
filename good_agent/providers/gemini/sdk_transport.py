"""The ``google-genai`` SDK transport for the Gemini API, and its error mapping.

Uses the official ``google-genai`` SDK
(the ``google`` extra: ``pip install '.[google]'`` from a checkout).
``api_key`` defaults to ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY`` (for Google's own
endpoint only, see :mod:`good_agent.providers.endpoint`); ``base_url`` to
``GOOGLE_GEMINI_BASE_URL``. The codec's snake_case body maps one to one onto
``generate_content(model=, contents=, config=)``. Thought signatures Gemini returns
with function calls are remembered (by call name and arguments) and sent back,
as Gemini 3 models require.
"""

from __future__ import annotations

import base64
import json
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from good_agent.providers.gemini.codec import SKIP_SIGNATURE
from good_agent.providers.sdk_transport import SDKTransport, mid_stream_error
from good_agent.providers.types import JSONDict
from good_agent.providers.wire_errors import (
    SHOWN_CHARS,
    error_for_status,
    map_http_error,
)
from good_agent.types.errors import (
    ModelResponseError,
)

_CONFIG_KEYS = ("system_instruction", "tools", "tool_config")


def sdk_arguments(body: JSONDict) -> JSONDict:
    """Keyword arguments for ``client.aio.models.generate_content`` from a codec body."""
    config: JSONDict = dict(body.get("generation_config") or {})
    for key in _CONFIG_KEYS:
        if key in body:
            config[key] = body[key]
    config.setdefault("automatic_function_calling", {"disable": True})
    contents = [_with_bytes(content) for content in body.get("contents", [])]
    return {"model": body["model"], "contents": contents, "config": config}


def _with_bytes(content: JSONDict) -> JSONDict:
    """The SDK takes ``inline_data.data`` as bytes (it writes the base64 itself)."""
    parts = content.get("parts") or []
    if not any(isinstance(p, dict) and "inline_data" in p for p in parts):
        return content
    out = []
    for part in parts:
        inline = part.get("inline_data") if isinstance(part, dict) else None
        if isinstance(inline, dict) and isinstance(inline.get("data"), str):
            part = {**part, "inline_data": {**inline, "data": base64.b64decode(inline["data"])}}
        out.append(part)
    return {**content, "parts": out}


class GeminiTransport(SDKTransport):
    """Sends ``generateContent`` bodies with ``google.genai.Client``.

    Takes the arguments of :class:`~good_agent.providers.sdk_transport.SDKTransport`,
    and ``signature_cache``: how many thought signatures to remember.
    """

    provider = "gemini"
    url_env = "GOOGLE_GEMINI_BASE_URL"
    key_env = ("GEMINI_API_KEY", "GOOGLE_API_KEY")

    def __init__(self, model: str, *, signature_cache: int = 256, **connection: Any) -> None:
        super().__init__(model, **connection)
        self._signatures: OrderedDict[str, str] = OrderedDict()
        self._cache_size = signature_cache

    def build_client(self) -> Any:
        """A ``genai.Client`` (``GEMINI_API_KEY`` or ``GOOGLE_API_KEY``).

        The key is always given, so the SDK never takes another from the environment.
        """
        try:
            from google import genai
            from google.genai import types
        except ImportError as exc:
            raise self.missing_sdk("google-genai", "google") from exc
        base_url, api_key = self.credentials()
        retries = self.retry_options().get("max_retries")
        # v1beta, as the HTTP transport and the codec's field set expect.
        options = types.HttpOptions(
            base_url=base_url,
            api_version="v1beta",
            retry_options=None if retries is None else types.HttpRetryOptions(attempts=1 + retries),
        )
        return genai.Client(api_key=api_key, http_options=options)

    async def send(self, body: JSONDict) -> JSONDict:
        """Call ``aio.models.generate_content``."""
        client = self.get_client()
        self._attach_signatures(body)
        try:
            response = await client.aio.models.generate_content(**sdk_arguments(body))
        except Exception as exc:
            raise map_google_error(exc, provider=self.provider) from exc
        result: JSONDict = response.model_dump(mode="json", exclude_none=True)
        self._remember_signatures(result)
        return result

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """Call ``aio.models.generate_content_stream``; each chunk as a dict, to the end."""
        client = self.get_client()
        self._attach_signatures(body)
        try:
            chunks = await client.aio.models.generate_content_stream(**sdk_arguments(body))
            async for chunk in chunks:
                result: JSONDict = chunk.model_dump(mode="json", exclude_none=True)
                self._remember_signatures(result)
                yield result
        except Exception as exc:
            mapped = map_google_error(exc, provider=self.provider)
            raise mid_stream_error(mapped, exc, self.provider) from exc

    async def aclose(self) -> None:
        """Close the async client if this transport built it."""
        client, self._client = self._client, None
        if client is not None and self._owns_client:
            await client.aio.aclose()
            client.close()

    def _attach_signatures(self, body: JSONDict) -> None:
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                call = part.get("function_call")
                if call is None or part.get("thought_signature") not in (None, SKIP_SIGNATURE):
                    continue
                known = self._signatures.get(_key(call))
                if known is not None:
                    part["thought_signature"] = known

    def _remember_signatures(self, result: JSONDict) -> None:
        for candidate in result.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                call = part.get("function_call")
                signature = part.get("thought_signature")
                if call is not None and isinstance(signature, str):
                    self._signatures[_key(call)] = signature
                    while len(self._signatures) > self._cache_size:
                        self._signatures.popitem(last=False)


def _key(call: JSONDict) -> str:
    return json.dumps([call.get("name"), call.get("args") or {}], sort_keys=True)


def map_google_error(exc: Exception, *, provider: str = "gemini") -> Exception:
    """Map a ``google-genai`` exception to a :class:`ModelError`; others pass through."""
    from google.genai import errors as genai_errors

    if isinstance(exc, genai_errors.APIError):
        message = str(exc.message or exc.status or exc)
        return error_for_status(int(exc.code), message, provider=provider, body=exc.details)
    if isinstance(exc, json.JSONDecodeError):
        return ModelResponseError(
            f"{provider} sent a malformed reply: the body is not JSON ({exc.msg})",
            provider=provider,
            body=exc.doc[:SHOWN_CHARS],
        )
    return map_http_error(exc, provider=provider)
