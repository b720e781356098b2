"""What callers may ask of a model beyond the [`LanguageModel`][good_agent.LanguageModel]
protocol, declared once: its profile, its provider, its transport, its tool-calling
mode, whether its wire format takes a ``response_format``, the mode one request goes out
in.

`LanguageModel` itself asks only ``model_name`` and ``request`` of a model of one's own
(it is checked with ``isinstance``, so a member added there would refuse such models);
the optional members are declared here instead, each a small protocol (`HasProvider`,
`HasProfile`, `HasTransport`), and callers ask through the functions below, never
with ``getattr``.

A model of one's own needs only ``model_name`` and ``request``; the answers below are
then the neutral ones (no profile, no mode, ``response_format`` assumed). The built-in
models ([`ProviderModel`][good_agent.ProviderModel] and its vendor classes) answer from
their strategy; a [`FallbackModel`][good_agent.FallbackModel] from the models it tries.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from good_agent.models.base import LanguageModel, ModelRequest
from good_agent.models.fallback_chain import FallbackModel
from good_agent.providers.strategies.base import ToolCallingMode

if TYPE_CHECKING:
    from good_agent.models.provider_model import ProviderModel
    from good_agent.providers.profiles import ModelProfile

__all__ = [
    "Closes",
    "HasProfile",
    "HasProvider",
    "HasTransport",
    "close_model",
    "model_profile",
    "model_provider",
    "model_transport",
    "request_mode",
    "takes_response_format",
    "tool_calling_mode",
]


@runtime_checkable
class HasProvider(Protocol):
    """Optional: names the provider it sends to (``openai``, ``anthropic``, ...)."""

    provider: str


@runtime_checkable
class HasProfile(Protocol):
    """Optional: has a model profile (what the model supports)."""

    profile: Any


@runtime_checkable
class HasTransport(Protocol):
    """Optional: sends through a transport (`good_agent.http.transport`)."""

    transport: Any


def _provider_model(model: LanguageModel) -> ProviderModel | None:
    """``model`` when it is a `ProviderModel`. Asked without importing the built-in
    models: when their module is not loaded yet, no object can be one of them."""
    module = sys.modules.get("good_agent.models.provider_model")
    built_in: type[ProviderModel] | None = getattr(module, "ProviderModel", None)
    return model if built_in is not None and isinstance(model, built_in) else None


def model_profile(model: LanguageModel) -> ModelProfile | None:
    """The profile of ``model`` (a fallback chain: its first model's), or ``None``."""
    if isinstance(model, FallbackModel):
        return model_profile(model.models[0])
    if (built_in := _provider_model(model)) is not None:
        return built_in.profile
    return None


@runtime_checkable
class Closes(Protocol):
    """Optional: holds connections to close (they reconnect if used again)."""

    async def aclose(self) -> None:
        """Close the model's connections."""
        ...


async def close_model(model: Any) -> None:
    """Close ``model``'s connections, when it holds any (`Closes`)."""
    if isinstance(model, Closes):
        await model.aclose()


def model_provider(model: Any) -> str | None:
    """The provider ``model`` sends to (a fallback chain: its first model's): its own
    ``provider`` (`HasProvider`), else its profile's (`HasProfile`); ``None`` when it
    names none. Asked on every reply (its price), so read as attributes: a protocol
    ``isinstance`` costs tens of microseconds."""
    if isinstance(model, FallbackModel):
        return model_provider(model.models[0])
    provider = getattr(model, "provider", None)
    if not isinstance(provider, str) or not provider:
        provider = getattr(getattr(model, "profile", None), "provider", None)
    return provider if isinstance(provider, str) and provider else None


def model_transport(model: Any) -> Any | None:
    """The transport ``model`` sends through (a fallback chain: its first model's), or
    ``None`` for a model without one."""
    if isinstance(model, FallbackModel):
        return model_transport(model.models[0])
    return model.transport if isinstance(model, HasTransport) else None


def tool_calling_mode(model: LanguageModel) -> ToolCallingMode | None:
    """The tool-calling mode ``model`` sends in now (a fallback chain: its first
    model's), or ``None`` for a model without one."""
    if isinstance(model, FallbackModel):
        return tool_calling_mode(model.models[0])
    if (built_in := _provider_model(model)) is not None:
        return built_in.tool_strategy.mode
    return None


def takes_response_format(model: LanguageModel) -> bool:
    """Whether ``model``'s wire format takes a ``response_format`` (a fallback chain:
    every model's; a model of one's own: assumed)."""
    if isinstance(model, FallbackModel):
        return all(takes_response_format(m) for m in model.models)
    if (built_in := _provider_model(model)) is not None:
        return built_in.tool_strategy.codec.supports_response_format
    return True


def request_mode(model: LanguageModel, request: ModelRequest | None = None) -> str | None:
    """The tool-calling mode ``request`` goes out in: its ``mode`` setting, else the
    model's (`tool_calling_mode`); ``None`` when neither says."""
    if request is not None and "mode" in request.settings:
        mode = request.settings["mode"]
        return str(mode.value if isinstance(mode, ToolCallingMode) else mode)
    current = tool_calling_mode(model)
    return None if current is None else current.value
