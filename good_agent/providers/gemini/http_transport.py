"""The Gemini API over the shared HTTP transport."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from good_agent.http.http_transport import HttpTransport
from good_agent.http.wire import WireStream
from good_agent.providers.gemini.signatures import ThoughtSignatures
from good_agent.providers.types import JSONDict


class GeminiHttpTransport(HttpTransport):
    """The Gemini API (``generateContent`` / ``streamGenerateContent?alt=sse``).

    Takes the arguments of `HttpTransport`, and ``signature_cache``: how many
    thought signatures to remember (see `good_agent.providers.gemini.signatures`;
    none by default, as for a bridge route shared by many clients: a model built in
    code keeps 256).
    """

    provider = "gemini"
    profile_provider = "gemini"
    vendor_hosts = {"gemini": "generativelanguage.googleapis.com"}
    default_base_url = "https://generativelanguage.googleapis.com"
    url_env = "GOOGLE_GEMINI_BASE_URL"
    key_env = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    api_version = "v1beta"

    def __init__(self, model: str = "", *, signature_cache: int = 0, **options: Any) -> None:
        super().__init__(model, **options)
        self.signatures = ThoughtSignatures(signature_cache)

    def headers(self) -> dict[str, str]:
        """``x-goog-api-key``."""
        return {"x-goog-api-key": self.api_key} if self.api_key else {}

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The method URL for the body's model."""
        model = str(body.get("model") or self.model).removeprefix("models/")
        root = self.base_url.removesuffix(f"/{self.api_version}")
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"{root}/{self.api_version}/models/{model}:{method}"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """The body without ``model`` (it is in the URL), with the remembered thought
        signatures on its calls."""
        self.signatures.attach(body)
        return {k: v for k, v in body.items() if k != "model"}

    async def send(self, body: JSONDict) -> JSONDict:
        """Send ``body``; remember the reply's thought signatures."""
        reply = await super().send(body)
        self.signatures.remember(reply)
        return reply

    async def event_batches(self, reply: WireStream) -> AsyncIterator[list[JSONDict]]:
        """The reply's chunks; their thought signatures are remembered."""
        async for batch in super().event_batches(reply):
            for event in batch:
                self.signatures.remember(event)
            yield batch
