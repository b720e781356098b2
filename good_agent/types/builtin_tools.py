"""Built-in (server-side) tools: tools the provider runs, and the parts they leave in a reply.

A built-in tool is given to an agent (``Agent(builtin_tools=[WebSearchTool()])``) or a
run; the model's codec sends it in the provider's own form (OpenAI Responses
``{"type": "web_search"}``, Anthropic ``web_search_20250305``, Gemini
``{"google_search": {}}``). The provider runs it: its call and its result come back as
[`BuiltinToolCall`][good_agent.BuiltinToolCall] and
[`BuiltinToolResult`][good_agent.BuiltinToolResult] parts of the assistant message, never
as a [`ToolCall`][good_agent.ToolCall] the agent would run. The sources the answer cites
are [`Citation`][good_agent.Citation]s.

The names follow pydantic-ai's ``builtin_tools`` module.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

BuiltinToolKind = Literal["web_search", "code_execution", "web_fetch", "file_search"]
"""The provider-neutral name of a built-in tool."""


class _Builtin(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    _source: str | None = PrivateAttr(default=None)
    """The request field a bridge client named the tool in (for its 400)."""


class WebSearchTool(_Builtin):
    """Search the web (OpenAI Responses ``web_search``, Anthropic ``web_search_20250305``,
    Gemini ``google_search``, Chat Completions search models' ``web_search_options``).

    Options a provider has no field for are not sent to it.
    """

    kind: Literal["web_search"] = "web_search"
    search_context_size: Literal["low", "medium", "high"] | None = None
    """How much context the search feeds the model (OpenAI)."""
    user_location: dict[str, Any] | None = None
    """An approximate location: ``{"city": ..., "country": "GB", "region": ..., "timezone": ...}``
    (OpenAI, Anthropic)."""
    allowed_domains: list[str] | None = None
    """Search only these domains (OpenAI Responses filters, Anthropic)."""
    blocked_domains: list[str] | None = None
    """Never search these domains (Anthropic)."""
    max_uses: int | None = None
    """At most this many searches per request (Anthropic)."""


class CodeExecutionTool(_Builtin):
    """Run code in the provider's sandbox (OpenAI Responses ``code_interpreter``,
    Anthropic ``code_execution_20250825``, Gemini ``code_execution``)."""

    kind: Literal["code_execution"] = "code_execution"


class WebFetchTool(_Builtin):
    """Fetch the pages at URLs the prompt names (Anthropic ``web_fetch_20250910``,
    Gemini ``url_context``)."""

    kind: Literal["web_fetch"] = "web_fetch"
    max_uses: int | None = None
    """At most this many fetches per request (Anthropic)."""
    allowed_domains: list[str] | None = None
    """Fetch only from these domains (Anthropic)."""
    blocked_domains: list[str] | None = None
    """Never fetch from these domains (Anthropic)."""
    enable_citations: bool | None = None
    """Cite the fetched documents (Anthropic)."""
    max_content_tokens: int | None = None
    """Truncate fetched content to this many tokens (Anthropic)."""


UrlContextTool = WebFetchTool
"""Gemini's name for [`WebFetchTool`][good_agent.WebFetchTool] (``url_context``)."""


class FileSearchTool(_Builtin):
    """Search the caller's vector stores (OpenAI Responses ``file_search``)."""

    kind: Literal["file_search"] = "file_search"
    file_store_ids: list[str]
    """The vector store ids to search."""
    max_num_results: int | None = None
    """At most this many results."""


BuiltinTool = WebSearchTool | CodeExecutionTool | WebFetchTool | FileSearchTool
"""Any built-in tool."""


class BuiltinToolCall(BaseModel):
    """A built-in tool the provider ran during the reply: its name and arguments.

    ``tool_name`` is the neutral kind (``web_search``...), ``provider_name`` the name the
    provider used (``web_search``, ``google_search``, ``code_interpreter``...).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    provider_name: str | None = None


class BuiltinToolResult(BaseModel):
    """What a built-in tool returned, as the provider reported it (search hits, code
    output...); ``call_id`` pairs it with its [`BuiltinToolCall`][good_agent.BuiltinToolCall]."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    call_id: str
    tool_name: str
    content: Any = None
    provider_name: str | None = None


class Citation(BaseModel):
    """A source the provider cites for the answer (a URL the search or fetch found).

    ``start`` and ``end`` are character offsets into the answer text when the provider
    gives them; ``cited_text`` the quoted passage (Anthropic).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    url: str
    title: str | None = None
    cited_text: str | None = None
    start: int | None = None
    end: int | None = None


def from_field(tool: BuiltinTool, field: str) -> BuiltinTool:
    """``tool``, remembering the request field it came from (``tools[0]``)."""
    tool._source = field
    return tool


def source_of(tool: object) -> str | None:
    """The request field ``tool`` came from, if a bridge client named it."""
    return getattr(tool, "_source", None)


def builtin_kind(tool: object) -> str:
    """The neutral name of a built-in tool (for error messages)."""
    return str(getattr(tool, "kind", type(tool).__name__))
