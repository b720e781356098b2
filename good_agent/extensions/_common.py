"""Helpers shared by the built-in extensions (not public API)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

REDACTED = "[REDACTED]"
"""What a secret value is replaced with in logs, keys and error texts."""


def is_secret(value: Any) -> bool:
    """Whether ``value`` is a pydantic secret."""
    return isinstance(value, SecretStr | SecretBytes)


def to_json_safe(value: Any, *, secret: Any = REDACTED) -> Any:
    """A JSON-compatible copy of ``value``; secrets become ``secret``."""
    if is_secret(value):
        return secret
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


def canonical_json(value: Any) -> str:
    """Deterministic JSON for hashing (sorted keys, no spaces, secrets redacted)."""
    return json.dumps(
        to_json_safe(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def digest(text: str, *, size: int = 32) -> str:
    """A short hex SHA-256 digest of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:size]
