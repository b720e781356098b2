"""CitationManager: numbered sources, index parameters, errors, rendering, export."""

from __future__ import annotations

import json
from typing import Any

import pytest

from good_agent import Agent, ToolMessage, tool
from good_agent.extensions import CitationIndex, CitationManager
from good_agent.extensions.citation_index import canonical_url, find_urls
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

URL_A = "https://example.com/articles/2024/a-very-long-path?utm_source=newsletter&id=1"
URL_B = "https://docs.example.org/guide/section/subsection/page.html#intro"


def make_fetch(calls: list[str]) -> Any:
    @tool
    def fetch(url: str) -> str:
        """Fetch a page.

        Args:
            url: The page's address.
        """
        calls.append(url)
        return f"content of {url}"

    return fetch


def tool_text(request: Any) -> str:
    return json.dumps(request.tools)


async def test_model_passes_index_and_tool_gets_the_url() -> None:
    calls: list[str] = []
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("fetch", {"citation_idx": 2}),
            ScriptedModel.tool_call("fetch", {"citation_idx": 7}),
            "Summary citing [2].",
        ]
    )
    manager = CitationManager()
    async with Agent(
        "You summarise.", model=model, tools=[make_fetch(calls)], extensions=[manager]
    ) as agent:
        answer = await agent.call(f"Compare {URL_A} and {URL_B}.")
    assert calls == [URL_B]
    for request in model.requests:
        signature = request.tools[0]["function"]["parameters"]
        assert "url" not in signature["properties"]
        prop = signature["properties"]["citation_idx"]
        assert prop["type"] == "integer" and prop["minimum"] == 1 and prop["maximum"] == 2
        assert "1 to 2" in prop["description"]
        assert "http" not in tool_text(request)
        for message in request.messages:
            assert URL_A not in (message.content or "")
            assert URL_B not in (message.content or "")
    first = model.requests[0].messages
    assert "[1]" in first[1].content and "[2]" in first[1].content
    assert "Sources" in first[0].content and "docs.example.org" in first[0].content
    error = agent.messages[-2]
    assert isinstance(error, ToolMessage) and error.is_error
    assert "Valid citation indices" in error.content and "[1]" in error.content
    assert "[2]" in error.content
    assert URL_A in agent.messages[1].content  # history keeps the original text
    rendered = manager.render_markdown(answer.content or "")
    assert rendered == f"Summary citing [[2]]({URL_B})."


async def test_invalid_index_from_adapter_lists_valid_indices() -> None:
    calls: list[str] = []
    agent = Agent(tools=[make_fetch(calls)], extensions=[CitationManager()])
    async with agent:
        await agent.append(_user(f"see {URL_A}"))
        bad = await agent.invoke("fetch", citation_idx=True)
        raw = await agent.invoke("fetch", url="https://evil.example/")
        good = await agent.invoke("fetch", citation_idx=1)
    assert not bad.success and "Valid citation indices" in (bad.error or "")
    assert not raw.success and "citation_idx" in (raw.error or "")
    assert good.success
    assert calls == [URL_A]


def _user(text: str) -> Any:
    from good_agent import UserMessage

    return UserMessage(content=text)


async def test_urls_list_and_format_uri_and_tool_result_titles() -> None:
    seen: list[Any] = []

    @tool
    def compare(urls: list[str], homepage: str | None = None) -> str:
        """Compare pages."""
        seen.append((urls, homepage))
        return json.dumps([{"url": "https://new.example/x", "title": "New page"}])

    compare.parameters["properties"]["homepage"]["anyOf"][0]["format"] = "uri"
    compare._signature["function"]["parameters"] = compare.parameters
    model = ScriptedModel(
        [
            ScriptedModel.tool_call(
                "compare", {"citation_idxs": [2, 1], "homepage_citation_idx": 1}
            ),
            "done [3]",
        ]
    )
    manager = CitationManager()
    async with Agent(model=model, tools=[compare], extensions=[manager]) as agent:
        await agent.call(f"[Page A]({URL_A}) and {URL_B}")
    props = model.requests[0].tools[0]["function"]["parameters"]["properties"]
    assert props["citation_idxs"]["items"] == {"type": "integer", "minimum": 1, "maximum": 2}
    assert "homepage_citation_idx" in props
    assert seen == [([URL_B, URL_A], URL_A)]
    assert [c.title for c in manager.index] == ["Page A", None, "New page"]
    assert (
        model.requests[1].tools[0]["function"]["parameters"]["properties"]["citation_idxs"][
            "items"
        ]["maximum"]
        == 3
    )
    assert manager.index.get(3).metadata == {"origin": "tool", "tool": "compare"}


def test_index_dedup_export_restore_and_render() -> None:
    index = CitationIndex()
    assert index.add("HTTPS://Example.com:443/a/?b=2&a=1#frag") == 1
    assert index.add("https://example.com/a?a=1&b=2&utm_medium=x", title="A") == 1
    assert index.add("https://example.com/b") == 2
    assert index.get(1).title == "A" and len(index) == 2
    with pytest.raises(KeyError):
        index.get(3)
    restored = CitationIndex.restore(json.loads(json.dumps(index.export())))
    assert [c.url for c in restored] == [c.url for c in index]
    text = restored.render_markdown("See [1] and [2], not [9].", style="reference")
    assert text.startswith("See [1] and [2], not [9].")
    assert '[1]: HTTPS://Example.com:443/a/?b=2&a=1#frag "A"' in text
    assert canonical_url("https://example.com") == "https://example.com/"
    assert find_urls("(see https://x.example/a_(b)).") == ["https://x.example/a_(b)"]


async def test_index_shared_between_agents() -> None:
    shared = CitationIndex()
    first = Agent(extensions=[CitationManager(shared)])
    second = Agent(extensions=[CitationManager(shared)])
    async with first, second:
        await first.append(_user(URL_A))
        await second.append(_user(f"{URL_B} and {URL_A}"))
    assert [c.url for c in shared] == [URL_A, URL_B]


def test_url_scanning_handles_hostile_input() -> None:
    # Completion is the check (pytest-timeout bounds it); speed belongs in benchmarks.
    text = "https://a" + ")" * 200_000 + " [" * 50_000
    assert find_urls(text) == ["https://a"]
    assert CitationIndex().replace_urls(text).startswith("https://a)")


def test_results_register_urls_only_when_there_are_some_even_json_escaped() -> None:
    manager = CitationManager()
    assert manager.register_result("search", "page 2 of the results, no links") == []
    escaped = json.dumps({"results": [{"url": URL_B, "title": "Guide"}]}).replace("/", "\\/")
    assert "://" not in escaped
    assert manager.register_result("search", escaped) == [1]
    assert manager.index.get(1).title == "Guide"
    assert manager.index.replace_urls("no address here") == "no address here"
    assert manager.index.replace_urls(f"see {URL_B}") == "see [1]"


async def test_the_sources_message_follows_the_system_prompt_and_new_sources() -> None:
    model = ScriptedModel(["one", "two", "three"])
    manager = CitationManager()
    agent = Agent("Be brief.", model=model, extensions=[manager])
    async with agent:
        await agent.call(f"Read {URL_A}")
        await agent.call("again")
        first, second = model.requests[0].messages[0], model.requests[1].messages[0]
        assert first.content == second.content and "Be brief." in first.content
        agent.messages[0].content = "Be thorough."  # changed in place
        await agent.call(f"and {URL_B}")
        third = model.requests[2].messages[0].content
        assert third.startswith("Be thorough.") and "[2]" in third and "[1]" in third
