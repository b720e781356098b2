"""Where a model's requests go, and which key may go with them.

A vendor's key goes only to that vendor. The key a model sends is

- the ``api_key`` it was given, wherever its ``base_url`` points;
- else the vendor's environment key (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``,
  ``GEMINI_API_KEY``/``GOOGLE_API_KEY``), only when the requests go to the vendor's
  own host over HTTPS (the vendor's ``host``, on its descriptor), or to the endpoint named by the
  vendor's own environment variable (``OPENAI_BASE_URL``...), which the same
  environment pairs with that key;
- else none: a model given a ``base_url`` of another host (a local server, a proxy)
  never receives a key from the environment.

A ``base_url`` must name its scheme (``http://`` or ``https://``); one that does not is
refused when the model is built.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from good_agent.types.errors import ModelConfigError


def checked_base_url(base_url: str | None) -> str | None:
    """``base_url`` as given, or a `ModelConfigError` when it has no scheme."""
    if base_url is None:
        return None
    scheme = urlsplit(base_url).scheme.lower() if "://" in base_url else ""
    if not scheme:
        raise ModelConfigError(
            f"base_url {base_url!r} has no scheme; use http://... or https://..."
        )
    if scheme not in ("http", "https"):
        raise ModelConfigError(
            f"base_url {base_url!r} is not an HTTP URL; use http://... or https://..."
        )
    return base_url


def is_vendor_host(host: str | None, base_url: str) -> bool:
    """Whether ``base_url`` is the vendor API on ``host`` (a vendor's own host), over HTTPS."""
    parts = urlsplit(base_url)
    return host is not None and parts.scheme == "https" and parts.hostname == host


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A model's endpoint and key, resolved (see the module docstring).

    ``base_url`` is ``None`` for the vendor's default endpoint; ``api_key`` is ``None``
    when no key may be sent; ``env_key`` says whether the key came from the environment.
    """

    base_url: str | None
    api_key: str | None
    env_key: bool = False


def resolve_endpoint(
    host: str,
    *,
    base_url: str | None,
    api_key: str | None,
    url_env: str,
    key_env: tuple[str, ...],
) -> Endpoint:
    """The endpoint and key for the vendor whose own API is on ``host`` (see the module
    docstring).

    Args:
        host: The host of the vendor's own API, the only one its environment key goes to.
        base_url: The endpoint the model was given (``None``: the environment's, else
            the vendor's default).
        api_key: The key the model was given.
        url_env: The vendor's environment variable for its endpoint.
        key_env: The vendor's environment variables for its key, in order.
    """
    given = checked_base_url(base_url)
    url = given or checked_base_url(os.environ.get(url_env) or None)
    if api_key:
        return Endpoint(url, api_key)
    if given is not None and not is_vendor_host(host, given):
        return Endpoint(url, None)
    env_key = next((os.environ[n] for n in key_env if os.environ.get(n)), None)
    return Endpoint(url, env_key, env_key is not None)


def missing_key(model: str, key_env: tuple[str, ...]) -> ModelConfigError:
    """The error for a model bound for its vendor's own endpoint with no key: it names
    the environment variables to set."""
    names = " (or ".join(key_env) + ")" * (len(key_env) - 1)
    return ModelConfigError(
        f"no API key for model '{model}': set {names}, "
        "or pass api_key=... (or base_url=... for a local server)"
    )
