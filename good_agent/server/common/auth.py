"""Client authentication and the loopback rule.

Client keys come from the environment variable named by ``[server].api_keys_env``
(comma-separated); a blank key there refuses to start rather than serve without
authentication. A request presents one as ``Authorization: Bearer <key>`` or,
as Anthropic clients do, ``x-api-key: <key>`` (Gemini clients: ``x-goog-api-key``
or ``?key=``, read by the Gemini endpoint). Keys are compared in constant time
and never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
from collections.abc import Mapping

from good_agent.server.common.errors import ConfigError
from good_agent.server.common.redaction import Secrets


class ClientKeys:
    """The accepted client keys; empty means no key is required."""

    def __init__(self, keys: list[str] | None = None) -> None:
        self._keys = [key.encode() for key in keys or [] if key]

    def add_to(self, secrets: Secrets) -> None:
        """Have ``secrets`` (the serving app's) redact these keys."""
        for key in self._keys:
            secrets.add(key.decode())

    @classmethod
    def from_env(cls, name: str | None) -> ClientKeys:
        """The keys in the variable ``name`` (none when it is unset).

        A variable that is set but holds a blank key (empty, only spaces, or an
        empty entry between commas) raises `ConfigError`: serving without
        authentication because of a typo in a secret is never what was meant.
        """
        if not name:
            return cls()
        raw = os.environ.get(name)
        if raw is None:
            return cls()
        keys = [part.strip() for part in raw.split(",")]
        blank = [number for number, key in enumerate(keys, 1) if not key]
        if blank:
            where = "is blank" if len(keys) == 1 else f"has a blank key (entry {blank[0]})"
            raise ConfigError(
                f"the client key variable {name} {where}; set it to comma-separated "
                "keys, or unset it (and api_keys_env) to serve without keys on loopback"
            )
        return cls(keys)

    @property
    def required(self) -> bool:
        """Whether requests must present a key."""
        return bool(self._keys)

    def allows(self, headers: Mapping[str, str]) -> bool:
        """Whether ``headers`` carry an accepted key (always true when none is required)."""
        if not self._keys:  # nothing to look for in the headers
            return True
        return self.accepts(presented_key(headers))

    def accepts(self, presented: str | None) -> bool:
        """Whether ``presented`` is an accepted key (always true when none is required)."""
        if not self._keys:
            return True
        if presented is None:
            return False
        candidate = presented.encode()
        return any(hmac.compare_digest(candidate, key) for key in self._keys)


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key a request presents, if any."""
    auth = headers.get("authorization") or ""
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    key = headers.get("x-api-key")
    return key.strip() if key else None


def owner_of(headers: Mapping[str, str]) -> str:
    """The owner of what a request stores: the SHA-256 of its client key (hex), or
    ``""`` for a request without a key (a server that needs none)."""
    key = presented_key(headers)
    return hashlib.sha256(key.encode()).hexdigest() if key else ""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
