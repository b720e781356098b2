"""Tool adapters: change how tools look to the model and translate its calls back."""

from good_agent.adapters._adapter import (
    AdapterConflictError,
    AdapterMetadata,
    ConflictStrategy,
    Signature,
    ToolAdapter,
    diff_signatures,
)
from good_agent.adapters._chain import AdapterChain
from good_agent.adapters._context import CallContext, CallNext
from good_agent.adapters._memo import ToolMemo
from good_agent.adapters._naming import ToolNaming
from good_agent.adapters._plan import Step, ToolPlan

__all__ = [
    "AdapterChain",
    "AdapterConflictError",
    "AdapterMetadata",
    "CallContext",
    "CallNext",
    "ConflictStrategy",
    "Signature",
    "Step",
    "ToolAdapter",
    "ToolMemo",
    "ToolNaming",
    "ToolPlan",
    "diff_signatures",
]
