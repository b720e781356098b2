"""Tools: functions the model can call, and the registry that holds them."""

from good_agent.tools.registry import ToolRegistry
from good_agent.tools.tool import Tool, tool
from good_agent.tools.toolset import Toolset

__all__ = ["Tool", "ToolRegistry", "Toolset", "tool"]
