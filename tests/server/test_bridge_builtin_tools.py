"""Built-in tools through the bridge, with the official SDKs as clients, over loopback:
passed through between a client and an upstream of the same API (the tool on the way
up, the provider's items on the way back, whole and streamed, and those items sent
upstream again in the next turn), and a 400 naming the tool and its field where the
upstream's API cannot carry it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from bridge_harness import CLIENT_KEY, upstream_entry
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
from responses_harness import events_of

from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]
WEB_ITEM = RESPONSES_REPLY["output"][0]
SERVER_BLOCKS = ANTHROPIC_REPLY["content"][:2]


@pytest.fixture
def upstream(fake_upstream: Start) -> Any:
    return fake_upstream([])


@pytest.fixture
def bridge(upstream: Any, tmp_path: Path, bridges: Start) -> BackgroundServer:
    return bridges(
        [
            upstream_entry(upstream.url, "gpt-resp", "openai-responses", "gpt-4.1"),
            upstream_entry(upstream.url, "gpt-chat", "openai", "gpt-4.1"),
            upstream_entry(upstream.url, "gpt-search", "openai", "gpt-4o-search-preview"),
            upstream_entry(upstream.url, "claude", "anthropic", "claude-sonnet-4-5"),
            upstream_entry(upstream.url, "gemini", "gemini", "gemini-2.5-flash"),
        ],
        responses={"path": str(tmp_path / "responses.sqlite3")},
    )


def openai_client(bridge: BackgroundServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=f"{bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0)


def anthropic_client(bridge: BackgroundServer) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=bridge.url, api_key=CLIENT_KEY, max_retries=0)


async def test_responses_client_and_upstream(bridge: BackgroundServer, upstream: Any) -> None:
    upstream.replies += [(200, RESPONSES_REPLY), (200, RESPONSES_REPLY)]
    async with openai_client(bridge) as client:
        first = await client.responses.create(
            model="gpt-resp",
            input="What is new in Paris?",
            tools=[{"type": "web_search", "search_context_size": "low"}],
        )
        dumped = first.model_dump(mode="json", exclude_none=True)
        assert dumped["output"][0] == WEB_ITEM
        text = dumped["output"][1]["content"][0]
        assert text["text"] == "A new bridge opened."
        assert text["annotations"] == [
            {
                "type": "url_citation",
                "url": "https://example.org/paris",
                "title": "Paris today",
                "start_index": 0,
                "end_index": 20,
            }
        ]
        # The client sends the items back in its next turn: the upstream gets them as sent.
        follow = [
            {"role": "user", "content": "What is new in Paris?"},
            *dumped["output"],
            {"role": "user", "content": "And yesterday?"},
        ]
        await client.responses.create(
            model="gpt-resp", input=follow, tools=[{"type": "web_search"}]
        )
    assert upstream.bodies[0]["tools"] == [{"type": "web_search", "search_context_size": "low"}]
    sent = upstream.bodies[1]["input"]
    assert sent[1] == WEB_ITEM
    assert sent[2] == {"role": "assistant", "content": "A new bridge opened."}


async def test_responses_client_streamed(bridge: BackgroundServer, upstream: Any) -> None:
    upstream.replies.append(sse(RESPONSES_STREAM))
    async with httpx2.AsyncClient(timeout=30) as http:
        reply = await http.post(
            f"{bridge.url}/v1/responses",
            json={
                "model": "gpt-resp",
                "input": "What is new in Paris?",
                "tools": [{"type": "web_search"}],
                "stream": True,
            },
            headers={"authorization": f"Bearer {CLIENT_KEY}"},
        )
    assert reply.status_code == 200, reply.text
    events = events_of(reply.text)  # each one of the SDK's own event types
    done = [e for e in events if e.type == "response.output_item.done"]
    assert any(e.item.type == "web_search_call" and e.item.id == "ws_1" for e in done)
    final = events[-1].response
    kinds = [item.type for item in final.output]
    assert kinds == ["message", "web_search_call"]
    assert final.output[0].content[0].annotations[0].url == "https://example.org/paris"


async def test_messages_client_and_upstream(bridge: BackgroundServer, upstream: Any) -> None:
    upstream.replies += [(200, ANTHROPIC_REPLY), (200, ANTHROPIC_REPLY)]
    tool = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
    async with anthropic_client(bridge) as client:
        first = await client.messages.create(
            model="claude",
            max_tokens=500,
            messages=[{"role": "user", "content": "What is new in Paris?"}],
            tools=[tool],  # type: ignore[list-item]
        )
        content = [block.model_dump(mode="json", exclude_none=True) for block in first.content]
        assert content[:2] == SERVER_BLOCKS
        assert content[2]["text"] == "A new bridge opened."
        await client.messages.create(
            model="claude",
            max_tokens=500,
            messages=[
                {"role": "user", "content": "What is new in Paris?"},
                {"role": "assistant", "content": content},  # type: ignore[typeddict-item]
                {"role": "user", "content": "And yesterday?"},
            ],
            tools=[tool],  # type: ignore[list-item]
        )
    assert upstream.bodies[0]["tools"] == [tool]
    turn = upstream.bodies[1]["messages"][1]
    assert turn["content"][:2] == SERVER_BLOCKS


async def test_messages_client_streamed(bridge: BackgroundServer, upstream: Any) -> None:
    upstream.replies.append(sse(ANTHROPIC_STREAM))
    async with anthropic_client(bridge) as client, client.messages.stream(
        model="claude",
        max_tokens=500,
        messages=[{"role": "user", "content": "What is new in Paris?"}],
        tools=[{"type": "web_search_20250305", "name": "web_search"}],
    ) as stream:
        final = await stream.get_final_message()
    kinds = [block.type for block in final.content]
    assert kinds == ["text", "server_tool_use", "web_search_tool_result"]
    assert final.content[1].model_dump(mode="json", exclude_none=True) == SERVER_BLOCKS[0]


async def test_gemini_client_and_upstream(bridge: BackgroundServer, upstream: Any) -> None:
    upstream.replies += [(200, GEMINI_REPLY), sse(gemini_chunks(), named=False)]
    body = {
        "contents": [{"role": "user", "parts": [{"text": "What is new in Paris?"}]}],
        "tools": [{"googleSearch": {}}, {"codeExecution": {}}],
    }
    async with httpx2.AsyncClient(timeout=30) as http:
        whole = await http.post(
            f"{bridge.url}/v1beta/models/gemini:generateContent",
            json=body,
            headers={"x-goog-api-key": CLIENT_KEY},
        )
        streamed = await http.post(
            f"{bridge.url}/v1beta/models/gemini:streamGenerateContent",
            params={"alt": "sse"},
            json=body,
            headers={"x-goog-api-key": CLIENT_KEY},
        )
    assert whole.status_code == 200, whole.text
    reply = genai_types.GenerateContentResponse.model_validate(whole.json())
    assert reply.candidates
    candidate = reply.candidates[0]
    assert candidate.grounding_metadata is not None
    assert candidate.grounding_metadata.web_search_queries == ["Paris news"]
    parts = candidate.content.parts if candidate.content else None
    assert parts and parts[0].executable_code and parts[0].executable_code.code == "print(6 * 7)"
    assert parts[1].code_execution_result and parts[1].code_execution_result.output == "42\n"
    assert upstream.bodies[0]["tools"] == [{"google_search": {}}, {"code_execution": {}}]
    chunks = [
        json.loads(line[6:]) for line in streamed.text.splitlines() if line.startswith("data: ")
    ]
    last = genai_types.GenerateContentResponse.model_validate(chunks[-1])
    assert last.candidates and last.candidates[0].grounding_metadata is not None


async def test_gemini_client_sends_code_parts_back(
    bridge: BackgroundServer, upstream: Any
) -> None:
    upstream.replies.append((200, GEMINI_REPLY))
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}}
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Run it."}]},
            {"role": "model", "parts": [code, result, {"text": "It printed 1."}]},
            {"role": "user", "parts": [{"text": "Again?"}]},
        ],
        "tools": [{"codeExecution": {}}],
    }
    async with httpx2.AsyncClient(timeout=30) as http:
        reply = await http.post(
            f"{bridge.url}/v1beta/models/gemini:generateContent",
            json=body,
            headers={"x-goog-api-key": CLIENT_KEY},
        )
    assert reply.status_code == 200, reply.text
    assert upstream.bodies[0]["contents"][1]["parts"] == [
        {"executable_code": {"language": "PYTHON", "code": "print(1)"}},
        {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        {"text": "It printed 1."},
    ]


async def test_a_tool_the_upstreams_api_cannot_carry_is_a_400(
    bridge: BackgroundServer, upstream: Any
) -> None:
    async with openai_client(bridge) as client:
        for stream in (False, True):
            with pytest.raises(openai.BadRequestError) as refused:
                await client.responses.create(
                    model="claude",
                    input="Find my notes.",
                    tools=[{"type": "file_search", "vector_store_ids": ["vs_1"]}],
                    stream=stream,
                )
            assert "the built-in tool 'file_search'" in refused.value.message
            assert "claude-sonnet-4-5" in refused.value.message
            assert refused.value.code == "unsupported_tool"
            assert refused.value.param == "tools[0].type"
        with pytest.raises(openai.BadRequestError) as chat:
            await client.chat.completions.create(
                model="gpt-chat",
                messages=[{"role": "user", "content": "News?"}],
                web_search_options={},
            )
        assert "the built-in tool 'web_search'" in chat.value.message
        assert chat.value.param == "web_search_options"
    async with anthropic_client(bridge) as messages:
        with pytest.raises(anthropic.BadRequestError) as fetch:
            await messages.messages.create(
                model="gpt-resp",
                max_tokens=100,
                messages=[{"role": "user", "content": "Read https://example.org"}],
                tools=[{"type": "web_fetch_20250910", "name": "web_fetch"}],
            )
    assert "the built-in tool 'web_fetch'" in fetch.value.message
    assert "tools[0].type" in fetch.value.message
    async with httpx2.AsyncClient(timeout=30) as http:
        gemini = await http.post(
            f"{bridge.url}/v1beta/models/gpt-chat:generateContent",
            json={"contents": [{"parts": [{"text": "Run"}]}], "tools": [{"codeExecution": {}}]},
            headers={"x-goog-api-key": CLIENT_KEY},
        )
    assert gemini.status_code == 400
    error = gemini.json()["error"]
    assert "the built-in tool 'code_execution'" in error["message"]
    assert error["details"][0]["fieldViolations"][0]["field"] == "tools[0].codeExecution"
    assert upstream.bodies == []  # nothing was sent


async def test_chat_client_and_search_model(bridge: BackgroundServer, upstream: Any) -> None:
    upstream.replies.append((200, CHAT_SEARCH_REPLY))
    async with openai_client(bridge) as client:
        reply = await client.chat.completions.create(
            model="gpt-search",
            messages=[{"role": "user", "content": "What is new in Paris?"}],
            web_search_options={"search_context_size": "low"},
        )
    assert upstream.bodies[0]["web_search_options"] == {"search_context_size": "low"}
    notes = reply.choices[0].message.annotations or []
    assert [(n.url_citation.url, n.url_citation.end_index) for n in notes] == [
        ("https://example.org/paris", 20)
    ]
