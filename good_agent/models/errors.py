"""Translation of SDK exceptions into good-agent's typed :class:`ModelError` family."""

from __future__ import annotations

from good_agent.core.errors import (
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelConnectionError,
    ModelError,
    ModelOverloadedError,
    ModelRateLimitError,
    ModelTimeoutError,
)


def error_for_status(
    status: int,
    message: str,
    *,
    provider: str,
    body: object = None,
    retry_after: float | None = None,
) -> ModelError:
    """Return the typed error for an HTTP ``status`` from ``provider``."""
    text = f"{provider} returned HTTP {status}: {message}"
    if status in (401, 403):
        return ModelAuthenticationError(text, provider=provider, status_code=status, body=body)
    if status == 429:
        return ModelRateLimitError(
            text, provider=provider, status_code=status, body=body, retry_after=retry_after
        )
    if status >= 500:
        return ModelOverloadedError(text, provider=provider, status_code=status, body=body)
    return ModelBadRequestError(text, provider=provider, status_code=status, body=body)


def map_openai_error(exc: Exception, *, provider: str) -> Exception:
    """Map an ``openai`` SDK exception to a :class:`ModelError`; others pass through."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return ModelTimeoutError(f"{provider} request timed out", provider=provider)
    if isinstance(exc, openai.APIConnectionError):
        return ModelConnectionError(f"cannot reach {provider}: {exc}", provider=provider)
    if isinstance(exc, openai.APIStatusError):
        retry_after = _retry_after(exc.response.headers.get("retry-after"))
        return error_for_status(
            exc.status_code,
            _message(exc),
            provider=provider,
            body=exc.body,
            retry_after=retry_after,
        )
    return exc


def map_anthropic_error(exc: Exception, *, provider: str = "anthropic") -> Exception:
    """Map an ``anthropic`` SDK exception to a :class:`ModelError`; others pass through."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return ModelTimeoutError(f"{provider} request timed out", provider=provider)
    if isinstance(exc, anthropic.APIConnectionError):
        return ModelConnectionError(f"cannot reach {provider}: {exc}", provider=provider)
    if isinstance(exc, anthropic.APIStatusError):
        return error_for_status(
            exc.status_code,
            _message(exc),
            provider=provider,
            body=exc.body,
            retry_after=_retry_after(exc.response.headers.get("retry-after")),
        )
    return exc


def map_google_error(exc: Exception, *, provider: str = "gemini") -> Exception:
    """Map a ``google-genai`` exception to a :class:`ModelError`; others pass through."""
    from google.genai import errors as genai_errors

    if isinstance(exc, genai_errors.APIError):
        message = str(exc.message or exc.status or exc)
        return error_for_status(int(exc.code), message, provider=provider, body=exc.details)
    return map_http_error(exc, provider=provider)


def map_http_error(exc: Exception, *, provider: str) -> Exception:
    """Map ``httpx2`` transport and status errors to a :class:`ModelError`."""
    import httpx2

    if isinstance(exc, httpx2.TimeoutException):
        return ModelTimeoutError(f"{provider} request timed out", provider=provider)
    if isinstance(exc, httpx2.TransportError):
        return ModelConnectionError(f"cannot reach {provider}: {exc}", provider=provider)
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
            retry_after=_retry_after(response.headers.get("retry-after")),
        )
    return exc


def _message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return str(getattr(exc, "message", exc))


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None
