"""The shared shape of transports built on an official SDK client."""

from __future__ import annotations

import os
from typing import Any

from good_agent.core.errors import ModelConfigError
from good_agent.models.errors import map_http_error


class SDKTransport:
    """Holds the connection arguments and builds the SDK client on first use.

    Subclasses set ``provider`` and implement :meth:`build_client` and ``send``.

    Args:
        model: The upstream model id (for error messages).
        base_url: Endpoint root (the provider's environment variable by default).
        api_key: Key (the provider's environment variable by default).
        client: A ready SDK client (overrides the two above).
    """

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
    ) -> None:
        self._model = model
        self._base_url = base_url
        self._api_key = api_key
        self._client = client
        self._owns_client = client is None

    @property
    def base_url(self) -> str | None:
        """The endpoint root: the one given, else the given client's, else ``None`` (the
        provider's environment variable or default)."""
        given = self._base_url or getattr(self._client, "base_url", None)
        return str(given) if given else None

    def get_client(self) -> Any:
        """The SDK client, built on first use."""
        if self._client is None:
            self._client = self.build_client()
        return self._client

    def build_client(self) -> Any:
        """Build the SDK client from the connection arguments."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Close the SDK client if this transport built it (a given client is the caller's)."""
        client, self._client = self._client, None
        if client is None or not self._owns_client:
            return
        close = getattr(client, "close", None) or getattr(client, "aclose", None)
        if close is not None:
            result = close()
            if hasattr(result, "__await__"):
                await result

    def setting(self, given: str | None, *env_names: str) -> str | None:
        """``given``, else the first of ``env_names`` that is set."""
        return given or next((os.environ[n] for n in env_names if os.environ.get(n)), None)

    def require_key(self, *env_names: str) -> str:
        """The API key, or a :class:`ModelConfigError` naming the variables to set."""
        key = self.setting(self._api_key, *env_names)
        if not key:
            names = " (or ".join(env_names) + ")" * (len(env_names) - 1)
            raise ModelConfigError(
                f"no API key for model '{self._model}': set {names}, or pass api_key=..."
            )
        return key

    def missing_sdk(self, package: str, extra: str) -> ModelConfigError:
        """The error for an SDK that is not installed."""
        return ModelConfigError(
            f"model '{self._model}' needs the {package} SDK (the '{extra}' extra): from "
            f"your good-agent checkout, pip install '.[{extra}]' (the 'good-agent' name on "
            "the public index is another project)"
        )


def mid_stream_error(mapped: Exception, exc: Exception, provider: str) -> Exception:
    """``mapped`` (an SDK error mapping), or the HTTP mapping when the SDK let a raw
    transport error (a connection cut mid-stream) through unmapped."""
    return map_http_error(exc, provider=provider) if mapped is exc else mapped
