"""Language models: the protocol the agent loop talks to, and its implementations."""

from good_agent.http.transport import Transport
from good_agent.models.base import LanguageModel, ModelRequest, ModelResponse
from good_agent.models.fallback_chain import AllModelsFailedError, FallbackModel
from good_agent.models.guard import (
    ModelRequestsDisabledError,
    check_allow_model_requests,
    override_allow_model_requests,
)
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

ALLOW_MODEL_REQUESTS = True
"""Whether real models may send requests; tests set it to ``False`` (see
`good_agent.models.guard`)."""

__all__ = [
    "ALLOW_MODEL_REQUESTS",
    "AllModelsFailedError",
    "AnthropicModel",
    "FallbackModel",
    "GeminiModel",
    "LanguageModel",
    "ModelRequest",
    "ModelRequestsDisabledError",
    "ModelResponse",
    "OllamaModel",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
    "ProviderModel",
    "Transport",
    "check_allow_model_requests",
    "override_allow_model_requests",
    "register_provider",
    "resolve_model",
]
