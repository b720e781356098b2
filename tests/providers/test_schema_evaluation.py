"""Problems worded from the library's evaluation output read exactly as those worded
from its error objects (``iter_errors``), which stay the reference."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from good_agent.providers.schema_evaluation import located, word_evaluation
from good_agent.providers.schema_validation import compile_schema
from good_agent.providers.schema_words import path_text

KEYS = ["a", "b", "a/b", "~0", "1", "type", "0"]
"""Property names, some needing escapes in a JSON pointer or looking like an index."""

leaves = st.sampled_from(
    [
        {},
        True,
        False,
        {"type": "string"},
        {"type": "integer", "minimum": 1, "maximum": 3},
        {"type": ["string", "null"]},
        {"enum": [1, "x", None]},
        {"const": 2},
        {"const": False},
        {"type": "string", "minLength": 2, "maxLength": 3},
        {"type": "string", "pattern": "^a"},
        {"not": {"type": "string"}},
        {"type": "array", "uniqueItems": True, "maxItems": 1},
        {"type": "number", "exclusiveMinimum": 0, "multipleOf": 2},
        {"type": "integer", "enum": [1, 2], "minimum": 2},
        {"$ref": "#/$defs/D"},
        {"$ref": "#/$defs/E"},
    ]
)
defined = st.sampled_from(
    [
        {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/D"}]},
        {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]},
        {"type": "object", "required": ["a", "b"], "additionalProperties": False},
    ]
)


def objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda props, required, extra, pattern: {
            "type": "object",
            "properties": props,
            "required": required,
            **({} if extra is None else {"additionalProperties": extra}),
            **({"patternProperties": {"^z": {"type": "integer"}}} if pattern else {}),
        },
        st.dictionaries(st.sampled_from(KEYS), children, max_size=3),
        st.lists(st.sampled_from(KEYS), max_size=3, unique=True),
        st.sampled_from([None, True, False, {"type": "integer"}]),
        st.booleans(),
    )


def arrays(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda items, prefix: {"type": "array", "items": items, **prefix},
        children,
        st.one_of(
            st.just({}),
            st.builds(lambda p: {"prefixItems": p}, st.lists(children, min_size=1, max_size=2)),
        ),
    )


def combinations(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda keyword, branches: {keyword: branches},
        st.sampled_from(["anyOf", "oneOf", "allOf"]),
        st.lists(children, min_size=1, max_size=3),
    )


schemas = st.builds(
    lambda top, d, e: {"allOf": [top], "$defs": {"D": d, "E": e}},
    st.recursive(
        leaves, lambda inner: objects(inner) | arrays(inner) | combinations(inner), max_leaves=8
    ),
    leaves,
    defined,
)
scalars = st.one_of(
    st.integers(-3, 5),
    st.floats(-3, 5, allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "a", "ab", "x", "abcd"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from([*KEYS, "z", "zz"]), inner, max_size=4),
    ),
    max_leaves=10,
)


@settings(max_examples=1_500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas, value=values)
def test_evaluation_output_is_worded_as_the_error_objects_are(schema: Any, value: Any) -> None:
    compiled = compile_schema(schema).__self__  # type: ignore[attr-defined]
    if not compiled.locations_tell or compiled.library.is_valid(value):
        return
    worded = word_evaluation(compiled.library, compiled.schema, compiled.places, value)
    if worded is not None:  # None: worded from the error objects instead
        assert worded == compiled.problems(value, value, set())


SEARCH = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 500},
        "sources": {"type": "array", "items": {"enum": ["web", "news"]}, "maxItems": 3},
        "since": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        "point": {"$ref": "#/$defs/Point"},
    },
    "required": ["query"],
    "additionalProperties": False,
    "$defs": {"Point": {"type": "object", "required": ["lat", "lon"]}},
}


def test_the_usual_problems_are_worded_from_the_evaluation_output() -> None:
    compiled = compile_schema(SEARCH).__self__  # type: ignore[attr-defined]
    value = {"query": "q", "sources": ["tv"], "since": 3, "limit": 0, "point": {}}
    assert compiled.locations_tell
    worded = word_evaluation(compiled.library, compiled.schema, compiled.places, value)
    assert worded == [
        'sources[0]: expected one of "web", "news", got "tv"',
        "since: 3 matches none of the allowed forms (since: expected string, got number 3)",
        "limit: must be at least 1, got 0",
        "point.lat: field required",
        "point.lon: field required",
    ]
    assert worded == compiled.problems(value, value, set())
    allowed = "(allowed: query, sources, since, limit, point)"
    value = {"query": "q", "q": 1, "r": 2}
    worded = word_evaluation(compiled.library, compiled.schema, compiled.places, value)
    assert worded == [f"q: unexpected field {allowed}", f"r: unexpected field {allowed}"]
    # Told with a missing field of the same object: worded from the error objects.
    value = {"q": 1}
    assert word_evaluation(compiled.library, compiled.schema, compiled.places, value) is None
    assert compile_schema(SEARCH)(value) == [
        f"q: unexpected field {allowed}",
        "query: field required",
    ]


def test_a_ref_inside_a_branch_is_followed_so_the_branch_shows() -> None:
    point = {"type": "object", "required": ["lat", "lon"]}
    optional = {
        "type": "object",
        "properties": {"point": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]}},
        "$defs": {"Point": point},
    }
    compiled = compile_schema(optional).__self__  # type: ignore[attr-defined]
    assert compiled.locations_tell
    value = {"point": {"lat": 1}}
    worded = word_evaluation(compiled.library, compiled.schema, compiled.places, value)
    assert worded == [
        'point: {"lat": 1} matches none of the allowed forms (point.lon: field required)'
    ]
    assert worded == compiled.problems(value, value, set())
    # A recursive schema keeps its $ref (and is worded from the error objects).
    tree = {
        "$ref": "#/$defs/T",
        "$defs": {
            "T": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/T"}}]}
        },
    }
    validate = compile_schema(tree)
    assert not validate.__self__.locations_tell  # type: ignore[attr-defined]
    assert validate([1, [2]]) == []
    assert validate("x") == [
        'arguments: "x" matches none of the allowed forms'
        ' (arguments: expected integer, got string "x")'
    ]


def _nest(steps: list[Any], leaf: Any) -> Any:
    """``leaf`` at ``steps`` (an int: an array position; a string: an object key)."""
    for step in reversed(steps):
        leaf = [None] * step + [leaf] if isinstance(step, int) else {step: leaf, "x": None}
    return leaf


@given(
    st.lists(st.one_of(st.sampled_from([*KEYS, "~1", "/~", "01"]), st.integers(0, 2))),
    st.data(),
)
def test_a_json_pointer_names_its_place_with_steps_typed_as_in_the_value(
    steps: list[Any], data: st.DataObject
) -> None:
    pointer = "".join(
        "/" + (str(s) if isinstance(s, int) else s.replace("~", "~0").replace("/", "~1"))
        for s in steps
    )
    # The same pointer in a value where some array positions are object keys instead.
    keyed = [str(s) if isinstance(s, int) and data.draw(st.booleans()) else s for s in steps]
    for where in (steps, steps, keyed, keyed, steps):  # again: as remembered
        value = _nest(where, data.draw(scalars))
        found, text, there = located(value, pointer)
        assert found == tuple(where)
        assert [type(s) for s in found] == [type(s) for s in where]
        assert text == path_text(tuple(where))
        expected: Any = value
        for step in where:
            expected = expected[step]
        assert there is expected
