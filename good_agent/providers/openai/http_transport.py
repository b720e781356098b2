"""OpenAI over the shared HTTP transport: Chat Completions (and every server that speaks
it) and the Responses API."""

from __future__ import annotations

from good_agent.http.http_transport import HttpTransport
from good_agent.providers.types import JSONDict


class OpenAIHttpTransport(HttpTransport):
    """OpenAI Chat Completions (``POST /chat/completions``), the transport of every
    OpenAI-compatible server too: vLLM, llama.cpp, LM Studio, hosted services.

    A service of its own is a subclass with its ``provider`` and ``default_base_url``
    (``profile_provider`` stays ``"openai"``: OpenAI's profiles and codec apply).
    """

    provider = "openai"
    profile_provider = "openai"
    vendor_hosts = {"openai": "api.openai.com"}
    default_base_url = "https://api.openai.com/v1"
    url_env = "OPENAI_BASE_URL"
    key_env = ("OPENAI_API_KEY",)

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The Chat Completions endpoint."""
        return f"{self.base_url}/chat/completions"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """``stream: true`` with usage in the last chunk, for a streamed reply."""
        if stream:
            options = {"include_usage": True, **(body.get("stream_options") or {})}
            return {**body, "stream": True, "stream_options": options}
        return body


class OpenAIResponsesHttpTransport(OpenAIHttpTransport):
    """OpenAI's Responses API (``POST /responses``); a stream is its typed events
    (``response.output_text.delta`` ... ``response.completed``), each carrying its
    ``type``."""

    profile_provider = "openai-responses"

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The Responses endpoint."""
        return f"{self.base_url}/responses"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """``stream: true`` for a streamed reply (usage comes in ``response.completed``)."""
        return {**body, "stream": True} if stream else body
