"""Tool-calling strategies: native tools, strict structured replies, prompt-based calls."""

from good_agent.providers.strategies.base import (
    ToolCallingAdapter,
    ToolCallingMode,
    ToolCallValidation,
)
from good_agent.providers.strategies.native import CodecAdapter, NativeAdapter
from good_agent.providers.strategies.prompted import PromptedAdapter, ValidatedAdapter
from good_agent.providers.strategies.structured import StructuredAdapter

__all__ = [
    "CodecAdapter",
    "NativeAdapter",
    "PromptedAdapter",
    "StructuredAdapter",
    "ToolCallValidation",
    "ToolCallingAdapter",
    "ToolCallingMode",
    "ValidatedAdapter",
]
