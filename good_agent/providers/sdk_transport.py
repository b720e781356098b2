"""The shared shape of transports built on an official SDK client."""

from __future__ import annotations

import copy
from typing import Any, ClassVar, Self

from good_agent.providers.endpoint import checked_base_url, is_vendor_host, resolve_endpoint
from good_agent.providers.wire_errors import map_http_error
from good_agent.types.errors import ModelConfigError

NO_KEY = "not-needed"
"""The key given to an SDK client for an endpoint that gets no key, so that the SDK
does not look for one in the environment (local servers accept any)."""


class SDKTransport:
    """Holds the connection arguments and builds the SDK client on first use.

    Subclasses set ``provider``, ``url_env`` and ``key_env`` and implement
    :meth:`build_client` and ``send``. The key follows the rule of
    :mod:`good_agent.providers.endpoint`: an environment key goes only to the vendor.

    Args:
        model: The upstream model id (for error messages).
        base_url: Endpoint root (the provider's environment variable by default).
        api_key: Key (the provider's environment variable by default, for the
            vendor's own endpoint only).
        client: A ready SDK client (overrides the two above).
    """

    provider = "openai"
    url_env: ClassVar[str] = "OPENAI_BASE_URL"
    """The environment variable naming the endpoint."""
    key_env: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)
    """The environment variables holding the vendor's key, in order."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
    ) -> None:
        self._model = model
        self._base_url = checked_base_url(base_url)
        self._api_key = api_key
        self._client = client
        self._owns_client = client is None
        self._retries: int | None = None

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

    def one_attempt(self) -> Self:
        """A transport like this one whose client sends each request once: no SDK
        retries (a given client is copied with ``max_retries=0`` when it can be)."""
        clone = copy.copy(self)
        clone._retries = 0
        if self._owns_client:
            clone._client = None
        else:
            with_options = getattr(self._client, "with_options", None)
            if with_options is not None:
                clone._client = with_options(max_retries=0)
        return clone

    def retry_options(self) -> dict[str, Any]:
        """``max_retries`` for the SDK client when this transport limits its retries."""
        return {} if self._retries is None else {"max_retries": self._retries}

    def credentials(self) -> tuple[str | None, str]:
        """The endpoint (``None``: the SDK's default) and the key to build the client with.

        The vendor's own endpoint needs a key (a :class:`ModelConfigError` names the
        variables to set); another endpoint without one gets :data:`NO_KEY`.
        """
        endpoint = resolve_endpoint(
            self.provider,
            base_url=self._base_url,
            api_key=self._api_key,
            url_env=self.url_env,
            key_env=self.key_env,
        )
        if endpoint.api_key:
            return endpoint.base_url, endpoint.api_key
        if endpoint.base_url is None or is_vendor_host(self.provider, endpoint.base_url):
            names = " (or ".join(self.key_env) + ")" * (len(self.key_env) - 1)
            raise ModelConfigError(
                f"no API key for model '{self._model}': set {names}, "
                "or pass api_key=... (or base_url=... for a local server)"
            )
        return endpoint.base_url, NO_KEY

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
