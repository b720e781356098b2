"""The quick accept of common valid values gives the answers of the full check."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

from good_agent.providers import schema_validation
from good_agent.providers._schema_quick import KEYWORDS, quick_accept
from good_agent.providers.schema_validation import compile_schema

NAMES = ["a", "b", "c"]
bounds = st.one_of(st.none(), st.integers(-5, 5), st.floats(-5, 5, allow_nan=False))


@st.composite
def numbers(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": draw(st.sampled_from(["integer", "number"]))}
    for key in ("minimum", "maximum"):
        bound = draw(bounds)
        if bound is not None:
            schema[key] = bound
    extra = draw(st.sampled_from([{}, {"description": "n"}, {"exclusiveMinimum": 0}]))
    return {**schema, **extra, **draw(st.sampled_from([{}, {"enum": [1, 2]}]))}


leaves = st.one_of(
    numbers(),
    st.sampled_from(
        [
            {},
            True,
            False,
            {"type": "string"},
            {"type": "string", "format": "uri", "title": "u"},
            {"type": "string", "minLength": 1},
            {"type": "boolean", "default": False},
            {"type": ["string", "null"]},
            {"type": "integer", "nullable": True},
            {"type": "null"},
            {"type": "string", "format": "password", "writeOnly": True, "x-unknown": 1},
            {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            {"anyOf": []},
            {"description": "anything"},
        ]
    ),
)


def objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda props, required, extra: {
            "type": "object",
            "properties": props,
            "required": required,
            **({} if extra is None else {"additionalProperties": extra}),
        },
        st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
        st.lists(st.sampled_from(NAMES), max_size=2, unique=True),
        st.sampled_from([None, True, False, {"type": "integer"}]),
    )


def any_of(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda branches: {"anyOf": branches}, st.lists(children, max_size=3))


schemas = st.recursive(leaves, lambda inner: objects(inner) | any_of(inner), max_leaves=6)
scalars = st.one_of(
    st.integers(-8, 8),
    st.floats(-8, 8, allow_nan=False),
    st.just(float("nan")),
    st.booleans(),
    st.none(),
    st.text(max_size=2),
    st.builds(SecretStr, st.text(max_size=2)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2),
        st.dictionaries(st.sampled_from([*NAMES, "z"]), inner, max_size=3),
    ),
    max_leaves=6,
)


def _full(schema: Any) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(schema_validation, "quick_accept", lambda schema: None)
        return compile_schema(schema)


@settings(max_examples=600, deadline=None)
@given(schema=schemas, value=values)
def test_same_problems_with_and_without_the_quick_accept(schema: Any, value: Any) -> None:
    assert compile_schema(schema)(value) == _full(schema)(value)


@settings(max_examples=600, deadline=None)
@given(schema=schemas, value=values)
def test_a_quick_accept_is_never_wrong(schema: Any, value: Any) -> None:
    quick = quick_accept(schema)
    if quick is not None and quick(value):
        assert _full(schema)(value) == []


def test_the_usual_shapes_have_a_quick_accept_and_the_rest_do_not() -> None:
    flat = {
        "type": "object",
        "properties": {
            "citation_idx": {"type": "integer", "minimum": 1, "maximum": 3, "description": "n"},
            "page": {"type": "integer", "default": 1},
            "query": {"type": "string"},
        },
        "required": ["citation_idx"],
        "additionalProperties": False,
    }
    quick = quick_accept(flat)
    assert quick is not None
    assert quick({"citation_idx": 2, "query": "x"})
    assert not quick({"citation_idx": 4})  # out of range: the full check words it
    assert not quick({"page": 1})  # the required index is missing
    assert not quick({"citation_idx": 1, "url": "https://x"})  # not allowed here
    assert quick_accept({"type": "string", "minLength": 1}) is None
    assert quick_accept({"type": "object", "additionalProperties": {"type": "string"}}) is None
    validate = compile_schema(flat)
    assert validate({"citation_idx": 4}) == ["citation_idx: must be at most 3, got 4"]
    assert validate({"citation_idx": True}) == ["citation_idx: expected integer, got boolean true"]


def test_the_quick_accept_knows_every_keyword_the_full_check_acts_on() -> None:
    # The module docstring lists the supported keywords; a keyword the full check
    # learns must be known here too, or a quick accept could skip it.
    doc = schema_validation.__doc__ or ""
    listed = doc.split("Supported keywords:")[1].split("Annotations")[0]
    documented = {word.strip("`") for word in re.findall(r"``[^`]+``", listed)}
    documented = {word for word in documented if not word.startswith("#")}
    assert documented == set(KEYWORDS)
