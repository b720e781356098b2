"""Prompts for models that call tools through text: tool listings and the output rules.

Tools are listed as JSON schema (the default) or as compact TypeScript-style
declarations, which code models follow well. The instruction block states the
output notation and takes precedence over conflicting instructions in the user's
system prompt. With constrained decoding the model writes one JSON object, shaped by
`payload_schema`; otherwise it writes ``<tool_call>`` blocks (the notation
Hermes and Qwen models are trained on), or, with ``notation="thought"``, one
``{"thought", "tool_name", "tool_args"}`` object per reply (the ``thought`` text
format, `good_agent.providers.text.formats.thought`).

A client's JSON response format cannot be sent to the server beside tools written
as text (a schema for the whole reply would forbid writing a call): while calls are
possible it becomes an instruction on the final answer only
(`answer_format_rule`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from good_agent.providers.schema.refs import inline_refs
from good_agent.providers.tool_choice import filter_tools, parse_tool_choice
from good_agent.providers.tool_names import tool_function, tool_name, tool_parameters
from good_agent.providers.types import JSONDict

SchemaFormat = Literal["json", "typescript"]
Constraint = Literal["json_object", "json_schema", "vllm", "vllm_guided"]
Notation = Literal["tags", "thought"]

OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"


@dataclass(frozen=True, slots=True)
class PromptStyle:
    """How tools are described to a prompted model and how it must answer.

    ``schema_format``: ``"json"`` or ``"typescript"``. ``constrained``: ask the
    server for constrained decoding: ``"json_object"`` / ``"json_schema"`` (OpenAI
    ``response_format``, also honoured by Ollama as ``format``), ``"vllm"``
    (``structured_outputs``) or ``"vllm_guided"`` (older vLLM ``guided_json``).
    ``notation``: how calls are written without constrained decoding: ``"tags"``
    (``<tool_call>`` blocks) or ``"thought"`` (one
    ``{"thought": ..., "tool_name": ..., "tool_args": {...}}`` object).
    """

    schema_format: SchemaFormat = "json"
    constrained: Constraint | None = None
    notation: Notation = "tags"

    @property
    def text_format(self) -> str:
        """The registered text format replies in this style are parsed with."""
        return "thought" if self.notation == "thought" and not self.constrained else "auto"


def tools_prompt(
    tools: list[JSONDict], tool_choice: Any = None, style: PromptStyle | None = None
) -> str:
    """The system-prompt section listing ``tools`` and the rules for calling them."""
    style = style or PromptStyle()
    choice = parse_tool_choice(tool_choice)
    offered = filter_tools(tools, choice)
    if not offered:
        return "Do not call any tool in this turn; answer in plain text."
    if style.schema_format == "typescript":
        listing = "\n\n".join(typescript_declaration(tool) for tool in offered)
    else:
        listing = "\n".join(json_listing(tool) for tool in offered)
    if choice.kind == "named":
        must = f"You must call the tool `{tool_name(offered[0])}` now."
    elif choice.kind == "required":
        must = "You must call at least one tool now."
    else:
        must = "Call tools only when they help; otherwise answer directly."
    return "\n\n".join(
        [
            "# Tools\n\nYou can call these tools:\n\n" + listing,
            "# How to call tools\n\n" + _notation(style),
            must,
            "These rules on calling tools and on the format of your reply take precedence "
            "over any other instruction about output format.",
        ]
    )


def _notation(style: PromptStyle) -> str:
    if style.constrained:
        return (
            "Reply with exactly one JSON object and nothing else. To call tools: "
            '{"tool_calls": [{"name": "<tool name>", "arguments": {<arguments>}}]} '
            "(several entries call several tools at once). To answer without tools: "
            '{"answer": "<your answer>"}. Tool results arrive in the next message.'
        )
    if style.notation == "thought":
        return THOUGHT_NOTATION
    return (
        f"To call a tool, write {OPEN_TAG}"
        '{"name": "<tool name>", "arguments": {<arguments as a JSON object>}}'
        f"{CLOSE_TAG}. Write one block per call; several blocks call several tools at "
        "once. The arguments must match the tool's parameters. Stop after your calls: "
        "the results arrive in the next message inside <tool_response> blocks, each "
        "naming its tool and the id of the call it answers. When no "
        f"tool is needed, answer in plain text without any {OPEN_TAG} block."
    )


def answer_format_rule(response_format: Any, style: PromptStyle | None = None) -> str | None:
    """The prompt section that puts a client's ``response_format`` on the final answer
    only (``None`` for a plain-text format or none).

    A ``json_schema`` format gives its schema, ``json_object`` asks for one JSON object.
    In the notations whose answers are JSON themselves (constrained decoding, ``thought``)
    the rule applies to the text of ``answer``.
    """
    if not isinstance(response_format, dict):
        return None
    kind = response_format.get("type")
    if kind == "json_schema":
        spec = response_format.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            return None
        shape = "one JSON object matching this JSON schema:\n" + json.dumps(
            schema, ensure_ascii=False
        )
    elif kind == "json_object":
        shape = "one JSON object"
    else:
        return None
    style = style or PromptStyle()
    answer = (
        'the text of your "answer" must be'
        if style.constrained or style.notation == "thought"
        else "your whole answer must be"
    )
    return (
        "# Format of the final answer\n\n"
        "This format governs your final answer only, never your tool calls: call tools "
        "exactly as described above whenever they help, and when you answer without "
        f"calling a tool, {answer} {shape}"
    )


THOUGHT_NOTATION = (
    "Reply with exactly one JSON object and nothing else. To call a tool: "
    '{"thought": "<your reasoning>", "tool_name": "<tool name>", "tool_args": {<arguments>}}. '
    'To answer without tools: {"thought": "<your reasoning>", "answer": "<your answer>"}. '
    "To call several tools at once, reply with a JSON array of tool objects. The "
    "arguments must match the tool's parameters; tool results arrive in the next message."
)
"""The output rules of the ``thought`` notation."""


def json_listing(tool: JSONDict) -> str:
    """One tool as a line of JSON: name, description and parameter schema."""
    return _LISTING(
        {
            "name": tool_name(tool),
            "description": tool_function(tool).get("description", ""),
            "parameters": tool_parameters(tool),
        }
    )


_LISTING = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(..., ensure_ascii=False)`` with its encoder made once, not per call."""


def typescript_declaration(tool: JSONDict) -> str:
    """One tool as a TypeScript-style function declaration with its types."""
    params = tool_parameters(tool)
    defs: JSONDict = {**(params.get("definitions") or {}), **(params.get("$defs") or {})}
    lines: list[str] = []
    description = str(tool_function(tool).get("description") or "").strip()
    if description:
        lines.extend(f"// {line}" for line in description.splitlines())
    lines.append(f"function {tool_name(tool)}(args: {_object_type(params, defs, '  ')}): unknown;")
    for name, schema in defs.items():
        lines.append(f"type {name} = {ts_type(schema, defs, '  ')};")
    return "\n".join(lines)


def ts_type(schema: Any, defs: JSONDict, indent: str = "") -> str:
    """A TypeScript-style rendering of a JSON schema."""
    if not isinstance(schema, dict) or not schema:
        return "any"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(ts_type(s, defs, indent) for s in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(ts_type({**schema, "type": k}, defs, indent) for k in kind)
    if kind == "array":
        item = ts_type(schema.get("items"), defs, indent)
        return f"({item})[]" if " | " in item else f"{item}[]"
    if kind == "object" or "properties" in schema:
        if not schema.get("properties"):
            extra = schema.get("additionalProperties")
            value = ts_type(extra, defs, indent) if isinstance(extra, dict) else "any"
            return f"Record<string, {value}>"
        return _object_type(schema, defs, indent)
    return {
        "string": "string",
        "integer": "number",
        "number": "number",
        "boolean": "boolean",
        "null": "null",
    }.get(str(kind), "any")


def _object_type(schema: JSONDict, defs: JSONDict, indent: str) -> str:
    props: JSONDict = schema.get("properties") or {}
    if not props:
        return "{}"
    required = set(schema.get("required") or [])
    inner = indent + "  "
    lines = ["{"]
    for name, prop in props.items():
        if isinstance(prop, dict) and prop.get("description"):
            lines.append(f"{indent}// {prop['description']}")
        optional = "" if name in required else "?"
        note = (
            f" // default: {json.dumps(prop['default'])}"
            if isinstance(prop, dict) and "default" in prop
            else ""
        )
        lines.append(f"{indent}{name}{optional}: {ts_type(prop, defs, inner)},{note}")
    lines.append(indent[:-2] + "}")
    return "\n".join(lines)


def payload_schema(tools: list[JSONDict]) -> JSONDict:
    """The JSON schema of a constrained reply: tool calls, or an answer."""
    variants = [
        {
            "type": "object",
            "properties": {
                "name": {"const": tool_name(tool)},
                "arguments": _inline(tool_parameters(tool)),
            },
            "required": ["name", "arguments"],
        }
        for tool in tools
    ]
    return {
        "type": "object",
        "properties": {
            "tool_calls": {"type": "array", "items": {"anyOf": variants}, "minItems": 1},
            "answer": {"type": "string"},
        },
    }


def _inline(parameters: JSONDict) -> JSONDict:
    # References would resolve against the payload's root, so they are inlined.
    return inline_refs(parameters)


def constrained_request(
    style: PromptStyle, tools: list[JSONDict]
) -> tuple[JSONDict | None, JSONDict]:
    """``(response_format, extra settings)`` that ask the server for constrained output."""
    if style.constrained is None:
        return None, {}
    if style.constrained == "json_object":
        return {"type": "json_object"}, {}
    schema = payload_schema(tools)
    if style.constrained == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}, {}
    if style.constrained == "vllm":
        return None, {"structured_outputs": {"json": schema}}
    return None, {"guided_json": schema}
