"""The Gemini API over the shared HTTP transport."""

from __future__ import annotations

from good_agent.providers.http_transport import HttpTransport
from good_agent.providers.types import JSONDict


class GeminiHttpTransport(HttpTransport):
    """The Gemini API (``generateContent`` / ``streamGenerateContent?alt=sse``)."""

    provider = "gemini"
    profile_provider = "gemini"
    default_base_url = "https://generativelanguage.googleapis.com"
    api_version = "v1beta"

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
        """The body without ``model`` (it is in the URL)."""
        return {k: v for k, v in body.items() if k != "model"}
