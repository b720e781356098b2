"""The HTTP transport of each built-in vendor, by provider name: the table the bridge serves."""

from __future__ import annotations

from good_agent.providers.anthropic.http_transport import AnthropicHttpTransport
from good_agent.providers.gemini.http_transport import GeminiHttpTransport
from good_agent.providers.http_transport import HttpTransport
from good_agent.providers.ollama.http_transport import OllamaHttpTransport

HTTP_TRANSPORTS: dict[str, type[HttpTransport]] = {
    "openai": HttpTransport,
    "anthropic": AnthropicHttpTransport,
    "gemini": GeminiHttpTransport,
    "ollama": OllamaHttpTransport,
}
"""The HTTP transport of each built-in provider name; the bridge serves these names.

Add an OpenAI-compatible service by subclassing :class:`HttpTransport` (``provider``,
``default_base_url``; ``profile_provider`` names whose profiles and codec apply) and
registering it here under its name."""
