"""The HTTP transport (and embedder) of each built-in vendor, by provider name: the tables
the bridge serves."""

from __future__ import annotations

from good_agent.http.http_transport import HttpTransport
from good_agent.providers.anthropic.http_transport import AnthropicHttpTransport
from good_agent.providers.embeddings import Embedder
from good_agent.providers.gemini.embeddings import GeminiEmbedder
from good_agent.providers.gemini.http_transport import GeminiHttpTransport
from good_agent.providers.ollama.embeddings import OllamaEmbedder
from good_agent.providers.ollama.http_transport import OllamaHttpTransport
from good_agent.providers.openai.embeddings import OpenAIEmbedder
from good_agent.providers.openai.http_transport import (
    OpenAIHttpTransport,
    OpenAIResponsesHttpTransport,
)

HTTP_TRANSPORTS: dict[str, type[HttpTransport]] = {
    "openai": OpenAIHttpTransport,
    "openai-responses": OpenAIResponsesHttpTransport,
    "anthropic": AnthropicHttpTransport,
    "gemini": GeminiHttpTransport,
    "ollama": OllamaHttpTransport,
}
"""The HTTP transport of each built-in provider name; the bridge serves these names, and
the built-in model classes (:mod:`good_agent.models.vendors`) build the same classes.

Add an OpenAI-compatible service by subclassing :class:`OpenAIHttpTransport` (``provider``,
``default_base_url``; ``profile_provider`` names whose profiles and codec apply) and
registering it here under its name."""

EMBEDDERS: dict[str, type[Embedder]] = {
    "openai": OpenAIEmbedder,
    "openai-responses": OpenAIEmbedder,  # the same account's /embeddings
    "ollama": OllamaEmbedder,
    "gemini": GeminiEmbedder,
}
"""The embedder of each built-in provider that has an embeddings API (Anthropic has none)."""
