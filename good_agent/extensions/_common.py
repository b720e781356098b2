"""Helpers shared by the built-in extensions (not public API)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

from good_agent._extras import missing_extra

REDACTED = "[REDACTED]"
"""What a secret value is replaced with in logs, keys and error texts."""


def is_secret(value: Any) -> bool:
    """Whether ``value`` is a pydantic secret."""
    return isinstance(value, SecretStr | SecretBytes)


def bytes_token(value: bytes | bytearray | memoryview) -> str:
    """The text standing for binary data in a key: its SHA-256 (hashed where it lies,
    so a 5 MB image is not copied into the key's JSON)."""
    return f"bytes:sha256:{hashlib.sha256(value).hexdigest()}"


def to_json_safe(value: Any, *, secret: Any = REDACTED) -> Any:
    """A JSON-compatible copy of ``value``; secrets become ``secret``, binary data
    its `bytes_token`."""
    if is_secret(value):
        return secret
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes_token(value)
    if isinstance(value, Mapping):
        return {str(k): to_json_safe(v, secret=secret) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [to_json_safe(v, secret=secret) for v in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    if isinstance(value, BaseModel):
        return to_json_safe(value.model_dump(mode="python"), secret=secret)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def redis_client(url: str | None, feature: str) -> Any:
    """A ``redis.asyncio.Redis`` client for ``url`` (``redis://localhost:6379/0`` by
    default); `MissingExtraError` naming the ``redis`` extra when
    the package is not installed."""
    try:
        import redis.asyncio
    except ModuleNotFoundError as exc:
        raise missing_extra("redis", feature, exc) from None
    return redis.asyncio.Redis.from_url(url or "redis://localhost:6379/0")


def canonical_json(value: Any) -> str:
    """Deterministic JSON for hashing (sorted keys, no spaces, secrets redacted)."""
    return json.dumps(
        to_json_safe(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def digest(text: str, *, size: int = 32) -> str:
    """A short hex SHA-256 digest of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:size]


_FOUND = threading.local()
"""The secrets met by the key encoder in the call running on this thread."""
_NO_SECRETS: tuple[Any, ...] = ()
"""What ``_FOUND.secrets`` holds between calls (a tuple: the encoder runs only inside
`key_json`, which sets a list of its own first, and could not append to it)."""


def _key_default(value: Any) -> Any:
    if is_secret(value):
        _FOUND.secrets.append(value)
        return REDACTED
    if isinstance(value, BaseModel):
        return value.model_dump(mode="python")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes_token(value)
    raise TypeError(type(value).__name__)


_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
_KEY_ENCODER: Callable[[Any, int], Any] | None = (
    _MAKE_ENCODER(None, _key_default, encode_basestring, None, ":", ",", True, False, True)
    if _MAKE_ENCODER is not None
    else None
)
"""CPython's C JSON encoder, made once: sorted keys, no spaces, UTF-8 kept."""


def key_json(value: Any) -> tuple[str, list[Any]]:
    """Deterministic JSON of ``value`` for a cache key, and the secrets found in it.

    Keys are sorted at every depth, secrets become ``[REDACTED]`` (and are returned,
    so the caller can scope the key by credential), models are dumped, sets
    sorted and binary data replaced by its `bytes_token`. The text is
    ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    with those conversions. Raises `TypeError` or
    `ValueError` for what JSON cannot hold.
    """
    found: list[Any] = []
    local = _FOUND
    local.secrets = found
    try:
        if _KEY_ENCODER is not None:
            return "".join(_KEY_ENCODER(value, 0)), found
        text = json.dumps(
            value,
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            default=_key_default,
        )
        return text, found
    finally:
        local.secrets = _NO_SECRETS
