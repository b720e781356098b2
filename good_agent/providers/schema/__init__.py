"""JSON Schema transformers, one per provider, applied to every tool's parameters.

Each transformer first runs :func:`normalize_schema`, which fixes the non-standard
type names common in hand-written tool definitions.
"""

from good_agent.providers.schema.anthropic import to_anthropic_schema
from good_agent.providers.schema.gemini import to_gemini_schema
from good_agent.providers.schema.normalize import normalize_schema, object_root
from good_agent.providers.schema.openai import (
    StrictResult,
    drop_added_nulls,
    make_strict,
    strict_problems,
    to_openai_schema,
)
from good_agent.providers.schema.refs import inline_refs, is_recursive

__all__ = [
    "StrictResult",
    "drop_added_nulls",
    "inline_refs",
    "is_recursive",
    "make_strict",
    "normalize_schema",
    "object_root",
    "strict_problems",
    "to_anthropic_schema",
    "to_gemini_schema",
    "to_openai_schema",
]
