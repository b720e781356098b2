"""Credentials: where they go (:class:`CredentialRule`), how they are resolved, and
the scope identifier (:func:`credential_scope`) that names a principal without
revealing its secrets.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from good_agent.extensions._common import is_secret
from good_agent.tools import Tool

SecretValue = str | SecretStr
"""A credential value; plain strings are wrapped in :class:`~pydantic.SecretStr` at once."""

CredentialSource = SecretValue | Callable[[], SecretValue] | Callable[[], Awaitable[SecretValue]]
"""A credential: a value, or a sync or async callable resolved at every call."""

DEFAULT_SCOPE_KEY = b"good-agent/auth-scope/v1"
"""The HMAC key :func:`credential_scope` uses unless given another."""


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
    parameters: Mapping[str, Any], *, key: bytes = DEFAULT_SCOPE_KEY
) -> str | None:
    """An identifier of the principal behind the secrets in ``parameters``.

    It is an HMAC-SHA256 (keyed by ``key``) of every :class:`~pydantic.SecretStr`
    found, with its path: the same credentials always give the same identifier,
    different ones a different identifier, and the identifier never reveals them.
    ``None`` when ``parameters`` hold no secret.
    """
    found: list[tuple[str, str]] = []
    _secrets(parameters, "", found)
    if not found:
        return None
    message = "\x00".join(f"{path}\x01{value}" for path, value in sorted(found))
    return "auth-" + hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class CredentialRule:
    """Where one credential goes: a parameter (or one header of a dict parameter).

    ``tools`` names the tools it applies to (``None``: any tool with ``parameter``),
    ``when`` is an optional predicate on the tool.
    """

    parameter: str
    source: CredentialSource
    header: str | None = None
    prefix: str = ""
    tools: frozenset[str] | None = None
    when: Callable[[Tool], bool] | None = None

    def __repr__(self) -> str:
        target = f"{self.parameter}[{self.header}]" if self.header else self.parameter
        tools = sorted(self.tools) if self.tools is not None else "any"
        return f"CredentialRule({target}, tools={tools})"


async def resolve_credential(source: CredentialSource) -> SecretStr:
    """The secret ``source`` gives now (a value, or a sync or async provider's result)."""
    value: Any = source
    if callable(value) and not isinstance(value, SecretStr):
        value = value()
        if inspect.isawaitable(value):
            value = await value
    if isinstance(value, SecretStr):
        return value
    if isinstance(value, str):
        return SecretStr(value)
    raise TypeError(f"a credential provider returned {type(value).__name__}, not str/SecretStr")
