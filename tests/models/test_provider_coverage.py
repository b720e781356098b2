"""The provider coverage table of docs/providers.md, cell by cell, over loopback.

Each cell of ``CELLS`` is one test: the feature is sent to a fake upstream of that API,
and the request body is checked against the provider's documented shape, built from the
official SDKs' own types where they exist (openai, anthropic, google-genai; Ollama has
none installed, its shape is the one its API documentation gives). The values:

- ``yes``: sent in the API's form (and the reply decoded);
- ``no``: refused before any request (``ModelCapabilityError``), or never on the wire;
- ``in replies``: several calls in one reply come back as several calls, but the API
  has no switch for ``parallel_tool_calls=False``, so nothing is sent;
- ``profile``: refused for a model whose profile does not list it, sent in the API's
  form when the model's profile does (``profile=``);
- ``automatic``: the provider caches by itself; nothing is marked on the request and the
  cached tokens it reports are counted.

A last test checks that the table in the docs and ``CELLS`` agree. The built-in tools
column is tested with the built-in tools.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import upstreams
from anthropic.types import (
    Base64ImageSourceParam,
    Base64PDFSourceParam,
    CacheControlEphemeralParam,
    DocumentBlockParam,
    ImageBlockParam,
    TextBlockParam,
    ThinkingConfigEnabledParam,
    ToolChoiceAutoParam,
    ToolParam,
)
from google.genai import types as genai
from openai.types.chat import (
    ChatCompletionContentPartImageParam,
    ChatCompletionContentPartInputAudioParam,
    ChatCompletionContentPartTextParam,
    ChatCompletionFunctionToolParam,
)
from openai.types.chat.chat_completion_content_part_param import File, FileFile
from openai.types.responses import (
    FunctionToolParam,
    ResponseInputFileParam,
    ResponseInputImageParam,
    ResponseInputTextParam,
)
from openai.types.shared_params import FunctionDefinition, Reasoning

from good_agent.models import (
    ModelRequest,
)
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.profiles import get_profile
from good_agent.types.content import BinaryContent
from good_agent.types.errors import ModelCapabilityError
from good_agent.types.messages import ModelResponse, UserMessage

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]
DOCS = Path(__file__).parents[2] / "docs" / "providers.md"

APIS = ("OpenAI Chat", "OpenAI Responses", "Anthropic", "Gemini", "Ollama", "OpenAI-compatible")
FEATURES = (
    "native tools",
    "strict schemas",
    "parallel calls",
    "streaming",
    "image",
    "document",
    "audio",
    "reasoning",
    "caching",
)
DOCS_ONLY = ("built-in tools",)
"""Columns of the docs table tested elsewhere (the built-in tools' own tests)."""

_ROWS = {
    "native tools": ("yes", "yes", "yes", "yes", "yes", "yes"),
    "strict schemas": ("yes", "yes", "no", "no", "no", "yes"),
    "parallel calls": ("yes", "yes", "yes", "in replies", "in replies", "yes"),
    "streaming": ("yes", "yes", "yes", "yes", "yes", "yes"),
    "image": ("yes", "yes", "yes", "yes", "yes", "yes"),
    "document": ("yes", "yes", "yes", "yes", "no", "yes"),
    "audio": ("yes", "no", "no", "yes", "no", "profile"),
    "reasoning": ("yes", "yes", "yes", "yes", "profile", "profile"),
    "caching": ("automatic", "automatic", "yes", "automatic", "no", "automatic"),
}
CELLS: dict[tuple[str, str], str] = {
    (api, feature): values[index]
    for feature, values in _ROWS.items()
    for index, api in enumerate(APIS)
}
"""The table: ``(api, feature) -> value``."""

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": WEATHER_SCHEMA,
    },
}
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
PDF = b"%PDF-1.4\n%%EOF\n"
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "
MEDIA = {
    "image": ("image/png", PNG),
    "document": ("application/pdf", PDF),
    "audio": ("audio/wav", WAV),
}

# The models, and the replies of each API


def model_of(api: str, url: str, name: str | None = None, **profile: Any) -> ProviderModel:
    """A model of ``api`` at ``url`` (its profile changed by ``profile``)."""
    defaults = {
        "OpenAI Chat": "gpt-4o",
        "OpenAI Responses": "gpt-4.1",
        "Anthropic": "claude-sonnet-4-5",
        "Gemini": "gemini-2.5-flash",
        "Ollama": "llava",
        "OpenAI-compatible": "qwen2.5-72b-instruct",
    }
    name = name or defaults[api]
    prefix = {"OpenAI Responses": "openai-responses", "Anthropic": "anthropic"}.get(api, "openai")
    prefix = {"Gemini": "gemini", "Ollama": "ollama"}.get(api, prefix)
    options: dict[str, Any] = {}
    if profile:
        options["profile"] = dataclasses.replace(get_profile(f"{prefix}:{name}"), **profile)
    kind = {"OpenAI Responses": "responses", "Anthropic": "anthropic", "Gemini": "gemini"}
    kind = kind.get(api, "ollama" if api == "Ollama" else "chat")
    if kind in ("chat", "ollama"):
        options["mode"] = "native"
    return upstreams.model_of(kind, url, name, **options)


CALLS = [("call_1", "Paris"), ("call_2", "Rome")]


def reply_of(api: str, calls: bool = False, cached: int = 0) -> dict[str, Any]:
    """A whole reply of ``api``: text, or two calls of ``get_weather``."""
    if api in ("OpenAI Chat", "OpenAI-compatible"):
        message: dict[str, Any] = {"role": "assistant", "content": None if calls else "Sunny."}
        if calls:
            message["tool_calls"] = [
                {
                    "id": id_,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": json.dumps({"city": c})},
                }
                for id_, c in CALLS
            ]
        usage: dict[str, Any] = {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
        if cached:
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        return {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": usage,
        }
    if api == "OpenAI Responses":
        output: list[dict[str, Any]] = [
            {
                "type": "function_call",
                "id": f"fc_{id_}",
                "call_id": id_,
                "name": "get_weather",
                "arguments": json.dumps({"city": c}),
            }
            for id_, c in CALLS
        ]
        if not calls:
            output = [
                {
                    "type": "message",
                    "id": "m1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
                }
            ]
        details = {"cached_tokens": cached, "cache_write_tokens": 0}
        return {
            "id": "resp_1",
            "object": "response",
            "status": "completed",
            "model": "m",
            "output": output,
            "usage": {"input_tokens": 50, "input_tokens_details": details, "output_tokens": 5},
        }
    if api == "Anthropic":
        blocks: list[dict[str, Any]] = [
            {"type": "tool_use", "id": id_, "name": "get_weather", "input": {"city": c}}
            for id_, c in CALLS
        ]
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": blocks if calls else [{"type": "text", "text": "Sunny."}],
            "stop_reason": "tool_use" if calls else "end_turn",
            "usage": {
                "input_tokens": 50 - cached,
                "output_tokens": 5,
                "cache_read_input_tokens": cached,
            },
        }
    if api == "Gemini":
        parts: list[dict[str, Any]] = [
            {"functionCall": {"name": "get_weather", "args": {"city": c}}} for _, c in CALLS
        ]
        metadata: dict[str, Any] = {"promptTokenCount": 50, "candidatesTokenCount": 5}
        if cached:
            metadata["cachedContentTokenCount"] = cached
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": parts if calls else [{"text": "Sunny."}]},
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": metadata,
        }
    ollama: dict[str, Any] = {"role": "assistant", "content": "" if calls else "Sunny."}
    if calls:
        ollama["tool_calls"] = [
            {"function": {"name": "get_weather", "arguments": {"city": c}}} for _, c in CALLS
        ]
    return {
        "model": "m",
        "message": ollama,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 50,
        "eval_count": 5,
    }


def stream_of(api: str) -> tuple[int, bytes, dict[str, str]]:
    """The text reply "Sunny." streamed as ``api`` streams it."""
    events: list[tuple[str | None, dict[str, Any]]]
    if api in ("OpenAI Chat", "OpenAI-compatible"):
        chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
        events = [
            (None, {**chunk, "choices": [{"index": 0, "delta": {"content": "Sun"}}]}),
            (None, {**chunk, "choices": [{"index": 0, "delta": {"content": "ny."}}]}),
            (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        ]
    elif api == "OpenAI Responses":
        events = [
            ("response.output_text.delta", {"type": "response.output_text.delta", "delta": "Sun"}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "delta": "ny."}),
            ("response.completed", {"type": "response.completed", "response": reply_of(api)}),
        ]
    elif api == "Anthropic":
        start = {**reply_of(api), "content": [], "stop_reason": None}
        text_block = {"type": "text", "text": ""}
        events = [
            ("message_start", {"type": "message_start", "message": start}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": text_block},
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": "Sunny."},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    elif api == "Gemini":
        events = [(None, reply_of(api))]
    else:
        lines = [
            {"model": "m", "message": {"role": "assistant", "content": "Sun"}, "done": False},
            {**reply_of(api), "message": {"role": "assistant", "content": "ny."}},
        ]
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        return 200, data, {"content-type": "application/x-ndjson"}
    text = "".join(
        (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
        for name, data in events
    )
    return 200, text.encode(), {"content-type": "text/event-stream"}


async def send(model: ProviderModel, request: ModelRequest, stream: bool = False) -> ModelResponse:
    try:
        if not stream:
            return await model.request(request)
        items = [item async for item in model.stream(request)]
        last = items[-1]
        assert isinstance(last, ModelResponse)
        return last
    finally:
        await model.aclose()


def ask(content: Any = "Weather in Paris and Rome?", **options: Any) -> ModelRequest:
    return ModelRequest(messages=[UserMessage(content=content)], **options)


# The expected wire forms


def expected_tool(api: str, strict: bool) -> Any:
    """``get_weather`` in ``api``'s documented tool form."""
    if api in ("OpenAI Chat", "OpenAI-compatible"):
        function = FunctionDefinition(
            name="get_weather", description="The weather in a city.", parameters=WEATHER_SCHEMA
        )
        if strict:
            function["strict"] = True
        return ChatCompletionFunctionToolParam(type="function", function=function)
    if api == "OpenAI Responses":
        return FunctionToolParam(
            type="function",
            name="get_weather",
            description="The weather in a city.",
            parameters=WEATHER_SCHEMA,
            strict=strict,
        )
    if api == "Anthropic":
        return ToolParam(
            name="get_weather", description="The weather in a city.", input_schema=WEATHER_SCHEMA
        )
    if api == "Gemini":
        schema = {k: v for k, v in WEATHER_SCHEMA.items() if k != "additionalProperties"}
        return genai.Tool(
            function_declarations=[
                genai.FunctionDeclaration(
                    name="get_weather",
                    description="The weather in a city.",
                    parameters=genai.Schema.model_validate(schema),
                )
            ]
        )
    # https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools
    return {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": WEATHER_SCHEMA,
        },
    }


def sent_tool(api: str, body: dict[str, Any]) -> Any:
    tool = body["tools"][0]
    return genai.Tool.model_validate(tool) if api == "Gemini" else tool


def expected_part(api: str, kind: str) -> Any:
    """The media part of ``kind`` in ``api``'s documented form."""
    media_type, data = MEDIA[kind]
    encoded = base64.b64encode(data).decode()
    data_url = f"data:{media_type};base64,{encoded}"
    if api in ("OpenAI Chat", "OpenAI-compatible"):
        if kind == "image":
            return ChatCompletionContentPartImageParam(
                type="image_url", image_url={"url": data_url}
            )
        if kind == "document":
            return File(type="file", file=FileFile(file_data=data_url, filename="document.pdf"))
        return ChatCompletionContentPartInputAudioParam(
            type="input_audio", input_audio={"data": encoded, "format": "wav"}
        )
    if api == "OpenAI Responses":
        if kind == "image":
            return ResponseInputImageParam(type="input_image", image_url=data_url)  # type: ignore[typeddict-item]
        return ResponseInputFileParam(
            type="input_file", filename="document.pdf", file_data=data_url
        )
    if api == "Anthropic":
        if kind == "image":
            source = Base64ImageSourceParam(type="base64", media_type="image/png", data=encoded)
            return ImageBlockParam(type="image", source=source)
        pdf = Base64PDFSourceParam(type="base64", media_type="application/pdf", data=encoded)
        return DocumentBlockParam(type="document", source=pdf)
    if api == "Gemini":
        return genai.Part(inline_data=genai.Blob(mime_type=media_type, data=data))
    return encoded  # Ollama: the message's images list


def sent_part(api: str, body: dict[str, Any]) -> Any:
    if api == "Ollama":
        return body["messages"][0]["images"][0]
    if api == "Gemini":
        return genai.Part.model_validate_json(json.dumps(body["contents"][0]["parts"][1]))
    key = "input" if api == "OpenAI Responses" else "messages"
    return body[key][0]["content"][1]


def first_text(api: str) -> Any:
    if api == "OpenAI Responses":
        return ResponseInputTextParam(type="input_text", text="See:")
    if api == "Anthropic":
        return TextBlockParam(type="text", text="See:")
    return ChatCompletionContentPartTextParam(type="text", text="See:")


# One check per feature


async def check_native_tools(api: str, value: str, start: Start) -> None:
    upstream = start([(200, reply_of(api, calls=True))])
    reply = await send(
        model_of(api, upstream.url), ask(tools=[WEATHER], settings={"strict_tools": False})
    )
    assert sent_tool(api, upstream.bodies[0]) == expected_tool(api, strict=False)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]


async def check_strict_schemas(api: str, value: str, start: Start) -> None:
    upstream = start([(200, reply_of(api, calls=True))])
    await send(model_of(api, upstream.url), ask(tools=[WEATHER], settings={"strict_tools": True}))
    assert sent_tool(api, upstream.bodies[0]) == expected_tool(api, strict=value == "yes")
    if value == "no":
        assert '"strict"' not in json.dumps(upstream.bodies[0])


async def check_parallel_calls(api: str, value: str, start: Start) -> None:
    upstream = start([(200, reply_of(api, calls=True)), (200, reply_of(api, calls=True))])
    reply = await send(model_of(api, upstream.url), ask(tools=[WEATHER]))
    assert len(reply.tool_calls) == 2  # several calls in one reply, whatever the API
    one = await send(
        model_of(api, upstream.url), ask(tools=[WEATHER], settings={"parallel_tool_calls": False})
    )
    assert len(one.tool_calls) == 1  # the first call only, whatever the model sent
    body = upstream.bodies[1]
    if api == "Anthropic":
        assert body["tool_choice"] == ToolChoiceAutoParam(
            type="auto", disable_parallel_tool_use=True
        )
    elif value == "yes":
        assert body["parallel_tool_calls"] is False
    else:
        assert "parallel" not in json.dumps(body)


async def check_streaming(api: str, value: str, start: Start) -> None:
    upstream = start([stream_of(api)])
    reply = await send(model_of(api, upstream.url), ask(), stream=True)
    assert reply.content == "Sunny."
    if api == "Gemini":  # the stream is another method: streamGenerateContent?alt=sse
        assert upstream.paths[0].endswith(":streamGenerateContent?alt=sse")
    else:
        assert upstream.bodies[0]["stream"] is True


async def check_media(api: str, kind: str, value: str, start: Start) -> None:
    media_type, data = MEDIA[kind]
    part = BinaryContent(data=data, media_type=media_type)
    name = "gpt-4o-audio-preview" if kind == "audio" and api == "OpenAI Chat" else None
    upstream = start([(200, reply_of(api))])
    if value in ("no", "profile"):
        with pytest.raises(ModelCapabilityError, match=kind):
            await send(model_of(api, upstream.url, name), ask(["See:", part]))
        assert upstream.bodies == []
        if value == "no":
            return
    profile = {"accepts_audio": True} if value == "profile" else {}
    await send(model_of(api, upstream.url, name, **profile), ask(["See:", part]))
    body = upstream.bodies[0]
    assert sent_part(api, body) == expected_part(api, kind)
    if api not in ("Gemini", "Ollama"):
        key = "input" if api == "OpenAI Responses" else "messages"
        assert body[key][0]["content"][0] == first_text(api)


async def check_image(api: str, value: str, start: Start) -> None:
    await check_media(api, "image", value, start)


async def check_document(api: str, value: str, start: Start) -> None:
    await check_media(api, "document", value, start)


async def check_audio(api: str, value: str, start: Start) -> None:
    await check_media(api, "audio", value, start)


REASONING_MODELS = {
    "OpenAI Chat": "o4-mini",
    "OpenAI Responses": "o4-mini",
    "Anthropic": "claude-sonnet-4-5",
    "Gemini": "gemini-2.5-flash",
    "Ollama": "qwen3",
    "OpenAI-compatible": "qwen3-32b",
}


async def check_reasoning(api: str, value: str, start: Start) -> None:
    name = REASONING_MODELS[api]
    upstream = start([(200, reply_of(api))])
    if value == "profile":
        with pytest.raises(ModelCapabilityError, match="thinking"):
            await send(model_of(api, upstream.url, name), ask(settings={"thinking": "high"}))
        assert upstream.bodies == []
    profile = {"supports_thinking": True} if value == "profile" else {}
    await send(model_of(api, upstream.url, name, **profile), ask(settings={"thinking": "high"}))
    body = upstream.bodies[0]
    if api in ("OpenAI Chat", "OpenAI-compatible"):
        assert body["reasoning_effort"] == "high"
    elif api == "OpenAI Responses":
        assert body["reasoning"] == Reasoning(effort="high", summary="auto")
    elif api == "Anthropic":
        assert body["thinking"] == ThinkingConfigEnabledParam(type="enabled", budget_tokens=4096)
    elif api == "Gemini":
        config = body.get("generationConfig") or body["generation_config"]
        sent = genai.ThinkingConfig.model_validate(config["thinking_config"])
        assert sent == genai.ThinkingConfig(thinking_budget=4096, include_thoughts=True)
    else:
        # https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-thinking
        assert body["think"] is True


async def check_caching(api: str, value: str, start: Start) -> None:
    cached = 0 if value == "no" else 32
    upstream = start([(200, reply_of(api, cached=cached))])
    settings = {"anthropic_cache_messages": True}
    reply = await send(model_of(api, upstream.url), ask(settings=settings))
    body = upstream.bodies[0]
    if value == "yes":
        last = body["messages"][-1]["content"][-1]
        assert last == TextBlockParam(
            type="text",
            text="Weather in Paris and Rome?",
            cache_control=CacheControlEphemeralParam(type="ephemeral"),
        )
    else:
        assert "cache_control" not in json.dumps(body)
    assert reply.usage.cache_read_tokens == cached
    assert reply.usage.input_tokens == 50


CHECKS: dict[str, Callable[[str, str, Start], Any]] = {
    "native tools": check_native_tools,
    "strict schemas": check_strict_schemas,
    "parallel calls": check_parallel_calls,
    "streaming": check_streaming,
    "image": check_image,
    "document": check_document,
    "audio": check_audio,
    "reasoning": check_reasoning,
    "caching": check_caching,
}


@pytest.mark.parametrize(("api", "feature"), list(CELLS), ids=[f"{a}-{f}" for a, f in CELLS])
async def test_cell(fake_upstream: Start, api: str, feature: str) -> None:
    await CHECKS[feature](api, CELLS[(api, feature)], fake_upstream)


def docs_table() -> tuple[list[str], dict[str, list[str]]]:
    """The coverage table of docs/providers.md: its columns and rows by API."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("<!-- coverage-table -->")[1]
    lines = [line for line in section.strip().splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [re.sub(r"[*`]", "", cell).strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return header[1:], rows


def test_the_docs_table_is_the_tested_one() -> None:
    columns, rows = docs_table()
    assert columns == [*FEATURES, *DOCS_ONLY]
    assert list(rows) == list(APIS)
    for api, cells in rows.items():
        tested = dict(zip(columns, cells, strict=True))
        for feature in FEATURES:
            assert tested[feature] == CELLS[(api, feature)], (api, feature)
        assert tested["built-in tools"] in ("yes", "no")
