"""The Gemini request translation and schema dialect, property-tested.

Any JSON body either translates to a neutral request or is refused with a 400
naming a field; nothing else escapes. Gemini's schema dialect reads back as the
JSON Schema it means, and a JSON Schema written to Gemini's dialect reads back to
an equivalent one.
"""

from __future__ import annotations

import base64
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from good_agent.providers.gemini.schema import from_gemini_schema, to_gemini_schema
from good_agent.server.common.errors import BridgeError
from good_agent.server.generate_content.wire import parse_generate_request

KEYS = [
    "contents", "role", "parts", "text", "functionCall", "functionResponse", "name", "args",
    "response", "id", "inlineData", "mimeType", "data", "fileData", "fileUri", "tools",
    "functionDeclarations", "parameters", "parametersJsonSchema", "type", "properties",
    "toolConfig", "functionCallingConfig", "mode", "allowedFunctionNames", "generationConfig",
    "temperature", "maxOutputTokens", "stopSequences", "responseMimeType", "responseSchema",
    "systemInstruction", "thought", "nullable", "items", "required", "seed", "candidateCount",
]  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True),
    st.sampled_from(["user", "model", "ANY", "NONE", "AUTO", "OBJECT", "STRING", "f", "", "x"]),
    st.sampled_from(["application/json", "image/png", "text/plain"]),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=25,
)
FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(body=st.dictionaries(st.sampled_from(KEYS), JSON, max_size=5))
def test_any_body_translates_or_is_a_400_naming_a_field(body: dict[str, Any]) -> None:
    try:
        request = parse_generate_request(body)
    except BridgeError as refused:
        assert refused.status == 400
        assert refused.message
        return
    assert request.messages
    ids = [c["id"] for m in request.messages for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in request.messages if m["role"] == "tool"]
    assert len(set(ids)) == len(ids)
    assert set(answered) <= set(ids) and len(set(answered)) == len(answered)


def test_the_gemini_dialect_reads_back_as_json_schema() -> None:
    schema = {
        "type": "OBJECT",
        "properties": {
            "city": {"type": "STRING", "nullable": True},
            "unit": {"type": "STRING", "format": "enum", "enum": ["C", "F"]},
            "days": {"type": "ARRAY", "items": {"type": "INTEGER"}, "min_items": 1},
        },
        "required": ["city"],
        "propertyOrdering": ["city", "unit", "days"],
    }
    assert from_gemini_schema(schema) == {
        "type": "object",
        "properties": {
            "city": {"type": ["string", "null"]},
            "unit": {"type": "string", "enum": ["C", "F"]},
            "days": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
        },
        "required": ["city"],
    }


LEAF = st.one_of(
    st.just({"type": "string"}),
    st.just({"type": "integer", "minimum": 0}),
    st.just({"type": ["number", "null"]}),
    st.just({"type": "boolean"}),
    st.just({"enum": ["a", "b"]}),
)
SCHEMAS = st.recursive(
    LEAF,
    lambda inner: (
        st.builds(lambda items: {"type": "array", "items": items}, inner)
        | st.builds(
            lambda props: {"type": "object", "properties": props, "required": sorted(props)[:1]},
            st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, min_size=1, max_size=3),
        )
    ),
    max_leaves=8,
)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "z"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@FUZZ
@given(schema=SCHEMAS, value=VALUES)
def test_a_schema_through_the_gemini_dialect_accepts_the_same_values(
    schema: dict[str, Any], value: Any
) -> None:
    root = {"type": "object", "properties": {"v": schema}, "required": ["v"]}
    back = from_gemini_schema(to_gemini_schema(root))
    instance = {"v": value}
    assert jsonschema.Draft202012Validator(root).is_valid(instance) == (
        jsonschema.Draft202012Validator(back).is_valid(instance)
    )


@given(st.binary(min_size=1, max_size=64), st.booleans(), st.booleans())
def test_inline_data_in_either_base64_alphabet_reads_as_the_same_bytes(
    data: bytes, url_safe: bool, padded: bool
) -> None:
    encoded = (base64.urlsafe_b64encode if url_safe else base64.b64encode)(data).decode()
    if not padded:
        encoded = encoded.rstrip("=")
    part = {"inlineData": {"mimeType": "image/png", "data": encoded}}
    body = {"contents": [{"role": "user", "parts": [part]}]}
    url = parse_generate_request(body).messages[0]["content"][0]["image_url"]["url"]
    prefix = "data:image/png;base64,"
    assert url.startswith(prefix)
    assert base64.b64decode(url[len(prefix) :], validate=True) == data
