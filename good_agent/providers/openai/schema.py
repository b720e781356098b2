"""OpenAI's schema dialect: the strict form of JSON Schema, where the schema allows it.

The transformation itself is vendor-neutral (typed output and the structured strategy
use it for every vendor) and lives in `good_agent.providers.schema.strict`;
this module names it for the OpenAI codecs.
"""

from __future__ import annotations

from good_agent.providers.schema.nulls import drop_added_nulls
from good_agent.providers.schema.strict import (
    UNSUPPORTED_IN_STRICT,
    StrictResult,
    make_nullable,
    make_strict,
    strict_problems,
    to_strict_schema,
)

to_openai_schema = to_strict_schema
"""Transform a tool's parameters for OpenAI (see
`to_strict_schema`)."""

__all__ = [
    "UNSUPPORTED_IN_STRICT",
    "StrictResult",
    "drop_added_nulls",
    "make_nullable",
    "make_strict",
    "strict_problems",
    "to_openai_schema",
]
