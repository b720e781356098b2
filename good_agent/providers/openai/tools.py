"""OpenAI function-tool encoding shared by the Chat Completions and Responses codecs."""

from __future__ import annotations

from good_agent.providers.openai.schema import to_openai_schema
from good_agent.providers.tool_names import ToolNameMap, tool_function, tool_name, tool_parameters
from good_agent.providers.types import JSONDict

STRICT_SETTING = "strict_tools"
"""``ChatRequest.settings`` key for tri-state strict tools: ``None`` (auto: strict when
the schema allows it), ``True`` (required) or ``False``/absent (never)."""


def strict_setting(settings: JSONDict) -> bool | None:
    """The tri-state strict setting of a request (absent means ``False``)."""
    if STRICT_SETTING not in settings:
        return False
    value = settings[STRICT_SETTING]
    return None if value is None else bool(value)


def function_definition(
    tool: JSONDict, names: ToolNameMap, strict: bool | None
) -> tuple[JSONDict, bool]:
    """Return ``(function, is_strict)``: name, description and transformed parameters."""
    function = tool_function(tool)
    original = tool_name(tool)
    params = tool_parameters(tool)
    result = to_openai_schema(params, strict)
    out: JSONDict = {"name": names.to_provider(original)}
    if function.get("description"):
        out["description"] = function["description"]
    out["parameters"] = result.schema
    if result.strict:
        names.strict_schemas[original] = params
    return out, result.strict
