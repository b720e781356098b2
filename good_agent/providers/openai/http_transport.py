"""OpenAI Chat Completions over the shared HTTP transport (and every server that speaks it)."""

from __future__ import annotations

from good_agent.providers.http_transport import HttpTransport
from good_agent.providers.types import JSONDict


class OpenAIHttpTransport(HttpTransport):
    """OpenAI Chat Completions (``POST /chat/completions``), the transport of every
    OpenAI-compatible server too: vLLM, llama.cpp, LM Studio, hosted services.

    A service of its own is a subclass with its ``provider`` and ``default_base_url``
    (``profile_provider`` stays ``"openai"``: OpenAI's profiles and codec apply).
    """

    provider = "openai"
    profile_provider = "openai"
    default_base_url = "https://api.openai.com/v1"

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The Chat Completions endpoint."""
        return f"{self.base_url}/chat/completions"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """``stream: true`` with usage in the last chunk, for a streamed reply."""
        if stream:
            options = {"include_usage": True, **(body.get("stream_options") or {})}
            return {**body, "stream": True, "stream_options": options}
        return body
