"""The shared shape of the transports on an official SDK client a caller brings.

A model built in code sends over its vendor's HTTP transport; given a ready SDK client
(``openai.AsyncOpenAI``, ``anthropic.AsyncAnthropic``, ``google.genai.Client``), for
example one with a token provider, it sends with that client instead. The client is
the caller's: its settings (key, endpoint, retries) apply, and the caller closes it.
"""

from __future__ import annotations

import copy
from typing import Any, Self

from good_agent.http.endpoint import checked_base_url
from good_agent.http.wire_errors import map_http_error


class SDKTransport:
    """Sends bodies with a given SDK client (subclasses implement ``send`` and ``stream``).

    Args:
        model: The upstream model id.
        client: The caller's SDK client.
        base_url: The endpoint, when the client's own is not to be named (it is only
            reported, never sent to the client).
    """

    provider = "openai"

    def __init__(self, model: str, *, client: Any, base_url: str | None = None) -> None:
        self._model = model
        self._base_url = checked_base_url(base_url)
        self.client = client

    @property
    def base_url(self) -> str | None:
        """The endpoint root: the one given, else the client's, else ``None``."""
        given = self._base_url or getattr(self.client, "base_url", None)
        return str(given) if given else None

    def one_attempt(self) -> Self:
        """A transport like this one whose client sends each request once: the client
        copied with ``max_retries=0`` when it can be (the caller's client keeps its own)."""
        clone = copy.copy(self)
        with_options = getattr(self.client, "with_options", None)
        if with_options is not None:
            clone.client = with_options(max_retries=0)
        return clone


def mid_stream_error(mapped: Exception, exc: Exception, provider: str) -> Exception:
    """``mapped`` (an SDK error mapping), or the HTTP mapping when the SDK let a raw
    transport error (a connection cut mid-stream) through unmapped."""
    return map_http_error(exc, provider=provider) if mapped is exc else mapped
