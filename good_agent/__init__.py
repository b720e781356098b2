"""good-agent: LLM agents whose tools are adapted between the code and the model."""

from good_agent.adapters import (
    AdapterConflictError,
    AdapterMetadata,
    ConflictStrategy,
    ToolAdapter,
    ToolPlan,
)
from good_agent.agent import Agent
from good_agent.components import AgentComponent, on
from good_agent.errors import (
    AgentRunError,
    GoodAgentError,
    MaxIterationsError,
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelConfigError,
    ModelConnectionError,
    ModelError,
    ModelOverloadedError,
    ModelRateLimitError,
    ModelTimeoutError,
    ScriptExhaustedError,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolError,
    ToolRetriesExceededError,
    UnknownToolError,
)
from good_agent.events import AgentEvents, EventBus, EventContext
from good_agent.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolResponse,
    Usage,
    UserMessage,
)
from good_agent.models import LanguageModel, ModelRequest, ModelResponse, OpenAIChatModel
from good_agent.payloads import (
    SignaturePayload,
    ToolCallAfter,
    ToolCallBefore,
    ToolCallErrorPayload,
)
from good_agent.tools import Tool, ToolRegistry, tool

__version__ = "0.1.0"

__all__ = [
    "AdapterConflictError",
    "AdapterMetadata",
    "Agent",
    "AgentComponent",
    "AgentEvents",
    "AgentRunError",
    "AssistantMessage",
    "ConflictStrategy",
    "EventBus",
    "EventContext",
    "GoodAgentError",
    "LanguageModel",
    "MaxIterationsError",
    "Message",
    "ModelAuthenticationError",
    "ModelBadRequestError",
    "ModelConfigError",
    "ModelConnectionError",
    "ModelError",
    "ModelOverloadedError",
    "ModelRateLimitError",
    "ModelRequest",
    "ModelResponse",
    "ModelTimeoutError",
    "OpenAIChatModel",
    "ScriptExhaustedError",
    "SignaturePayload",
    "SystemMessage",
    "Tool",
    "ToolAdapter",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallAfter",
    "ToolCallBefore",
    "ToolCallErrorPayload",
    "ToolDefinitionError",
    "ToolError",
    "ToolMessage",
    "ToolPlan",
    "ToolRegistry",
    "ToolResponse",
    "ToolRetriesExceededError",
    "UnknownToolError",
    "Usage",
    "UserMessage",
    "__version__",
    "on",
    "tool",
]
