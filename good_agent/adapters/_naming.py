"""The adapter that gives tools the names a toolset chose for the model."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from good_agent.adapters._adapter import AdapterMetadata, Signature, ToolAdapter
from good_agent.tools.tool import Tool
from good_agent.types.errors import ToolDefinitionError

NAMING_PRIORITY = -(2**31)
"""Lowest of all: other adapters see (and are configured by) the tool's own name."""


@dataclass(frozen=True)
class _Names:
    names: dict[int, str]
    """The new name of each renamed tool, by ``id(tool)``."""
    tools: dict[str, Tool]
    """Each offered tool by the name the model sees."""


def _names_of(entries: list[tuple[str, Tool]]) -> _Names:
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
    renamed = {key: name for key, name in names.items() if name != tools[name].name}
    return _Names(renamed, tools)


class ToolNaming(ToolAdapter):
    """Renames tools for the model: forward, the signature's ``name``; in reverse,
    the name the model calls maps back to the tool (`tool_for`).

    The names belong to one planning: the agent plans each request inside
    `use_names` with that run's toolsets, so conversations of one agent planning at
    once (in tasks or threads), each with tools of its own, see only their own names.
    Outside a planning (`tool_for` after a run, say) the latest names hold. A tool
    without a new name is left as it is. Renaming touches no parameter, so it never
    conflicts with another adapter.
    """

    def __init__(self) -> None:
        super().__init__(priority=NAMING_PRIORITY)
        self._default = _Names({}, {})
        self._current: ContextVar[_Names | None] = ContextVar("tool_names", default=None)

    def set_names(self, entries: list[tuple[str, Tool]]) -> None:
        """Use these ``(name the model sees, tool)`` pairs wherever no `use_names`
        is in effect.

        Raises:
            ToolDefinitionError: one tool is offered under two names.
        """
        self._default = _names_of(entries)

    @contextmanager
    def use_names(self, entries: list[tuple[str, Tool]]) -> Iterator[None]:
        """Use these ``(name the model sees, tool)`` pairs inside the block, in this
        context only (the current task or thread); outside any block they stay in
        use, as if given to `set_names`, until the next.

        Raises:
            ToolDefinitionError: one tool is offered under two names.
        """
        names = _names_of(entries)
        self._default = names  # the latest planning's names, for lookups outside one
        token = self._current.set(names)
        try:
            yield
        finally:
            self._current.reset(token)

    def _in_use(self) -> _Names:
        names = self._current.get()
        return self._default if names is None else names

    @property
    def _names(self) -> dict[int, str]:
        return self._in_use().names

    def visible_name(self, tool: Tool) -> str:
        """The name the model sees for ``tool``."""
        return self._names.get(id(tool), tool.name)

    def tool_for(self, name: str) -> Tool | None:
        """The tool the model means by ``name`` (the reverse of the renaming)."""
        return self._in_use().tools.get(name)

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
