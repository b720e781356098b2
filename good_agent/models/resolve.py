"""Turn a model name such as ``"gpt-4o-mini"`` or ``"openai:gpt-4o"`` into a model object."""

from __future__ import annotations

from typing import Any

from good_agent.errors import ModelConfigError
from good_agent.models.base import LanguageModel
from good_agent.models.openai_chat import OpenAIChatModel


def resolve_model(
    model: str | LanguageModel,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    settings: dict[str, Any] | None = None,
) -> LanguageModel:
    """Return a :class:`LanguageModel` for ``model``.

    A model object is returned as is. A name may carry a provider prefix
    (``"openai:gpt-4o"``); without one it is sent to an OpenAI-compatible endpoint.
    """
    if not isinstance(model, str):
        return model
    provider, sep, name = model.partition(":")
    if not sep:
        provider, name = "openai", model
    if provider == "openai":
        return OpenAIChatModel(name, base_url=base_url, api_key=api_key, settings=settings)
    raise ModelConfigError(f"unknown model provider '{provider}' in model name '{model}'")
