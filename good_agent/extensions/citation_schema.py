"""Where the URLs of a tool's parameters sit, at any depth, and their translation.

`compile_url_slots` walks a parameters schema (``$defs`` / ``$ref``, nested
objects, arrays, ``anyOf`` / ``oneOf`` unions, ``additionalProperties`` maps) and
finds every URL field, and every map key that holds URLs: the keys of a map with
URL-typed keys (``propertyNames`` with ``format: uri``: ``dict[HttpUrl, ...]``) and
the keys of a map whose values hold URLs. `rewrite_schema` gives the schema
the model sees, with each URL field replaced by a source number (``url`` -> ``citation_idx``), and
`translate_arguments` turns the
model's numbers back into the registered URLs.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal

URI_FORMATS = frozenset({"uri", "url", "iri", "uri-reference"})

UrlForm = Literal["one", "many", "either"]
"""A URL field's shape: one URL, a list of URLs, or either (``str | list[str]``)."""

KeyForm = Literal["url", "free"]
"""A map's keys: URL-typed (the model passes source numbers, as strings), or free
text in which any URL must be a registered source."""

KEY_PATTERN = "^[1-9][0-9]*$"
"""The keys of a map with URL-typed keys, as the model sees them: source numbers."""


@dataclass(frozen=True, slots=True)
class UrlSlot:
    """A URL position: the model passes source numbers there."""

    form: UrlForm
    nullable: bool
    schema: dict[str, Any]
    name: str = "url"


@dataclass(frozen=True, slots=True)
class FieldSlot:
    """A property of an object that holds URLs: directly (renamed) or deeper down."""

    original: str
    replacement: str
    node: Node


@dataclass(frozen=True, slots=True)
class ObjectSlot:
    """An object with URL-bearing properties."""

    fields: tuple[FieldSlot, ...]


@dataclass(frozen=True, slots=True)
class ArraySlot:
    """An array whose items hold URLs."""

    items: Node


@dataclass(frozen=True, slots=True)
class MapSlot:
    """An object of arbitrary keys (``additionalProperties``) whose keys or values hold
    URLs (``values`` is ``None`` when only the keys do)."""

    values: Node | None
    keys: KeyForm = "free"


@dataclass(frozen=True, slots=True)
class UnionSlot:
    """``anyOf`` / ``oneOf`` with at least one URL-bearing branch (``None`` elsewhere)."""

    branches: tuple[Node | None, ...]


@dataclass(frozen=True, slots=True)
class RefSlot:
    """A ``$ref`` to a definition that holds URLs (resolved at call time: recursion)."""

    name: str


Node = UrlSlot | ObjectSlot | ArraySlot | MapSlot | UnionSlot | RefSlot


def _is_url_name(name: str, many: bool) -> bool:
    ending = "urls" if many else "url"
    return name == ending or name.endswith("_" + ending)


def _branches(schema: dict[str, Any]) -> list[Any] | None:
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return list(schema[key])
    return None


def _is_string_url(schema: Any, name: str) -> bool:
    if not isinstance(schema, dict) or schema.get("type") != "string":
        return False
    return _is_url_name(name, False) or schema.get("format") in URI_FORMATS


def _is_url_list(schema: Any, name: str) -> bool:
    if not isinstance(schema, dict) or schema.get("type") != "array":
        return False
    items = schema.get("items")
    if not isinstance(items, dict) or items.get("type") != "string":
        return False
    return (
        _is_url_name(name, True) or _is_url_name(name, False) or items.get("format") in URI_FORMATS
    )


def _is_url_keys(schema: Any) -> bool:
    """Whether ``schema`` (a map's ``propertyNames``) makes its keys URLs."""
    return isinstance(schema, dict) and schema.get("format") in URI_FORMATS


def _is_url_map(schema: Any, name: str) -> bool:
    """``urls: dict[str, str]``: a map named like a list of URLs, of string values."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return False
    values = schema.get("additionalProperties")
    return (
        _is_url_name(name, True)
        and not schema.get("properties")
        and isinstance(values, dict)
        and values.get("type") == "string"
    )


def url_form(name: str, schema: Any) -> tuple[UrlForm, bool] | None:
    """``(form, nullable)`` when property ``name: schema`` is a URL field, else ``None``."""
    if not isinstance(schema, dict):
        return None
    if _is_string_url(schema, name):
        return "one", False
    if _is_url_list(schema, name) and (
        _is_url_name(name, True) or schema["items"].get("format") in URI_FORMATS
    ):
        return "many", False
    branches = _branches(schema)
    if not branches:
        return None
    nullable = {"type": "null"} in branches
    rest = [b for b in branches if b != {"type": "null"}]
    singles = [b for b in rest if _is_string_url(b, name)]
    lists = [b for b in rest if _is_url_list(b, name)]
    if not rest or len(singles) + len(lists) != len(rest):
        return None
    if singles and lists:
        return "either", nullable
    return ("one" if singles else "many"), nullable


def replacement_name(name: str, form: UrlForm) -> str:
    """``url`` -> ``citation_idx``, ``source_urls`` -> ``source_citation_idxs``,
    ``link`` -> ``link_citation_idx``."""
    suffix = "citation_idxs" if form == "many" else "citation_idx"
    for ending in ("urls", "url"):
        if name == ending:
            return suffix
        if name.endswith("_" + ending):
            return name[: -len(ending)] + suffix
    return f"{name}_{suffix}"


@dataclass(slots=True)
class Slots:
    """The URL positions of one parameters schema: ``root`` and its definitions."""

    root: ObjectSlot | None
    defs: dict[str, Node | None] = field(default_factory=dict)

    @property
    def top_level(self) -> tuple[FieldSlot, ...]:
        """The renamed top-level URL parameters."""
        if self.root is None:
            return ()
        return tuple(f for f in self.root.fields if isinstance(f.node, UrlSlot))

    @property
    def replacements(self) -> frozenset[str]:
        """The name of every source-number field, at any depth."""
        names: set[str] = set()
        stack: list[Node | None] = [self.root, *self.defs.values()]
        while stack:
            node = stack.pop()
            if isinstance(node, ObjectSlot):
                for slot in node.fields:
                    if isinstance(slot.node, UrlSlot):
                        names.add(slot.replacement)
                    else:
                        stack.append(slot.node)
            elif isinstance(node, ArraySlot):
                stack.append(node.items)
            elif isinstance(node, MapSlot):
                stack.append(node.values)
            elif isinstance(node, UnionSlot):
                stack.extend(node.branches)
        return frozenset(names)


class _Compiler:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs_schema = defs
        self.defs: dict[str, Node | None] = {}
        self.in_progress: set[str] = set()

    def ref(self, ref: str) -> Node | None:
        name = ref.rsplit("/", 1)[-1]
        if not ref.startswith(("#/$defs/", "#/definitions/")) or name not in self.defs_schema:
            return None
        if name in self.defs:
            return RefSlot(name) if self.defs[name] is not None else None
        if name in self.in_progress:
            return RefSlot(name)
        self.in_progress.add(name)
        compiled = self.node(self.defs_schema[name])
        self.in_progress.discard(name)
        self.defs[name] = compiled
        return RefSlot(name) if compiled is not None else None

    def url_map(self, name: str, schema: dict[str, Any]) -> MapSlot:
        """``urls: dict[str, str]``: its values are URLs, its keys free text."""
        values = UrlSlot("one", False, dict(schema["additionalProperties"]), name)
        keys: KeyForm = "url" if _is_url_keys(schema.get("propertyNames")) else "free"
        return MapSlot(values, keys)

    def mixed(self, name: str, schema: Any) -> Node | None:
        """A property that is a union of URL and other branches (``url: str | Link``):
        its URL branches take source numbers, the name stays."""
        if _is_url_map(schema, name):
            return self.url_map(name, schema)
        branches = _branches(schema) if isinstance(schema, dict) else None
        if not branches:
            return self.node(schema)
        compiled: list[Node | None] = []
        for branch in branches:
            if _is_string_url(branch, name):
                compiled.append(UrlSlot("one", False, dict(branch), name))
            elif _is_url_list(branch, name) and _is_url_name(name, True):
                compiled.append(UrlSlot("many", False, dict(branch), name))
            elif _is_url_map(branch, name):
                compiled.append(self.url_map(name, branch))
            else:
                compiled.append(self.node(branch))
        return UnionSlot(tuple(compiled)) if any(c is not None for c in compiled) else None

    def node(self, schema: Any) -> Node | None:
        if not isinstance(schema, dict):
            return None
        if isinstance(schema.get("$ref"), str):
            return self.ref(schema["$ref"])
        if _is_string_url(schema, ""):  # a URL-typed item or map value, not a property
            return UrlSlot("one", False, dict(schema))
        branches = _branches(schema)
        if branches is not None:
            compiled = tuple(self.node(b) for b in branches)
            return UnionSlot(compiled) if any(c is not None for c in compiled) else None
        if schema.get("type") == "array" or "items" in schema:
            items = self.node(schema.get("items"))
            return ArraySlot(items) if items is not None else None
        props = schema.get("properties")
        fields: list[FieldSlot] = []
        if isinstance(props, dict):
            for name, sub in props.items():
                if not isinstance(name, str):
                    continue
                kind = url_form(name, sub)
                if kind is not None:
                    new = replacement_name(name, kind[0])
                    new = new if new not in props else name
                    slot = UrlSlot(kind[0], kind[1], dict(sub), name)
                    fields.append(FieldSlot(name, new, slot))
                    continue
                inner = self.mixed(name, sub)
                if inner is not None:
                    fields.append(FieldSlot(name, name, inner))
        if fields:
            return ObjectSlot(tuple(fields))
        extra = schema.get("additionalProperties")
        values = self.node(extra) if isinstance(extra, dict) else None
        if _is_url_keys(schema.get("propertyNames")):
            return MapSlot(values, "url")
        return MapSlot(values) if values is not None else None


def compile_url_slots(parameters: dict[str, Any]) -> Slots:
    """The URL positions of a tool's ``parameters`` schema."""
    defs = parameters.get("$defs") or parameters.get("definitions") or {}
    compiler = _Compiler(defs if isinstance(defs, dict) else {})
    root = compiler.node({k: v for k, v in parameters.items() if k not in ("$defs", "definitions")})
    if root is not None and not isinstance(root, ObjectSlot):
        root = None
    for name in list(compiler.defs_schema):
        if name not in compiler.defs:
            compiler.ref(f"#/$defs/{name}")
    return Slots(root, compiler.defs)


def index_schema(slot: UrlSlot, original: str, count: int) -> dict[str, Any]:
    """The schema of the source numbers that replace URL field ``original``."""
    bound: dict[str, Any] = {"type": "integer", "minimum": 1}
    if count:
        bound["maximum"] = count
        valid = f"valid: 1 to {count}"
    else:
        valid = "no sources are registered yet"
    many = {"one": "the number n of a source [n]", "many": "numbers n of sources [n]"}
    what = many.get(slot.form, "the number n of a source [n], or a list of them")
    text = f"Instead of a URL ({original}): {what} from the sources list ({valid})."
    described = slot.schema.get("description")
    if described:
        text += f" {described}"
    listed: dict[str, Any] = {"type": "array", "items": bound}
    if slot.form == "many":
        arrays = [b for b in _branches(slot.schema) or [slot.schema] if isinstance(b, dict)]
        core: dict[str, Any] = next((b for b in arrays if b.get("type") == "array"), {})
        for key in ("minItems", "maxItems"):
            if key in core:
                listed[key] = core[key]
    schema: dict[str, Any]
    if slot.form == "one":
        schema = dict(bound)
    elif slot.form == "many":
        schema = listed
    else:
        schema = {"anyOf": [dict(bound), listed]}
    if slot.nullable:
        schema = {"anyOf": [*schema.get("anyOf", [schema]), {"type": "null"}]}
    if "default" in slot.schema:
        schema["default"] = slot.schema["default"]
    if "title" in slot.schema:
        schema["title"] = slot.schema["title"]
    schema["description"] = text
    return schema


def key_schema(count: int) -> dict[str, Any]:
    """The ``propertyNames`` of a map with URL-typed keys: source numbers, as strings."""
    valid = f"valid: 1 to {count}" if count else "no sources are registered yet"
    return {
        "type": "string",
        "pattern": KEY_PATTERN,
        "description": f"Instead of a URL: the number n of a source [n] ({valid}).",
    }


def rewrite_schema(parameters: dict[str, Any], slots: Slots, count: int) -> dict[str, Any]:
    """A copy of ``parameters`` with every URL field replaced by source numbers."""
    result = copy.deepcopy(parameters)
    defs_key = "$defs" if "$defs" in result else "definitions"
    found = result.get(defs_key)
    defs: dict[str, Any] = found if isinstance(found, dict) else {}
    for name, node in slots.defs.items():
        if node is not None and name in defs:
            defs[name] = _rewrite(defs[name], node, count)
    if slots.root is not None:
        body = {k: v for k, v in result.items() if k not in ("$defs", "definitions")}
        rewritten = _rewrite(body, slots.root, count)
        for key, value in rewritten.items():
            result[key] = value
    return result


def _rewrite(schema: Any, node: Node, count: int) -> Any:
    if isinstance(node, UrlSlot):  # a URL branch of a union
        return index_schema(node, node.name, count)
    if not isinstance(schema, dict) or isinstance(node, RefSlot):
        return schema
    schema = dict(schema)
    if isinstance(node, UnionSlot):
        key = "anyOf" if isinstance(schema.get("anyOf"), list) else "oneOf"
        schema[key] = [
            b if n is None else _rewrite(b, n, count)
            for b, n in zip(schema[key], node.branches, strict=True)
        ]
    elif isinstance(node, ArraySlot):
        schema["items"] = _rewrite(schema.get("items"), node.items, count)
    elif isinstance(node, MapSlot):
        if node.values is not None:
            schema["additionalProperties"] = _rewrite(
                schema["additionalProperties"], node.values, count
            )
        if node.keys == "url":
            schema["propertyNames"] = key_schema(count)
    else:
        by_name = {f.original: f for f in node.fields}
        props: dict[str, Any] = {}
        for name, sub in (schema.get("properties") or {}).items():
            slot = by_name.get(name)
            if slot is None:
                props[name] = sub
            elif isinstance(slot.node, UrlSlot):
                props[slot.replacement] = index_schema(slot.node, name, count)
            else:
                props[name] = _rewrite(sub, slot.node, count)
        schema["properties"] = props
        if isinstance(schema.get("required"), list):
            schema["required"] = [
                by_name[r].replacement if r in by_name else r for r in schema["required"]
            ]
    return schema
