"""The secrets a server keeps out of what it answers and logs, owned by that server.

A `Bridge` (or an agent UI app) holds one
`Secrets`: its client keys and its upstreams' keys. Its ASGI app makes them the
current request's (`enter` and `leave`, or the `RedactWith`
middleware), so
`redact` (called wherever outside text enters an error, such as
`HTTPError`) removes exactly the secrets of the
server answering, never those of another server built in the same process. Outside a
request nothing is redacted: no secret was ever given there.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

MIN_SECRET_LENGTH = 4
"""Shorter values are not redacted (they would mangle ordinary words)."""


class Secrets:
    """The secrets of one server, replaced by ``***`` in its error messages."""

    __slots__ = ("_values",)

    def __init__(self, values: Any = ()) -> None:
        self._values: set[str] = set()
        for value in values:
            self.add(value)

    def add(self, value: str | None) -> None:
        """Keep ``value`` out of this server's messages (empty or very short: ignored)."""
        if value and len(value) >= MIN_SECRET_LENGTH:
            self._values.add(value)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def redact(self, text: str) -> str:
        """``text`` with each of these secrets replaced by ``***``."""
        for secret in self._values:
            if secret in text:
                text = text.replace(secret, "***")
        return text


_ANSWERING: ContextVar[Secrets | None] = ContextVar("good_agent_server_secrets", default=None)
"""The secrets of the server answering the current request (set by `RedactWith`);
a reference to the server's own object, not a store of secrets."""


def enter(secrets: Secrets) -> Token[Secrets | None]:
    """Make ``secrets`` the current request's; `leave` with the token undoes it."""
    return _ANSWERING.set(secrets)


def leave(token: Token[Secrets | None]) -> None:
    """Undo the `enter` that returned ``token``."""
    _ANSWERING.reset(token)


def redact(text: str) -> str:
    """``text`` with the secrets of the server answering this request replaced by ``***``."""
    secrets = _ANSWERING.get()
    return text if secrets is None else secrets.redact(text)


class RedactWith:
    """ASGI middleware: errors made while ``app`` answers are redacted with ``secrets``."""

    def __init__(self, app: ASGIApp, secrets: Secrets) -> None:
        self.app = app
        self.secrets = secrets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer with ``secrets`` as the current request's."""
        token = enter(self.secrets)
        try:
            await self.app(scope, receive, send)
        finally:
            leave(token)
