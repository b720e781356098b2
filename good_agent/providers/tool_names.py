"""Reversible sanitizing of tool names for providers with a restricted alphabet.

OpenAI and Anthropic accept ``^[a-zA-Z0-9_-]{1,64}$``; Gemini also accepts dots and
colons but wants a letter or underscore first. A `ToolNameMap` is built per
request from the tool list, rewrites each name into what the provider accepts and
maps the names in the reply back, so ``math.factorial`` survives the round trip.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from good_agent.providers.arguments import with_call_changes
from good_agent.providers.schema.nulls import drop_added_nulls
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ToolCall


@dataclass(frozen=True, slots=True)
class NameRule:
    """What a provider accepts as a tool name.

    ``allowed`` is a character class body (as in ``[...]``), ``max_length`` the
    longest name, ``first`` a character class the first character must match
    (``None`` for no extra rule).
    """

    allowed: str = "a-zA-Z0-9_-"
    max_length: int = 64
    first: str | None = None
    _valid: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The whole rule as one pattern, compiled once (names are checked per request).
        first = "" if self.first is None else f"(?=[{self.first}])"
        object.__setattr__(self, "_valid", re.compile(f"{first}[{self.allowed}]+"))

    def is_valid(self, name: str) -> bool:
        """Whether ``name`` is acceptable as is."""
        if not name or len(name) > self.max_length:
            return False
        return self._valid.fullmatch(name) is not None


OPENAI_NAMES = NameRule()
"""OpenAI Chat Completions and Responses: ``^[a-zA-Z0-9_-]{1,64}$``."""

ANTHROPIC_NAMES = NameRule()
"""Anthropic Messages: ``^[a-zA-Z0-9_-]{1,64}$``."""

GEMINI_NAMES = NameRule(allowed="a-zA-Z0-9_.:-", max_length=64, first="a-zA-Z_")
"""Gemini: letters, digits, ``_ . : -``, starting with a letter or underscore."""

PERMISSIVE_NAMES = NameRule(allowed="^\\s", max_length=256)
"""Servers without a documented restriction (Ollama): anything without whitespace."""


class ToolNameMap:
    """A two-way mapping between original tool names and provider-safe names.

    Valid names map to themselves. An invalid name has its disallowed characters
    replaced by ``_``; when that collides with another name or is too long, a short
    hash of the original is appended, so the result depends only on the names.
    """

    def __init__(self, rule: NameRule, names: Iterable[str] = ()) -> None:
        self.rule = rule
        self.strict_schemas: dict[str, JSONDict] = {}
        """Per original tool name sent strict, its own parameters schema; decoders
        drop the ``null`` values strict mode forced for optional fields, at every
        depth, so the tool sees what it declared."""
        self._to_provider: dict[str, str] = {}
        self._to_original: dict[str, str] = {}
        originals = list(dict.fromkeys(names))
        for name in originals:
            if rule.is_valid(name):
                self._add(name, name)
        for name in originals:
            if name not in self._to_provider:
                self._add(name, self._sanitize(name))

    @classmethod
    def for_tools(cls, rule: NameRule, tools: Iterable[JSONDict]) -> ToolNameMap:
        """Build the map for OpenAI function-format ``tools``."""
        return cls(rule, (tool_name(tool) for tool in tools))

    def _add(self, original: str, safe: str) -> None:
        self._to_provider[original] = safe
        self._to_original[safe] = original

    def _sanitize(self, name: str) -> str:
        rule = self.rule
        base = re.sub(f"[^{rule.allowed}]", "_", name) or "tool"
        if rule.first is not None and re.match(f"[{rule.first}]", base) is None:
            base = "_" + base
        if len(base) <= rule.max_length and base not in self._to_original:
            return base
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        return f"{base[: rule.max_length - 9]}_{digest}"

    def to_provider(self, name: str) -> str:
        """The provider-safe name for ``name`` (names outside the map are sanitized too)."""
        safe = self._to_provider.get(name)
        if safe is None:
            safe = name if self.rule.is_valid(name) else self._sanitize(name)
            self._add(name, safe)
        return safe

    def to_original(self, name: str) -> str:
        """The original name for a provider-safe ``name``; unknown names pass through."""
        return self._to_original.get(name, name)

    def restore_arguments(self, name: str, arguments: JSONDict | None) -> JSONDict | None:
        """Undo strict mode on decoded ``arguments`` of tool ``name`` (original name)."""
        schema = self.strict_schemas.get(name)
        if schema is None or arguments is None:
            return arguments
        return drop_added_nulls(arguments, schema)

    def items(self) -> list[tuple[str, str]]:
        """``(original, provider_name)`` pairs."""
        return list(self._to_provider.items())


def tool_name(tool: JSONDict) -> str:
    """The name of an OpenAI function-format tool (or a bare function dict)."""
    function = tool.get("function", tool)
    return str(function.get("name", ""))


def tool_function(tool: JSONDict) -> JSONDict:
    """The ``function`` object of an OpenAI function-format tool."""
    function = tool.get("function", tool)
    return function if isinstance(function, dict) else {}


def tool_parameters(tool: JSONDict) -> JSONDict:
    """The parameters schema of a tool, defaulting to an empty object schema."""
    params = tool_function(tool).get("parameters")
    if isinstance(params, dict) and params:
        return params
    return {"type": "object", "properties": {}}


def restore_call(call: ToolCall, names: ToolNameMap | None) -> ToolCall:
    """Map a decoded call back to the original tool name and undo strict nulls."""
    if names is None:
        return call
    original = names.to_original(call.name)
    arguments = call.arguments
    if call.arguments_error is None:
        arguments = names.restore_arguments(original, arguments) or {}
    if original == call.name and arguments is call.arguments:
        return call
    return with_call_changes(call, name=original, arguments=arguments)
