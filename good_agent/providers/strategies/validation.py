"""Validation of a tool-call payload against the LLM-visible tool schema.

Schemas are checked with :func:`good_agent.schema_validation.compile_schema` when
it is available (imported lazily, so this package does not require the core at
import time); otherwise a minimal check of object type and required keys runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

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
            False, f"invalid arguments for tool '{name}': " + "; ".join(problems)
        )
    return ToolCallValidation(True, None, arguments)


def compile_checker(schema: JSONDict) -> Checker:
    """A function returning the problems of a value against ``schema`` (empty: valid)."""
    try:
        module = importlib.import_module("good_agent.schema_validation")
    except ImportError:
        return _minimal_checker(schema)
    compile_schema = getattr(module, "compile_schema", None)
    if compile_schema is None:
        return _minimal_checker(schema)
    checker: Checker = compile_schema(schema)
    return checker


def _minimal_checker(schema: JSONDict) -> Checker:
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    closed = schema.get("additionalProperties") is False
    known = set(schema.get("properties") or {})

    def check(value: Any) -> list[str]:
        if not isinstance(value, dict):
            return ["expected an object"]
        problems = [f"missing required property '{key}'" for key in required if key not in value]
        if closed:
            problems += [f"unexpected property '{key}'" for key in value if key not in known]
        return problems

    return check
