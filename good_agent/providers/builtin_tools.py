"""Built-in (server-side) tools on each wire API: the check, the request forms, the reply parts.

The tools travel in a request's ``builtin_tools`` setting (a list of
[`WebSearchTool`][good_agent.WebSearchTool], [`CodeExecutionTool`][good_agent.CodeExecutionTool],
[`WebFetchTool`][good_agent.WebFetchTool], [`FileSearchTool`][good_agent.FileSearchTool]).
[`check_builtin_tools`][good_agent.providers.builtin_tools.check_builtin_tools] refuses, before
any request, a tool the model's API has no form for, with a
[`ModelCapabilityError`][good_agent.ModelCapabilityError] naming the model and the tool.
Each codec then writes the tools in its API's form (the ``*_tools`` functions here) and
reads the provider's calls, results and citations back (the ``*_parts`` functions).

- web search: Responses ``web_search``, Anthropic ``web_search_20250305``, Gemini
  ``google_search``, Chat Completions ``web_search_options`` (search models only);
- code execution: Responses ``code_interpreter``, Anthropic ``code_execution_20250825``,
  Gemini ``code_execution``;
- web fetch: Anthropic ``web_fetch_20250910``, Gemini ``url_context``;
- file search: Responses ``file_search``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from good_agent.providers.types import JSONDict
from good_agent.types.builtin_tools import (
    BuiltinTool,
    BuiltinToolCall,
    BuiltinToolResult,
    Citation,
    CodeExecutionTool,
    FileSearchTool,
    WebFetchTool,
    WebSearchTool,
    builtin_kind,
    source_of,
)
from good_agent.types.errors import ModelCapabilityError

SETTING = "builtin_tools"
"""The request setting that holds the built-in tools."""

SUPPORTED: Mapping[str, frozenset[str]] = {
    "openai_responses": frozenset({"web_search", "code_execution", "file_search"}),
    "anthropic_messages": frozenset({"web_search", "code_execution", "web_fetch"}),
    "gemini": frozenset({"web_search", "code_execution", "web_fetch"}),
    "openai_chat": frozenset({"web_search"}),
}
"""The built-in tools each codec can send (Chat Completions: web search on search models)."""

API_NAMES = {
    "openai_responses": "the OpenAI Responses API",
    "anthropic_messages": "the Anthropic Messages API",
    "gemini": "the Gemini API",
    "openai_chat": "the OpenAI Chat Completions API",
    "ollama": "the Ollama API",
}

ANTHROPIC_RESULT_TYPES = frozenset(
    {
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
    }
)
"""Anthropic content blocks holding a server tool's result."""

ANTHROPIC_SERVER_TYPES = frozenset({"server_tool_use", *ANTHROPIC_RESULT_TYPES})
"""Anthropic content blocks of server tools, replayed on the next request."""

RESPONSES_ITEM_TYPES = {
    "web_search_call": "web_search",
    "code_interpreter_call": "code_execution",
    "file_search_call": "file_search",
}
"""Responses output items of built-in tools, and their neutral names."""

GEMINI_PART_KEYS = ("executable_code", "code_execution_result")
"""Gemini content parts of code execution, replayed on the next request."""

_ANTHROPIC_KINDS = {
    "web_search": "web_search",
    "web_fetch": "web_fetch",
    "code_execution": "code_execution",
    "bash_code_execution": "code_execution",
    "text_editor_code_execution": "code_execution",
}


def requested(settings: Mapping[str, Any]) -> list[BuiltinTool]:
    """The built-in tools a request's settings ask for."""
    tools = settings.get(SETTING) or []
    return list(tools)


def is_search_model(model: str) -> bool:
    """Whether a Chat Completions model searches the web (``gpt-4o-search-preview``...)."""
    return "search" in model.rsplit("/", 1)[-1]


def check_builtin_tools(settings: Mapping[str, Any], codec: str | None, model: str) -> None:
    """Raise [`ModelCapabilityError`][good_agent.ModelCapabilityError] for a built-in tool
    ``model``'s API (its ``codec``) cannot send, before any request."""
    tools = requested(settings)
    if not tools:
        return
    allowed = SUPPORTED.get(codec or "", frozenset())
    api = API_NAMES.get(codec or "", f"the {codec} API")
    for tool in tools:
        kind = builtin_kind(tool)
        if not isinstance(tool, WebSearchTool | CodeExecutionTool | WebFetchTool | FileSearchTool):
            raise ModelCapabilityError(model, f"the built-in tool {kind!r}", "not a built-in tool")
        reason = None
        if kind not in allowed:
            reason = f"{api} has no built-in {kind} tool"
        elif codec == "openai_chat" and not is_search_model(model):
            reason = (
                f"{api} searches the web only with a search model (gpt-4o-search-preview...);"
                " use the Responses API for web search with other models"
            )
        if reason is not None:
            error = ModelCapabilityError(model, f"the built-in tool {kind!r}", reason)
            error.field = source_of(tool)
            raise error


def _drop_none(values: Mapping[str, Any]) -> JSONDict:
    return {k: v for k, v in values.items() if v is not None}


def _location(tool: WebSearchTool) -> JSONDict | None:
    if not tool.user_location:
        return None
    return {"type": "approximate", **tool.user_location}


# Request forms


def responses_tools(tools: Iterable[BuiltinTool]) -> list[JSONDict]:
    """The Responses ``tools`` entries of the built-in tools."""
    out: list[JSONDict] = []
    for tool in tools:
        if isinstance(tool, WebSearchTool):
            entry: JSONDict = {"type": "web_search"}
            entry.update(
                _drop_none(
                    {
                        "search_context_size": tool.search_context_size,
                        "user_location": _location(tool),
                    }
                )
            )
            if tool.allowed_domains:
                entry["filters"] = {"allowed_domains": list(tool.allowed_domains)}
            out.append(entry)
        elif isinstance(tool, CodeExecutionTool):
            out.append({"type": "code_interpreter", "container": {"type": "auto"}})
        elif isinstance(tool, FileSearchTool):
            entry = {"type": "file_search", "vector_store_ids": list(tool.file_store_ids)}
            if tool.max_num_results is not None:
                entry["max_num_results"] = tool.max_num_results
            out.append(entry)
    return out


def anthropic_tools(tools: Iterable[BuiltinTool]) -> list[JSONDict]:
    """The Anthropic ``tools`` entries of the built-in tools (server tools)."""
    out: list[JSONDict] = []
    for tool in tools:
        if isinstance(tool, WebSearchTool):
            out.append(
                {
                    "type": "web_search_20250305",
                    "name": "web_search",
                    **_drop_none(
                        {
                            "max_uses": tool.max_uses,
                            "allowed_domains": tool.allowed_domains,
                            "blocked_domains": tool.blocked_domains,
                            "user_location": _location(tool),
                        }
                    ),
                }
            )
        elif isinstance(tool, CodeExecutionTool):
            out.append({"type": "code_execution_20250825", "name": "code_execution"})
        elif isinstance(tool, WebFetchTool):
            citations = (
                None if tool.enable_citations is None else {"enabled": tool.enable_citations}
            )
            out.append(
                {
                    "type": "web_fetch_20250910",
                    "name": "web_fetch",
                    **_drop_none(
                        {
                            "max_uses": tool.max_uses,
                            "allowed_domains": tool.allowed_domains,
                            "blocked_domains": tool.blocked_domains,
                            "citations": citations,
                            "max_content_tokens": tool.max_content_tokens,
                        }
                    ),
                }
            )
    return out


def gemini_tools(tools: Iterable[BuiltinTool]) -> list[JSONDict]:
    """The Gemini ``tools`` entries of the built-in tools."""
    out: list[JSONDict] = []
    for tool in tools:
        if isinstance(tool, WebSearchTool):
            out.append({"google_search": {}})
        elif isinstance(tool, CodeExecutionTool):
            out.append({"code_execution": {}})
        elif isinstance(tool, WebFetchTool):
            out.append({"url_context": {}})
    return out


def chat_web_search_options(tools: Iterable[BuiltinTool]) -> JSONDict | None:
    """The Chat Completions ``web_search_options`` of a web search tool (else ``None``)."""
    for tool in tools:
        if isinstance(tool, WebSearchTool):
            options: JSONDict = {}
            if tool.search_context_size is not None:
                options["search_context_size"] = tool.search_context_size
            if tool.user_location:
                options["user_location"] = {
                    "type": "approximate",
                    "approximate": dict(tool.user_location),
                }
            return options
    return None


# Reply parts


class Parts:
    """The built-in tool calls, results and citations read from one reply."""

    def __init__(self) -> None:
        self.calls: list[BuiltinToolCall] = []
        self.results: list[BuiltinToolResult] = []
        self.citations: list[Citation] = []

    def cite(self, citation: Citation) -> None:
        """Add ``citation`` unless the same one is there already."""
        if citation not in self.citations:
            self.citations.append(citation)

    def as_fields(self) -> dict[str, Any]:
        """The [`ModelResponse`][good_agent.ModelResponse] fields these parts fill."""
        return {
            "builtin_calls": list(self.calls),
            "builtin_results": list(self.results),
            "citations": list(self.citations),
        }


def anthropic_block(block: JSONDict, parts: Parts) -> bool:
    """Read one Anthropic content block into ``parts``; ``True`` when it is a server
    tool's block (to replay)."""
    kind = str(block.get("type") or "")
    if kind == "server_tool_use":
        name = str(block.get("name") or "")
        arguments = block.get("input")
        parts.calls.append(
            BuiltinToolCall(
                id=str(block.get("id") or ""),
                tool_name=_ANTHROPIC_KINDS.get(name, name),
                arguments=arguments if isinstance(arguments, dict) else {},
                provider_name=name,
            )
        )
        return True
    if kind in ANTHROPIC_RESULT_TYPES:
        name = kind.removesuffix("_tool_result")
        parts.results.append(
            BuiltinToolResult(
                call_id=str(block.get("tool_use_id") or ""),
                tool_name=_ANTHROPIC_KINDS.get(name, name),
                content=block.get("content"),
                provider_name=name,
            )
        )
        return True
    if kind == "text":
        anthropic_citations(block.get("citations"), parts)
    return False


def anthropic_citations(citations: object, parts: Parts) -> None:
    """The citations of an Anthropic text block (those with a URL)."""
    for item in citations if isinstance(citations, list) else []:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            parts.cite(
                Citation(
                    url=item["url"],
                    title=item.get("title"),
                    cited_text=item.get("cited_text"),
                )
            )


def responses_item(item: JSONDict, parts: Parts) -> bool:
    """Read one Responses output item into ``parts``; ``True`` when it is a built-in
    tool's item (to replay)."""
    kind = str(item.get("type") or "")
    if kind == "message":
        for part in item.get("content") or []:
            for note in (part.get("annotations") or []) if isinstance(part, dict) else []:
                if isinstance(note, dict) and note.get("type") == "url_citation":
                    parts.cite(
                        Citation(
                            url=str(note.get("url") or ""),
                            title=note.get("title"),
                            start=note.get("start_index"),
                            end=note.get("end_index"),
                        )
                    )
        return False
    neutral = RESPONSES_ITEM_TYPES.get(kind)
    if neutral is None:
        return False
    call_id = str(item.get("id") or "")
    provider_name = kind.removesuffix("_call")
    if kind == "web_search_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        arguments = {k: v for k, v in (action or {}).items() if k != "sources"}
        content: Any = {"status": item.get("status"), "sources": (action or {}).get("sources")}
    elif kind == "code_interpreter_call":
        arguments = {"code": item.get("code"), "container_id": item.get("container_id")}
        content = {"status": item.get("status"), "outputs": item.get("outputs")}
    else:
        arguments = {"queries": item.get("queries")}
        content = {"status": item.get("status"), "results": item.get("results")}
    parts.calls.append(
        BuiltinToolCall(
            id=call_id, tool_name=neutral, arguments=arguments, provider_name=provider_name
        )
    )
    parts.results.append(
        BuiltinToolResult(
            call_id=call_id, tool_name=neutral, content=content, provider_name=provider_name
        )
    )
    return True


def _field(mapping: object, snake: str) -> Any:
    if not isinstance(mapping, dict):
        return None
    if snake in mapping:
        return mapping[snake]
    head, *rest = snake.split("_")
    return mapping.get(head + "".join(word.title() for word in rest))


def gemini_part(part: JSONDict, parts: Parts) -> JSONDict | None:
    """Read one Gemini content part into ``parts``; the part in snake_case when it is a
    code execution part (to replay), else ``None``."""
    code = _field(part, "executable_code")
    if isinstance(code, dict):
        call_id = f"code_execution_{len(parts.calls)}"
        parts.calls.append(
            BuiltinToolCall(
                id=call_id,
                tool_name="code_execution",
                arguments={"code": code.get("code"), "language": code.get("language")},
                provider_name="code_execution",
            )
        )
        return {"executable_code": dict(code)}
    result = _field(part, "code_execution_result")
    if isinstance(result, dict):
        last = next((c.id for c in reversed(parts.calls) if c.tool_name == "code_execution"), "")
        parts.results.append(
            BuiltinToolResult(
                call_id=last,
                tool_name="code_execution",
                content=dict(result),
                provider_name="code_execution",
            )
        )
        return {"code_execution_result": dict(result)}
    return None


def gemini_grounding(candidate: JSONDict, parts: Parts) -> None:
    """Read a Gemini candidate's grounding and URL context metadata into ``parts``."""
    grounding = _field(candidate, "grounding_metadata")
    if isinstance(grounding, dict):
        queries = _field(grounding, "web_search_queries") or []
        call_id = f"google_search_{len(parts.calls)}"
        parts.calls.append(
            BuiltinToolCall(
                id=call_id,
                tool_name="web_search",
                arguments={"queries": list(queries)},
                provider_name="google_search",
            )
        )
        parts.results.append(
            BuiltinToolResult(
                call_id=call_id,
                tool_name="web_search",
                content=grounding,
                provider_name="google_search",
            )
        )
        chunks = [_field(c, "web") or {} for c in _field(grounding, "grounding_chunks") or []]
        supports = _field(grounding, "grounding_supports") or []
        for support in supports:
            segment = _field(support, "segment") or {}
            for index in _field(support, "grounding_chunk_indices") or []:
                if isinstance(index, int) and 0 <= index < len(chunks) and chunks[index]:
                    parts.cite(
                        Citation(
                            url=str(chunks[index].get("uri") or ""),
                            title=chunks[index].get("title"),
                            cited_text=segment.get("text"),
                            start=_field(segment, "start_index"),
                            end=_field(segment, "end_index"),
                        )
                    )
        if not supports:
            for chunk in chunks:
                if chunk.get("uri"):
                    parts.cite(Citation(url=str(chunk["uri"]), title=chunk.get("title")))
    context = _field(candidate, "url_context_metadata")
    if isinstance(context, dict):
        urls = _field(context, "url_metadata") or []
        call_id = f"url_context_{len(parts.calls)}"
        retrieved = [_field(u, "retrieved_url") for u in urls]
        parts.calls.append(
            BuiltinToolCall(
                id=call_id,
                tool_name="web_fetch",
                arguments={"urls": retrieved},
                provider_name="url_context",
            )
        )
        parts.results.append(
            BuiltinToolResult(
                call_id=call_id, tool_name="web_fetch", content=context, provider_name="url_context"
            )
        )


def chat_annotations(annotations: object, parts: Parts) -> None:
    """The ``url_citation`` annotations of a Chat Completions message."""
    for note in annotations if isinstance(annotations, list) else []:
        cited = note.get("url_citation") if isinstance(note, dict) else None
        if isinstance(cited, dict) and cited.get("url"):
            parts.cite(
                Citation(
                    url=str(cited["url"]),
                    title=cited.get("title"),
                    start=cited.get("start_index"),
                    end=cited.get("end_index"),
                )
            )
