"""Tool-calling strategies: native tools, strict structured replies, prompt-based calls."""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face

if TYPE_CHECKING:
    from good_agent.providers.strategies.base import (
        ToolCallingMode,
        ToolCallingStrategy,
        ToolCallValidation,
    )
    from good_agent.providers.strategies.native import CodecStrategy, NativeStrategy
    from good_agent.providers.strategies.prompted import PromptedStrategy, ValidatedStrategy
    from good_agent.providers.strategies.structured import StructuredStrategy

_LAZY: dict[str, str] = {
    "CodecStrategy": "good_agent.providers.strategies.native",
    "NativeStrategy": "good_agent.providers.strategies.native",
    "PromptedStrategy": "good_agent.providers.strategies.prompted",
    "StructuredStrategy": "good_agent.providers.strategies.structured",
    "ToolCallValidation": "good_agent.providers.strategies.base",
    "ToolCallingMode": "good_agent.providers.strategies.base",
    "ToolCallingStrategy": "good_agent.providers.strategies.base",
    "ValidatedStrategy": "good_agent.providers.strategies.prompted",
}
"""Each public name and the module it is imported from on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

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
