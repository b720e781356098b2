"""Parser interface, the registry of text formats, and `parse_tool_calls`.

Every format is a set of `Marker` objects run by the same
`StreamingParser`, so one-shot and streaming parses agree by
construction. ``"auto"`` enables every built-in marker at once: whichever
opening appears in the text is recognized where it appears.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol, runtime_checkable

from good_agent.providers.text.engine import StreamingParser
from good_agent.providers.text.errors import TextParseError
from good_agent.providers.text.formats import granite, json_bare, pythonic, thought
from good_agent.providers.text.formats.llama import PYTHON_TAG
from good_agent.providers.text.formats.mistral import MISTRAL
from good_agent.providers.text.formats.tagged import FENCED, HERMES, HERMES_JSON, THINK
from good_agent.providers.text.markers import Marker, MarkerTable, compile_markers
from good_agent.providers.text.results import ParseResult
from good_agent.types.messages import ToolCall


@runtime_checkable
class ToolCallParser(Protocol):
    """A text tool-call format: a one-shot `parse` and a `streaming` parser."""

    name: str

    def parse(self, text: str, tools: Collection[str] | None = None) -> ParseResult:
        """Parse a complete model reply."""
        ...

    def streaming(self, tools: Collection[str] | None = None) -> StreamingParser:
        """Return a fresh incremental parser for one reply."""
        ...


class FormatParser:
    """A `ToolCallParser` built from markers (``<think>`` is always added).

    With ``tools`` given, a region whose calls name a tool not in ``tools`` is
    not turned into calls: its text stays in the content verbatim.
    """

    def __init__(self, name: str, markers: Sequence[Marker]) -> None:
        self.name = name
        self.markers = (THINK, *(marker for marker in markers if marker is not THINK))
        self._table: MarkerTable = compile_markers(self.markers)

    def parse(self, text: str, tools: Collection[str] | None = None) -> ParseResult:
        """Parse a complete model reply into calls, content and reasoning."""
        if not isinstance(text, str):
            raise TextParseError(f"expected str, got {type(text).__name__}")
        # The same engine as streaming, without building the stream's events.
        parser = StreamingParser(self._table, tools, events=False)
        parser.feed(text)
        parser.finish()
        return parser.result()

    def streaming(
        self, tools: Collection[str] | None = None, *, trim: bool = True
    ) -> StreamingParser:
        """Return a fresh incremental parser for one reply (``trim``: see `StreamingParser`)."""
        return StreamingParser(self._table, tools, trim=trim)

    def __repr__(self) -> str:
        return f"FormatParser({self.name!r})"


_ALL: tuple[Marker, ...] = (
    THINK,
    HERMES_JSON,
    HERMES,
    FENCED,
    MISTRAL,
    PYTHON_TAG,
    *granite.MARKERS,
    *json_bare.MARKERS,
    *pythonic.MARKERS,
)

_REGISTRY: dict[str, ToolCallParser] = {
    "auto": FormatParser("auto", _ALL),
    "json": FormatParser("json", json_bare.MARKERS),
    "fenced": FormatParser("fenced", (FENCED,)),
    "hermes": FormatParser("hermes", (HERMES_JSON, HERMES)),
    "mistral": FormatParser("mistral", (MISTRAL,)),
    "llama3": FormatParser("llama3", (PYTHON_TAG, json_bare.OBJECT)),
    "pythonic": FormatParser("pythonic", pythonic.MARKERS),
    "granite": FormatParser("granite", granite.MARKERS),
    "thought": FormatParser("thought", thought.MARKERS),
}

BUILTIN_FORMATS: tuple[str, ...] = tuple(sorted(_REGISTRY))
"""The names of the formats registered out of the box (`available_formats` also
lists those added with `register_format`)."""


def get_parser(name: str = "auto") -> ToolCallParser:
    """Return the registered parser called ``name`` (raises `TextParseError`)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise TextParseError(f"unknown text tool-call format {name!r}; known: {known}") from None


def register_format(parser: ToolCallParser, *, replace: bool = False) -> None:
    """Register a parser under ``parser.name`` (refuses to overwrite unless ``replace``)."""
    if parser.name in _REGISTRY and not replace:
        raise TextParseError(f"text tool-call format {parser.name!r} is already registered")
    _REGISTRY[parser.name] = parser


def available_formats() -> list[str]:
    """Names of the registered formats, sorted."""
    return sorted(_REGISTRY)


def parse_text(
    text: str, tools: Collection[str] | None = None, *, format: str = "auto"
) -> ParseResult:
    """Parse a model reply with the named format (default: auto-detect)."""
    return get_parser(format).parse(text, tools)


def parse_tool_calls(
    text: str, tools: Collection[str] | None = None, *, format: str = "auto"
) -> tuple[list[ToolCall], str]:
    """Extract tool calls written as text; return ``(calls, content)``.

    The thin form of [`parse_text`][good_agent.providers.parse_text]: reasoning is dropped. See
    `FormatParser` for what happens to calls naming unknown tools.
    """
    result = parse_text(text, tools, format=format)
    return result.calls, result.content
