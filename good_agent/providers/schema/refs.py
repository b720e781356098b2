"""Inlining of local ``$ref`` references, with a fallback for recursive models."""

from __future__ import annotations

from typing import Any

from good_agent.providers.schema.walk import map_children
from good_agent.providers.types import JSONDict

_DEF_KEYS = ("$defs", "definitions")


def has_refs(schema: Any) -> bool:
    """Whether ``schema`` contains any ``$ref``."""
    if isinstance(schema, dict):
        return "$ref" in schema or any(has_refs(v) for v in schema.values())
    if isinstance(schema, list):
        return any(has_refs(v) for v in schema)
    return False


def is_recursive(schema: JSONDict) -> bool:
    """Whether a definition of ``schema`` refers back to itself, directly or not."""
    defs = _definitions(schema)
    visiting: set[str] = set()
    done: set[str] = set()

    def refs_in(node: Any) -> list[str]:
        if isinstance(node, dict):
            out = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
            for value in node.values():
                out.extend(refs_in(value))
            return out
        if isinstance(node, list):
            return [ref for item in node for ref in refs_in(item)]
        return []

    def cyclic(ref: str) -> bool:
        if ref in visiting:
            return True
        if ref in done or ref not in defs:
            return False
        visiting.add(ref)
        found = any(cyclic(inner) for inner in refs_in(defs[ref]))
        visiting.discard(ref)
        done.add(ref)
        return found

    return any(cyclic(ref) for ref in defs) or "#" in refs_in(schema)


def inline_refs(
    schema: JSONDict, *, max_depth: int = 2, fallback: JSONDict | None = None
) -> JSONDict:
    """Return ``schema`` with local ``$ref`` replaced by the referenced definition.

    A recursive model is unrolled ``max_depth`` times; deeper references become
    ``fallback`` (by default an object schema whose description names the model).
    ``$defs`` and ``definitions`` are removed from the result.
    """
    defs = _definitions(schema)
    root = {k: v for k, v in schema.items() if k not in _DEF_KEYS}

    def resolve(node: JSONDict, stack: tuple[str, ...]) -> JSONDict:
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = root if ref == "#" else defs.get(ref)
            if target is None:
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return resolve(rest, stack) if rest else {}
            if stack.count(ref) >= max_depth:
                name = ref.rsplit("/", 1)[-1] or "value"
                return (
                    dict(fallback)
                    if fallback is not None
                    else {
                        "type": "object",
                        "description": f"A nested {name} (depth limit reached).",
                    }
                )
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            merged = {**target, **siblings}
            return resolve(merged, (*stack, ref))
        return map_children(node, lambda child: resolve(child, stack))

    return resolve(root, ())


def _definitions(schema: JSONDict) -> dict[str, JSONDict]:
    defs: dict[str, JSONDict] = {}
    for key in _DEF_KEYS:
        table = schema.get(key)
        if isinstance(table, dict):
            for name, sub in table.items():
                if isinstance(sub, dict):
                    defs[f"#/{key}/{name}"] = sub
    return defs
