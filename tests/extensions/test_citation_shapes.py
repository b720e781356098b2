"""A made-up URL never reaches a tool, wherever the URL sits: the 27-shape matrix.

Three ways a field is a URL (named ``url``, named ``*_url``, typed ``HttpUrl``) times
nine places it can sit (top level, optional, a list, a ``str | list[str]`` union, a
nested model, an optional nested model, a list of models, a model in a model, a
union in a nested model). For each shape: a source number reaches the tool as the
registered URL, and a made-up URL, under the original or the replacement name, or an
unknown number, is refused without running the tool.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, HttpUrl, create_model

from good_agent import Agent, tool
from good_agent.extensions import CitationIndex, CitationManager

pytestmark = pytest.mark.anyio

URL_A = "https://example.com/a"
URL_B = "https://example.org/b"
MADE_UP = "https://attacker.example/exfiltrate?d=1"


@dataclass(frozen=True)
class Recognition:
    """How a field is recognized as a URL."""

    single: str
    many: str
    kind: Any
    single_index: str
    many_index: str


RECOGNITIONS = {
    "named url": Recognition("url", "urls", str, "citation_idx", "citation_idxs"),
    "named *_url": Recognition(
        "source_url", "source_urls", str, "source_citation_idx", "source_citation_idxs"
    ),
    "format uri": Recognition("link", "links", HttpUrl, "link_citation_idx", "links_citation_idxs"),
}


@dataclass(frozen=True)
class Position:
    """Where the URL field sits: the tool's parameter and how to reach the leaf."""

    parameter: str
    annotation: Callable[[Recognition], Any]
    wrap: Callable[[dict[str, Any]], dict[str, Any]]
    leaf: Callable[[dict[str, Any], str], Any]
    form: str  # "single", "many" or "union"
    default: Any = inspect.Parameter.empty


def _leaf_model(r: Recognition, form: str) -> type[BaseModel]:
    if form == "union":
        return create_model("UnionLeaf", **{r.single: (r.kind | list[r.kind], ...)})  # type: ignore[call-overload]
    return create_model("Leaf", title=(str, ""), **{r.single: (r.kind, ...)})  # type: ignore[call-overload]


def _outer(r: Recognition) -> type[BaseModel]:
    return create_model("Outer", inner=(_leaf_model(r, "single"), ...))


def _top(args: dict[str, Any]) -> dict[str, Any]:
    return args


POSITIONS = {
    "top level": Position("", lambda r: r.kind, _top, lambda kw, f: kw[f], "single"),
    "optional": Position(
        "", lambda r: r.kind | None, _top, lambda kw, f: kw[f], "single", default=None
    ),
    "list": Position("", lambda r: list[r.kind], _top, lambda kw, f: kw[f], "many"),
    "str | list[str]": Position(
        "", lambda r: r.kind | list[r.kind], _top, lambda kw, f: kw[f], "union"
    ),
    "nested model": Position(
        "item",
        lambda r: _leaf_model(r, "single"),
        lambda a: {"item": a},
        lambda kw, f: getattr(kw["item"], f),
        "single",
    ),
    "optional nested model": Position(
        "item",
        lambda r: _leaf_model(r, "single") | None,
        lambda a: {"item": a},
        lambda kw, f: getattr(kw["item"], f),
        "single",
        default=None,
    ),
    "list of models": Position(
        "items",
        lambda r: list[_leaf_model(r, "single")],  # type: ignore[misc]
        lambda a: {"items": [a, a]},
        lambda kw, f: getattr(kw["items"][1], f),
        "single",
    ),
    "model in a model": Position(
        "outer",
        _outer,
        lambda a: {"outer": {"inner": a}},
        lambda kw, f: getattr(kw["outer"].inner, f),
        "single",
    ),
    "union in a nested model": Position(
        "item",
        lambda r: _leaf_model(r, "union"),
        lambda a: {"item": a},
        lambda kw, f: getattr(kw["item"], f),
        "union",
    ),
}

SHAPES = [(p, r) for p in POSITIONS for r in RECOGNITIONS]
assert len(SHAPES) == 27


def _probe(position: Position, recognition: Recognition) -> tuple[Any, list[dict[str, Any]]]:
    received: list[dict[str, Any]] = []
    name = position.parameter or (
        recognition.many if position.form == "many" else recognition.single
    )

    def probe(**kwargs: Any) -> str:
        received.append(kwargs)
        return "ok"

    annotation = position.annotation(recognition)
    probe.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=annotation,
                default=position.default,
            )
        ],
        return_annotation=str,
    )
    probe.__annotations__ = {name: annotation, "return": str}
    probe.__doc__ = "Probe a source."
    return tool(probe), received


def _names(position: Position, r: Recognition) -> tuple[str, str]:
    if position.form == "many":
        return r.many, r.many_index
    return r.single, r.single_index


def _text(value: Any) -> Any:
    return [str(v) for v in value] if isinstance(value, list) else str(value)


@pytest.mark.parametrize(("position", "recognition"), SHAPES)
async def test_a_made_up_url_never_reaches_the_tool(position: str, recognition: str) -> None:
    where, how = POSITIONS[position], RECOGNITIONS[recognition]
    probe, received = _probe(where, how)
    index = CitationIndex()
    index.add(URL_A)
    index.add(URL_B)
    original, replacement = _names(where, how)
    field = how.many if where.form == "many" else how.single
    several = where.form != "single"
    async with Agent(tools=[probe], extensions=[CitationManager(index)]) as agent:
        good = await agent.invoke("probe", **where.wrap({replacement: [2, 1] if several else 1}))
        assert good.success, good.error
        assert len(received) == 1
        assert _text(where.leaf(received[0], field)) == ([URL_B, URL_A] if several else URL_A)
        received.clear()

        made_up: Any = [MADE_UP] if several else MADE_UP
        attempts = [
            {original: made_up},
            {replacement: made_up},
            {replacement: [99] if several else 99},
            {replacement: [1, MADE_UP] if several else [MADE_UP]},
        ]
        if where.form == "union":
            attempts += [{original: MADE_UP}, {replacement: MADE_UP}]
        for attempt in attempts:
            refused = await agent.invoke("probe", **where.wrap(attempt))
            assert not refused.success, f"{attempt} was accepted"
            assert received == [], f"{attempt} reached the tool: {received}"
            assert MADE_UP not in repr(received)


class Link(BaseModel):
    """A link with a title."""

    url: str
    title: str = ""


class Page(BaseModel):
    """A page: a link, more URLs, and child pages (a recursive model)."""

    link: Link
    urls: list[str] = []
    children: list[Page] = []
    homepage: HttpUrl | None = None


_good = st.one_of(st.sampled_from([1, 2]), st.lists(st.sampled_from([1, 2]), max_size=2))
_value = st.one_of(
    _good,
    _good,
    st.sampled_from([MADE_UP, [MADE_UP], [1, MADE_UP], 99, 0, True, None, "t"]),
    st.lists(st.integers(-1, 3), max_size=3),
)
_link = st.fixed_dictionaries(
    {"citation_idx": st.one_of(st.just(1), _value)},
    optional={"url": _value, "title": st.just("t")},
)
_leaf_page = st.fixed_dictionaries(
    {"link": _link},
    optional={
        "urls": _value,
        "citation_idxs": _value,
        "homepage": _value,
        "homepage_citation_idx": _value,
    },
)
_page = st.fixed_dictionaries(
    {"link": _link},
    optional={
        "urls": _value,
        "citation_idxs": _value,
        "homepage": _value,
        "homepage_citation_idx": _value,
        "children": st.lists(_leaf_page, max_size=2),
    },
)
_arguments = st.fixed_dictionaries(
    {"page": _page},
    optional={
        "links": st.lists(_link, max_size=2),
        "url": _value,
        "citation_idx": _value,
        "opt": st.one_of(st.none(), _link),
    },
)


@settings(max_examples=300, deadline=None)
@given(arguments=_arguments)
def test_no_argument_shape_carries_a_made_up_url_to_the_tool(arguments: dict[str, Any]) -> None:
    received: list[Any] = []

    @tool
    def read(
        page: Page,
        links: list[Link] | None = None,
        url: str | list[str] | None = None,
        opt: Link | None = None,
    ) -> str:
        """Read pages."""
        received.append((page, links, url, opt))
        return "ok"

    async def run() -> None:
        index = CitationIndex()
        index.add(URL_A)
        index.add(URL_B)
        async with Agent(tools=[read], extensions=[CitationManager(index)]) as agent:
            await agent.invoke("read", **arguments)

    anyio.run(run)
    assert "attacker.example" not in repr(received)
    if received:
        event("the tool ran")


async def test_a_url_or_model_union_takes_numbers_in_its_url_branch() -> None:
    received: list[Any] = []

    @tool
    def open_source(url: str | Link) -> str:
        """Open a source given as a URL or a link."""
        received.append(url)
        return "ok"

    index = CitationIndex()
    index.add(URL_A)
    async with Agent(tools=[open_source], extensions=[CitationManager(index)]) as agent:
        schema = (await agent.tool_signatures())[0]["function"]["parameters"]
        branches = schema["properties"]["url"]["anyOf"]
        assert {"type": "string"} not in branches and branches[0]["type"] == "integer"
        assert (await agent.invoke("open_source", url=1)).success
        assert (await agent.invoke("open_source", url={"citation_idx": 1})).success
        for made_up in (MADE_UP, {"url": MADE_UP}, {"citation_idx": 7}):
            assert not (await agent.invoke("open_source", url=made_up)).success
    assert [str(getattr(r, "url", r)) for r in received] == [URL_A, URL_A]


_flat_arguments = st.fixed_dictionaries(
    {},
    optional={
        "url": _value,
        "citation_idx": _value,
        "urls": _value,
        "citation_idxs": _value,
        "source_url": _value,
        "source_citation_idx": _value,
        "page": st.integers(),
    },
)


@settings(max_examples=400, deadline=None)
@given(arguments=_flat_arguments)
def test_the_short_path_for_top_level_urls_agrees_with_the_full_walk(
    arguments: dict[str, Any],
) -> None:
    from good_agent.extensions.citation_arguments import ArgumentTranslator, _Translator
    from good_agent.extensions.citation_schema import compile_url_slots
    from good_agent.types.errors import ToolError

    @tool
    def read(
        url: str, urls: list[str] | None = None, source_url: str | list[str] | None = None
    ) -> str:
        """Read."""
        return "ok"

    slots = compile_url_slots(read.signature["function"]["parameters"])
    table = {1: URL_A, 2: URL_B}

    def lookup(number: int) -> str:
        return table[number]

    def valid() -> str:
        return "1, 2"

    def outcome(run: Callable[[], Any]) -> Any:
        try:
            return ("ok", run())
        except ToolError as error:
            return ("refused", str(error))

    short = ArgumentTranslator(slots, lookup, valid)
    assert short._flat is not None
    assert slots.root is not None
    full = _Translator(slots, lookup, valid)
    assert outcome(lambda: short(arguments)) == outcome(
        lambda: full.node(slots.root, arguments, "")
    )
