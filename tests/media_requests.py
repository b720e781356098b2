"""Requests that carry media, written once for the model and the bridge tests.

For a model: ``ask`` (a request whose user turn holds the parts) and ``send``
(whole or streamed, the model closed after). For the bridge, each client
API's own form of an image, a document or audio, the user turn that holds them and a
tool-result history (a ``chart`` call answered with text and media), in Chat
Completions, Messages, Responses and Gemini form; ``data_url`` and
``data_url_bytes`` write and read the data URLs they carry.
"""

from __future__ import annotations

import base64
from typing import Any

from google.genai import types as genai_types
from upstreams import closing

from good_agent.models import ModelRequest, ModelResponse
from good_agent.models.provider_model import ProviderModel
from good_agent.types.messages import UserMessage

WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(28)
"""A WAV file's 44-byte header (no samples)."""
ASKED = "What is this?"
"""The text before the media in a bridge client's user turn."""


def b64(data: bytes) -> str:
    """``data`` in standard base64."""
    return base64.b64encode(data).decode("ascii")


def data_url(data: bytes, media_type: str) -> str:
    """A base64 ``data:`` URL of ``data``."""
    return f"data:{media_type};base64,{b64(data)}"


def data_url_bytes(url: str, media_type: str) -> bytes:
    """The bytes of a base64 ``data:`` URL, which must be of ``media_type``."""
    prefix = f"data:{media_type};base64,"
    assert url.startswith(prefix), url[:40]
    return base64.b64decode(url[len(prefix) :], validate=True)


# To a model


def ask(*content: Any, prompt: str = ASKED) -> ModelRequest:
    """A request of one user turn: ``prompt``, then ``content``."""
    return ModelRequest([UserMessage(content=[prompt, *content])], [], None, {})


async def send(model: ProviderModel, content: list[Any], *, stream: bool) -> ModelResponse:
    """One user turn of ``content`` to ``model``, whole or streamed; the model is closed."""
    request = ModelRequest([UserMessage(content=content)], [], None, {})
    async with closing(model):
        if not stream:
            return await model.request(request)
        final = None
        async for item in model.stream(request):
            if isinstance(item, ModelResponse):
                final = item
        assert final is not None
        return final


# Chat Completions


def chat_image(url: str) -> dict[str, Any]:
    """An ``image_url`` part."""
    return {"type": "image_url", "image_url": {"url": url}}


def chat_file(data: bytes, media_type: str = "application/pdf") -> dict[str, Any]:
    """A ``file`` part of inline data."""
    return {"type": "file", "file": {"file_data": data_url(data, media_type)}}


def chat_audio(data: bytes, audio_format: str = "wav") -> dict[str, Any]:
    """An ``input_audio`` part."""
    return {"type": "input_audio", "input_audio": {"data": b64(data), "format": audio_format}}


def chat_user(*parts: dict[str, Any]) -> list[dict[str, Any]]:
    """A history of one user turn: the question, then ``parts``."""
    return [{"role": "user", "content": [{"type": "text", "text": ASKED}, *parts]}]


def chat_tool_turns(*media: dict[str, Any]) -> list[dict[str, Any]]:
    """A history whose ``chart`` tool result holds text and ``media`` parts."""
    call = {"id": "call_1", "type": "function", "function": {"name": "chart", "arguments": "{}"}}
    return [
        {"role": "user", "content": "Draw the sales chart."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": [{"type": "text", "text": "The chart:"}, *media],
        },
    ]


CHAT_CHART_TOOL = {
    "type": "function",
    "function": {"name": "chart", "parameters": {"type": "object"}},
}


# Messages


def messages_block(data: bytes, media_type: str) -> dict[str, Any]:
    """An ``image`` (or, for a PDF, ``document``) block of base64 data."""
    kind = "document" if media_type == "application/pdf" else "image"
    return {"type": kind, "source": {"type": "base64", "media_type": media_type, "data": b64(data)}}


def messages_url_block(kind: str, url: str) -> dict[str, Any]:
    """An ``image`` or ``document`` block of a URL."""
    return {"type": kind, "source": {"type": "url", "url": url}}


def messages_user(*blocks: dict[str, Any]) -> list[dict[str, Any]]:
    """A history of one user turn: the question, then ``blocks``."""
    return [{"role": "user", "content": [{"type": "text", "text": ASKED}, *blocks]}]


def messages_tool_turns(
    *media: dict[str, Any],
    tool: str = "chart",
    asked: str = "Draw the sales chart.",
    said: str | None = "The chart:",
) -> list[dict[str, Any]]:
    """A history whose ``tool`` result (``toolu_1``) holds ``said`` and ``media`` blocks."""
    text = [{"type": "text", "text": said}] if said is not None else []
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [*text, *media]}
    return [
        {"role": "user", "content": asked},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": tool, "input": {}}],
        },
        {"role": "user", "content": [result]},
    ]


MESSAGES_CHART_TOOL = {"name": "chart", "input_schema": {"type": "object"}}


# Responses


def responses_image(url: str, detail: str | None = "auto") -> dict[str, Any]:
    """An ``input_image`` part."""
    image = {"type": "input_image", "image_url": url}
    return image if detail is None else {**image, "detail": detail}


def responses_user(*parts: dict[str, Any], text: str | None = None) -> list[dict[str, Any]]:
    """An input of one user message: ``text`` (if any), then ``parts``."""
    said = [{"type": "input_text", "text": text}] if text is not None else []
    return [{"role": "user", "content": [*said, *parts]}]


# Gemini


def gemini_user(*parts: Any, text: str = ASKED) -> list[genai_types.Content]:
    """Contents of one user turn: ``text``, then ``parts``."""
    return [genai_types.Content(role="user", parts=[genai_types.Part(text=text), *parts])]


def gemini_inline(data: bytes, mime_type: str) -> genai_types.Part:
    """An ``inlineData`` part."""
    return genai_types.Part.from_bytes(data=data, mime_type=mime_type)


def gemini_file(uri: str, mime_type: str) -> genai_types.Part:
    """A ``fileData`` part."""
    return genai_types.Part.from_uri(file_uri=uri, mime_type=mime_type)


def gemini_tool_turns(*parts: Any) -> list[genai_types.Content]:
    """A history whose ``chart`` function response carries ``parts`` (a tool's media)."""
    return [
        genai_types.Content(role="user", parts=[genai_types.Part(text="Draw the sales chart.")]),
        genai_types.Content(
            role="model",
            parts=[genai_types.Part(function_call=genai_types.FunctionCall(name="chart", args={}))],
        ),
        genai_types.Content(
            role="user",
            parts=[
                genai_types.Part(
                    function_response=genai_types.FunctionResponse(
                        name="chart", response={"output": "The chart:"}, parts=list(parts)
                    )
                )
            ],
        ),
    ]


def gemini_response_media(data: bytes, mime_type: str) -> genai_types.FunctionResponsePart:
    """A function response's media part."""
    blob = genai_types.FunctionResponseBlob(data=data, mime_type=mime_type, display_name="chart")
    return genai_types.FunctionResponsePart(inline_data=blob)


GEMINI_CHART_TOOL = genai_types.Tool(
    function_declarations=[genai_types.FunctionDeclaration(name="chart", description="A chart.")]
)
