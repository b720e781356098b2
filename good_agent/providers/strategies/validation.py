"""Validation of a tool-call payload against the LLM-visible tool schema.

Schemas are checked with
`good_agent.providers.schema_validation.compile_schema`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from good_agent.providers.schema_validation import compile_schema
from good_agent.providers.strategies.base import ToolCallValidation
from good_agent.providers.tool_names import tool_name, tool_parameters
from good_agent.providers.types import JSONDict

Checker = Callable[[Any], list[str]]


def tools_by_name(tools: list[JSONDict]) -> dict[str, JSONDict]:
    """Index OpenAI function-format tools by name."""
    return {tool_name(tool): tool for tool in tools}


def validate_payload(payload: JSONDict, tools: dict[str, JSONDict]) -> ToolCallValidation:
    """Validate ``{"tool": name, "arguments": {...}}`` against ``tools``."""
    name = payload.get("tool")
    if not isinstance(name, str) or not name:
        return ToolCallValidation(False, "the tool call names no tool")
    tool = tools.get(name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        return ToolCallValidation(False, f"unknown tool '{name}'; available tools: {known}")
    arguments = payload.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return ToolCallValidation(
            False,
            f"the arguments of '{name}' must be a JSON object, got {type(arguments).__name__}",
        )
    problems = compile_checker(tool_parameters(tool))(arguments)
    if problems:
        return ToolCallValidation(
            False,
            f"invalid arguments for tool '{name}': " + "; ".join(problems),
            problems=tuple(problems),
        )
    return ToolCallValidation(True, None, arguments)


def compile_checker(schema: JSONDict) -> Checker:
    """A function returning the problems of a value against ``schema`` (empty: valid)."""
    return compile_schema(schema)
