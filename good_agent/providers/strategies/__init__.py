"""Tool-calling strategies: native tools, strict structured replies, prompt-based calls."""

from good_agent.providers.strategies.base import (
    ToolCallingMode,
    ToolCallingStrategy,
    ToolCallValidation,
)
from good_agent.providers.strategies.native import CodecStrategy, NativeStrategy
from good_agent.providers.strategies.prompted import PromptedStrategy, ValidatedStrategy
from good_agent.providers.strategies.structured import StructuredStrategy

__all__ = [
    "CodecStrategy",
    "NativeStrategy",
    "PromptedStrategy",
    "StructuredStrategy",
    "ToolCallValidation",
    "ToolCallingMode",
    "ToolCallingStrategy",
    "ValidatedStrategy",
]
