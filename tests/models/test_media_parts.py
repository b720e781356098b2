"""Images and documents through every vendor's codec over loopback HTTP.

A real PNG and a real PDF (made in the test) go out whole and streamed; the fake
upstream checks each vendor's shape, and the test decodes what it received and
compares it byte for byte.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from bridge_fakes import _g
from media_files import pdf, png
from media_requests import data_url_bytes, send
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from vendor_models import Vendors, vendor_model

from good_agent import BinaryContent, DocumentUrl, ImageUrl, ModelCapabilityError
from good_agent.models import (
    OpenAIResponsesModel,
)
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio

PNG = png(3, 2)
PDF = pdf()
VENDORS = ["openai", "anthropic", "gemini", "ollama"]


def received_media(kind: str, body: dict[str, Any]) -> list[tuple[str, bytes | str]]:
    """(media type, bytes) for inline parts and (media type, URL) for URL parts."""
    out: list[tuple[str, bytes | str]] = []
    if kind == "openai":
        for part in body["messages"][-1]["content"]:
            if part["type"] == "image_url":
                url = part["image_url"]["url"]
                media = url[5:].split(";", 1)[0] if url.startswith("data:") else "url"
                out.append((media, data_url_bytes(url, media) if media != "url" else url))
            elif part["type"] == "file":
                data = data_url_bytes(part["file"]["file_data"], "application/pdf")
                out.append(("application/pdf", data))
    elif kind == "anthropic":
        for block in body["messages"][0]["content"]:
            source = block.get("source")
            if source is None:
                continue
            if source["type"] == "base64":
                out.append((source["media_type"], base64.b64decode(source["data"])))
            else:
                out.append((block["type"], source["url"]))
    elif kind == "gemini":
        for part in body["contents"][0]["parts"]:
            # The SDK writes the codec's snake_case keys in camelCase.
            if _g(part, "inline_data"):
                inline = _g(part, "inline_data")
                # ...and its bytes in URL-safe base64, which the Gemini API also reads.
                data = base64.urlsafe_b64decode(inline["data"])
                out.append((_g(inline, "mime_type"), data))
            elif _g(part, "file_data"):
                file = _g(part, "file_data")
                out.append((_g(file, "mime_type"), _g(file, "file_uri")))
    else:
        out.extend(("image/png", base64.b64decode(x)) for x in body["messages"][-1]["images"])
    return out


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("kind", ["openai", "anthropic", "gemini"])
async def test_a_png_and_a_pdf_arrive_byte_for_byte(
    kind: str, stream: bool, vendors: Vendors
) -> None:
    fake, url = vendors[kind]
    content = [
        "What is this?",
        BinaryContent(PNG, "image/png"),
        BinaryContent(PDF, "application/pdf"),
    ]
    reply = await send(vendor_model(kind, url), content, stream=stream)
    assert reply.content == "Hello from the fake."
    assert not fake.problems
    assert received_media(kind, fake.requests[-1]) == [
        ("image/png", PNG),
        ("application/pdf", PDF),
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_ollama_gets_the_png_in_the_images_list(stream: bool, vendors: Vendors) -> None:
    fake, url = vendors["ollama"]
    await send(
        vendor_model("ollama", url),
        ["What is this?", BinaryContent(PNG, "image/png")],
        stream=stream,
    )
    assert not fake.problems
    message = fake.requests[-1]["messages"][-1]
    assert message["content"] == "What is this?"
    assert received_media("ollama", fake.requests[-1]) == [("image/png", PNG)]


async def test_url_parts_go_as_urls_where_the_vendor_takes_them(
    vendors: Vendors,
) -> None:
    image, document = "https://example.com/chart.png", "https://example.com/terms.pdf"
    content = ["Compare", ImageUrl(image), DocumentUrl(document)]
    for kind, expected in [
        ("anthropic", [("image", image), ("document", document)]),
        ("gemini", [("image/png", image), ("application/pdf", document)]),
    ]:
        fake, url = vendors[kind]
        await send(vendor_model(kind, url), content, stream=False)
        assert not fake.problems
        assert received_media(kind, fake.requests[-1]) == expected
    fake, url = vendors["openai"]
    await send(vendor_model("openai", url), ["Look", ImageUrl(image)], stream=False)
    assert received_media("openai", fake.requests[-1]) == [("url", image)]


@pytest.mark.parametrize(
    ("kind", "content", "words"),
    [
        ("ollama", [BinaryContent(PDF, "application/pdf")], "does not accept documents"),
        ("ollama", [ImageUrl("https://example.com/a.png")], "send the image bytes"),
        ("openai", [DocumentUrl("https://example.com/a.pdf")], "inline data only"),
        ("anthropic", [BinaryContent(b"RIFF", "audio/wav")], "does not accept audio"),
    ],
)
async def test_a_form_the_vendor_lacks_fails_before_any_request(
    kind: str, content: list[Any], words: str, vendors: Vendors
) -> None:
    fake, url = vendors[kind]
    with pytest.raises(ModelCapabilityError, match=words):
        await send(vendor_model(kind, url), ["see", *content], stream=False)
    assert fake.requests == []


def responses_app(bodies: list[dict[str, Any]]) -> Starlette:
    final = {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-4.1",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "A chart.", "annotations": []}],
            }
        ],
        "usage": {"input_tokens": 9, "output_tokens": 2, "total_tokens": 11},
    }
    events = [
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "A chart.",
        },
        {"type": "response.completed", "response": final},
    ]

    async def handle(request: Request) -> Response:
        body = await request.json()
        bodies.append(body)
        if body.get("stream"):
            text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
            return Response(text, media_type="text/event-stream")
        return JSONResponse(final)

    return Starlette(routes=[Route("/v1/responses", handle, methods=["POST"])])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_openai_responses_gets_input_image_and_input_file(stream: bool) -> None:
    from openai import AsyncOpenAI

    bodies: list[dict[str, Any]] = []
    server = BackgroundServer(responses_app(bodies)).start()
    client = AsyncOpenAI(api_key="k", base_url=f"{server.url}/v1", max_retries=0)
    try:
        model = OpenAIResponsesModel("gpt-4.1", client=client, mode="native")
        content = ["Read", BinaryContent(PNG, "image/png"), BinaryContent(PDF, "application/pdf")]
        reply = await send(model, content, stream=stream)
    finally:
        await client.close()
        server.stop()
    assert reply.content == "A chart."
    parts = bodies[-1]["input"][-1]["content"]
    assert [p["type"] for p in parts] == ["input_text", "input_image", "input_file"]
    assert parts[0]["text"] == "Read"
    assert data_url_bytes(parts[1]["image_url"], "image/png") == PNG
    assert data_url_bytes(parts[2]["file_data"], "application/pdf") == PDF
    assert parts[2]["filename"] == "document.pdf"
