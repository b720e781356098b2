"""Toolsets: tool collections that compose (filtered, prefixed, renamed).

A [`Toolset`][good_agent.Toolset] is given to an agent like a tool (``Agent(tools=[...])`` or
``agent.run(..., tools=[...])``). Its wrappers return new toolsets and leave the
original as it was:

- [`Toolset.filtered`][good_agent.Toolset.filtered] offers only the tools a predicate
  accepts, asked before every model request (with the run's
  [`RunContext`][good_agent.RunContext], if it takes one);
- [`Toolset.prefixed`][good_agent.Toolset.prefixed] and
  [`Toolset.renamed`][good_agent.Toolset.renamed] change the names the model sees.
  The tools keep their own names: the agent's adapter chain renames each signature
  on the way to the model and finds the tool by the name the model called
  (``ToolNaming``), so adapters, events and logs still see the tool as it was
  defined.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, get_type_hints

from good_agent.tools.function_schema import injection_kind
from good_agent.tools.tool import Tool
from good_agent.types.errors import ToolDefinitionError

__all__ = ["Predicate", "Toolset"]

Predicate = Callable[..., bool]
"""Decides whether a tool is offered: called with ``(tool, agent)``; or with the
run's [`RunContext`][good_agent.RunContext] first: ``(ctx, tool)`` when its first
parameter is annotated ``RunContext``, ``(ctx, tool, agent)`` when it takes three."""

_Check = Callable[[Any, Tool, Any], bool]
"""A predicate as a function of ``(run context, tool, agent)``."""


def _check(predicate: Predicate) -> _Check:
    """``predicate`` as a function of ``(run context, tool, agent)``."""
    positional = _positional(predicate)
    if len(positional) >= 3:
        return lambda run, tool, agent: predicate(run, tool, agent)
    if positional and _names_run_context(predicate, positional[0]):
        return lambda run, tool, agent: predicate(run, tool)
    return lambda run, tool, agent: predicate(tool, agent)


def _positional(function: Callable[..., Any]) -> list[inspect.Parameter]:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _names_run_context(function: Callable[..., Any], parameter: inspect.Parameter) -> bool:
    """Whether ``parameter`` of ``function`` is annotated ``RunContext`` (read as the tools
    read it: the class's injection marker, or the annotation's text when it cannot be
    resolved)."""
    annotation: Any = parameter.annotation
    if isinstance(annotation, str):
        # A name not importable here keeps the annotation's text.
        with contextlib.suppress(NameError, TypeError, AttributeError):
            annotation = get_type_hints(function).get(parameter.name, annotation)
    if isinstance(annotation, str):
        text: str = annotation
        return text.startswith("RunContext")
    return injection_kind(annotation) == "run"


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
        self._predicate: _Check | None = None
        self._rename: Callable[[str], str] | None = None

    def _wrapped(self) -> Toolset:
        return Toolset([self])

    def filtered(self, predicate: Predicate) -> Toolset:
        """This toolset offering only the tools for which ``predicate`` is true.

        ``predicate(tool, agent)``; or, to decide by the run (its ``deps``, say: tools
        offered only to admins), ``predicate(ctx, tool)`` with its first parameter
        annotated [`RunContext`][good_agent.RunContext], or ``predicate(ctx, tool, agent)``.
        It is asked before each model request, so a tool can come and go within a
        run. Outside a run (``agent.tool_signatures()``, ``agent.invoke``) the
        context's ``deps`` is ``None``.
        """
        wrapper = self._wrapped()
        wrapper._predicate = _check(predicate)
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

    def entries(
        self, agent: Any, *, filtered: bool = True, run: Any = None
    ) -> list[tuple[str, Tool]]:
        """``(name the model sees, tool)`` for each tool offered now.

        Args:
            agent: Passed to the filters' predicates.
            filtered: ``False`` lists every tool, filters not asked.
            run: The run's context, for the predicates that take it.
        """
        found: list[tuple[str, Tool]] = []
        for item in self._items:
            if isinstance(item, Tool):
                found.append((item.name, item))
            else:
                found += item.entries(agent, filtered=filtered, run=run)
        if filtered and self._predicate is not None:
            predicate = self._predicate
            found = [(name, tool) for name, tool in found if predicate(run, tool, agent)]
        if self._rename is not None:
            rename = self._rename
            found = [(rename(name), tool) for name, tool in found]
        return found

    def __repr__(self) -> str:
        names = ", ".join(name for name, _ in self.entries(None, filtered=False))
        return f"Toolset([{names}])"
