"""The provider registry: a codec, a transport and profile rules under one name.

Registering a provider makes ``Agent(model="name:some-model")``,
``resolve_model(...)``, ``strategy_for(...)`` and a bridge ``[[models]]`` entry with
``provider = "name"`` work. The built-in providers are registered the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from good_agent.http.transport import AnyTransport
from good_agent.models.base import LanguageModel
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.codecs import Codec, get_codec, register_codec
from good_agent.providers.profiles import (
    DEFAULT_REGISTRY,
    ModelProfile,
    ProfileRegistry,
    ProviderInfo,
)
from good_agent.providers.strategies.base import ToolCallingMode

ModelFactory = Callable[..., LanguageModel]
"""Builds a model: ``factory(name, base_url=, api_key=, settings=, mode=, profile=)``."""

TransportFactory = Callable[..., AnyTransport]
"""Builds a transport: ``factory(model=, base_url=, api_key=)``."""

MODEL_FACTORIES: dict[str, ModelFactory] = {}
"""The model factory of every registered provider, by provider name."""

TRANSPORTS: dict[str, TransportFactory] = {}
"""The transport factory of every provider registered with :func:`register_provider`."""


def register_model_factory(name: str, factory: ModelFactory) -> None:
    """Register the model factory of provider ``name`` (used by the built-ins)."""
    MODEL_FACTORIES[name] = factory


def model_factory(name: str) -> ModelFactory | None:
    """The model factory of provider ``name``, if registered."""
    return MODEL_FACTORIES.get(name)


def register_provider(
    name: str,
    *,
    codec: Codec | str,
    transport: TransportFactory,
    profiles: Iterable[tuple[str, dict[str, Any]]] = (),
    defaults: dict[str, Any] | None = None,
    registry: ProfileRegistry | None = None,
) -> None:
    """Register a provider in three parts: wire format, transport and profile rules.

    Args:
        name: The provider prefix (``"myprov"`` serves ``"myprov:some-model"``).
        codec: A `Codec` (registered under its
            own name) or the name of a registered one.
        transport: Called as ``transport(model=..., base_url=..., api_key=...)``; the
            result has ``provider``, ``async send(body) -> dict`` and
            ``stream(body) -> AsyncIterator[dict]`` (see
            `Transport`; without ``stream``,
            streamed requests are sent whole).
        profiles: ``(pattern, values)`` rules for this provider's model names, e.g.
            ``("toy-*", {"mode": "native", "supports_parallel": True})``.
        defaults: Profile values for every model of this provider.
        registry: The profile registry (the process-wide one by default).
    """
    target = registry or DEFAULT_REGISTRY
    if isinstance(codec, Codec):
        register_codec(codec)
        codec_name = codec.name
    else:
        codec_name = get_codec(codec).name
    target.register_provider(ProviderInfo(name, codec_name, dict(defaults or {})))
    TRANSPORTS[name] = transport
    for pattern, values in profiles:
        target.register(pattern, provider=name, **dict(values))

    def build(
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        settings: dict[str, Any] | None = None,
        mode: ToolCallingMode | str = ToolCallingMode.AUTO,
        profile: ModelProfile | None = None,
        **_: Any,
    ) -> LanguageModel:
        return ProviderModel(
            model,
            transport(model=model, base_url=base_url, api_key=api_key),
            mode=mode,
            settings=settings,
            profile=profile or target.resolve(f"{name}:{model}"),
            own_endpoint=base_url is not None,
        )

    register_model_factory(name, build)
