"""The ``anthropic`` SDK transport for the Messages API, and its error mapping.

An option for a caller who brings an ``anthropic.AsyncAnthropic`` (the ``anthropic``
extra); by default models and the bridge speak HTTP
(`good_agent.providers.anthropic.http_transport`).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from functools import lru_cache
from typing import Any

from good_agent.http.wire_errors import (
    connection_error,
    dump_reply,
    error_for_status,
    error_message,
    request_url,
    retry_after_seconds,
)
from good_agent.providers.sdk_transport import SDKTransport, mid_stream_error
from good_agent.providers.types import JSONDict
from good_agent.types.errors import (
    ModelTimeoutError,
)


def keyword_parameters(method: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword names ``method`` accepts (``None``: it takes ``**kwargs``)."""
    return _keywords(getattr(method, "__func__", method))


@lru_cache(maxsize=32)
def _keywords(function: Callable[..., Any]) -> frozenset[str] | None:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters)


class AnthropicTransport(SDKTransport):
    """Sends Messages API bodies with the caller's ``anthropic.AsyncAnthropic``."""

    provider = "anthropic"

    async def send(self, body: JSONDict) -> JSONDict:
        """Call ``messages.create``.

        Body fields the installed SDK's ``create`` does not take as keywords
        (``temperature``, ``top_p`` and ``top_k`` in ``anthropic`` 2.x) travel in its
        ``extra_body``, so sampling settings work with every supported SDK version.
        """
        create = self.client.messages.create
        try:
            message = await create(**sdk_body(create, body))
        except Exception as exc:
            raise map_anthropic_error(exc, provider=self.provider) from exc
        return dump_reply(message, provider=self.provider)

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """Call ``messages.create(stream=True)``; each event as a dict, to the end."""
        create = self.client.messages.create
        try:
            events = await create(**sdk_body(create, {**body, "stream": True}))
        except Exception as exc:
            raise map_anthropic_error(exc, provider=self.provider) from exc
        try:
            async for event in events:
                yield dump_reply(event, provider=self.provider)
        except Exception as exc:
            mapped = map_anthropic_error(exc, provider=self.provider)
            raise mid_stream_error(mapped, exc, self.provider) from exc
        finally:
            await events.close()


def sdk_body(create: Callable[..., Any], body: JSONDict) -> JSONDict:
    """``body`` with the fields ``create`` does not take as keywords moved into ``extra_body``."""
    accepted = keyword_parameters(create)
    if accepted is None:
        return body
    extra = {k: v for k, v in body.items() if k not in accepted}
    if not extra:
        return body
    moved = {k: v for k, v in body.items() if k not in extra}
    moved["extra_body"] = {**body.get("extra_body", {}), **extra}
    return moved


def map_anthropic_error(exc: Exception, *, provider: str = "anthropic") -> Exception:
    """Map an ``anthropic`` SDK exception to a `ModelError`; others pass through."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return ModelTimeoutError(f"{provider} request timed out", provider=provider)
    if isinstance(exc, anthropic.APIConnectionError):
        return connection_error(provider, request_url(exc), exc)
    if isinstance(exc, anthropic.APIStatusError):
        return error_for_status(
            exc.status_code,
            error_message(exc),
            provider=provider,
            body=exc.body,
            retry_after=retry_after_seconds(exc.response.headers.get("retry-after")),
            url=request_url(exc),
        )
    return exc
