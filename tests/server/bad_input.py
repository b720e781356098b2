"""The bad-input tables of the bridge and the served agent, and the one check they share.

A ``Case`` is what a client sends (a JSON body, or raw bytes) to one API and the field
its answer must name. Each API's table is built by ``cases`` and is a list of
``pytest.param`` ids by API and field. ``send`` (async, the bridge) and
``send_sync`` (the served agent) post a case; ``refused`` checks the answer in the
API's own error shape: a 400 (never a 500) naming the field, no secret in it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

import httpx2
import pytest
from bridge_fakes import UPSTREAM_KEY
from bridge_harness import CLIENT_KEY, USER, WEATHER
from responses_harness import R_WEATHER
from tool_dicts import GEMINI_WEATHER
from ui_harness import run_input

Api = Literal["chat", "messages", "responses", "embeddings", "gemini", "ag-ui", "vercel"]
PATHS: dict[str, str] = {
    "chat": "/v1/chat/completions",
    "messages": "/v1/messages",
    "responses": "/v1/responses",
    "embeddings": "/v1/embeddings",
    "ag-ui": "/ag-ui",
    "vercel": "/vercel",
}
AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}
GEMINI_MODEL = "gpt"
"""The route a Gemini case is posted to (``/v1beta/models/gpt:<method>``)."""


@dataclass(frozen=True)
class Case:
    """A bad request to one API and what its 400 must say.

    ``field`` is the field named (``None``: the case checks only ``says``);
    ``prefix`` lets the ``param`` go deeper than ``field``; ``in_message`` is how much of
    ``field`` the message holds too (``"whole"``, its ``"head"`` name, or ``"none"`` where
    the error's ``param`` alone names it); ``says`` are words the message must hold besides.
    """

    api: Api
    body: Any
    field: str | None
    prefix: bool = False
    in_message: Literal["whole", "head", "none"] = "whole"
    says: str = ""

    @property
    def raw(self) -> bytes:
        """The bytes sent."""
        return self.body if isinstance(self.body, bytes) else json.dumps(self.body).encode()


def cases(api: Api, *rows: tuple[Any, str | None], **options: Any) -> list[Any]:
    """One table: a ``pytest.param`` per ``(body, field)`` row of ``api``."""
    return [
        pytest.param(Case(api, body, field, **options), id=f"{api}:{field or 'body'}")
        for body, field in rows
    ]


async def send(server: Any, case: Case, method: str = "generateContent") -> httpx2.Response:
    """POST ``case`` to the bridge ``server`` (a Gemini case to ``method`` of its route)."""
    if case.api == "gemini":
        path = f"/v1beta/models/{GEMINI_MODEL}:{method}"
        headers, params = {"x-goog-api-key": CLIENT_KEY}, {"alt": "sse"}
    else:
        path, headers, params = PATHS[case.api], AUTH, {}
    headers = {**headers, "content-type": "application/json"}
    async with httpx2.AsyncClient(timeout=30) as http:
        url = f"{server.url}{path}"
        return await http.post(url, content=case.raw, headers=headers, params=params)


def send_sync(server: Any, case: Case) -> httpx2.Response:
    """POST ``case`` to the served agent ``server``."""
    headers = {"content-type": "application/json"}
    with httpx2.Client(timeout=30) as http:
        return http.post(f"{server.url}{PATHS[case.api]}", content=case.raw, headers=headers)


def refused(response: httpx2.Response, case: Case) -> str:
    """Assert ``response`` is the 400 ``case`` asks for, in its API's error shape; return
    the message."""
    assert response.status_code == 400, response.text
    assert UPSTREAM_KEY not in response.text and CLIENT_KEY not in response.text
    body = response.json()
    error = body["error"]
    message = str(error["message"])
    if case.api == "messages":
        assert body["type"] == "error" and error["type"] == "invalid_request_error", body
        named = case.field
    elif case.api == "gemini":
        assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT", body
        named = error["details"][0]["fieldViolations"][0]["field"]
    else:
        if case.api in ("chat", "responses", "embeddings"):
            assert set(error) == {"message", "type", "param", "code"}, body
            assert error["type"] == "invalid_request_error", body
        named = error["param"]
    if case.field is not None:
        assert named is not None and (
            named.startswith(case.field) if case.prefix else named == case.field
        ), body
        if case.in_message == "whole":
            assert case.field in message, body
        elif case.in_message == "head":
            assert case.field.split(".")[0].split("[")[0] in message, body
    assert case.says in message, body
    return message


# Bodies


def chat(**fields: Any) -> dict[str, Any]:
    """A Chat Completions body with ``fields`` set."""
    return {"model": "gpt", "messages": USER, **fields}


def messages(**fields: Any) -> dict[str, Any]:
    """A Messages body with ``fields`` set."""
    return {"model": "claude", "max_tokens": 100, "messages": USER, **fields}


def responses(**fields: Any) -> dict[str, Any]:
    """A Responses body with ``fields`` set."""
    return {"model": "gpt", "input": "x", **fields}


def user(*parts: Any) -> list[dict[str, Any]]:
    """A user turn of a text part and ``parts``."""
    return [{"role": "user", "content": [{"type": "text", "text": "hi"}, *parts]}]


def raw_chat(content: str = '"x"', extra: str = "") -> bytes:
    """A Chat Completions body written by hand (``content`` and ``extra`` as JSON text)."""
    head = '{"model": "gpt", "messages": [{"role": "user", "content": ' + content + "}]"
    return (head + extra + "}").encode()


def raw_messages(content: str = '"x"', extra: str = "") -> bytes:
    """A Messages body written by hand."""
    head = '{"model": "claude", "max_tokens": 9, "messages": [{"role": "user", "content": '
    return (head + content + "}]" + extra + "}").encode()


def nested_items(depth: int) -> dict[str, Any]:
    """A schema whose one property is an array nested ``depth`` deep."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return {"type": "object", "properties": {"a": schema}}


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "input_schema": {"type": "object"}}


HUGE = "9" * 5000
CALL_WITHOUT_ID = [
    *USER,
    {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f"}}]},
]
USER_TEXT = [{"role": "user", "parts": [{"text": "hi"}]}]


# Values of the right type but wrong: test_bridge_bad_fields.py

BAD_VALUES = [
    *cases(
        "chat",
        (chat(logprobs="x"), "logprobs"),
        (chat(top_logprobs=-1), "top_logprobs"),
        (chat(logit_bias="x"), "logit_bias"),
        (chat(logit_bias={"50256": "x"}), "logit_bias.50256"),
        (chat(temperature=-5), "temperature"),
        (chat(top_p=-0.5), "top_p"),
        (chat(messages=user({"type": "bogus"})), "messages[0].content[1].type"),
        (chat(messages=user({"type": "image_url"})), "messages[0].content[1]"),
        (
            chat(messages=user({"type": "image_url", "image_url": {}})),
            "messages[0].content[1].image_url.url",
        ),
        (chat(messages=CALL_WITHOUT_ID), "messages[1].tool_calls[0].id"),
    ),
    *cases(
        "messages",
        (messages(temperature=-5), "temperature"),
        (messages(top_k=-1), "top_k"),
        (messages(thinking="x"), "thinking"),
        (messages(thinking={"type": "bogus"}), "thinking.type"),
        (messages(messages=user({"type": "bogus"})), "messages[0].content[1].type"),
        (
            messages(messages=[*USER, {"role": "assistant", "content": [{"type": "bogus"}]}]),
            "messages[1].content[0].type",
        ),
        (messages(tools=[_tool("f"), _tool("f")]), "tools[1].name"),
    ),
]
HUGE_MAX_TOKENS = [
    *cases(
        "chat",
        (raw_chat(extra=', "max_tokens": ' + HUGE), "max_tokens"),
    ),
    *cases(
        "messages",
        (
            b'{"model": "claude", "messages": [{"role": "user", "content": "x"}], '
            b'"max_tokens": ' + HUGE.encode() + b"}",
            "max_tokens",
        ),
    ),
]


# Wrong types, schemas, unsendable text: test_bridge_bad_input.py

WRONG_TYPES = [
    *cases(
        "chat",
        (chat(n=True), "n"),
        (chat(n=2.0), "n"),
        (chat(stream=0), "stream"),
        (chat(stream="yes"), "stream"),
        (chat(max_tokens=True), "max_tokens"),
        (chat(temperature="hot"), "temperature"),
        (chat(parallel_tool_calls=1), "parallel_tool_calls"),
        (chat(stream=True, stream_options={"include_usage": "yes"}), "stream_options"),
        (chat(messages=[{"role": "user", "content": 5}]), "messages[0].content"),
        (chat(messages=[{"role": "user", "content": {"a": 1}}]), "messages[0].content"),
        (chat(messages=[{"role": "user", "content": [{"type": 5}]}]), "messages[0].content"),
        (chat(messages=[{"role": 1, "content": "x"}]), "messages[0].role"),
        (chat(tools=[{"type": "function", "function": {"name": 3}}]), "tools[0].function"),
        prefix=True,
    ),
    *cases(
        "messages",
        (messages(max_tokens=True), "max_tokens"),
        (messages(max_tokens="5"), "max_tokens"),
        (messages(stream=0), "stream"),
        (messages(stream="yes"), "stream"),
        (messages(messages=[{"role": "user", "content": 5}]), "messages[0].content"),
        (messages(messages=[{"role": "user", "content": None}]), "messages[0].content"),
        (
            messages(messages=[{"role": "user", "content": [{"type": "text", "text": 7}]}]),
            "messages[0].content[0].text",
        ),
        (messages(system=5), "system"),
        (messages(stop_sequences="END"), "stop_sequences"),
    ),
]

_BAD_SCHEMAS: list[tuple[Any, str]] = [
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


def _schema_cases(api: Api) -> list[Any]:
    """Each bad tool schema as a tool of ``api``; the first, deeper than a body may
    nest, is refused while the body is read."""
    if api == "chat":
        base = "tools[0].function.parameters"

        def body(schema: Any) -> dict[str, Any]:
            tool = {"type": "function", "function": {"name": "f", "parameters": schema}}
            return chat(tools=[tool])

    else:
        base = "tools[0].input_schema"

        def body(schema: Any) -> dict[str, Any]:
            return messages(tools=[{"name": "f", "input_schema": schema}])

    def suffix_of(schema: Any, suffix: str) -> str:
        return ".properties.a.maxLength" if "maxLength" in json.dumps(schema) else suffix

    return [
        *cases(api, (body(nested_items(450)), None), says="nested more than"),
        *cases(api, *((body(schema), base + suffix_of(schema, s)) for schema, s in _BAD_SCHEMAS)),
    ]


BAD_TOOL_SCHEMAS = [*_schema_cases("chat"), *_schema_cases("messages")]
BAD_RESPONSE_FORMATS = cases(
    "chat",
    *(
        (chat(response_format={"type": "json_schema", "json_schema": json_schema}), field)
        for json_schema, field in [
            (5, "response_format.json_schema"),
            (
                {"name": "x", "schema": {"properties": "a"}},
                "response_format.json_schema.schema.properties",
            ),
            ({"name": "x", "schema": {"$ref": "#"}}, "response_format.json_schema.schema.$ref"),
            ({"name": "x", "schema": "object"}, "response_format.json_schema.schema"),
        ]
    ),
)
_MESSAGES_WEATHER = {"name": "w", "input_schema": WEATHER["function"]["parameters"]}
BAD_TOOL_CHOICE_NAMES = cases(
    "messages",
    *(
        (messages(tools=[_MESSAGES_WEATHER], tool_choice={"type": "tool", "name": name}), None)
        for name in (["w"], {"name": "w"}, 5, None)
    ),
    says="tool_choice",
)
UNSENDABLE = [
    *cases(
        "chat",
        (raw_chat('"a\\ud800b"'), "messages[0].content"),
        (raw_chat('"\\udc00"'), "messages[0].content"),
        (raw_chat(extra=', "temperature": NaN'), "temperature"),
        (raw_chat(extra=', "top_p": -Infinity'), "top_p"),
        (raw_chat(extra=', "seed": 1e999'), "seed"),
        (raw_chat(extra=', "x": 1e999'), "x"),
    ),
    *cases(
        "messages",
        (raw_messages('"\\ud83d"'), "messages[0].content"),
        (raw_messages(extra=', "temperature": NaN'), "temperature"),
    ),
]


# Client errors of Chat Completions: test_bridge_errors.py

ARRAY = {"type": "array"}

CHAT_CLIENT_ERRORS = cases(
    "chat",
    ({"model": "nope", "messages": USER}, "model"),
    ({"messages": USER}, "model"),
    ({"model": "gpt", "messages": []}, "messages"),
    (
        chat(tools=[{"type": "function", "function": {"name": "f", "parameters": ARRAY}}]),
        "tools[0].function.parameters",
    ),
    (
        chat(
            tools=[
                {
                    "type": "function",
                    "function": {
                        "name": "f",
                        "parameters": {
                            "type": "object",
                            "properties": {"a": {"$ref": "#/$defs/missing"}},
                        },
                    },
                }
            ]
        ),
        "tools[0].function.parameters",
    ),
    (
        chat(tools=[{"type": "function", "function": {"name": "bad name!"}}]),
        "tools[0].function.name",
    ),
    (chat(tools=[WEATHER], tool_choice="sometimes"), "tool_choice"),
    (chat(tool_choice="required"), "tool_choice"),
) + cases(
    "chat",
    (
        chat(tools=[WEATHER], tool_choice={"type": "function", "function": {"name": "other"}}),
        "tool_choice.function.name",
    ),
    in_message="head",
)


# /v1/responses: test_bridge_responses_errors.py

_SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}}
RESPONSES_BAD = cases(
    "responses",
    ({"input": "x"}, "model"),
    ({"model": "gpt"}, "input"),
    (responses(model="nope"), "model"),
    (responses(input=3), "input"),
    (responses(input=["x"]), "input[0]"),
    (responses(input=[{"type": "item_reference", "id": "x"}]), "input[0].type"),
    (responses(input=[{"role": "robot", "content": "x"}]), "input[0].role"),
    (
        responses(input=[{"role": "user", "content": [{"type": "input_text"}]}]),
        "input[0].content[0].text",
    ),
    (
        responses(input=[{"role": "user", "content": [{"type": "input_image", "file_id": "f"}]}]),
        "input[0].content[0].image_url",
    ),
    (
        responses(input=[{"role": "assistant", "content": [{"type": "input_image"}]}]),
        "input[0].content[0].type",
    ),
    (
        responses(input=[{"type": "function_call", "name": "f", "arguments": "{}"}]),
        "input[0].call_id",
    ),
    (
        responses(input=[{"type": "function_call_output", "call_id": "c", "output": 1}]),
        "input[0].output",
    ),
    (
        responses(input=[{"type": "function_call_output", "call_id": "c", "output": ""}]),
        "input[0].call_id",
    ),
    (responses(tools=[{"type": "web_search"}]), "tools[0].type"),
    (responses(tools=[{"type": "function", "name": "a b"}]), "tools[0].name"),
    (
        responses(
            tools=[
                {"type": "function", "name": "f", "parameters": {"type": "object", "properties": 3}}
            ]
        ),
        "tools[0].parameters.properties",
    ),
    (responses(tool_choice="sometimes"), "tool_choice"),
    (responses(tool_choice="required"), "tool_choice"),
    (responses(text={"format": {"type": "yaml"}}), "text.format.type"),
    (responses(text={"format": {"type": "json_schema", "name": "n"}}), "text.format.schema"),
    (
        responses(text={"format": {"type": "json_schema", "name": "n", "schema": {"type": "nah"}}}),
        "text.format.schema.type",
    ),
    (responses(max_output_tokens=0), "max_output_tokens"),
    (responses(max_output_tokens=True), "max_output_tokens"),
    (responses(parallel_tool_calls="yes"), "parallel_tool_calls"),
    (responses(stream=1), "stream"),
    (responses(store="no"), "store"),
    (responses(temperature=-1), "temperature"),
    (responses(previous_response_id=5), "previous_response_id"),
    (
        responses(
            input=[
                {"role": "user", "content": "x"},
                {"type": "function_call_output", "call_id": "call_x", "output": "1"},
            ]
        ),
        "input[1].call_id",
    ),
    (
        responses(
            input=[
                {
                    "role": "user",
                    "content": [{"type": "input_image", "image_url": "http://127.0.0.1/a.png"}],
                }
            ]
        ),
        "input[0].content[0]",
    ),
    (
        responses(
            input=[
                {"type": "reasoning", "summary": []},
                {"role": "user", "content": "x"},
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "see"},
                        {"type": "input_image", "image_url": "data:image/png;base64,@@"},
                    ],
                },
            ]
        ),
        "input[2].content[1]",
    ),
    (
        responses(
            model="claude",
            text={"format": {"type": "json_schema", "name": "n", "schema": _SCHEMA}},
        ),
        "text.format",
    ),
) + cases(
    "responses",  # the message tells what is wrong; the param names the field
    (responses(tools=[R_WEATHER, R_WEATHER]), "tools[1].name"),
    (
        responses(tools=[R_WEATHER], tool_choice={"type": "function", "name": "nope"}),
        "tool_choice.name",
    ),
    (responses(tool_choice={"type": "web_search"}), "tool_choice.type"),
    (responses(previous_response_id="resp_none"), "previous_response_id"),
    in_message="none",
)


# Gemini's generateContent: test_bridge_gemini.py

GEMINI_BAD = cases(
    "gemini",
    ({}, "contents"),
    ({"contents": []}, "contents"),
    ({"contents": [{"role": "system", "parts": [{"text": "x"}]}]}, "contents[0].role"),
    ({"contents": [{"role": "user", "parts": []}]}, "contents[0].parts"),
    ({"contents": [{"role": "user", "parts": [{"executableCode": {}}]}]}, "contents[0].parts[0]"),
    (
        {"contents": [{"parts": [{"inlineData": {"data": "AAAA"}}]}]},
        "contents[0].parts[0].inlineData.mimeType",
    ),
    ({"contents": USER_TEXT, "tools": [{"googleSearch": {}}]}, "tools[0].googleSearch"),
    (
        {"contents": USER_TEXT, "tools": [{"functionDeclarations": [{"name": "a b"}]}]},
        "tools[0].functionDeclarations[0].name",
    ),
    (
        {
            "contents": USER_TEXT,
            "tools": [{"functionDeclarations": [{"name": "f", "parameters": {"type": "STRING"}}]}],
        },
        "tools[0].functionDeclarations[0].parameters",
    ),
    (
        {
            "contents": USER_TEXT,
            "tools": [{"functionDeclarations": [GEMINI_WEATHER]}],
            "toolConfig": {"functionCallingConfig": {"mode": "SOMETIMES"}},
        },
        "toolConfig.functionCallingConfig.mode",
    ),
    (
        {
            "contents": USER_TEXT,
            "tools": [{"functionDeclarations": [GEMINI_WEATHER]}],
            "toolConfig": {
                "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["nope"]}
            },
        },
        "toolConfig.functionCallingConfig.allowedFunctionNames[0]",
    ),
    (
        {"contents": USER_TEXT, "generationConfig": {"temperature": "hot"}},
        "generationConfig.temperature",
    ),
    (
        {"contents": USER_TEXT, "generationConfig": {"maxOutputTokens": 1.5}},
        "generationConfig.maxOutputTokens",
    ),
    (
        {"contents": USER_TEXT, "generationConfig": {"stopSequences": "END"}},
        "generationConfig.stopSequences",
    ),
    (
        {"contents": USER_TEXT, "generationConfig": {"candidateCount": 2}},
        "generationConfig.candidateCount",
    ),
    (
        {"contents": USER_TEXT, "generationConfig": {"responseSchema": {"type": "OBJECT"}}},
        "generationConfig.responseMimeType",
    ),
    (
        {
            "contents": USER_TEXT,
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseJsonSchema": {"type": "object", "maxLength": "x"},
            },
        },
        "generationConfig.responseJsonSchema.maxLength",
    ),
)


# /v1/embeddings: test_bridge_embeddings.py

EMBEDDINGS_BAD = cases(
    "embeddings",
    ({"input": "x"}, "model"),
    ({"model": "embed-openai"}, "input"),
    ({"model": "embed-openai", "input": []}, "input"),
    ({"model": "embed-openai", "input": ["a", ""]}, "input[1]"),
    ({"model": "embed-openai", "input": ["a", [1]]}, "input[0]"),
    ({"model": "embed-openai", "input": [[1], [True]]}, "input[1]"),
    ({"model": "embed-openai", "input": {"text": "a"}}, "input"),
    ({"model": "embed-openai", "input": "a", "encoding_format": "hex"}, "encoding_format"),
    ({"model": "embed-openai", "input": "a", "dimensions": 0}, "dimensions"),
    ({"model": "embed-openai", "input": "a", "dimensions": "8"}, "dimensions"),
    ({"model": "nope", "input": "a"}, "model"),
)


# A served agent's AG-UI and Vercel endpoints: test_agent_ui_bad_input.py


UI_BAD = [
    *cases(
        "ag-ui",
        ({"runId": "r", "messages": []}, "threadId"),
        ({"threadId": "t", "runId": "r"}, "messages"),
        ({"threadId": "t", "runId": "r", "messages": [{"id": "1"}]}, "messages.0"),
        (
            {"threadId": "t", "runId": "r", "messages": [{"id": "1", "role": "user"}]},
            "messages.0.user.content",
        ),
        ({"threadId": 5, "runId": "r", "messages": []}, "threadId"),
        (run_input("t", tools=[{"name": "x"}]), "tools.0.description"),
        (run_input("t", resume=[{"interruptId": "i", "status": "maybe"}]), "resume.0.status"),
    ),
    *cases(
        "vercel",
        ({"messages": [{"id": "1", "role": "user", "parts": []}]}, "id"),
        ({"id": "c", "messages": []}, "messages"),
        ({"id": "c", "messages": [{"id": "1", "role": "robot", "parts": []}]}, "messages.0.role"),
        (
            {"id": "c", "messages": [{"id": "1", "role": "user", "parts": [{}]}]},
            "messages.0.parts.0.type",
        ),
    ),
]
