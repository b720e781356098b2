"""JSON Schema transformations shared by every vendor's schema dialect.

Each transformer first runs `normalize_schema`, which fixes the non-standard
type names common in hand-written tool definitions.
"""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face

if TYPE_CHECKING:
    from good_agent.providers.schema.normalize import normalize_schema, object_root
    from good_agent.providers.schema.refs import inline_refs, is_recursive

_LAZY: dict[str, str] = {
    "inline_refs": "good_agent.providers.schema.refs",
    "is_recursive": "good_agent.providers.schema.refs",
    "normalize_schema": "good_agent.providers.schema.normalize",
    "object_root": "good_agent.providers.schema.normalize",
}
"""Each public name and the module it is imported from on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

__all__ = [
    "inline_refs",
    "is_recursive",
    "normalize_schema",
    "object_root",
]
