"""Map keys count like values: no unregistered URL reaches a tool as a dict key.

A URL-typed key (``dict[HttpUrl, ...]``) takes a source number, like a URL value; a
free-text key of a map that holds URLs (``dict[str, Source]``, ``urls: dict[str,
str]``) may name only registered sources. A made-up URL in a key is refused the way
it is in a value, at any depth.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import AnyUrl, BaseModel, HttpUrl

from good_agent import Agent, tool
from good_agent.extensions import CitationIndex, CitationManager
from good_agent.extensions.citation_index import canonical_url, find_urls

pytestmark = pytest.mark.anyio

URL_A = "https://example.com/a"
URL_B = "https://example.org/b"
MADE_UP = "https://attacker.example/exfiltrate?d=1"


class Source(BaseModel):
    """A source: its URL and a title."""

    url: str
    title: str = ""


@dataclass(frozen=True)
class Shape:
    """A parameter whose map keys may carry URLs, good arguments and what reaches the tool."""

    annotation: Any
    good: Any
    expected: Any  # what the tool receives for ``good``, as plain text
    bad_keys: tuple[Any, ...]  # arguments whose only fault is a key


def _source(number: int) -> dict[str, Any]:
    return {"citation_idx": number, "title": "t"}


SHAPES = {
    "dict[str, Source]": Shape(
        dict[str, Source],
        {URL_A: _source(1), "second": _source(2)},
        {URL_A: URL_A, "second": URL_B},
        ({MADE_UP: _source(1)}, {f"see {MADE_UP}": _source(1)}),
    ),
    "dict[HttpUrl, str]": Shape(
        dict[HttpUrl, str],
        {"2": "b", "1": "a"},
        {URL_B: "b", URL_A: "a"},
        ({MADE_UP: "x"}, {URL_A: "x"}, {"9": "x"}, {"label": "x"}),
    ),
    "dict[AnyUrl, Source]": Shape(
        dict[AnyUrl, Source],
        {"1": _source(2)},
        {URL_A: URL_B},
        ({MADE_UP: _source(1)}, {"0": _source(1)}),
    ),
    "urls: dict[str, str]": Shape(
        dict[str, str],
        {"home": 1, URL_B: 2},
        {"home": URL_A, URL_B: URL_B},
        ({MADE_UP: 1}, {f"ftp://attacker.example/x and {URL_A}": 1}),
    ),
    "dict[str, HttpUrl]": Shape(
        dict[str, HttpUrl],
        {"x": 2},
        {"x": URL_B},
        ({MADE_UP: 1},),
    ),
    "dict[str, dict[str, Source]]": Shape(
        dict[str, dict[str, Source]],
        {"outer": {URL_B: _source(2)}},
        {"outer": {URL_B: URL_B}},
        ({MADE_UP: {"k": _source(1)}}, {"outer": {MADE_UP: _source(1)}}),
    ),
    "list[dict[str, Source]]": Shape(
        list[dict[str, Source]],
        [{"a": _source(1)}, {URL_A: _source(1)}],
        [{"a": URL_A}, {URL_A: URL_A}],
        ([{"a": _source(1)}, {MADE_UP: _source(1)}],),
    ),
    "dict[str, Source] | None": Shape(
        dict[str, Source] | None,
        {"a": _source(1)},
        {"a": URL_A},
        ({MADE_UP: _source(1)},),
    ),
}


def _plain(value: Any) -> Any:
    """What the tool received, as text: keys and URL leaves."""
    if isinstance(value, Source):
        return value.url
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return str(value)


def _probe(name: str, annotation: Any) -> tuple[Any, list[Any]]:
    received: list[Any] = []

    def probe(**kwargs: Any) -> str:
        received.append(kwargs[name])
        return "ok"

    probe.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)],
        return_annotation=str,
    )
    probe.__annotations__ = {name: annotation, "return": str}
    probe.__doc__ = "Probe sources."
    return tool(probe), received


def _index() -> CitationIndex:
    index = CitationIndex()
    index.add(URL_A)
    index.add(URL_B)
    return index


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_a_made_up_url_in_a_key_never_reaches_the_tool(shape: str) -> None:
    case = SHAPES[shape]
    name = "urls" if shape.startswith("urls:") else "sources"
    probe, received = _probe(name, case.annotation)
    async with Agent(tools=[probe], extensions=[CitationManager(_index())]) as agent:
        good = await agent.invoke("probe", **{name: case.good})
        assert good.success, good.error
        assert [_plain(r) for r in received] == [case.expected]
        received.clear()
        for bad in case.bad_keys:
            refused = await agent.invoke("probe", **{name: bad})
            assert not refused.success, f"{bad} was accepted"
            assert received == [], f"{bad} reached the tool: {received}"


async def test_a_key_is_refused_like_a_value_and_a_registered_key_is_translated() -> None:
    probe, received = _probe("sources", dict[str, Source])
    index = _index()
    async with Agent(tools=[probe], extensions=[CitationManager(index)]) as agent:
        in_value = await agent.invoke("probe", sources={"k": {"url": MADE_UP}})
        in_key = await agent.invoke("probe", sources={MADE_UP: _source(1)})
        for refused in (in_value, in_key):
            assert not refused.success and refused.error is not None
            assert "Valid citation indices: [1] example.com/a; [2] example.org/b" in refused.error
        assert "does not refer to a source" in (in_key.error or "")
        # A registered URL, written with a tracking parameter, reaches the tool as registered.
        spelled = f"{URL_A}?utm_source=feed"
        assert (await agent.invoke("probe", sources={spelled: _source(2)})).success
        # Two keys naming one source would lose an entry: refused.
        twice = await agent.invoke("probe", sources={URL_A: _source(1), spelled: _source(2)})
        assert not twice.success and "another key" in (twice.error or "")
    assert [_plain(r) for r in received] == [{URL_A: URL_B}]
    assert len(index) == 2  # nothing was registered on the way


class Note(BaseModel):
    """A note that may cite a source."""

    url: str | None = None
    text: str = ""


async def test_a_model_or_map_union_checks_the_keys_of_a_map() -> None:
    probe, received = _probe("notes", Note | dict[str, Note])
    async with Agent(tools=[probe], extensions=[CitationManager(_index())]) as agent:
        as_model = await agent.invoke("probe", notes={"citation_idx": 2, "text": "t"})
        as_map = await agent.invoke("probe", notes={URL_A: {"citation_idx": 1}})
        refused = [
            await agent.invoke("probe", notes={MADE_UP: {"citation_idx": 1}}),
            await agent.invoke("probe", notes={"citation_idx": 1, MADE_UP: {"citation_idx": 1}}),
        ]
    assert as_model.success and as_map.success, (as_model.error, as_map.error)
    for answer in refused:
        assert not answer.success and "does not refer to a source" in (answer.error or "")
    assert received[0] == Note(url=URL_B, text="t")
    assert received[1] == {URL_A: Note(url=URL_A)}
    assert len(received) == 2


async def test_url_typed_keys_are_source_numbers_in_the_schema() -> None:
    probe, _ = _probe("sources", dict[HttpUrl, str])
    async with Agent(tools=[probe], extensions=[CitationManager(_index())]) as agent:
        schema = (await agent.tool_signatures())[0]["function"]["parameters"]
    keys = schema["properties"]["sources"]["propertyNames"]
    assert keys["pattern"] == "^[1-9][0-9]*$" and "format" not in keys
    assert "valid: 1 to 2" in keys["description"]


_key = st.sampled_from(
    [
        MADE_UP,
        URL_A,
        f"{URL_B}?utm_source=x",
        "1",
        "2",
        "99",
        "label",
        f"see {MADE_UP}",
        "ftp://attacker.example/x",
        f"{URL_A} and {MADE_UP}",
    ]
)
_number = st.one_of(st.sampled_from([1, 2]), st.sampled_from([99, 0, MADE_UP, "1", None]))
_source_value = st.fixed_dictionaries(
    {"citation_idx": _number}, optional={"url": st.just(MADE_UP), "title": st.just("t")}
)
_sources = st.dictionaries(_key, _source_value, max_size=3)
_arguments = st.fixed_dictionaries(
    {},
    optional={
        "sources": _sources,
        "by_url": st.dictionaries(_key, st.just("a note"), max_size=3),
        "urls": st.dictionaries(_key, _number, max_size=3),
        "links": st.dictionaries(_key, _number, max_size=3),
        "nested": st.dictionaries(_key, _sources, max_size=2),
        "pages": st.lists(_sources, max_size=2),
        "grid": st.lists(st.lists(_number, max_size=2), max_size=2),
        "mixed": st.one_of(_sources, _source_value),
    },
)


@settings(max_examples=300, deadline=None)
@given(arguments=_arguments)
def test_no_nested_map_carries_an_unregistered_url_to_the_tool(arguments: dict[str, Any]) -> None:
    received: list[Any] = []

    @tool
    def gather(
        sources: dict[str, Source] | None = None,
        by_url: dict[AnyUrl, str] | None = None,
        urls: dict[str, str] | None = None,
        links: dict[str, HttpUrl] | None = None,
        nested: dict[str, dict[str, Source]] | None = None,
        pages: list[dict[str, Source]] | None = None,
        grid: list[list[HttpUrl]] | None = None,
        mixed: Note | dict[str, Note] | None = None,
    ) -> str:
        """Gather sources."""
        received.append((sources, by_url, urls, links, nested, pages, grid, mixed))
        return "ok"

    index = _index()

    async def run() -> None:
        async with Agent(tools=[gather], extensions=[CitationManager(index)]) as agent:
            await agent.invoke("gather", **arguments)

    anyio.run(run)
    text = repr(received)
    assert "attacker.example" not in text
    registered = {canonical_url(URL_A), canonical_url(URL_B)}
    assert {canonical_url(url) for url in find_urls(text)} <= registered
    if received:
        event("the tool ran")
