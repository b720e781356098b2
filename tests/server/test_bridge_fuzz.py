"""Fuzzing the bridge's two endpoints: bodies built from their JSON Schemas, then mutated.

Bodies are drawn from ``ChatCompletionsBody.model_json_schema()`` and
``MessagesBody.model_json_schema()`` (the schemas the docs publish), with tool
schemas drawn from JSON Schema keywords given values of any type. Then some are
mutated: a field replaced by a value of another type, deleted, or buried under
deep nesting; or the raw JSON given a ``NaN``, a lone surrogate, deep brackets or
a cut. Whatever arrives, the bridge answers with JSON in the endpoint's error
shape and never a 5xx, except the documented upstream failures (502, 504).
Requests go over loopback to the real bridge, whose fake upstreams answer in
their providers' formats.
"""

from __future__ import annotations

import json
import os
from typing import Any

import httpx2
import pytest
from bridge_harness import CLIENT_KEY
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from good_agent.server.request_schemas import ChatCompletionsBody, MessagesBody

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
MODELS = ["gpt", "claude", "gemini", "ollama", "local", "local-parsed", "structured", "nope"]
UPSTREAM_FAILURES = {
    502: {
        "upstream_error",
        "upstream_unreachable",
        "upstream_invalid_reply",
        "upstream_stream_cut",
    },
    504: {"upstream_timeout"},
}
FUZZ = settings(
    # 60 examples per endpoint in CI (a few seconds); BRIDGE_FUZZ_EXAMPLES=2000 for a deeper run.
    max_examples=int(os.environ.get("BRIDGE_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)

LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
ANY_JSON = st.recursive(
    LEAF,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYWORDS = [
    "type", "properties", "required", "items", "prefixItems", "additionalProperties",
    "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "$defs", "minimum",
    "maximum", "multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems",
    "uniqueItems", "description", "format", "default", "nullable", "dependencies",
]  # fmt: skip
SCHEMA_VALUES = st.one_of(
    ANY_JSON,
    st.sampled_from(["string", "integer", "object", "array", "#", "#/$defs/a", "(", "^a+$"]),
)


def tool_schemas() -> st.SearchStrategy[Any]:
    """Schemas with JSON Schema keywords whose values may have any type."""
    node = st.recursive(
        st.dictionaries(st.sampled_from(KEYWORDS), SCHEMA_VALUES, max_size=3),
        lambda inner: st.fixed_dictionaries(
            {},
            optional={
                "properties": st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
                "items": inner,
                "anyOf": st.lists(inner, min_size=1, max_size=2),
                "$defs": st.fixed_dictionaries({"a": inner}),
                "type": st.sampled_from(["object", "string", "array"]),
            },
        ),
        max_leaves=6,
    )
    return node.map(lambda schema: {"type": "object", **schema})


def from_schema(schema: dict[str, Any], root: dict[str, Any], field: str = "") -> Any:
    """A strategy for values of ``schema`` (the subset pydantic's schemas use)."""
    if "$ref" in schema:
        target = root["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
        return from_schema(target, root, field)
    if field in ("parameters", "input_schema"):
        return tool_schemas()
    if field == "model":
        return st.sampled_from(MODELS)
    if "anyOf" in schema:
        return st.one_of([from_schema(option, root, field) for option in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        return st.text(min_size=schema.get("minLength", 0), max_size=12)
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum"), max_value=2**31)
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = from_schema(schema.get("items", {}), root)
        return st.lists(items, min_size=schema.get("minItems", 0), max_size=3)
    if kind == "object" and "properties" in schema:
        required = set(schema.get("required", []))
        props = {k: from_schema(v, root, k) for k, v in schema["properties"].items()}
        return st.fixed_dictionaries(
            {k: v for k, v in props.items() if k in required},
            optional={k: v for k, v in props.items() if k not in required},
        )
    return st.dictionaries(st.text(max_size=6), ANY_JSON, max_size=3)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += paths(child, (*prefix, index))
    return found


@st.composite
def mutated(draw: st.DrawFn, bodies: st.SearchStrategy[Any]) -> bytes:
    """A body from ``bodies``, perhaps mutated, as the bytes sent."""
    body = draw(bodies)
    for _ in range(draw(st.integers(0, 2))):
        path = draw(st.sampled_from(paths(body)))
        if not path:
            continue
        parent = body
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "delete", "deepen"]))
        if action == "replace":
            parent[path[-1]] = draw(ANY_JSON)
        elif action == "deepen":
            parent[path[-1]] = json.loads("[" * 150 + "]" * 150)
        elif isinstance(parent, dict):
            del parent[path[-1]]
    raw = json.dumps(body, ensure_ascii=False)
    cut = draw(st.sampled_from(["none"] * 6 + ["nan", "surrogate", "brackets", "cut"]))
    if cut == "nan" and ": 0" in raw:
        raw = raw.replace(": 0", ": NaN", 1)
    elif cut == "surrogate" and '": "' in raw:
        raw = raw.replace('": "', '": "\\udc80', 1)
    elif cut == "brackets":
        raw = raw[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}"
    elif cut == "cut":
        raw = raw[: draw(st.integers(0, max(0, len(raw) - 1)))]
    return raw.encode("utf-8", "surrogatepass")


def check_answer(response: httpx2.Response, anthropic: bool) -> None:
    if response.status_code >= 500:
        body = response.json()
        code = body["error"].get("code") if not anthropic else None
        message = body["error"]["message"]
        assert response.status_code in UPSTREAM_FAILURES, response.text
        assert anthropic or code in UPSTREAM_FAILURES[response.status_code], response.text
        assert "upstream" in message
        return
    if response.status_code == 200:
        if response.headers["content-type"].startswith("text/event-stream"):
            assert "server_error" not in response.text and "internal_error" not in response.text
        return
    body = response.json()
    if anthropic:
        assert body["type"] == "error" and set(body["error"]) == {"type", "message"}
    else:
        assert set(body["error"]) == {"message", "type", "param", "code"}


def chat_bodies() -> st.SearchStrategy[Any]:
    schema = ChatCompletionsBody.model_json_schema()
    return from_schema(schema, schema)


def messages_bodies() -> st.SearchStrategy[Any]:
    schema = MessagesBody.model_json_schema()
    return from_schema(schema, schema)


@pytest.fixture
def http(bridge: Any) -> Any:
    with httpx2.Client(
        base_url=bridge.url, timeout=20, headers={"authorization": f"Bearer {CLIENT_KEY}"}
    ) as client:
        yield client


@FUZZ
@given(raw=mutated(chat_bodies()))
def test_chat_completions_never_fails_on_bad_input(http: Any, raw: bytes) -> None:
    check_answer(http.post(CHAT, content=raw), anthropic=False)


@FUZZ
@given(raw=mutated(messages_bodies()))
def test_messages_never_fails_on_bad_input(http: Any, raw: bytes) -> None:
    check_answer(http.post(MESSAGES, content=raw), anthropic=True)
