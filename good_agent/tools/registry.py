"""The agent's set of tools, keyed by name, and its toolsets."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from good_agent.tools.tool import Tool
from good_agent.tools.toolset import Toolset
from good_agent.types.errors import ToolDefinitionError, UnknownToolError


def as_tool(item: Tool | Callable[..., Any]) -> Tool:
    """Return ``item`` as a `Tool`, wrapping a plain function if needed."""
    return item if isinstance(item, Tool) else Tool.from_function(item)


class ToolRegistry:
    """Tools by name, and toolsets; registering a second tool under a taken name is
    an error (names reached through toolsets are checked when the model is asked)."""

    def __init__(self, tools: Iterable[Tool | Toolset | Callable[..., Any]] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self.toolsets: list[Toolset] = []
        self.version = 0
        for item in tools:
            if isinstance(item, Toolset):
                self.add_toolset(item)
            else:
                self.add(item)

    def add_toolset(self, toolset: Toolset) -> None:
        """Register a toolset: its tools are offered under the names it gives them."""
        self.toolsets.append(toolset)
        self.version += 1

    def entries(self, agent: Any, run: Any = None) -> list[tuple[str, Tool]]:
        """``(name the model sees, tool)`` for every tool offered now, toolsets included
        (``run``: the run's context, for the toolsets' filters)."""
        found = [(name, tool) for name, tool in self._tools.items()]
        for toolset in self.toolsets:
            found += toolset.entries(agent, run=run)
        return found

    def add(self, item: Tool | Callable[..., Any]) -> Tool:
        """Register a tool (or function); raises
        [`ToolDefinitionError`][good_agent.ToolDefinitionError] on a duplicate."""
        new = as_tool(item)
        if new.name in self._tools:
            raise ToolDefinitionError(
                f"duplicate tool name '{new.name}': a tool with that name is already registered"
            )
        self._tools[new.name] = new
        self.version += 1
        return new

    def remove(self, name: str) -> None:
        """Unregister the tool called ``name``, if present."""
        if self._tools.pop(name, None) is not None:
            self.version += 1

    def get(self, name: str) -> Tool:
        """Return the tool called ``name`` or raise
        [`UnknownToolError`][good_agent.UnknownToolError]."""
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(name, list(self._tools)) from None

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        """Names of the registered tools, in registration order."""
        return list(self._tools)
