"""Toolsets: tool collections that compose (filtered, prefixed, renamed).

A :class:`Toolset` is given to an agent like a tool (``Agent(tools=[...])`` or
``agent.run(..., tools=[...])``). Its wrappers return new toolsets and leave the
original as it was:

- :meth:`Toolset.filtered` offers only the tools a predicate accepts, asked
  before every model request;
- :meth:`Toolset.prefixed` and :meth:`Toolset.renamed` change the names the model
  sees. The tools keep their own names: the agent's adapter chain renames each
  signature on the way to the model and finds the tool by the name the model
  called (:class:`~good_agent.adapters.ToolNaming`), so adapters, events and
  logs still see the tool as it was defined.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from good_agent.tools.tool import Tool
from good_agent.types.errors import ToolDefinitionError

__all__ = ["Predicate", "Toolset"]

Predicate = Callable[[Tool, Any], bool]
"""Decides whether a tool is offered: called with the tool and the agent."""


class Toolset:
    """A collection of tools that can be filtered, prefixed and renamed.

    Args:
        tools: Tools, plain functions (made into tools) and other toolsets.

    Example:
        ```python
        github = Toolset([search, read_file]).prefixed("github_")
        docs = Toolset([search]).renamed({"search": "search_docs"})
        agent = Agent(model=..., tools=[github, docs])
        ```
    """

    def __init__(self, tools: Iterable[Tool | Toolset | Callable[..., Any]] = ()) -> None:
        self._items: list[Tool | Toolset] = [
            item if isinstance(item, Tool | Toolset) else Tool.from_function(item) for item in tools
        ]
        self._predicate: Predicate | None = None
        self._rename: Callable[[str], str] | None = None

    def _wrapped(self) -> Toolset:
        return Toolset([self])

    def filtered(self, predicate: Predicate) -> Toolset:
        """This toolset offering only the tools for which ``predicate(tool, agent)`` is true.

        The predicate is asked before each model request, so a tool can come and go
        within a run (with the agent's ``context``, say).
        """
        wrapper = self._wrapped()
        wrapper._predicate = predicate
        return wrapper

    def prefixed(self, prefix: str) -> Toolset:
        """This toolset with ``prefix`` before every name the model sees."""
        if not prefix:
            raise ToolDefinitionError("a toolset prefix must not be empty")
        wrapper = self._wrapped()
        wrapper._rename = lambda name: prefix + name
        return wrapper

    def renamed(self, names: Mapping[str, str]) -> Toolset:
        """This toolset with the tools named in ``names`` (keys: the names as this
        toolset offers them) offered under the new names; the others keep theirs."""
        mapping = dict(names)
        known = {name for name, _ in self.entries(None, filtered=False)}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise ToolDefinitionError(
                f"cannot rename {', '.join(unknown)}: this toolset has "
                f"{', '.join(sorted(known)) or 'no tools'}"
            )
        wrapper = self._wrapped()
        wrapper._rename = lambda name: mapping.get(name, name)
        return wrapper

    @property
    def tools(self) -> list[Tool]:
        """Every tool of this toolset (and those inside it), unfiltered."""
        return [tool for _, tool in self.entries(None, filtered=False)]

    def entries(self, agent: Any, *, filtered: bool = True) -> list[tuple[str, Tool]]:
        """``(name the model sees, tool)`` for each tool offered now.

        Args:
            agent: Passed to the filters' predicates.
            filtered: ``False`` lists every tool, filters not asked.
        """
        found: list[tuple[str, Tool]] = []
        for item in self._items:
            if isinstance(item, Tool):
                found.append((item.name, item))
            else:
                found += item.entries(agent, filtered=filtered)
        if filtered and self._predicate is not None:
            predicate = self._predicate
            found = [(name, tool) for name, tool in found if predicate(tool, agent)]
        if self._rename is not None:
            rename = self._rename
            found = [(rename(name), tool) for name, tool in found]
        return found

    def __repr__(self) -> str:
        names = ", ".join(name for name, _ in self.entries(None, filtered=False))
        return f"Toolset([{names}])"
