"""Language models: the protocol the agent loop talks to, and its implementations."""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    "AllModelsFailedError": "good_agent.models.fallback_chain",
    "AnthropicModel": "good_agent.models.vendors",
    "FallbackModel": "good_agent.models.fallback_chain",
    "GeminiModel": "good_agent.models.vendors",
    "LanguageModel": "good_agent.models.base",
    "ModelRequest": "good_agent.models.base",
    "ModelRequestsDisabledError": "good_agent.models.guard",
    "ModelResponse": "good_agent.models.base",
    "OllamaModel": "good_agent.models.vendors",
    "OpenAIChatModel": "good_agent.models.vendors",
    "OpenAIResponsesModel": "good_agent.models.vendors",
    "ProviderModel": "good_agent.models.provider_model",
    "Transport": "good_agent.http.transport",
    "check_allow_model_requests": "good_agent.models.guard",
    "override_allow_model_requests": "good_agent.models.guard",
    "register_provider": "good_agent.models.registry",
    "resolve_model": "good_agent.models.resolve",
}
"""Each public name and the module it is imported from on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

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
