"""A :class:`~good_agent.models.base.LanguageModel` for Anthropic's Messages API.

Uses the official ``anthropic`` SDK
(the ``anthropic`` extra: ``pip install '.[anthropic]'`` from a checkout).
``api_key`` defaults to ``ANTHROPIC_API_KEY`` (for Anthropic's own endpoint only,
see :mod:`good_agent.models.endpoint`) and ``base_url`` to ``ANTHROPIC_BASE_URL``.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from functools import lru_cache
from typing import Any

from good_agent.models.errors import dump_reply, map_anthropic_error
from good_agent.models.provider_model import SDKModel
from good_agent.models.sdk_transport import SDKTransport, mid_stream_error
from good_agent.models.transport import Transport
from good_agent.providers.types import JSONDict


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
    """Sends Messages API bodies with ``anthropic.AsyncAnthropic``."""

    provider = "anthropic"
    url_env = "ANTHROPIC_BASE_URL"
    key_env = ("ANTHROPIC_API_KEY",)

    def build_client(self) -> Any:
        """An ``AsyncAnthropic`` (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``).

        The key is always given, so the SDK never takes another from the environment.
        """
        try:
            from anthropic import AsyncAnthropic
        except ImportError as exc:
            raise self.missing_sdk("anthropic", "anthropic") from exc
        base_url, api_key = self.credentials()
        return AsyncAnthropic(api_key=api_key, base_url=base_url, **self.retry_options())

    async def send(self, body: JSONDict) -> JSONDict:
        """Call ``messages.create``.

        Body fields the installed SDK's ``create`` does not take as keywords
        (``temperature``, ``top_p`` and ``top_k`` in ``anthropic`` 2.x) travel in its
        ``extra_body``, so sampling settings work with every supported SDK version.
        """
        create = self.get_client().messages.create
        try:
            message = await create(**sdk_body(create, body))
        except Exception as exc:
            raise map_anthropic_error(exc, provider=self.provider) from exc
        return dump_reply(message, provider=self.provider)

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """Call ``messages.create(stream=True)``; each event as a dict, to the end."""
        create = self.get_client().messages.create
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


class AnthropicModel(SDKModel):
    """Claude models through the Messages API.

    Takes the arguments of :class:`~good_agent.models.provider_model.SDKModel`:
    ``base_url`` defaults to ``ANTHROPIC_BASE_URL``, ``api_key`` to
    ``ANTHROPIC_API_KEY`` for Anthropic's own endpoint only, ``client`` is a ready
    ``anthropic.AsyncAnthropic``, and ``max_tokens`` defaults to 4096.
    """

    provider_prefix = "anthropic"

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """An :class:`AnthropicTransport`."""
        return AnthropicTransport(model, base_url=base_url, api_key=api_key, client=client)
