"""Anthropic's Messages API over the shared HTTP transport."""

from __future__ import annotations

from good_agent.http.http_transport import HttpTransport
from good_agent.providers.types import JSONDict


class AnthropicHttpTransport(HttpTransport):
    """Anthropic's Messages API (``POST /v1/messages``)."""

    provider = "anthropic"
    profile_provider = "anthropic"
    vendor_hosts = {"anthropic": "api.anthropic.com"}
    default_base_url = "https://api.anthropic.com"
    url_env = "ANTHROPIC_BASE_URL"
    key_env = ("ANTHROPIC_API_KEY",)
    api_version = "2023-06-01"

    def headers(self) -> dict[str, str]:
        """``x-api-key`` and ``anthropic-version``."""
        headers = {"anthropic-version": self.api_version}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return headers

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The Messages endpoint."""
        return f"{self.base_url.removesuffix('/v1')}/v1/messages"
