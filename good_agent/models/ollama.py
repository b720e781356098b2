"""A :class:`~good_agent.models.base.LanguageModel` for Ollama's native ``/api/chat``.

Talks to Ollama with ``httpx2`` directly (installed with the openai SDK), so the
native codec is used: arguments as objects, ``tool_name`` on tool results,
``options`` for sampling. ``base_url`` defaults to ``OLLAMA_HOST`` or
``http://localhost:11434``; an ``api_key`` (or ``OLLAMA_API_KEY``) is sent as a
bearer token, for hosted Ollama.
"""

from __future__ import annotations

import os
from typing import Any

from good_agent.models.errors import map_http_error
from good_agent.models.provider_model import SDKModel, Transport
from good_agent.providers.types import JSONDict

DEFAULT_HOST = "http://localhost:11434"
"""Where Ollama listens by default."""


def ollama_host(base_url: str | None = None) -> str:
    """The server root: ``base_url``, ``OLLAMA_HOST`` or the default (scheme added)."""
    host = base_url or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
    if "://" not in host:
        host = f"http://{host}"
    return host.rstrip("/").removesuffix("/api")


class OllamaTransport:
    """Posts ``/api/chat`` bodies with an ``httpx2.AsyncClient``."""

    provider = "ollama"

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
        timeout: float = 300.0,
    ) -> None:
        self.host = ollama_host(base_url)
        self._api_key = api_key or os.environ.get("OLLAMA_API_KEY")
        self._client = client
        self._timeout = timeout

    def get_client(self) -> Any:
        """The HTTP client, built on first use."""
        if self._client is None:
            import httpx2

            self._client = httpx2.AsyncClient(timeout=self._timeout)
        return self._client

    async def send(self, body: JSONDict) -> JSONDict:
        """POST the body to ``/api/chat``."""
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        client = self.get_client()
        try:
            response = await client.post(f"{self.host}/api/chat", json=body, headers=headers)
            response.raise_for_status()
            result: JSONDict = response.json()
        except Exception as exc:
            raise map_http_error(exc, provider=self.provider) from exc
        return result


class OllamaModel(SDKModel):
    """Models served by Ollama.

    Takes the arguments of :class:`~good_agent.models.provider_model.SDKModel`:
    ``base_url`` defaults to ``OLLAMA_HOST`` or ``http://localhost:11434``,
    ``api_key`` (a bearer token) to ``OLLAMA_API_KEY``, ``client`` is a ready
    ``httpx2.AsyncClient``; settings map to Ollama ``options``.
    """

    provider_prefix = "ollama"

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """An :class:`OllamaTransport`."""
        return OllamaTransport(base_url=base_url, api_key=api_key, client=client)
