"""Errors the servers answer (`HTTPError`), in OpenAI, Anthropic or Gemini shape, and
upstream error mapping.

Upstream failures arrive as good-agent's typed `ModelError`
family and become: 401/403 -> 403 naming the upstream that refused (a status
clients do not retry: the same key would be refused again); 429 -> 429
with ``retry-after``; 5xx and connection errors -> 502; a reply that is not of the
provider's shape (HTML, an empty body, wrong types) -> 502 "sent an invalid reply";
a stream cut after it began (a connection reset mid-reply, or an end before the
final event) -> 502 ``upstream_stream_cut``, while ``upstream_unreachable`` is kept
for an upstream that could not be reached at all;
timeouts -> 504; an upstream 400/404/422 -> 400. An upstream's error is
summarized (its HTTP status and a short reason), never passed through: an
error page or a traceback stays out of the client's reply. Messages pass through
`redact` so the answering server's secrets never
reach a client or a log line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from good_agent.providers.thinking import THINKING_PART
from good_agent.server.common.redaction import redact
from good_agent.types.errors import (
    GoodAgentError,
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelCapabilityError,
    ModelConnectionError,
    ModelError,
    ModelIncompleteStreamError,
    ModelRateLimitError,
    ModelResponseError,
    ModelTimeoutError,
)

REASON_LIMIT = 160
"""The most characters of an upstream's own error message a client is shown."""

_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    502: "api_error",
    504: "api_error",
}

GOOGLE_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
"""HTTP statuses mapped to the ``google.rpc.Code`` names Gemini's errors carry."""


class ConfigError(GoodAgentError, ValueError):
    """A server's configuration is missing, not TOML, or has an invalid field (the
    bridge's file, or a served agent's options); also on `good_agent.server.config`."""


@dataclass(slots=True)
class HTTPError(Exception):
    """An error answered to the client: HTTP status, message and OpenAI fields (the
    bridge and the agent server raise it; ``BridgeError`` is the same class)."""

    status: int
    message: str
    type: str = "invalid_request_error"
    param: str | None = None
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.message = redact(self.message)
        Exception.__init__(self, self.message)

    def openai_body(self) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``."""
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }

    def anthropic_body(self) -> dict[str, Any]:
        """``{"type": "error", "error": {"type", "message"}}``."""
        kind = _ANTHROPIC_TYPES.get(self.status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": self.message}}

    def gemini_body(self) -> dict[str, Any]:
        """``{"error": {"code", "message", "status"}}`` as Google APIs write it; a bad
        field is also named in a ``google.rpc.BadRequest`` detail."""
        error: dict[str, Any] = {
            "code": self.status,
            "message": self.message,
            "status": GOOGLE_STATUSES.get(self.status, "UNKNOWN"),
        }
        if self.param is not None:
            violation = {"field": self.param, "description": self.message}
            error["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [violation],
                }
            ]
        return {"error": error}


BridgeError = HTTPError
"""The bridge's name for `HTTPError` (``good_agent.server.BridgeError``)."""


def bad_request(message: str, param: str | None = None, code: str | None = None) -> HTTPError:
    """A 400 naming the offending field in ``param``."""
    return HTTPError(400, message, "invalid_request_error", param, code)


def internal_error(request_id: str) -> HTTPError:
    """The 500 for an unexpected failure, naming the request id the log carries."""
    return HTTPError(
        500,
        f"the bridge failed on this request; the log has the details under {request_id}",
        "server_error",
        code="internal_error",
    )


_UNSAFE = re.compile(r"<[a-zA-Z!/]|Traceback \(most recent call last\)|^\s*File \"")


def _short(text: str) -> str:
    """The first line of ``text``, whitespace collapsed, at most `REASON_LIMIT`
    characters; empty when it looks like markup or a traceback."""
    line = " ".join(text.strip().splitlines()[0].split()) if text.strip() else ""
    if not line or _UNSAFE.search(line):
        return ""
    return line if len(line) <= REASON_LIMIT else line[: REASON_LIMIT - 3] + "..."


def _reason_in(body: Any) -> str:
    """The provider's own message in an error body, when it has one as a string."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, str):
            return inner
        if isinstance(inner, dict):
            for key in ("message", "detail", "error"):
                if isinstance(inner.get(key), str):
                    return str(inner[key])
        for key in ("message", "detail"):
            if isinstance(body.get(key), str):
                return str(body[key])
    return ""


def summarize(exc: ModelError) -> str:
    """A short account of an upstream failure: ``HTTP 503 Service Unavailable: reason``
    (status and a one-line reason from the provider's error body), or the first line
    of the error's own message when there was no error status."""
    status = exc.status_code
    if status is None or status < 400:
        return _short(str(exc)) or type(exc).__name__
    try:
        head = f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        head = f"HTTP {status}"
    reason = _short(_reason_in(exc.body))
    return head + (f": {reason}" if reason else "")


def from_model_error(exc: ModelError, upstream: str) -> HTTPError:
    """Map a typed upstream failure; ``upstream`` names the configured model entry."""
    detail = redact(summarize(exc))
    where = f"upstream '{upstream}' ({exc.provider or 'provider'})"
    if isinstance(exc, ModelAuthenticationError):
        return HTTPError(
            403,
            f"{where} refused the bridge's credentials (HTTP {exc.status_code}); "
            "check the key named by its api_key_env",
            "upstream_error",
            code="upstream_auth_failed",
        )
    if isinstance(exc, ModelRateLimitError):
        headers = {}
        if exc.retry_after is not None:
            headers["retry-after"] = str(max(0, math.ceil(exc.retry_after)))
        return HTTPError(
            429,
            f"{where} is rate limiting: {detail}",
            "rate_limit_error",
            code="rate_limit_exceeded",
            headers=headers,
        )
    if isinstance(exc, ModelTimeoutError):
        return HTTPError(504, f"{where} timed out", "upstream_error", code="upstream_timeout")
    if isinstance(exc, ModelIncompleteStreamError):
        return HTTPError(502, f"{where}: {detail}", "upstream_error", code="upstream_stream_cut")
    if isinstance(exc, ModelResponseError):
        return HTTPError(
            502,
            f"{where} sent an invalid reply: {detail}",
            "upstream_error",
            code="upstream_invalid_reply",
        )
    if isinstance(exc, ModelConnectionError):
        return HTTPError(
            502, f"{where} cannot be reached", "upstream_error", code="upstream_unreachable"
        )
    if isinstance(exc, ModelCapabilityError):
        code = "unsupported_setting" if exc.part == THINKING_PART else "unsupported_media"
        if exc.part.startswith("the built-in tool"):
            code = "unsupported_tool"
        asked = f" (asked for in '{exc.field}')" if exc.field else ""
        return HTTPError(
            400, f"{where}: {redact(str(exc))}{asked}", "invalid_request_error", exc.field, code
        )
    if isinstance(exc, ModelBadRequestError):
        return HTTPError(
            400,
            f"{where} rejected the request: {detail}",
            "invalid_request_error",
            code="upstream_bad_request",
        )
    return HTTPError(502, f"{where} failed: {detail}", "upstream_error", code="upstream_error")
