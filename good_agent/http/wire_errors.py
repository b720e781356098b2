"""Typed errors for what comes over the wire: HTTP statuses, connections, malformed replies.

Connection errors and HTTP 404s name the URL that was tried and suggest the usual
fixes (a ``base_url`` without ``http://``, or without the ``/v1`` API path); a reply
that is not of its API's shape is a `ModelResponseError`. A connection that
fails after the reply began (a reset mid-stream) is no failure to reach the server:
`stream_cut` says the stream was cut. Each vendor's SDK transport maps its own
SDK's exceptions onto these (``providers/<vendor>/sdk_transport.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from good_agent.http.transport import JSONDict
from good_agent.types.errors import (
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelConnectionError,
    ModelError,
    ModelIncompleteStreamError,
    ModelOverloadedError,
    ModelRateLimitError,
    ModelResponseError,
    ModelTimeoutError,
)

SHOWN_CHARS = 200
"""How many characters of a malformed body an error shows."""


_SHOWN = 200


def preview(value: Any) -> str:
    """A short, single-line rendering of ``value`` for error messages."""
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def malformed_reply(reply: Any, *, provider: str) -> ModelResponseError:
    """The error for an SDK reply that is not a parsed object (a non-JSON 200 body)."""
    if isinstance(reply, str | bytes):
        text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
        problem = f"the body is not JSON: {preview(text)!r}" if text.strip() else "an empty body"
    else:
        problem = f"a {type(reply).__name__} instead of a JSON object"
    return ModelResponseError(
        f"{provider} sent a malformed reply: {problem}", provider=provider, body=reply
    )


def dump_reply(reply: Any, *, provider: str) -> JSONDict:
    """An SDK reply object as a dict (``model_dump()``), or a `ModelResponseError`."""
    dump = getattr(reply, "model_dump", None)
    if dump is None:
        raise malformed_reply(reply, provider=provider)
    # The shape is checked by the codec, which names what is wrong.
    result: JSONDict = dump(warnings=False)
    return result


def url_hints(url: str) -> str:
    """Suggestions for an endpoint that could not be reached or answered 404."""
    hints: list[str] = []
    if url and "://" not in url:
        hints.append("add the scheme to base_url (http:// or https://)")
    if url and "/v1" not in url:
        hints.append("OpenAI-compatible servers usually need '/v1' at the end of base_url")
    hints.append("check that the server is running and the host and port are right")
    return "; ".join(hints)


def error_for_status(
    status: int,
    message: str,
    *,
    provider: str,
    body: object = None,
    retry_after: float | None = None,
    url: str = "",
) -> ModelError:
    """Return the typed error for an HTTP ``status`` from ``provider`` (``url``: where,
    named in the message without its query or user info)."""
    url = shown_url(url)
    text = f"{provider} returned HTTP {status}{f' for {url}' if url else ''}: {message}"
    if status == 404 and url:
        text = f"{provider} returned HTTP 404 for {url}: {message} ({_not_found_hint(url)})"
    kind: type[ModelError] = ModelBadRequestError
    if status in (401, 403):
        kind = ModelAuthenticationError
    elif status == 429:
        kind = ModelRateLimitError
    elif status >= 500:
        kind = ModelOverloadedError
    return kind(text, provider=provider, status_code=status, body=body, retry_after=retry_after)


def map_http_error(exc: Exception, *, provider: str) -> Exception:
    """Map ``httpx2`` (and, when it is loaded, ``aiohttp``) transport and status errors
    to a `ModelError`. ``google-genai`` sends with ``aiohttp`` whenever it is
    installed, so its raw errors can reach here too."""
    import httpx2

    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(exc, aiohttp.ClientError):
        return aiohttp_error(exc, provider=provider)

    if isinstance(exc, httpx2.TimeoutException):
        return ModelTimeoutError(f"{provider} request timed out", provider=provider)
    if isinstance(exc, httpx2.TransportError):
        return connection_error(provider, request_url(exc), exc)
    if isinstance(exc, httpx2.HTTPStatusError):
        response = exc.response
        try:
            body: object = response.json()
        except ValueError:
            body = response.text
        message = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(message, dict):
            message = message.get("message", message)
        return error_for_status(
            response.status_code,
            str(message),
            provider=provider,
            body=body,
            retry_after=retry_after_seconds(response.headers.get("retry-after")),
            url=request_url(exc),
        )
    return exc


def aiohttp_error(exc: BaseException, *, provider: str, url: str = "") -> Exception:
    """Map an ``aiohttp`` client error (or a timeout) to a `ModelError`."""
    import aiohttp

    if isinstance(exc, TimeoutError):  # aiohttp's timeouts are TimeoutErrors too
        return ModelTimeoutError(f"{provider} request timed out", provider=provider)
    if isinstance(exc, aiohttp.ClientResponseError):
        return error_for_status(exc.status, exc.message, provider=provider)
    url = url or str(getattr(exc, "url", "") or "")
    if isinstance(exc, aiohttp.ClientPayloadError):
        cause: BaseException = ConnectionError("the reply ended before it was complete")
    elif isinstance(exc, aiohttp.ServerDisconnectedError):
        cause = ConnectionError("the server closed the connection")
    else:
        cause = exc
    return connection_error(provider, url, cause)


def shown_url(url: str) -> str:
    """``url`` as an error may show it: without user info, query or fragment (where a
    key could be)."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def connection_error(provider: str, url: str, exc: BaseException) -> ModelConnectionError:
    """A `ModelConnectionError` naming the URL tried (see `shown_url`), the
    cause and the usual fixes."""
    url = shown_url(url)
    cause = exc.__cause__ or exc.__context__
    detail = str(exc) if cause is None or str(cause) in str(exc) else f"{exc} ({cause})"
    where = f" at {url}" if url else ""
    return ModelConnectionError(
        f"cannot reach {provider}{where}: {detail}; {url_hints(url)}", provider=provider
    )


def stream_cut(provider: str, exc: BaseException) -> ModelIncompleteStreamError:
    """The error for a streamed reply whose connection failed after the reply began
    (reset, closed mid-body): the server was reached, and its stream was cut."""
    # aiohttp appends the repr of its inner error (``<TransferEncodingError: ...>``).
    cause = " ".join(str(exc).split("<", 1)[0].split()).rstrip(" :") or type(exc).__name__
    return ModelIncompleteStreamError(
        f"the {provider} stream was cut before its final event ({cause})", provider=provider
    )


def _not_found_hint(url: str) -> str:
    if "/v1" not in url:
        return "OpenAI-compatible servers usually need '/v1' at the end of base_url"
    return "check base_url and the model name"


def request_url(exc: BaseException) -> str:
    """The URL of the request behind ``exc``, or ``""`` when unknown."""
    for holder in (exc, getattr(exc, "response", None)):
        try:
            request = getattr(holder, "request", None)
        except RuntimeError:  # httpx raises when an error has no request attached
            request = None
        if request is not None and getattr(request, "url", None) is not None:
            return str(request.url)
    return ""


def error_message(exc: Exception) -> str:
    """The message of an SDK status error: the body's ``error.message`` when it has one."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return str(getattr(exc, "message", exc))


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header value (seconds or an HTTP date); ``None``
    when absent or neither."""
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def server_wait(headers: Mapping[str, str]) -> float | None:
    """The wait a reply's headers ask for: ``retry-after-ms`` (as OpenAI and Anthropic
    send it), else ``Retry-After``; ``None`` when neither says."""
    millis = retry_after_seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    return retry_after_seconds(headers.get("retry-after"))
