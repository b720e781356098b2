"""Credentials: where they go (`CredentialRule`), how they are resolved, and
the scope identifier (`credential_scope`) that names a principal without
revealing its secrets.

The scope is an HMAC keyed by a deployment secret: ``scope_key=`` where given, else
the ``GOOD_AGENT_SCOPE_KEY`` environment variable, else a random key made once per
process. Without the key, a listing of cache keys cannot confirm a guessed secret.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import os
import secrets
import warnings
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from good_agent.core.run_context import RunContext, takes_context
from good_agent.extensions._cache_stores import MemoryStore
from good_agent.extensions._common import is_secret
from good_agent.tools import Tool

SecretValue = str | SecretStr
"""A credential value; plain strings are wrapped in `SecretStr` at once."""

CredentialSource = (
    SecretValue
    | Callable[[], SecretValue]
    | Callable[[], Awaitable[SecretValue]]
    | Callable[[RunContext[Any]], SecretValue]
    | Callable[[RunContext[Any]], Awaitable[SecretValue]]
)
"""A credential: a value, or a sync or async callable resolved at every call."""

SCOPE_KEY_ENV = "GOOD_AGENT_SCOPE_KEY"
"""The environment variable holding the deployment's scope key (any non-empty text)."""

_PROCESS_KEY = secrets.token_bytes(32)
"""The scope key when none is configured: random, so scopes differ between processes."""


class UnkeyedScopeWarning(UserWarning):
    """A store shared between processes holds credential-scoped entries, and no
    deployment scope key is configured: other processes cannot read them."""


def configured_scope_key(key: bytes | str | None = None) -> bytes | None:
    """The deployment scope key: ``key``, else ``$GOOD_AGENT_SCOPE_KEY``, else ``None``.

    A key that is blank after trimming is a configuration error, never a silent default.
    """
    if key is None:
        key = os.environ.get(SCOPE_KEY_ENV)
        if key is None:
            return None
        origin = SCOPE_KEY_ENV
    else:
        origin = "scope_key"
    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if not raw.strip():
        raise ValueError(f"{origin} is blank: set a long random value, or leave it unset")
    return raw


def scope_key(key: bytes | str | None = None) -> bytes:
    """The HMAC key scopes are computed with: the configured one, else the process's
    own random key."""
    return configured_scope_key(key) or _PROCESS_KEY


def _secrets(value: Any, path: str, out: list[tuple[str, str]]) -> None:
    if isinstance(value, SecretStr):
        out.append((path, value.get_secret_value()))
    elif is_secret(value):
        out.append((path, repr(value.get_secret_value())))
    elif isinstance(value, Mapping):
        for key in sorted(value, key=str):
            _secrets(value[key], f"{path}.{key}", out)
    elif isinstance(value, list | tuple):
        for position, item in enumerate(value):
            _secrets(item, f"{path}[{position}]", out)


def credential_scope(
    parameters: Mapping[str, Any], *, key: bytes | str | None = None
) -> str | None:
    """An identifier of the principal behind the secrets in ``parameters``.

    It is an HMAC-SHA256, keyed by `scope_key` (``key``, else the deployment
    key, else the process's random key), of every `SecretStr` found,
    with its path: the same credentials always give the same identifier, different
    ones a different identifier, and without the key the identifier neither reveals
    nor confirms them. ``None`` when ``parameters`` hold no secret.
    """
    found: list[tuple[str, str]] = []
    _secrets(parameters, "", found)
    if not found:
        return None
    message = "\x00".join(f"{path}\x01{value}" for path, value in sorted(found))
    digest = hmac.new(scope_key(key), message.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return "auth-" + digest.hexdigest()[:32]


def warn_if_unkeyed(store: object, key: bytes | str | None = None) -> bool:
    """Warn (`UnkeyedScopeWarning`) that credential-scoped entries go to
    ``store``, a store other processes share (not the in-process ``MemoryStore``),
    with no deployment scope key configured. Returns whether it warned."""
    if isinstance(store, MemoryStore) or configured_scope_key(key) is not None:
        return False
    warnings.warn(
        f"{type(store).__name__} is shared, but no scope key is configured: entries for "
        f"calls with credentials are keyed with this process's random key, so no other "
        f"process (or restart) will find them. Set {SCOPE_KEY_ENV} (or AuthInjector("
        f"scope_key=...)) to the same long random value in every process.",
        UnkeyedScopeWarning,
        stacklevel=3,
    )
    return True


@dataclass(frozen=True, slots=True)
class CredentialRule:
    """Where one credential goes: a parameter (or one header of a dict parameter).

    ``tools`` names the tools it applies to (``None``: any tool with ``parameter``),
    ``when`` is an optional predicate on the tool. ``takes_run`` says whether the
    source is a provider taking the run's `RunContext` (a per-user
    credential read from the run's deps).
    """

    parameter: str
    source: CredentialSource
    header: str | None = None
    prefix: str = ""
    tools: frozenset[str] | None = None
    when: Callable[[Tool], bool] | None = None
    takes_run: bool = field(init=False, compare=False)

    def __post_init__(self) -> None:
        source = self.source
        takes_run = not isinstance(source, str | SecretStr) and takes_context(source, 0)
        object.__setattr__(self, "takes_run", takes_run)

    def __repr__(self) -> str:
        target = f"{self.parameter}[{self.header}]" if self.header else self.parameter
        tools = sorted(self.tools) if self.tools is not None else "any"
        return f"CredentialRule({target}, tools={tools})"


async def resolve_credential(
    source: CredentialSource, run: RunContext[Any] | None = None
) -> SecretStr:
    """The secret ``source`` gives now (a value, or a sync or async provider's result;
    a provider is given ``run`` when one is passed)."""
    value: Any = source
    if callable(value) and not isinstance(value, SecretStr):
        value = value() if run is None else value(run)
        if inspect.isawaitable(value):
            value = await value
    if isinstance(value, SecretStr):
        return value
    if isinstance(value, str):
        return SecretStr(value)
    raise TypeError(f"a credential provider returned {type(value).__name__}, not str/SecretStr")
