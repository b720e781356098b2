"""Language models: the protocol the agent loop talks to, and its implementations."""

from good_agent.models.base import LanguageModel, ModelRequest, ModelResponse
from good_agent.models.fallback_model import AllModelsFailedError, FallbackModel
from good_agent.models.provider_model import ProviderModel
from good_agent.models.registry import register_provider
from good_agent.models.resolve import resolve_model
from good_agent.models.vendors import (
    AnthropicModel,
    GeminiModel,
    OllamaModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
)
from good_agent.providers.transport import Transport

__all__ = [
    "AllModelsFailedError",
    "AnthropicModel",
    "FallbackModel",
    "GeminiModel",
    "LanguageModel",
    "ModelRequest",
    "ModelResponse",
    "OllamaModel",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
    "ProviderModel",
    "Transport",
    "register_provider",
    "resolve_model",
]
