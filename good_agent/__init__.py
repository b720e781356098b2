"""good-agent: LLM agents whose tools are adapted between the code and the model."""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face
from good_agent.adapters import (
    AdapterConflictError,
    AdapterMetadata,
    CallContext,
    ConflictStrategy,
    ToolAdapter,
    ToolPlan,
)
from good_agent.core.agent import Agent
from good_agent.core.approvals import Approved
from good_agent.core.capture import CapturedMessages, capture_run_messages
from good_agent.core.components import AgentComponent, on
from good_agent.core.conversation import (
    Conversation,
    ConversationState,
    HistoryError,
    StateKey,
    current_conversation,
)
from good_agent.core.definition import AgentDefinition
from good_agent.core.events import AgentEvents, EventBus, EventContext
from good_agent.core.history_processors import HistoryProcessorError
from good_agent.core.iteration import AgentRun
from good_agent.core.output import EndStrategy, OutputMode
from good_agent.core.payloads import (
    RunEndPayload,
    RunStartPayload,
    SignaturePayload,
    ToolCallAfter,
    ToolCallBefore,
    ToolCallErrorPayload,
)
from good_agent.core.redaction import RedactedError, SecretRegistry, agent_secrets
from good_agent.core.results import DeferredCall, RunResult
from good_agent.core.run_context import RunContext
from good_agent.core.run_events import (
    ReasoningDeltaEvent,
    RunEndEvent,
    RunEvent,
    TextDeltaEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
    ToolExecuteEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from good_agent.core.specs import register_spec_resolver
from good_agent.core.steps import EndStep, ModelStep, RunStep, ToolCallsStep, ToolResultsStep
from good_agent.core.streaming import StreamedRun
from good_agent.tools import Tool, ToolRegistry, Toolset, tool
from good_agent.types.builtin_tools import (
    BuiltinTool,
    BuiltinToolCall,
    BuiltinToolResult,
    Citation,
    CodeExecutionTool,
    FileSearchTool,
    UrlContextTool,
    WebFetchTool,
    WebSearchTool,
)
from good_agent.types.content import (
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    UserPrompt,
)
from good_agent.types.errors import (
    AgentRunError,
    ApprovalError,
    GoodAgentError,
    MaxIterationsError,
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelCapabilityError,
    ModelConfigError,
    ModelConnectionError,
    ModelError,
    ModelIncompleteStreamError,
    ModelOverloadedError,
    ModelRateLimitError,
    ModelResponseError,
    ModelRetry,
    ModelTimeoutError,
    OutputValidationError,
    RunDeferredError,
    ScriptExhaustedError,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolError,
    ToolResultError,
    ToolRetriesExceededError,
    ToolRetry,
    ToolTimeoutError,
    UnknownToolError,
)
from good_agent.types.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolResponse,
    UserMessage,
)
from good_agent.types.usage import RunUsage, Usage, UsageLimitExceeded, UsageLimits

if TYPE_CHECKING:
    from good_agent.extensions import (
        AuthInjector,
        CitationIndex,
        CitationManager,
        MemoryStore,
        RateLimiter,
        RedisStore,
        SQLiteStore,
        Telemetry,
        ToolCache,
        ToolLogger,
    )
    from good_agent.extensions.mcp import MCPTools
    from good_agent.models import (
        AllModelsFailedError,
        AnthropicModel,
        FallbackModel,
        GeminiModel,
        LanguageModel,
        ModelRequest,
        ModelResponse,
        OllamaModel,
        OpenAIChatModel,
        OpenAIResponsesModel,
        ProviderModel,
        register_provider,
        resolve_model,
    )
    from good_agent.providers.modes import get_adapter, strategy_for
    from good_agent.providers.profiles import ModelProfile, load_profiles, register_profile
    from good_agent.providers.strategies.base import ToolCallingMode

_LAZY: dict[str, str] = {
    "AllModelsFailedError": "good_agent.models",
    "AnthropicModel": "good_agent.models",
    "AuthInjector": "good_agent.extensions",
    "CitationIndex": "good_agent.extensions",
    "CitationManager": "good_agent.extensions",
    "FallbackModel": "good_agent.models",
    "GeminiModel": "good_agent.models",
    "LanguageModel": "good_agent.models",
    "MCPTools": "good_agent.extensions.mcp",
    "MemoryStore": "good_agent.extensions",
    "ModelProfile": "good_agent.providers.profiles",
    "ModelRequest": "good_agent.models",
    "ModelResponse": "good_agent.models",
    "OllamaModel": "good_agent.models",
    "OpenAIChatModel": "good_agent.models",
    "OpenAIResponsesModel": "good_agent.models",
    "ProviderModel": "good_agent.models",
    "RateLimiter": "good_agent.extensions",
    "RedisStore": "good_agent.extensions",
    "SQLiteStore": "good_agent.extensions",
    "Telemetry": "good_agent.extensions",
    "ToolCache": "good_agent.extensions",
    "ToolCallingMode": "good_agent.providers.strategies.base",
    "ToolLogger": "good_agent.extensions",
    "get_adapter": "good_agent.providers.modes",
    "load_profiles": "good_agent.providers.profiles",
    "register_profile": "good_agent.providers.profiles",
    "register_provider": "good_agent.models",
    "resolve_model": "good_agent.models",
    "strategy_for": "good_agent.providers.modes",
}
"""The public names imported on first use, and the module of each: the extensions,
the vendor models and the provider layer (see docs/performance.md, "Import on use")."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

__version__ = "0.1.0"


def _mcp_server(spec: str) -> AgentComponent:
    # ``Agent(mcp_servers=[...])`` works without the extensions imported; the optional
    # ``mcp`` extra is imported only when a server is asked for.
    from good_agent.extensions.mcp import MCPTools

    return MCPTools.from_spec(spec)


register_spec_resolver("mcp_servers", _mcp_server)

__all__ = [
    "AdapterConflictError",
    "AdapterMetadata",
    "Agent",
    "AgentComponent",
    "AgentDefinition",
    "AgentEvents",
    "AgentRun",
    "AgentRunError",
    "AllModelsFailedError",
    "AnthropicModel",
    "ApprovalError",
    "Approved",
    "AssistantMessage",
    "AudioUrl",
    "AuthInjector",
    "BinaryContent",
    "BuiltinTool",
    "BuiltinToolCall",
    "BuiltinToolResult",
    "CallContext",
    "CapturedMessages",
    "Citation",
    "CitationIndex",
    "CitationManager",
    "CodeExecutionTool",
    "ConflictStrategy",
    "Conversation",
    "ConversationState",
    "DeferredCall",
    "DocumentUrl",
    "EndStep",
    "EndStrategy",
    "EventBus",
    "EventContext",
    "FallbackModel",
    "FileSearchTool",
    "GeminiModel",
    "GoodAgentError",
    "HistoryError",
    "HistoryProcessorError",
    "ImageUrl",
    "LanguageModel",
    "MCPTools",
    "MaxIterationsError",
    "MemoryStore",
    "Message",
    "ModelAuthenticationError",
    "ModelBadRequestError",
    "ModelCapabilityError",
    "ModelConfigError",
    "ModelConnectionError",
    "ModelError",
    "ModelIncompleteStreamError",
    "ModelOverloadedError",
    "ModelProfile",
    "ModelRateLimitError",
    "ModelRequest",
    "ModelResponse",
    "ModelResponseError",
    "ModelRetry",
    "ModelStep",
    "ModelTimeoutError",
    "OllamaModel",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
    "OutputMode",
    "OutputValidationError",
    "ProviderModel",
    "RateLimiter",
    "ReasoningDeltaEvent",
    "RedactedError",
    "RedisStore",
    "RunContext",
    "RunDeferredError",
    "RunEndEvent",
    "RunEndPayload",
    "RunEvent",
    "RunResult",
    "RunStartPayload",
    "RunStep",
    "RunUsage",
    "SQLiteStore",
    "ScriptExhaustedError",
    "SecretRegistry",
    "SignaturePayload",
    "StateKey",
    "StreamedRun",
    "SystemMessage",
    "Telemetry",
    "TextDeltaEvent",
    "Tool",
    "ToolAdapter",
    "ToolArgumentsError",
    "ToolCache",
    "ToolCall",
    "ToolCallAfter",
    "ToolCallArgsEvent",
    "ToolCallBefore",
    "ToolCallErrorPayload",
    "ToolCallStartEvent",
    "ToolCallingMode",
    "ToolCallsStep",
    "ToolDefinitionError",
    "ToolError",
    "ToolExecuteEvent",
    "ToolLogger",
    "ToolMessage",
    "ToolPlan",
    "ToolRegistry",
    "ToolResponse",
    "ToolResultError",
    "ToolResultEvent",
    "ToolResultsStep",
    "ToolRetriesExceededError",
    "ToolRetry",
    "ToolTimeoutError",
    "Toolset",
    "TurnEndEvent",
    "UnknownToolError",
    "UrlContextTool",
    "Usage",
    "UsageLimitExceeded",
    "UsageLimits",
    "UserMessage",
    "UserPrompt",
    "WebFetchTool",
    "WebSearchTool",
    "__version__",
    "agent_secrets",
    "capture_run_messages",
    "current_conversation",
    "get_adapter",
    "load_profiles",
    "on",
    "register_profile",
    "register_provider",
    "resolve_model",
    "strategy_for",
    "tool",
]
