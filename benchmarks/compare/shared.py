"""Inputs shared by every worker, so each library does the same work.

Nothing here imports a library under test: only pydantic (a dependency of all of
them) and the standard library. Workers import this module after their timed
imports, never before.
"""

from __future__ import annotations

import json
from typing import Any

from tool_functions import SCHEMA_FUNCTIONS

__all__ = ["SCHEMA_FUNCTIONS"]

# --------------------------------------------------------------------------
# Schema generation: the functions live in tool_functions.py; this reduces a
# generated schema to what must agree across libraries.
# --------------------------------------------------------------------------


def schema_shape(schema: dict[str, Any], defs: dict[str, Any] | None = None, depth: int = 0) -> Any:
    """The part of a JSON schema that must agree: properties, required, nesting.

    ``$ref`` is resolved so inlined and referenced models compare equal; titles,
    descriptions, defaults and constraints are left out (libraries word them
    differently without changing what the model may send).
    """
    defs = {**(defs or {}), **schema.get("$defs", {}), **schema.get("definitions", {})}
    if depth > 12:
        return "..."
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return schema_shape(defs[ref.rsplit("/", 1)[-1]], defs, depth + 1)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return {key: sorted(json.dumps(schema_shape(s, defs, depth + 1)) for s in schema[key])}
    if "enum" in schema:
        return {"enum": sorted(map(str, schema["enum"]))}
    if "const" in schema:
        return {"enum": [str(schema["const"])]}
    out: dict[str, Any] = {"type": schema.get("type")}
    if "properties" in schema:
        out["properties"] = {
            name: schema_shape(sub, defs, depth + 1) for name, sub in schema["properties"].items()
        }
        out["required"] = sorted(schema.get("required", []))
    if "items" in schema:
        out["items"] = schema_shape(schema["items"], defs, depth + 1)
    return out


# --------------------------------------------------------------------------
# Tool-call round trip: 5 model turns, 2 tools, one parallel pair.
# --------------------------------------------------------------------------

ROUND_TRIP_PROMPT = "Weather in Paris and Oslo, then stock of A1."

ROUND_TRIP_SCRIPT: list[list[tuple[str, dict[str, Any]]] | str] = [
    [("weather", {"city": "Paris"})],
    [("weather", {"city": "Oslo", "days": 2}), ("stock", {"sku": "A1"})],
    [("stock", {"sku": "B2", "warehouse": "north"})],
    [("weather", {"city": "Lima", "days": 3})],
    "Paris is sunny, Oslo too; A1 and B2 are in stock.",
]
"""Each entry is one model turn: a list of tool calls (run in parallel) or the answer."""

ROUND_TRIP_CALLS = sum(len(turn) for turn in ROUND_TRIP_SCRIPT if isinstance(turn, list))

ROUND_TRIP_LENGTHS = (10, 50, 200)
"""Conversation lengths (sequential tool calls) of the long round trips."""


def long_round_trip(calls: int) -> list[list[tuple[str, dict[str, Any]]] | str]:
    """``calls`` model turns of one tool call each, then the answer: the history grows."""
    cities = ["Paris", "Oslo", "Lima", "Rome"]
    script: list[list[tuple[str, dict[str, Any]]] | str] = []
    for index in range(calls):
        if index % 2:
            script.append([("stock", {"sku": f"A{index}"})])
        else:
            script.append([("weather", {"city": cities[index % 4], "days": 1 + index % 3})])
    script.append(f"Done after {calls} calls.")
    return script


async def weather(city: str, days: int = 1) -> str:
    """Forecast for a city.

    Args:
        city: City name.
        days: Number of days.
    """
    return f"{city}: sunny for {days} day(s)"


async def stock(sku: str, warehouse: str | None = None) -> int:
    """Stock level of a product.

    Args:
        sku: Product code.
        warehouse: Only this warehouse.
    """
    return 7


# --------------------------------------------------------------------------
# Provider translation: one OpenAI-format request with tool calls and results.
# --------------------------------------------------------------------------

TRANSLATION_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name."},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer", "default": 1},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "lookup_stock",
            "description": "Stock level of a product.",
            "parameters": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string"},
                    "warehouses": {"type": "array", "items": {"type": "string"}},
                    "detail": {
                        "type": "object",
                        "properties": {
                            "level": {"type": "string", "enum": ["summary", "full"]},
                            "include_reserved": {"type": "boolean"},
                        },
                        "required": ["level"],
                    },
                },
                "required": ["sku"],
            },
        },
    },
]


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


TRANSLATION_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a helpful shop assistant."},
    {"role": "user", "content": "What's the weather in Paris and Oslo?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            _call("call_1", "get_weather", {"city": "Paris"}),
            _call("call_2", "get_weather", {"city": "Oslo", "unit": "celsius"}),
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"forecast": "sunny", "high": 21}'},
    {"role": "tool", "tool_call_id": "call_2", "content": '{"forecast": "rain", "high": 12}'},
    {"role": "assistant", "content": "Paris is sunny (21), Oslo rainy (12)."},
    {"role": "user", "content": "And is SKU A1 in stock?"},
    {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            _call("call_3", "lookup_stock", {"sku": "A1", "detail": {"level": "full"}}),
        ],
    },
    {"role": "tool", "tool_call_id": "call_3", "content": '{"sku": "A1", "available": 7}'},
    {"role": "user", "content": "Thanks, and B2 in the north warehouse?"},
]


def anthropic_shape(body: dict[str, Any]) -> Any:
    """What an Anthropic Messages request must agree on across libraries."""
    return {
        "system": _flat_text(body.get("system")),
        "messages": [
            (m["role"], [_anthropic_block(b) for b in _blocks(m["content"])])
            for m in body["messages"]
        ],
        "tools": [(t["name"], schema_shape(t["input_schema"])) for t in body.get("tools", [])],
    }


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _anthropic_block(block: dict[str, Any]) -> Any:
    kind = block["type"]
    if kind == "text":
        return ("text", block["text"])
    if kind == "tool_use":
        return ("tool_use", block["id"], block["name"], block["input"])
    if kind == "tool_result":
        return ("tool_result", block["tool_use_id"], _flat_text(block.get("content")))
    return (kind,)


def _flat_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def gemini_shape(body: dict[str, Any]) -> Any:
    """What a Gemini request must agree on across libraries (either key casing).

    Consecutive contents of one role are merged first: Gemini reads two adjacent
    ``user`` contents as one turn, and libraries differ in whether they merge them.
    """
    system = body.get("system_instruction") or body.get("systemInstruction") or {}
    tools = body.get("tools") or []
    declarations = []
    for entry in tools:
        declarations += (
            entry.get("function_declarations") or entry.get("functionDeclarations") or []
        )
    contents: list[tuple[str, list[Any]]] = []
    for content in body["contents"]:
        parts = [_gemini_part(p) for p in content["parts"]]
        if contents and contents[-1][0] == content["role"]:
            contents[-1][1].extend(parts)
        else:
            contents.append((content["role"], parts))
    return {
        "system": _flat_text(system.get("parts")),
        "contents": contents,
        "tools": [
            (d["name"], _upper_shape(schema_shape(d.get("parameters", {})))) for d in declarations
        ],
    }


def _gemini_part(part: dict[str, Any]) -> Any:
    if "text" in part:
        return ("text", part["text"])
    call = part.get("function_call") or part.get("functionCall")
    if call is not None:
        return ("function_call", call["name"], call.get("args", {}))
    response = part.get("function_response") or part.get("functionResponse")
    if response is not None:
        return ("function_response", response["name"])
    return tuple(sorted(part))


def _upper_shape(shape: Any) -> Any:
    """Gemini's schema types may be spelled ``STRING`` or ``string``: compare lowercased."""
    if isinstance(shape, dict):
        return {
            key: value.lower() if key == "type" and isinstance(value, str) else _upper_shape(value)
            for key, value in shape.items()
        }
    if isinstance(shape, list):
        return [_upper_shape(item) for item in shape]
    return shape


# --------------------------------------------------------------------------
# Text extraction: one JSON tool call inside a model's prose.
# --------------------------------------------------------------------------

TEXT_SAMPLES: list[str] = [
    'I will look that up.\n```json\n{"name": "get_weather", "arguments": '
    '{"city": "Paris", "unit": "celsius"}}\n```',
    'Sure! Here is the call:\n\n```json\n{"name": "lookup_stock", "arguments": '
    '{"sku": "A1", "warehouses": ["north", "south"], "detail": {"level": "full", '
    '"include_reserved": true}}}\n```\nI will report back.',
    '```json\n{"name": "send_email", "arguments": {"to": ["a@example.com"], '
    '"subject": "Re: \\"quote\\" {braces}", "body": "Line one\\nLine two"}}\n```',
    'Thinking about it, the best tool is search.\n```json\n{"name": "search_documents", '
    '"arguments": {"query": {"text": "tax 2024", "filters": [{"field": "year", "op": "eq", '
    '"value": 2024}], "page": 2}}}\n```',
]
"""Each sample holds exactly one fenced JSON tool call, the common shape both handle."""

TEXT_TOOLS = ["get_weather", "lookup_stock", "send_email", "search_documents"]
