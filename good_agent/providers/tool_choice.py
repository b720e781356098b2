"""Interpretation of OpenAI-style ``tool_choice`` values for every codec."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from good_agent.providers.tool_names import tool_name
from good_agent.providers.types import JSONDict, ToolChoice

ChoiceKind = Literal["auto", "none", "required", "named"]


@dataclass(frozen=True, slots=True)
class Choice:
    """A parsed tool choice: its kind and, for ``named``, the tool's original name."""

    kind: ChoiceKind
    name: str | None = None


def parse_tool_choice(choice: ToolChoice | None) -> Choice:
    """Parse ``"auto"``, ``"none"``, ``"required"`` (or ``"any"``) or a named choice.

    A named choice may be ``{"type": "function", "function": {"name": ...}}``, its
    short form ``{"name": ...}`` or ``{"type": "tool", "name": ...}``.
    """
    if choice is None or choice == "auto":
        return Choice("auto")
    if choice == "none":
        return Choice("none")
    if choice in ("required", "any"):
        return Choice("required")
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else choice.get("name")
        if isinstance(name, str) and name:
            return Choice("named", name)
    raise ValueError(f"unsupported tool_choice: {choice!r}")


def filter_tools(tools: list[JSONDict], choice: Choice) -> list[JSONDict]:
    """The tools to offer when a provider cannot force a choice.

    ``none`` offers no tools and ``named`` only the named one, so the model can
    only do what the choice asked; ``auto`` and ``required`` offer all.
    """
    if choice.kind == "none":
        return []
    if choice.kind == "named":
        return [tool for tool in tools if tool_name(tool) == choice.name]
    return list(tools)
