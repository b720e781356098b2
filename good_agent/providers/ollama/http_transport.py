"""Ollama's native ``/api/chat`` over the shared HTTP transport (NDJSON when streaming)."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

from good_agent.http.endpoint import is_vendor_host
from good_agent.http.http_transport import HttpTransport
from good_agent.http.wire import WireStream
from good_agent.providers.types import JSONDict

DEFAULT_OLLAMA_HOST = "http://localhost:11434"
"""Where Ollama listens by default."""


def ollama_host(base_url: str | None = None) -> str:
    """The Ollama server root: ``base_url``, ``OLLAMA_HOST`` or the default (scheme added)."""
    host = base_url or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
    if "://" not in host:
        host = f"http://{host}"
    return host.rstrip("/").removesuffix("/api")


class OllamaHttpTransport(HttpTransport):
    """Ollama's native ``/api/chat`` (NDJSON when streaming).

    ``base_url`` defaults to ``OLLAMA_HOST`` or ``http://localhost:11434`` (a host
    without a scheme gets ``http://``, as Ollama's own tools do); the key is sent as a
    bearer token, for hosted Ollama. ``OLLAMA_API_KEY`` is the key when none is given
    and the endpoint is not a given ``base_url`` of a host other than ``ollama.com``.
    """

    provider = "ollama"
    profile_provider = "ollama"
    vendor_hosts = {"ollama": "ollama.com"}
    default_base_url = DEFAULT_OLLAMA_HOST

    def __init__(self, model: str = "", *, base_url: str | None = None, **options: Any) -> None:
        host = ollama_host(base_url)
        super().__init__(model, base_url=host, **options)
        own = self.vendor_hosts.get(self.provider)
        if not self.api_key and (base_url is None or is_vendor_host(own, host)):
            self.api_key = os.environ.get("OLLAMA_API_KEY") or None

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The chat endpoint."""
        return f"{self.base_url}/api/chat"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """``stream`` set explicitly (Ollama streams by default)."""
        return {**body, "stream": stream}

    async def event_batches(self, reply: WireStream) -> AsyncIterator[list[JSONDict]]:
        """One JSON object per line; the lines of one read together."""
        async for lines in reply.line_batches():
            batch: list[JSONDict] = []
            try:
                for line in lines:
                    if line.strip():
                        batch.append(self.event_object(json.loads(line)))
            except BaseException:
                if batch:  # the events before a malformed one are still passed on
                    yield batch
                raise
            if batch:
                yield batch
