"""Resolvers that turn a string spec given to `Agent` into a component.

The agent core knows no extension: ``Agent(mcp_servers=["python -m server"])`` asks
the resolver registered for ``"mcp_servers"`` (``good_agent`` registers it when
imported; it imports the MCP extension and the optional ``mcp`` extra only when called).
"""

from __future__ import annotations

from collections.abc import Callable

from good_agent.core.components import AgentComponent
from good_agent.types.errors import GoodAgentError

SpecResolver = Callable[[str], AgentComponent]
"""Builds a component from a string spec."""

_RESOLVERS: dict[str, SpecResolver] = {}


def register_spec_resolver(option: str, resolver: SpecResolver) -> None:
    """Resolve the string specs of the agent option ``option`` with ``resolver``.

    A later registration for the same option replaces the earlier one.
    """
    _RESOLVERS[option] = resolver


def resolve_spec(option: str, spec: str) -> AgentComponent:
    """The component for ``spec``, a string given to the agent option ``option``."""
    resolver = _RESOLVERS.get(option)
    if resolver is None:
        raise GoodAgentError(
            f"no resolver is registered for {option}= specs such as {spec!r}; "
            "pass a component instead, or register one with register_spec_resolver()"
        )
    return resolver(spec)
