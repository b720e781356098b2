"""Turn a model name such as ``"gpt-4o-mini"`` or ``"anthropic:claude-..."`` into a model.

The provider comes from the model's profile (see :mod:`good_agent.providers.profiles`):
a prefix (``openai:``, ``openai-responses:``, ``anthropic:``, ``gemini:``/``google:``,
``ollama:``) or a name rule (``claude*`` is Anthropic, ``gemini*`` Gemini; other
names go to an OpenAI-compatible endpoint). The tool-calling mode follows the
profile unless ``mode`` is given; a name no rule knows, sent to an explicit
``base_url``, is assumed to be served with the tools API (``NATIVE``, falling back
to prompted calling if the server refuses tools; see
:mod:`good_agent.models.strategy`). Register a profile with ``mode="validated"``
for a server that does not.
"""

from __future__ import annotations

from typing import Any

from good_agent.core.errors import ModelConfigError
from good_agent.models.anthropic import AnthropicModel
from good_agent.models.base import LanguageModel
from good_agent.models.gemini import GeminiModel
from good_agent.models.ollama import OllamaModel
from good_agent.models.openai_chat import OpenAIChatModel, OpenAIResponsesModel
from good_agent.models.registry import MODEL_FACTORIES, register_model_factory
from good_agent.providers.profiles import ProfileRegistry, get_profile
from good_agent.providers.strategies.base import ToolCallingMode

for _name, _factory in (
    ("openai", OpenAIChatModel),
    ("openai-responses", OpenAIResponsesModel),
    ("anthropic", AnthropicModel),
    ("gemini", GeminiModel),
    ("ollama", OllamaModel),
):
    register_model_factory(_name, _factory)


def resolve_model(
    model: str | LanguageModel,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    settings: dict[str, Any] | None = None,
    mode: ToolCallingMode | str = ToolCallingMode.AUTO,
    registry: ProfileRegistry | None = None,
) -> LanguageModel:
    """Return a :class:`LanguageModel` for ``model``; a model object is returned as is."""
    if not isinstance(model, str):
        return model
    prefix, sep, _ = model.partition(":")
    profile = get_profile(model, registry)
    if sep and profile.model == model and prefix.isidentifier():
        raise ModelConfigError(f"unknown model provider '{prefix}' in model name '{model}'")
    factory = MODEL_FACTORIES.get(profile.provider)
    if factory is None:
        raise ModelConfigError(f"no model class for provider '{profile.provider}' ('{model}')")
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
