"""The adapter that gives tools the names a toolset chose for the model."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from good_agent.adapters._adapter import AdapterMetadata, Signature, ToolAdapter
from good_agent.tools.tool import Tool
from good_agent.types.errors import ToolDefinitionError

NAMING_PRIORITY = -(2**31)
"""Lowest of all: other adapters see (and are configured by) the tool's own name."""


class ToolNaming(ToolAdapter):
    """Renames tools for the model: forward, the signature's ``name``; in reverse,
    the name the model calls maps back to the tool (`tool_for`).

    The agent sets the names before each request from its toolsets
    (`set_names`); a tool without a new name is left as it is. Renaming
    touches no parameter, so it never conflicts with another adapter.
    """

    def __init__(self) -> None:
        super().__init__(priority=NAMING_PRIORITY)
        self._names: dict[int, str] = {}
        self._tools: dict[str, Tool] = {}

    def set_names(self, entries: list[tuple[str, Tool]]) -> None:
        """Use these ``(name the model sees, tool)`` pairs from now on.

        Raises:
            ToolDefinitionError: one tool is offered under two names.
        """
        names: dict[int, str] = {}
        tools: dict[str, Tool] = {}
        for name, tool in entries:
            known = names.setdefault(id(tool), name)
            if known != name:
                raise ToolDefinitionError(
                    f"tool '{tool.name}' is offered twice, as '{known}' and as '{name}': "
                    "offer it once, or define a second tool"
                )
            tools[name] = tool
        self._names = {key: name for key, name in names.items() if name != tools[name].name}
        self._tools = tools

    def visible_name(self, tool: Tool) -> str:
        """The name the model sees for ``tool``."""
        return self._names.get(id(tool), tool.name)

    def tool_for(self, name: str) -> Tool | None:
        """The tool the model means by ``name`` (the reverse of the renaming)."""
        return self._tools.get(name)

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Only tools given a new name."""
        return id(tool) in self._names

    def signature_key(self, tool: Tool, agent: Any) -> Hashable:
        """The new name: a change recomputes the signature."""
        return self._names.get(id(tool))

    def analyze_transformation(self, tool: Tool, signature: Signature) -> AdapterMetadata:
        """No parameter changes."""
        return AdapterMetadata()

    def adapt_signature(self, tool: Tool, signature: Signature, agent: Any) -> Signature:
        """``signature`` under the tool's new name."""
        function = {**signature["function"], "name": self.visible_name(tool)}
        return {**signature, "function": function}
