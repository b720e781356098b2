"""Providers registered by name: a codec, a transport and profile rules under one name,
held as a [`Vendor`][good_agent.providers.vendor.Vendor] in the one vendor registry
(`good_agent.providers.registry`), beside the built-ins.

Registering a provider makes ``Agent(model="name:some-model")``,
``resolve_model(...)``, ``strategy_for(...)`` and a bridge ``[[models]]`` entry with
``provider = "name"`` work. The built-in providers are registered the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from good_agent.models.base import LanguageModel
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.profiles import (
    DEFAULT_REGISTRY,
    ModelProfile,
    ProfileRegistry,
    ProviderInfo,
)
from good_agent.providers.registry import get_codec, register_vendor
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.vendor import Codec, TransportFactory, Vendor

ModelFactory = Callable[..., LanguageModel]
"""Builds a model: ``factory(name, base_url=, api_key=, settings=, mode=, profile=)``."""

MODEL_FACTORIES: dict[str, ModelFactory] = {}
"""The model factory of each provider that has its own model class (the built-ins' named
classes, and each [`register_provider`][good_agent.register_provider]'d name); a vendor
registered with only its descriptor gets a vendor model (`models.vendors.vendor_model`)."""


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
    codec_name = codec.name if isinstance(codec, Codec) else get_codec(codec).name
    info = ProviderInfo(name, codec_name, dict(defaults or {}))
    target.register_provider(info)
    register_vendor(
        Vendor(
            name=name,
            providers={name: info},
            codecs=(codec,) if isinstance(codec, Codec) else (),
            transports={name: transport},
        )
    )
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
