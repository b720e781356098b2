"""The text of a strict answer: JSON as it is or in one fenced block, checked against
the schema (property tests over JSON values)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from good_agent.providers.types import ChatRequest
from good_agent.server.strict_answers import answer_json, answer_problems, strict_schema

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(JSON_VALUES, st.sampled_from(["", "json", "JSON"]), st.sampled_from(["", " ", "\n"]))
def test_fenced_or_bare_json_is_read_back(value: Any, tag: str, pad: str) -> None:
    text = json.dumps(value)
    assert answer_json(f"{pad}{text}{pad}") == text
    assert answer_json(f"{pad}```{tag}\n{text}\n```{pad}") == text
    assert answer_problems(answer_json(f"```{tag}\n{text}\n```"), {}) == []


@given(JSON_VALUES)
def test_a_value_of_another_type_is_a_problem(value: Any) -> None:
    problems = answer_problems(json.dumps(value), {"type": "object", "required": ["a"]})
    has_a = isinstance(value, dict) and "a" in value
    assert bool(problems) is not has_a


def test_prose_is_named_as_not_json() -> None:
    problems = answer_problems("It is sunny.", {"type": "object"})
    assert len(problems) == 1 and problems[0].startswith("the answer is not JSON")
    assert answer_problems("[" * 100_000, {}) != []  # too deep or not JSON: a problem


def test_only_a_strict_json_schema_is_checked() -> None:
    schema = {"type": "object"}

    def request(fmt: Any) -> ChatRequest:
        return ChatRequest(messages=[], response_format=fmt)

    strict = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema, "strict": True}}
    loose = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    assert strict_schema(request(strict)) == schema
    assert strict_schema(request(loose)) is None
    assert strict_schema(request({"type": "json_object"})) is None
    assert strict_schema(request(None)) is None
