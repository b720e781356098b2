"""JSON Schema transformations shared by every vendor's schema dialect.

Each transformer first runs `normalize_schema`, which fixes the non-standard
type names common in hand-written tool definitions.
"""

from good_agent.providers.schema.normalize import normalize_schema, object_root
from good_agent.providers.schema.refs import inline_refs, is_recursive

__all__ = [
    "inline_refs",
    "is_recursive",
    "normalize_schema",
    "object_root",
]
