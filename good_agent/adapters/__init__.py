"""Tool adapters: change how tools look to the model and translate its calls back."""

from good_agent.adapters.adapter import (
    AdapterConflictError,
    AdapterMetadata,
    ConflictStrategy,
    ToolAdapter,
    diff_signatures,
)
from good_agent.adapters.chain import AdapterChain
from good_agent.adapters.context import CallContext, CallNext
from good_agent.adapters.plan import Step, ToolPlan

__all__ = [
    "AdapterChain",
    "AdapterConflictError",
    "AdapterMetadata",
    "CallContext",
    "CallNext",
    "ConflictStrategy",
    "Step",
    "ToolAdapter",
    "ToolPlan",
    "diff_signatures",
]
