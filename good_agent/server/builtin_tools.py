"""Built-in tools through the bridge: a client's tool entries read, the provider's parts written.

A client names a built-in tool in its own API's form (a Responses ``{"type":
"web_search"}``, an Anthropic ``{"type": "web_search_20250305", "name": "web_search"}``,
a Gemini ``{"google_search": {}}``); the bridge reads it into a
[`WebSearchTool`][good_agent.WebSearchTool] (or another built-in tool) in the request's
``builtin_tools`` setting, and the upstream's codec writes it in the upstream's form. An
upstream whose API has no form for the tool refuses it before any request: the client
gets a 400 naming the tool. The tool's calls and results come back to a client of the
upstream's own API as that API's items (``web_search_call``, ``server_tool_use`` and
``web_search_tool_result``, ``executable_code``, ``groundingMetadata``); the client sends
them back in its history and they go upstream again unchanged.
"""

from __future__ import annotations

from typing import Any

from good_agent.providers import builtin_tools as wire
from good_agent.providers.types import JSONDict
from good_agent.server.common.errors import bad_request
from good_agent.types.builtin_tools import (
    BuiltinTool,
    CodeExecutionTool,
    FileSearchTool,
    WebFetchTool,
    WebSearchTool,
    from_field,
)
from good_agent.types.messages import ModelResponse

ANTHROPIC_PREFIXES = {
    "web_search_": "web_search",
    "code_execution_": "code_execution",
    "web_fetch_": "web_fetch",
}
"""Anthropic server tool types (``web_search_20250305``...) by prefix."""

_DOMAIN_KEYS = ("allowed_domains", "blocked_domains")


def _location(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    inner = value.get("approximate")
    source: dict[str, Any] = inner if isinstance(inner, dict) else value
    return {k: v for k, v in source.items() if k != "type"} or None


def _built(kind: type[BuiltinTool], where: str, **fields: Any) -> BuiltinTool:
    try:
        tool = kind(**{k: v for k, v in fields.items() if v is not None})
    except ValueError as exc:
        raise bad_request(f"{where}: {exc}", where) from None
    return from_field(tool, where)


def anthropic_tool(tool: JSONDict, entry: str) -> BuiltinTool | None:
    """An Anthropic server tool entry as a built-in tool (``None``: not a server tool);
    a refusal names its ``type`` field."""
    kind = tool.get("type")
    where = f"{entry}.type"
    if not isinstance(kind, str) or kind == "custom":
        return None
    for prefix, neutral in ANTHROPIC_PREFIXES.items():
        if kind.startswith(prefix):
            domains = {k: tool.get(k) for k in _DOMAIN_KEYS}
            if neutral == "web_search":
                return _built(
                    WebSearchTool,
                    where,
                    max_uses=tool.get("max_uses"),
                    user_location=_location(tool.get("user_location")),
                    **domains,
                )
            if neutral == "web_fetch":
                citations = tool.get("citations")
                return _built(
                    WebFetchTool,
                    where,
                    max_uses=tool.get("max_uses"),
                    max_content_tokens=tool.get("max_content_tokens"),
                    enable_citations=citations.get("enabled")
                    if isinstance(citations, dict)
                    else None,
                    **domains,
                )
            return from_field(CodeExecutionTool(), where)
    raise bad_request(f"{where}: the bridge has no built-in tool {kind!r}", where)


def responses_tool(tool: JSONDict, entry: str) -> BuiltinTool | None:
    """A Responses hosted tool entry as a built-in tool (``None``: a function tool); a
    refusal names its ``type`` field."""
    kind = tool.get("type")
    where = f"{entry}.type"
    if kind == "function":
        return None
    if kind in ("web_search", "web_search_preview"):
        filters = tool.get("filters") if isinstance(tool.get("filters"), dict) else {}
        return _built(
            WebSearchTool,
            where,
            search_context_size=tool.get("search_context_size"),
            user_location=_location(tool.get("user_location")),
            allowed_domains=(filters or {}).get("allowed_domains"),
        )
    if kind == "code_interpreter":
        return from_field(CodeExecutionTool(), where)
    if kind == "file_search":
        return _built(
            FileSearchTool,
            where,
            file_store_ids=tool.get("vector_store_ids"),
            max_num_results=tool.get("max_num_results"),
        )
    raise bad_request(
        f"{where}: the bridge takes function tools and the built-in tools web_search,"
        f" code_interpreter and file_search, not {kind!r}",
        where,
    )


def chat_web_search(options: Any) -> list[BuiltinTool]:
    """A Chat Completions client's ``web_search_options`` as a web search tool."""
    if options is None:
        return []
    if not isinstance(options, dict):
        raise bad_request("'web_search_options' must be an object", "web_search_options")
    tool = _built(
        WebSearchTool,
        "web_search_options",
        search_context_size=options.get("search_context_size"),
        user_location=_location(options.get("user_location")),
    )
    return [tool]


_GEMINI_KEYS = {
    "google_search": WebSearchTool,
    "googleSearch": WebSearchTool,
    "code_execution": CodeExecutionTool,
    "codeExecution": CodeExecutionTool,
    "url_context": WebFetchTool,
    "urlContext": WebFetchTool,
}


def gemini_tools(tool: JSONDict, where: str) -> list[BuiltinTool]:
    """The built-in tools a Gemini ``tools`` entry names (``google_search``...)."""
    named = [(key, kind) for key, kind in _GEMINI_KEYS.items() if key in tool]
    return [from_field(kind(), f"{where}.{key}") for key, kind in named]


GEMINI_TOOL_KEYS = frozenset(_GEMINI_KEYS)
"""The keys of Gemini tool entries naming built-in tools."""


def with_builtin(settings: JSONDict, tools: list[BuiltinTool]) -> JSONDict:
    """``settings`` with the built-in tools (unchanged when there are none)."""
    return {**settings, wire.SETTING: tools} if tools else settings


# Replies written for a client of the upstream's own API


def anthropic_blocks(reply: ModelResponse) -> list[JSONDict]:
    """The server tool blocks of an Anthropic upstream's reply, as it sent them."""
    return [dict(i) for i in reply.replay if i.get("type") in wire.ANTHROPIC_SERVER_TYPES]


def responses_items(reply: ModelResponse) -> list[JSONDict]:
    """The built-in tool items of a Responses upstream's reply, as it sent them."""
    return [dict(i) for i in reply.replay if i.get("type") in wire.RESPONSES_ITEM_TYPES]


def url_annotations(reply: ModelResponse) -> list[JSONDict]:
    """The reply's citations as Responses ``url_citation`` annotations."""
    return [
        {
            "type": "url_citation",
            "url": c.url,
            "title": c.title or "",
            "start_index": c.start or 0,
            "end_index": c.end if c.end is not None else len(c.url),
        }
        for c in reply.citations
    ]


def chat_annotations(reply: ModelResponse) -> list[JSONDict]:
    """The reply's citations as Chat Completions ``url_citation`` annotations."""
    return [
        {"type": "url_citation", "url_citation": {k: v for k, v in note.items() if k != "type"}}
        for note in url_annotations(reply)
    ]


def gemini_parts(reply: ModelResponse) -> list[JSONDict]:
    """The code execution parts of a Gemini upstream's reply (camelCase, as the REST
    API writes them)."""
    out: list[JSONDict] = []
    for item in reply.replay:
        if "executable_code" in item:
            out.append({"executableCode": item["executable_code"]})
        elif "code_execution_result" in item:
            out.append({"codeExecutionResult": item["code_execution_result"]})
    return out


def gemini_grounding(reply: ModelResponse) -> JSONDict:
    """The candidate fields of a Gemini upstream's grounding (``groundingMetadata``,
    ``urlContextMetadata``), as it sent them."""
    out: JSONDict = {}
    for result in reply.builtin_results:
        if result.provider_name == "google_search" and isinstance(result.content, dict):
            out["groundingMetadata"] = result.content
        elif result.provider_name == "url_context" and isinstance(result.content, dict):
            out["urlContextMetadata"] = result.content
    return out


def replay_item(item: JSONDict) -> JSONDict:
    """A client's history item kept to go upstream again (``None`` values dropped)."""
    return {k: v for k, v in item.items() if v is not None}
