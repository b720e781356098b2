"""The shared shape of transports built on an official SDK client."""

from __future__ import annotations

import os
from typing import Any

from good_agent.core.errors import ModelConfigError


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

    def get_client(self) -> Any:
        """The SDK client, built on first use."""
        if self._client is None:
            self._client = self.build_client()
        return self._client

    def build_client(self) -> Any:
        """Build the SDK client from the connection arguments."""
        raise NotImplementedError

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
            f"model '{self._model}' needs the {package} SDK: pip install 'good-agent[{extra}]'"
        )
