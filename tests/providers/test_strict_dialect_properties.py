"""Property tests over generated tool schemas in the non-standard ("BFCL-style") dialect.

Schemas are generated with dialect type names (``dict``, ``float``, ``tuple``,
``any``, ``str``...) at every depth, dotted tool names, optional fields, ``$defs``,
and constructs outside OpenAI's strict subset. Each is checked with ``jsonschema``:
the tool's schema is valid JSON Schema, strict outputs conform to a meta-schema of the
strict subset (written here, independently of the code under test), values valid for
the tool stay valid once strict mode's nulls are added and then removed again, and
the structured reply schema resolves every ``$ref`` from its own root.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from good_agent.providers.openai.schema import to_openai_schema
from good_agent.providers.schema.nulls import drop_added_nulls
from good_agent.providers.schema.walk import iter_schemas
from good_agent.providers.strategies.structured import response_format
from good_agent.tools.tool import Tool

ALIASES = {
    "object": ["object", "dict", "Dict", "map"],
    "array": ["array", "list", "tuple", "List"],
    "string": ["string", "str", "String", "text"],
    "integer": ["integer", "int", "long"],
    "number": ["number", "float", "double"],
    "boolean": ["boolean", "bool"],
}
STANDARD = {"object", "array", "string", "integer", "number", "boolean", "null"}
NAMES = st.sampled_from(
    ["a", "b", "city", "zip", "n", "items", "type", "query", "max_results", "x1", "opts", "id"]
)
TOOL_NAMES = st.lists(NAMES, min_size=1, max_size=3).map(".".join)

# An independent description of OpenAI's strict subset (structured outputs,
# "Supported schemas"), as a JSON Schema that validates schemas.
_TYPES = ["object", "array", "string", "integer", "number", "boolean", "null"]
STRICT_META: dict[str, Any] = {
    "$defs": {
        "type": {
            "anyOf": [
                {"enum": _TYPES},
                {"type": "array", "items": {"enum": _TYPES}, "minItems": 1},
            ]
        },
        "text": {"type": "string"},
        "node": {
            "anyOf": [
                {"$ref": "#/$defs/object"},
                {"$ref": "#/$defs/array"},
                {"$ref": "#/$defs/scalar"},
                {"$ref": "#/$defs/ref"},
                {"$ref": "#/$defs/union"},
            ]
        },
        "object": {
            "type": "object",
            "properties": {
                "type": {"anyOf": [{"const": "object"}, {"const": ["object", "null"]}]},
                "properties": {"type": "object", "additionalProperties": {"$ref": "#/$defs/node"}},
                "required": {"type": "array", "items": {"type": "string"}},
                "additionalProperties": {"const": False},
                "description": {"$ref": "#/$defs/text"},
                "title": {"$ref": "#/$defs/text"},
            },
            "required": ["type", "properties", "required", "additionalProperties"],
            "additionalProperties": False,
        },
        "array": {
            "type": "object",
            "properties": {
                "type": {"anyOf": [{"const": "array"}, {"const": ["array", "null"]}]},
                "items": {"$ref": "#/$defs/node"},
                "minItems": {"type": "integer"},
                "maxItems": {"type": "integer"},
                "description": {"$ref": "#/$defs/text"},
                "title": {"$ref": "#/$defs/text"},
            },
            "required": ["type", "items"],
            "additionalProperties": False,
        },
        "scalar": {
            "type": "object",
            "properties": {
                "type": {"$ref": "#/$defs/type"},
                "enum": {"type": "array"},
                "const": True,
                "pattern": {"type": "string"},
                "format": {"enum": ["date-time", "date", "time", "email", "uuid"]},
                "minimum": {"type": "number"},
                "maximum": {"type": "number"},
                "description": {"$ref": "#/$defs/text"},
                "title": {"$ref": "#/$defs/text"},
            },
            "required": ["type"],
            "additionalProperties": False,
        },
        "ref": {
            "type": "object",
            "properties": {"$ref": {"type": "string", "pattern": "^#(/\\$defs/[^/]+)?$"}},
            "required": ["$ref"],
            "additionalProperties": False,
        },
        "union": {
            "type": "object",
            "properties": {
                "anyOf": {"type": "array", "items": {"$ref": "#/$defs/node"}, "minItems": 1},
                "description": {"$ref": "#/$defs/text"},
                "title": {"$ref": "#/$defs/text"},
            },
            "required": ["anyOf"],
            "additionalProperties": False,
        },
    },
    "allOf": [
        {"$ref": "#/$defs/object"},
        {"properties": {"type": {"const": "object"}}},
    ],
}


@dataclass
class Generated:
    """A generated schema (dialect spelling) and whether it is inside the strict subset."""

    schema: dict[str, Any]
    strict_ok: bool = True
    defs: dict[str, dict[str, Any]] = field(default_factory=dict)


def _alias(kind: str) -> st.SearchStrategy[str]:
    return st.sampled_from(ALIASES[kind])


@st.composite
def scalar(draw: st.DrawFn) -> Generated:
    kind = draw(st.sampled_from(["string", "integer", "number", "boolean"]))
    node: dict[str, Any] = {"type": draw(_alias(kind))}
    if draw(st.booleans()):
        node["description"] = draw(st.text(max_size=12))
    if kind == "string" and draw(st.integers(0, 4)) == 0:
        node["enum"] = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    return Generated(node)


@st.composite
def outside_subset(draw: st.DrawFn) -> Generated:
    """A construct OpenAI's strict mode rejects."""
    choice = draw(st.integers(0, 4))
    if choice == 0:
        return Generated({"type": "any"}, strict_ok=False)
    if choice == 1:
        return Generated({"description": draw(st.text(max_size=8))}, strict_ok=False)
    if choice == 2:
        return Generated({"type": draw(_alias("object"))}, strict_ok=False)
    if choice == 3:
        return Generated({"type": draw(_alias("string")), "minLength": 1}, strict_ok=False)
    return Generated({}, strict_ok=False)


def _extend(children: st.SearchStrategy[Generated]) -> st.SearchStrategy[Generated]:
    @st.composite
    def array(draw: st.DrawFn) -> Generated:
        item = draw(children)
        return Generated({"type": draw(_alias("array")), "items": item.schema}, item.strict_ok)

    @st.composite
    def obj(draw: st.DrawFn) -> Generated:
        names = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
        props = {name: draw(children) for name in names}
        required = [n for n in names if draw(st.booleans())]
        node: dict[str, Any] = {"properties": {n: g.schema for n, g in props.items()}}
        if draw(st.integers(0, 3)):
            node["type"] = draw(_alias("object"))
        if required:
            node["required"] = required
        return Generated(node, all(g.strict_ok for g in props.values()))

    return st.one_of(array(), obj())


def schemas(allow_outside: bool) -> st.SearchStrategy[Generated]:
    leaves = st.one_of(scalar(), outside_subset()) if allow_outside else scalar()
    return st.recursive(leaves, _extend, max_leaves=8)


@st.composite
def tool_schemas(draw: st.DrawFn, allow_outside: bool = True) -> Generated:
    """A root object in the dialect, some object children moved into ``$defs``."""
    names = draw(st.lists(NAMES, min_size=0, max_size=4, unique=True))
    children = {name: draw(schemas(allow_outside)) for name in names}
    props: dict[str, Any] = {}
    defs: dict[str, Any] = {}
    for name, child in children.items():
        if "properties" in child.schema and draw(st.booleans()):
            defs[f"M_{name}"] = child.schema
            props[name] = {"$ref": f"#/$defs/M_{name}"}
        else:
            props[name] = child.schema
    root: dict[str, Any] = {"type": draw(st.sampled_from(["dict", "object", "Dict"]))}
    if draw(st.integers(0, 4)) == 0:
        del root["type"]
    root["properties"] = props
    required = [n for n in names if draw(st.booleans())]
    if required:
        root["required"] = required
    if defs:
        root["$defs"] = defs
    return Generated(root, all(c.strict_ok for c in children.values()))


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target: dict[str, Any] = root["$defs"][ref.split("/")[-1]]
        return target
    return schema


def instances(schema: dict[str, Any], root: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid for a normalized (standard) schema; optional fields sometimes left out."""
    schema = _resolve(schema, root)
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties")
        if props is None:
            return st.dictionaries(NAMES, st.integers(), max_size=2)
        required = set(schema.get("required") or [])

        @st.composite
        def obj(draw: st.DrawFn) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for name, sub in props.items():
                if name in required or draw(st.booleans()):
                    out[name] = draw(instances(sub, root))
            return out

        return obj()
    if kind == "array":
        return st.lists(instances(schema.get("items") or {}, root), max_size=2)
    if kind == "string":
        min_size = int(schema.get("minLength", 0))
        return st.text(min_size=min_size, max_size=6)
    if kind == "integer":
        return st.integers(-5, 5)
    if kind == "number":
        return st.floats(-5, 5, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    return st.one_of(st.none(), st.integers(), st.text(max_size=3))


def with_nulls(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """``value`` as a strict model writes it: every left-out optional field as ``null``."""
    schema = _resolve(schema, root)
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        return {
            name: with_nulls(value[name], sub, root) if name in value else None
            for name, sub in schema["properties"].items()
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [with_nulls(item, schema["items"], root) for item in value]
    return value


def check_strict_shape(schema: dict[str, Any]) -> None:
    """The Python-side rules of the subset: every object lists all properties as required."""
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                assert sorted(node["required"]) == sorted(node["properties"])
                assert node["additionalProperties"] is False
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def test_the_meta_schema_itself_is_valid() -> None:
    Draft202012Validator.check_schema(STRICT_META)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(generated=tool_schemas(), name=TOOL_NAMES)
def test_from_schema_accepts_the_dialect_at_every_depth(generated: Generated, name: str) -> None:
    tool = Tool.from_schema(name, generated.schema, "generated")
    Draft202012Validator.check_schema(tool.parameters)
    assert tool.parameters["type"] == "object"
    for node in iter_schemas(tool.parameters):
        kind = node.get("type")
        assert kind is None or kind in STANDARD, node


@SETTINGS
@given(generated=tool_schemas())
def test_strict_is_decided_by_the_subset(generated: Generated) -> None:
    result = to_openai_schema(generated.schema)
    assert result.strict == generated.strict_ok, result.problems
    Draft202012Validator.check_schema(result.schema)
    if result.strict:
        Draft202012Validator(STRICT_META).validate(
            {k: v for k, v in result.schema.items() if k != "$defs"}
        )
        for sub in (result.schema.get("$defs") or {}).values():
            Draft202012Validator({**STRICT_META, "allOf": [{"$ref": "#/$defs/node"}]}).validate(sub)
        check_strict_shape(result.schema)


@SETTINGS
@given(generated=tool_schemas(allow_outside=False), data=st.data())
def test_strict_nulls_are_removed_at_every_depth(generated: Generated, data: st.DataObject) -> None:
    tool = Tool.from_schema("t", generated.schema)
    original = tool.parameters
    value = data.draw(instances(original, original))
    Draft202012Validator(original).validate(value)
    result = to_openai_schema(generated.schema)
    assert result.strict
    sent = with_nulls(value, original, original)
    Draft202012Validator(result.schema).validate(sent)
    restored = drop_added_nulls(sent, generated.schema)
    assert restored == value
    assert tool.validate(restored) == value


@SETTINGS
@given(generated=tool_schemas(allow_outside=False), name=TOOL_NAMES, data=st.data())
def test_structured_reply_schema_resolves_refs_from_its_root(
    generated: Generated, name: str, data: st.DataObject
) -> None:
    tool = Tool.from_schema(name, generated.schema)
    fmt = response_format([tool.signature])["json_schema"]
    assert fmt["strict"] is True
    reply_schema = fmt["schema"]
    Draft202012Validator.check_schema(reply_schema)
    value = data.draw(instances(tool.parameters, tool.parameters))
    reply = {
        "action": {
            "tool": name,
            "arguments": with_nulls(value, tool.parameters, tool.parameters),
            "scratchpad": None,
        }
    }
    Draft202012Validator(reply_schema).validate(reply)
