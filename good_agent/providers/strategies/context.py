"""What decoding a reply needs to know about the request it answers.

Encoding a request builds the tool-name map (sanitized names, strict-mode nulls
to undo) and knows the offered tools and the tool choice. Decoding the reply,
whole or streamed, reads them from the `RequestContext` made at encoding
time instead of encoding the request a second time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from good_agent.providers.tool_names import ToolNameMap, tool_name
from good_agent.providers.types import JSONDict, ToolChoice


@dataclass(frozen=True, slots=True)
class RequestContext:
    """The parts of one encoded request its reply is decoded with.

    ``tools`` are the offered tools (OpenAI function format, original names);
    ``names`` the codec's name map for them (``None`` when the reply carries no
    tool-API calls); ``tool_choice`` and ``parallel_tool_calls`` as requested.
    """

    tools: tuple[JSONDict, ...] = ()
    names: ToolNameMap | None = None
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    tool_names: tuple[str, ...] = field(default=())

    @classmethod
    def build(
        cls,
        tools: list[JSONDict],
        names: ToolNameMap | None = None,
        *,
        tool_choice: ToolChoice | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> RequestContext:
        """A context for ``tools`` (their names listed once)."""
        return cls(
            tuple(tools),
            names,
            tool_choice,
            parallel_tool_calls,
            tuple(tool_name(tool) for tool in tools),
        )

    @property
    def calls_allowed(self) -> bool:
        """Whether calls in the reply are returned as calls (not with ``tool_choice: none``)."""
        return bool(self.tools) and self.tool_choice != "none"
