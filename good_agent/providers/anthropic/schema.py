"""Anthropic tool ``input_schema`` transformation.

Anthropic accepts standard JSON Schema (``$ref``/``$defs`` included) with an object
at the root. Reference: https://docs.anthropic.com/en/docs/build-with-claude/tool-use/overview
"""

from __future__ import annotations

from good_agent.providers.schema.normalize import object_root
from good_agent.providers.types import JSONDict

_DROPPED = ("$schema", "$id")


def to_anthropic_schema(schema: JSONDict | None) -> JSONDict:
    """Return ``schema`` normalized, with an object root, for ``input_schema``."""
    root = object_root(schema)
    for key in _DROPPED:
        root.pop(key, None)
    return root
