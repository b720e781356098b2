"""Built-in (server-side) tools over loopback: each one's request form per API (checked
against the official SDKs' own types), the refusal before any request where an API has no
form for one, the provider's calls, results and citations read from whole and streamed
replies, and those parts sent back to the same provider with the next request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from anthropic import types as anthropic_types
from builtin_replies import (
    ANTHROPIC_REPLY,
    ANTHROPIC_STREAM,
    CHAT_SEARCH_REPLY,
    GEMINI_REPLY,
    RESPONSES_REPLY,
    RESPONSES_STREAM,
    gemini_chunks,
    sse,
)
from google.genai import types as genai_types
from openai.types import responses as responses_types
from openai.types.chat import completion_create_params
from pydantic import TypeAdapter
from upstreams import model_of

from good_agent import (
    Agent,
    BuiltinToolCall,
    Citation,
    CodeExecutionTool,
    FileSearchTool,
    ModelCapabilityError,
    UrlContextTool,
    WebFetchTool,
    WebSearchTool,
)
from good_agent.messages import dump_messages, load_messages
from good_agent.models import (
    ModelRequest,
)
from good_agent.types.messages import ModelResponse, UserMessage

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]


def ask(*tools: Any, prompt: str = "What is new in Paris?") -> ModelRequest:
    return ModelRequest(messages=[UserMessage(content=prompt)], settings={"builtin_tools": tools})


PARIS = Citation(url="https://example.org/paris", title="Paris today")


# Request forms


def _typed(param: Any, value: dict[str, Any]) -> dict[str, Any]:
    """``value`` validated as the SDK's request type ``param`` (a TypedDict)."""
    checked: dict[str, Any] = TypeAdapter(param).validate_python(value)
    return checked


async def test_responses_request_forms(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, RESPONSES_REPLY)])
    model = model_of("responses", upstream.url, "gpt-4.1")
    tools = (
        WebSearchTool(
            search_context_size="high",
            user_location={"country": "FR", "city": "Paris"},
            allowed_domains=["example.org"],
        ),
        CodeExecutionTool(),
        FileSearchTool(file_store_ids=["vs_1"], max_num_results=4),
    )
    try:
        await model.request(ask(*tools))
    finally:
        await model.aclose()
    expected = [
        _typed(
            responses_types.WebSearchToolParam,
            {
                "type": "web_search",
                "search_context_size": "high",
                "user_location": {"type": "approximate", "country": "FR", "city": "Paris"},
                "filters": {"allowed_domains": ["example.org"]},
            },
        ),
        _typed(
            responses_types.tool_param.CodeInterpreter,
            {"type": "code_interpreter", "container": {"type": "auto"}},
        ),
        _typed(
            responses_types.FileSearchToolParam,
            {"type": "file_search", "vector_store_ids": ["vs_1"], "max_num_results": 4},
        ),
    ]
    assert upstream.bodies[0]["tools"] == expected


async def test_anthropic_request_forms(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, ANTHROPIC_REPLY)])
    model = model_of("anthropic", upstream.url, "claude-sonnet-4-5")
    weather = {
        "type": "function",
        "function": {"name": "weather", "parameters": {"type": "object", "properties": {}}},
    }
    request = ask(
        WebSearchTool(max_uses=3, blocked_domains=["spam.example"]),
        CodeExecutionTool(),
        WebFetchTool(max_uses=2, enable_citations=True, max_content_tokens=5000),
    )
    request = ModelRequest(messages=request.messages, tools=[weather], settings=request.settings)
    try:
        await model.request(request)
    finally:
        await model.aclose()
    tools = upstream.bodies[0]["tools"]
    assert tools[0]["name"] == "weather"  # the function tool first, then the server tools
    assert tools[1:] == [
        _typed(
            anthropic_types.WebSearchTool20250305Param,
            {
                "type": "web_search_20250305",
                "name": "web_search",
                "max_uses": 3,
                "blocked_domains": ["spam.example"],
            },
        ),
        _typed(
            anthropic_types.CodeExecutionTool20250825Param,
            {"type": "code_execution_20250825", "name": "code_execution"},
        ),
        _typed(
            anthropic_types.WebFetchTool20250910Param,
            {
                "type": "web_fetch_20250910",
                "name": "web_fetch",
                "max_uses": 2,
                "citations": {"enabled": True},
                "max_content_tokens": 5000,
            },
        ),
    ]


async def test_gemini_request_forms(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, GEMINI_REPLY)])
    model = model_of("gemini", upstream.url, "gemini-2.5-flash")
    try:
        await model.request(ask(WebSearchTool(), CodeExecutionTool(), UrlContextTool()))
    finally:
        await model.aclose()
    expected = [
        genai_types.Tool(google_search=genai_types.GoogleSearch()),
        genai_types.Tool(code_execution=genai_types.ToolCodeExecution()),
        genai_types.Tool(url_context=genai_types.UrlContext()),
    ]
    assert upstream.bodies[0]["tools"] == [t.model_dump(exclude_none=True) for t in expected]


async def test_chat_completions_search_model_takes_web_search_options(
    fake_upstream: Start,
) -> None:
    upstream = fake_upstream([(200, CHAT_SEARCH_REPLY)])
    model = model_of("chat", upstream.url, "gpt-4o-search-preview")
    try:
        got = await model.request(
            ask(WebSearchTool(search_context_size="low", user_location={"country": "FR"}))
        )
    finally:
        await model.aclose()
    assert upstream.bodies[0]["web_search_options"] == _typed(
        completion_create_params.WebSearchOptions,
        {
            "search_context_size": "low",
            "user_location": {"type": "approximate", "approximate": {"country": "FR"}},
        },
    )
    assert "tools" not in upstream.bodies[0]
    assert got.citations == [PARIS.model_copy(update={"start": 0, "end": 20})]


# The refusal before any request


@pytest.mark.parametrize(
    ("kind", "name", "tool", "words"),
    [
        ("responses", "gpt-4.1", WebFetchTool(), "OpenAI Responses API has no built-in web_fetch"),
        ("anthropic", "claude-sonnet-4-5", FileSearchTool(file_store_ids=["v"]), "file_search"),
        ("gemini", "gemini-2.5-flash", FileSearchTool(file_store_ids=["v"]), "file_search"),
        ("chat", "gpt-4o", WebSearchTool(), "only with a search model"),
        ("chat", "gpt-4o-search-preview", CodeExecutionTool(), "code_execution"),
        ("ollama", "llama3.1", WebSearchTool(), "Ollama API has no built-in web_search"),
    ],
)
async def test_a_tool_the_api_lacks_is_refused_before_any_request(
    fake_upstream: Start, kind: str, name: str, tool: Any, words: str
) -> None:
    upstream = fake_upstream([])
    model = model_of(kind, upstream.url, name)
    agent = Agent(model=model, builtin_tools=[tool])
    try:
        with pytest.raises(ModelCapabilityError) as refused:
            await model.request(ask(tool))
        with pytest.raises(ModelCapabilityError):
            async for _ in model.stream(ask(tool)):
                pass
        with pytest.raises(ModelCapabilityError):
            await agent.run("Hi")
    finally:
        await model.aclose()
    message = str(refused.value)
    assert f"model {name!r}" in message
    assert f"the built-in tool {tool.kind!r}" in message
    assert words in message
    assert upstream.bodies == []


# Whole replies, and the parts sent back


async def _round_trip(
    upstream_replies: list[Any], kind: str, name: str, fake_upstream: Start
) -> tuple[Any, Any, Any]:
    upstream = fake_upstream(upstream_replies)
    model = model_of(kind, upstream.url, name)
    agent = Agent(model=model, builtin_tools=[WebSearchTool()])
    try:
        first = await agent.run("What is new in Paris?")
        await agent.run("And yesterday?")
    finally:
        await model.aclose()
    return first, upstream, agent


async def test_anthropic_server_tool_blocks_come_back_and_go_back(fake_upstream: Start) -> None:
    first, upstream, agent = await _round_trip(
        [(200, ANTHROPIC_REPLY)] * 2, "anthropic", "claude-sonnet-4-5", fake_upstream
    )
    message = first.message
    assert message.content == "A new bridge opened."
    assert message.tool_calls == []  # never a call for the agent to run
    assert message.builtin_calls == [
        BuiltinToolCall(
            id="srvtoolu_1",
            tool_name="web_search",
            arguments={"query": "Paris news"},
            provider_name="web_search",
        )
    ]
    [result] = message.builtin_results
    assert result.call_id == "srvtoolu_1" and result.content[0]["url"] == PARIS.url
    assert first.citations == [
        PARIS.model_copy(update={"cited_text": "The bridge opened on Monday."})
    ]
    # The next request carries the server blocks back, before the turn's text, unchanged.
    turn = upstream.bodies[1]["messages"][1]
    assert turn["role"] == "assistant"
    assert turn["content"] == [
        ANTHROPIC_REPLY["content"][0],
        ANTHROPIC_REPLY["content"][1],
        {"type": "text", "text": "A new bridge opened."},
    ]
    for block in turn["content"][:2]:
        param = (
            anthropic_types.ServerToolUseBlockParam
            if block["type"] == "server_tool_use"
            else anthropic_types.WebSearchToolResultBlockParam
        )
        TypeAdapter(param).validate_python(block)  # a request block of the SDK's type
    # The history keeps them (and a saved history reloads them).
    saved = dump_messages(agent.messages)
    loaded = load_messages(saved)
    assert loaded == agent.messages
    assert loaded[1].builtin_calls[0].id == "srvtoolu_1"


async def test_responses_web_search_items_come_back_and_go_back(fake_upstream: Start) -> None:
    first, upstream, _ = await _round_trip(
        [(200, RESPONSES_REPLY)] * 2, "responses", "gpt-4.1", fake_upstream
    )
    message = first.message
    assert message.builtin_calls[0].id == "ws_1"
    assert message.builtin_calls[0].arguments == {"type": "search", "query": "Paris news"}
    assert message.builtin_results[0].content["status"] == "completed"
    assert first.citations == [PARIS.model_copy(update={"start": 0, "end": 20})]
    items = upstream.bodies[1]["input"]
    web = [i for i in items if i.get("type") == "web_search_call"]
    assert web == [RESPONSES_REPLY["output"][0]]
    assert _typed(responses_types.ResponseFunctionWebSearchParam, web[0]) == web[0]
    assert upstream.bodies[1]["tools"] == [{"type": "web_search"}]


async def test_gemini_code_parts_and_grounding(fake_upstream: Start) -> None:
    first, upstream, _ = await _round_trip(
        [(200, GEMINI_REPLY)] * 2, "gemini", "gemini-2.5-flash", fake_upstream
    )
    message = first.message
    kinds = [(c.tool_name, c.provider_name) for c in message.builtin_calls]
    assert kinds == [("code_execution", "code_execution"), ("web_search", "google_search")]
    assert message.builtin_calls[0].arguments == {"code": "print(6 * 7)", "language": "PYTHON"}
    assert message.builtin_results[0].content == {"outcome": "OUTCOME_OK", "output": "42\n"}
    assert message.builtin_calls[1].arguments == {"queries": ["Paris news"]}
    assert first.citations == [
        PARIS.model_copy(update={"cited_text": "A new bridge opened", "start": 0, "end": 20})
    ]
    model_turn = upstream.bodies[1]["contents"][1]
    assert model_turn == {
        "role": "model",
        "parts": [
            {"executable_code": {"language": "PYTHON", "code": "print(6 * 7)"}},
            {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "42\n"}},
            {"text": "A new bridge opened; 6 * 7 = 42."},
        ],
    }
    genai_types.Content.model_validate(model_turn)


# Streamed replies end as the whole ones


def _parts(reply: ModelResponse) -> tuple[Any, ...]:
    return (
        reply.content,
        reply.builtin_calls,
        reply.builtin_results,
        reply.citations,
        reply.replay,
    )


@pytest.mark.parametrize(
    ("kind", "name", "whole", "stream"),
    [
        ("anthropic", "claude-sonnet-4-5", ANTHROPIC_REPLY, sse(ANTHROPIC_STREAM)),
        ("responses", "gpt-4.1", RESPONSES_REPLY, sse(RESPONSES_STREAM)),
        ("gemini", "gemini-2.5-flash", GEMINI_REPLY, sse(gemini_chunks(), named=False)),
    ],
)
async def test_a_streamed_reply_has_the_parts_of_the_whole_one(
    fake_upstream: Start, kind: str, name: str, whole: Any, stream: Any
) -> None:
    upstream = fake_upstream([(200, whole), stream])
    model = model_of(kind, upstream.url, name)
    try:
        decoded = await model.request(ask(WebSearchTool()))
        items = [item async for item in model.stream(ask(WebSearchTool()))]
    finally:
        await model.aclose()
    streamed = items[-1]
    assert isinstance(streamed, ModelResponse)
    assert decoded.builtin_calls and decoded.citations
    assert _parts(streamed) == _parts(decoded)


async def test_per_run_builtin_tools_add_to_the_agents(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, RESPONSES_REPLY)] * 2)
    model = model_of("responses", upstream.url, "gpt-4.1")
    agent = Agent(model=model, builtin_tools=[WebSearchTool()])
    try:
        await agent.run("One")
        await agent.run("Two", builtin_tools=[CodeExecutionTool()])
    finally:
        await model.aclose()
    assert [t["type"] for t in upstream.bodies[0]["tools"]] == ["web_search"]
    assert [t["type"] for t in upstream.bodies[1]["tools"]] == ["web_search", "code_interpreter"]


async def test_an_agent_stream_keeps_the_parts(fake_upstream: Start) -> None:
    upstream = fake_upstream([sse(ANTHROPIC_STREAM)])
    model = model_of("anthropic", upstream.url, "claude-sonnet-4-5")
    agent = Agent(model=model, builtin_tools=[WebSearchTool()])
    try:
        async with agent.stream("What is new in Paris?") as run:
            pieces = [text async for text in run.text_deltas()]
            result = await run.wait()
    finally:
        await model.aclose()
    assert "".join(pieces) == "A new bridge opened."
    assert [c.id for c in result.message.builtin_calls] == ["srvtoolu_1"]
    assert [c.url for c in result.citations] == ["https://example.org/paris"]
    assert [b["type"] for b in result.message.replay] == [
        "server_tool_use",
        "web_search_tool_result",
    ]
