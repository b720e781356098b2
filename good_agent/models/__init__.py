"""Language models: the protocol the agent loop talks to, and its implementations."""

from good_agent.models.base import LanguageModel, ModelRequest, ModelResponse
from good_agent.models.openai_chat import OpenAIChatModel
from good_agent.models.resolve import resolve_model

__all__ = ["LanguageModel", "ModelRequest", "ModelResponse", "OpenAIChatModel", "resolve_model"]
