"""Bad client input is a 400 naming the field, checked before the upstream is contacted.

Each case here answered 500 (a RecursionError, a TypeError, a crash when the
model's call was validated) or 502 (blaming an upstream never contacted), or was
accepted with the wrong meaning (``n: true``, ``stream: "yes"``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx2
import pytest
from bridge_fakes import Fake
from bridge_harness import CLIENT_KEY, USER, WEATHER

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]
AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"


async def send(bridge: Any, path: str, raw: bytes) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=10) as http:
        return await http.post(f"{bridge.url}{path}", headers=AUTH, content=raw)


def refused(response: httpx2.Response, path: str, param: str | None) -> str:
    """Assert a 400 in the endpoint's own error shape; return the message."""
    assert response.status_code == 400, response.text
    body = response.json()
    if path == MESSAGES:
        assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
        message = str(body["error"]["message"])
        if param is not None:
            assert param in message
        return message
    error = body["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    if param is not None:
        assert error["param"] == param
        assert param in error["message"]
    return str(error["message"])


def chat(**fields: Any) -> dict[str, Any]:
    return {"model": "gpt", "messages": USER, **fields}


def messages(**fields: Any) -> dict[str, Any]:
    return {"model": "claude", "max_tokens": 100, "messages": USER, **fields}


def nested_items(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return {"type": "object", "properties": {"a": schema}}


def chat_tool(parameters: Any) -> dict[str, Any]:
    return chat(tools=[{"type": "function", "function": {"name": "f", "parameters": parameters}}])


def messages_tool(schema: Any) -> dict[str, Any]:
    return messages(tools=[{"name": "f", "input_schema": schema}])


@pytest.mark.parametrize("path", [CHAT, MESSAGES])
async def test_a_10000_deep_body_is_a_400(
    bridge: Any, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.server")
    deep = b'{"model": "gpt", "messages": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    message = refused(await send(bridge, path, deep), path, None)
    assert "nested more than 200 levels" in message
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    statuses = [r.__dict__.get("status") for r in caplog.records if r.name.endswith("access")]
    assert statuses == [400], "one access-log line per request"


BAD_SCHEMAS: list[tuple[Any, str]] = [
    (nested_items(450), ""),  # deeper than the body allows: refused while parsing
    (nested_items(100), ".properties.a" + ".items" * 62),
    ({"type": "object", "properties": "city"}, ".properties"),
    ({"type": "object", "properties": ["city"]}, ".properties"),
    ({"type": "object", "properties": {"a": {"type": "string", "maxLength": "abc"}}}, ""),
    ({"type": "object", "properties": {"a": {"type": "strin"}}}, ".properties.a.type"),
    ({"type": "object", "required": "a"}, ".required"),
    ({"type": "object", "properties": {"a": {"pattern": "("}}}, ".properties.a.pattern"),
    ({"type": "object", "properties": {"a": {"anyOf": {}}}}, ".properties.a.anyOf"),
    ({"type": "object", "properties": {"a": 5}}, ".properties.a"),
    ({"type": "object", "required": ["a", "a"]}, ".required"),
    ({"type": "object", "$ref": "#"}, ".$ref"),
    (
        {"type": "object", "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"},
        ".$ref",
    ),
]


@pytest.mark.parametrize(("schema", "suffix"), BAD_SCHEMAS)
@pytest.mark.parametrize("path", [CHAT, MESSAGES])
async def test_bad_tool_schemas_are_400s(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], path: str, schema: Any, suffix: str
) -> None:
    body = chat_tool(schema) if path == CHAT else messages_tool(schema)
    response = await send(bridge, path, json.dumps(body).encode())
    if schema is BAD_SCHEMAS[0][0]:
        assert "nested more than" in refused(response, path, None)
        return
    base = "tools[0].function.parameters" if path == CHAT else "tools[0].input_schema"
    if "maxLength" in json.dumps(schema):
        suffix = ".properties.a.maxLength"
    message = refused(response, path, base + suffix)
    assert any(word in message for word in ("nested", "must", "valid", "loop"))
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


async def test_a_schema_at_the_depth_limit_is_served(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    ok = await send(bridge, CHAT, json.dumps(chat_tool(nested_items(60))).encode())
    assert ok.status_code == 200, ok.text
    assert fakes["openai"][0].requests


@pytest.mark.parametrize(
    ("json_schema", "param"),
    [
        (5, "response_format.json_schema"),
        (
            {"name": "x", "schema": {"properties": "a"}},
            "response_format.json_schema.schema.properties",
        ),
        ({"name": "x", "schema": {"$ref": "#"}}, "response_format.json_schema.schema.$ref"),
        ({"name": "x", "schema": "object"}, "response_format.json_schema.schema"),
    ],
)
async def test_bad_response_format_schemas_are_400s(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], json_schema: Any, param: str
) -> None:
    body = chat(response_format={"type": "json_schema", "json_schema": json_schema})
    refused(await send(bridge, CHAT, json.dumps(body).encode()), CHAT, param)
    assert not fakes["openai"][0].requests


@pytest.mark.parametrize("name", [["w"], {"name": "w"}, 5, None])
async def test_messages_tool_choice_name_must_be_a_string(bridge: Any, name: Any) -> None:
    weather = {"name": "w", "input_schema": WEATHER["function"]["parameters"]}
    body = messages(tools=[weather], tool_choice={"type": "tool", "name": name})
    message = refused(await send(bridge, MESSAGES, json.dumps(body).encode()), MESSAGES, None)
    assert "tool_choice" in message


WRONG_TYPES: list[tuple[str, dict[str, Any], str]] = [
    (CHAT, chat(n=True), "n"),
    (CHAT, chat(n=2.0), "n"),
    (CHAT, chat(stream=0), "stream"),
    (CHAT, chat(stream="yes"), "stream"),
    (CHAT, chat(max_tokens=True), "max_tokens"),
    (CHAT, chat(temperature="hot"), "temperature"),
    (CHAT, chat(parallel_tool_calls=1), "parallel_tool_calls"),
    (CHAT, chat(stream=True, stream_options={"include_usage": "yes"}), "stream_options"),
    (CHAT, chat(messages=[{"role": "user", "content": 5}]), "messages[0].content"),
    (CHAT, chat(messages=[{"role": "user", "content": {"a": 1}}]), "messages[0].content"),
    (CHAT, chat(messages=[{"role": "user", "content": [{"type": 5}]}]), "messages[0].content"),
    (CHAT, chat(messages=[{"role": 1, "content": "x"}]), "messages[0].role"),
    (CHAT, chat(tools=[{"type": "function", "function": {"name": 3}}]), "tools[0].function"),
    (MESSAGES, messages(max_tokens=True), "max_tokens"),
    (MESSAGES, messages(max_tokens="5"), "max_tokens"),
    (MESSAGES, messages(stream=0), "stream"),
    (MESSAGES, messages(stream="yes"), "stream"),
    (MESSAGES, messages(messages=[{"role": "user", "content": 5}]), "messages[0].content"),
    (MESSAGES, messages(messages=[{"role": "user", "content": None}]), "messages[0].content"),
    (
        MESSAGES,
        messages(messages=[{"role": "user", "content": [{"type": "text", "text": 7}]}]),
        "messages[0].content[0].text",
    ),
    (MESSAGES, messages(system=5), "system"),
    (MESSAGES, messages(stop_sequences="END"), "stop_sequences"),
]


@pytest.mark.parametrize(("path", "body", "param"), WRONG_TYPES)
async def test_wrong_types_are_400s_naming_the_field(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], path: str, body: Any, param: str
) -> None:
    response = await send(bridge, path, json.dumps(body).encode())
    message = refused(response, path, None)
    assert param in message, message
    if path == CHAT:
        assert response.json()["error"]["param"].startswith(param)
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


def raw_chat(content: str = '"x"', extra: str = "") -> bytes:
    head = '{"model": "gpt", "messages": [{"role": "user", "content": ' + content + "}]"
    return (head + extra + "}").encode()


def raw_messages(content: str = '"x"', extra: str = "") -> bytes:
    head = '{"model": "claude", "max_tokens": 9, "messages": [{"role": "user", "content": '
    return (head + content + "}]" + extra + "}").encode()


UNSENDABLE: list[tuple[str, bytes, str]] = [
    (CHAT, raw_chat('"a\\ud800b"'), ""),
    (CHAT, raw_chat('"\\udc00"'), ""),
    (CHAT, raw_chat(extra=', "temperature": NaN'), ""),
    (CHAT, raw_chat(extra=', "top_p": -Infinity'), ""),
    (CHAT, raw_chat(extra=', "seed": 1e999'), ""),
    (CHAT, raw_chat(extra=', "x": 1e999'), "x"),
    (MESSAGES, raw_messages('"\\ud83d"'), ""),
    (MESSAGES, raw_messages(extra=', "temperature": NaN'), ""),
]


@pytest.mark.parametrize(("path", "raw", "param"), UNSENDABLE)
async def test_lone_surrogates_and_non_finite_numbers_are_400s(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], path: str, raw: bytes, param: str
) -> None:
    response = await send(bridge, path, raw)
    message = refused(response, path, None)
    expected = param or ("messages[0].content" if b"\\ud" in raw else "")
    if not expected:
        expected = next(k for k in ("temperature", "top_p", "seed") if k.encode() in raw)
    assert expected in message, message
    assert "upstream" not in message
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


async def test_a_surrogate_in_a_tool_result_names_its_place(bridge: Any) -> None:
    raw = (
        b'{"model": "gpt", "messages": [{"role": "user", "content": "x"},'
        b' {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",'
        b' "function": {"name": "f", "arguments": "{}"}}]},'
        b' {"role": "tool", "tool_call_id": "c", "content": "\\ud800"}]}'
    )
    response = await send(bridge, CHAT, raw)
    refused(response, CHAT, "messages[2].content")
    assert "surrogate" in response.json()["error"]["message"]
