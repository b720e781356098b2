"""A :class:`~good_agent.models.base.LanguageModel` for Ollama's native ``/api/chat``.

Talks to Ollama with ``httpx2`` directly (installed with the openai SDK) through
:class:`~good_agent.models.http_transport.OllamaHttpTransport`, so the native codec
is used: arguments as objects, ``tool_name`` on tool results, ``options`` for
sampling, NDJSON when streaming. ``base_url`` defaults to ``OLLAMA_HOST`` or
``http://localhost:11434``; an ``api_key`` is sent as a bearer token, for hosted
Ollama (``OLLAMA_API_KEY`` when none is given, unless ``base_url`` names a host other
than ``ollama.com``).
"""

from __future__ import annotations

from typing import Any

from good_agent.models.http_transport import OllamaHttpTransport
from good_agent.models.provider_model import SDKModel
from good_agent.models.transport import Transport


class OllamaModel(SDKModel):
    """Models served by Ollama.

    Takes the arguments of :class:`~good_agent.models.provider_model.SDKModel`:
    ``base_url`` defaults to ``OLLAMA_HOST`` or ``http://localhost:11434``,
    ``api_key`` (a bearer token) to ``OLLAMA_API_KEY`` (not for a given ``base_url`` of
    another host than ``ollama.com``), ``client`` is a ready
    ``httpx2.AsyncClient``; settings map to Ollama ``options``.
    """

    provider_prefix = "ollama"

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """An :class:`~good_agent.models.http_transport.OllamaHttpTransport`."""
        return OllamaHttpTransport(model, base_url=base_url, api_key=api_key, client=client)
