"""Turn a model name such as ``"gpt-4o-mini"`` or ``"anthropic:claude-..."`` into a model.

The provider comes from the model's profile (see `good_agent.providers.profiles`):
a prefix (``openai:``, ``openai-responses:``, ``anthropic:``, ``gemini:``/``google:``,
``ollama:``) or a name rule (``claude*`` is Anthropic, ``gemini*`` Gemini; other
names go to an OpenAI-compatible endpoint). The tool-calling mode follows the
profile unless ``mode`` is given. A name no rule knows, sent to an explicit
``base_url`` (a local or self-hosted server), or an ``ollama:`` name, is "native
with fallback" (`good_agent.providers.profiles.unknown_name_profile`, the rule the
bridge follows too): native tools first, and in ``AUTO`` mode a server that refuses
tools makes the model fall back to prompt-based calling, and calls written into
``content`` are parsed (see `good_agent.models.prompt_fallback`). Register a profile
with ``mode="validated"`` for a server known not to support tools.
"""

from __future__ import annotations

from typing import Any

from good_agent.models.base import LanguageModel
from good_agent.models.registry import MODEL_FACTORIES, register_model_factory
from good_agent.models.vendors import (
    AnthropicModel,
    GeminiModel,
    OllamaModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
    vendor_model,
)
from good_agent.providers.profiles import (
    DEFAULT_REGISTRY,
    NATIVE_WITH_FALLBACK,
    ProfileRegistry,
    get_profile,
)
from good_agent.providers.registry import http_transport_of, provider_names
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.types.errors import ModelConfigError

for _class in (OpenAIChatModel, OpenAIResponsesModel, AnthropicModel, GeminiModel, OllamaModel):
    register_model_factory(_class.provider_prefix, _class)

__all__ = ["NATIVE_WITH_FALLBACK", "resolve_model"]


def resolve_model(
    model: str | LanguageModel,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    settings: dict[str, Any] | None = None,
    mode: ToolCallingMode | str = ToolCallingMode.AUTO,
    registry: ProfileRegistry | None = None,
) -> LanguageModel:
    """Return a [`LanguageModel`][good_agent.LanguageModel] for ``model``; a model object is
    returned as is."""
    if not isinstance(model, str):
        return model
    profile = get_profile(model, registry)
    prefix = (registry or DEFAULT_REGISTRY).unknown_prefix(model)
    if prefix is not None:
        known = ", ".join(provider_names())
        raise ModelConfigError(
            f"unknown model provider '{prefix}' in model name '{model}'; known providers: {known}"
        )
    factory = MODEL_FACTORIES.get(profile.provider)
    if factory is None and http_transport_of(profile.provider) is not None:
        factory = vendor_model(profile.provider)
    if factory is None:
        raise ModelConfigError(f"no model class for provider '{profile.provider}' ('{model}')")
    # A name no rule knows is settled by the model's strategy choice
    # (good_agent.providers.profiles.unknown_name_profile), as for the bridge.
    extra: dict[str, Any] = {"strict": "profile"} if factory is OpenAIChatModel else {}
    return factory(
        profile.model,
        base_url=base_url,
        api_key=api_key,
        settings=settings,
        mode=mode,
        profile=profile,
        **extra,
    )
