"""Images, documents and audio through the bridge, sent by the real openai and
anthropic clients: translated to the upstream's form (checked byte for byte),
refused with a 400 or 413 when the model, the URL, the size or the bytes are wrong."""

from __future__ import annotations

import base64
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anthropic
import openai
import pytest
from bridge_fakes import Fake, ResponsesFake
from bridge_harness import CLIENT_KEY, fake_entry
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from media_files import pdf, png
from media_requests import (
    CHAT_CHART_TOOL,
    GEMINI_CHART_TOOL,
    MESSAGES_CHART_TOOL,
    WAV,
    b64,
    chat_audio,
    chat_file,
    chat_image,
    chat_tool_turns,
    chat_user,
    data_url,
    data_url_bytes,
    gemini_file,
    gemini_inline,
    gemini_response_media,
    gemini_tool_turns,
    gemini_user,
    messages_block,
    messages_tool_turns,
    messages_url_block,
    messages_user,
    responses_image,
    responses_user,
)

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

ALL_MEDIA = {"accepts_images": True, "accepts_documents": True, "accepts_audio": True}


PNG = png()
PDF = pdf()


def start(fakes: dict[str, tuple[Fake, str]], **server: Any) -> BackgroundServer:
    def entry(name: str, provider: str, fake: str, model: str, **extra: Any) -> dict[str, Any]:
        return fake_entry(fakes, name, provider, fake, model, **extra)

    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", **server},
            "models": [
                entry("gpt", "openai", "openai", "fake-gpt", mode="native", profile=ALL_MEDIA),
                entry("claude", "anthropic", "anthropic", "claude-sonnet-4-6"),
                entry("gemini", "gemini", "gemini", "gemini-2.5-flash", mode="native"),
                entry("ollama", "ollama", "ollama", "llava", mode="native", profile=ALL_MEDIA),
                entry(
                    "blind",
                    "openai",
                    "openai",
                    "blind-model",
                    mode="native",
                    profile={"accepts_images": False},
                ),
            ],
        }
    )
    return BackgroundServer(create_app(config)).start()


@pytest.fixture(scope="module")
def media_bridge(fakes: dict[str, tuple[Fake, str]]) -> Iterator[BackgroundServer]:
    server = start(fakes)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def small_bridge(fakes: dict[str, tuple[Fake, str]]) -> Iterator[BackgroundServer]:
    server = start(fakes, max_media_part_bytes=1000, max_media_request_bytes=1500)
    yield server
    server.stop()


@pytest.fixture
async def oai(media_bridge: BackgroundServer, anyio_backend: str) -> AsyncIterator[Any]:
    async with openai.AsyncOpenAI(
        base_url=f"{media_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


@pytest.fixture
async def ant(media_bridge: BackgroundServer, anyio_backend: str) -> AsyncIterator[Any]:
    async with anthropic.AsyncAnthropic(
        base_url=media_bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


def upstream_user_content(fake: Fake) -> Any:
    messages = fake.requests[-1]["messages"]
    return [m for m in messages if m["role"] == "user"][-1]["content"]


def assert_anthropic_media(blocks: list[Any], said: str) -> None:
    """``said`` as a text block, then the PNG and the PDF as Anthropic ``image`` and
    ``document`` blocks, byte for byte."""
    text_block, image, document = blocks
    assert text_block == {"type": "text", "text": said}
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"], validate=True) == PNG
    assert document["type"] == "document"
    assert document["source"]["media_type"] == "application/pdf"
    assert base64.b64decode(document["source"]["data"], validate=True) == PDF


def assert_openai_media(parts: list[Any], said: str) -> None:
    """``said`` as a text part, then the PNG and the PDF as Chat Completions
    ``image_url`` and ``file`` parts (data URLs), byte for byte."""
    text_part, image, file = parts
    assert text_part == {"type": "text", "text": said}
    assert image["type"] == "image_url"
    assert data_url_bytes(image["image_url"]["url"], "image/png") == PNG
    assert file["type"] == "file"
    assert data_url_bytes(file["file"]["file_data"], "application/pdf") == PDF


async def chat_text(oai: Any, stream: bool, **kw: Any) -> str:
    """The reply's text to a Chat Completions request, streamed or whole."""
    if stream:
        chunks = await oai.chat.completions.create(**kw, stream=True)
        return "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
    reply = await oai.chat.completions.create(**kw)
    return str(reply.choices[0].message.content or "")


async def messages_text(ant: Any, stream: bool, **kw: Any) -> str:
    """The reply's text to a Messages request, streamed or whole."""
    if stream:
        async with ant.messages.stream(**kw) as events:
            return str(await events.get_final_text())
    reply = await ant.messages.create(**kw)
    return "".join(block.text for block in reply.content if block.type == "text")


@pytest.mark.parametrize("stream", [False, True])
async def test_openai_client_image_and_pdf_reach_anthropic_upstream(
    oai: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["anthropic"][0]
    messages = chat_user(PNG_PART, PDF_PART)
    text = await chat_text(oai, stream, model="claude", messages=messages)
    assert text == "Hello from the fake."
    assert fake.problems == []
    assert_anthropic_media(upstream_user_content(fake), "What is this?")


@pytest.mark.parametrize("stream", [False, True])
async def test_anthropic_client_image_and_pdf_reach_openai_upstream(
    ant: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["openai"][0]
    messages = messages_user(PNG_BLOCK, PDF_BLOCK)
    text = await messages_text(ant, stream, model="gpt", max_tokens=50, messages=messages)
    assert text == "Hello from the fake."
    assert fake.problems == []
    parts = upstream_user_content(fake)
    assert_openai_media(parts, "What is this?")
    assert parts[2]["file"]["filename"] == "document.pdf"


async def test_openai_client_audio_reaches_openai_upstream(
    oai: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    audio = chat_audio(WAV)
    await oai.chat.completions.create(model="gpt", messages=chat_user(audio))
    sent = upstream_user_content(fakes["openai"][0])[1]
    assert sent == {"type": "input_audio", "input_audio": {"data": b64(WAV), "format": "wav"}}


async def test_url_parts_go_to_a_url_taking_upstream_as_urls(
    oai: Any, ant: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    url = "https://example.com/receipt.png"
    await oai.chat.completions.create(model="claude", messages=chat_user(chat_image(url)))
    image = upstream_user_content(fakes["anthropic"][0])[1]
    assert image == {"type": "image", "source": {"type": "url", "url": url}}
    block = messages_url_block("image", url)
    await ant.messages.create(
        model="gpt", max_tokens=5, messages=[{"role": "user", "content": [block]}]
    )
    assert upstream_user_content(fakes["openai"][0]) == [chat_image(url)]


async def test_a_url_to_an_upstream_that_needs_inline_data_is_a_400(
    oai: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    messages = chat_user(chat_image("https://example.com/receipt.png"))
    with pytest.raises(openai.BadRequestError) as refused:
        await oai.chat.completions.create(model="ollama", messages=messages)
    message = refused.value.body["message"]
    assert "ollama" in message and "send the image bytes" in message
    assert refused.value.body["code"] == "unsupported_media"
    assert fakes["ollama"][0].requests == []


async def test_a_part_the_model_cannot_take_is_a_400_naming_model_and_part(
    oai: Any, ant: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    messages = chat_user(PNG_PART)
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as refused:
            await oai.chat.completions.create(model="blind", messages=messages, stream=stream)
        message = refused.value.body["message"]
        assert "'blind-model'" in message and "image part (image/png" in message
        assert refused.value.body["code"] == "unsupported_media"
    audio = chat_audio(b"ID3" + bytes(20), "mp3")
    with pytest.raises(openai.BadRequestError) as no_audio:
        await oai.chat.completions.create(model="claude", messages=chat_user(audio))
    assert "audio part (audio/mpeg" in no_audio.value.body["message"]
    assert fakes["openai"][0].requests == [] and fakes["anthropic"][0].requests == []


@pytest.mark.parametrize("scheme", ["https", "http"])
async def test_a_url_to_a_private_address_is_refused_and_never_connected(
    oai: Any,
    ant: Any,
    fakes: dict[str, tuple[Fake, str]],
    listener: tuple[socket.socket, int],
    scheme: str,
) -> None:
    sock, port = listener
    url = f"{scheme}://127.0.0.1:{port}/secret.png"
    with pytest.raises(openai.BadRequestError) as refused:
        await oai.chat.completions.create(model="claude", messages=chat_user(chat_image(url)))
    assert refused.value.body["param"] == "messages[0].content[1]"
    block = messages_url_block("document", url.replace("png", "pdf"))
    with pytest.raises(anthropic.BadRequestError):
        await ant.messages.create(
            model="claude", max_tokens=5, messages=[{"role": "user", "content": [block]}]
        )
    with pytest.raises(BlockingIOError):
        sock.accept()
    assert fakes["anthropic"][0].requests == []


@pytest.mark.parametrize(
    "url",
    [
        "https://localhost/a.png",
        "https://10.1.2.3/a.png",
        "https://[::1]/a.png",
        "https://169.254.169.254/latest/meta-data",
        "ftp://example.com/a.png",
        "data:image/png,not-base64",
    ],
)
async def test_urls_the_bridge_will_not_pass_on(oai: Any, url: str) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await oai.chat.completions.create(model="claude", messages=chat_user(chat_image(url)))
    assert refused.value.status_code == 400


async def test_bytes_that_are_not_their_declared_type_are_a_400(
    oai: Any, ant: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    jpeg = b"\xff\xd8\xff\xe0" + bytes(40)
    with pytest.raises(openai.BadRequestError) as refused:
        await oai.chat.completions.create(
            model="claude", messages=chat_user(chat_image(data_url(jpeg, "image/png")))
        )
    assert "not image/png as declared" in refused.value.body["message"]
    block = messages_block(PNG, "application/pdf")
    with pytest.raises(anthropic.BadRequestError) as bad_pdf:
        await ant.messages.create(
            model="claude", max_tokens=5, messages=[{"role": "user", "content": [block]}]
        )
    assert "not application/pdf as declared" in str(bad_pdf.value)
    with pytest.raises(openai.BadRequestError) as not_b64:
        await oai.chat.completions.create(
            model="claude", messages=chat_user(chat_image("data:image/png;base64,@@@"))
        )
    assert "not valid base64" in not_b64.value.body["message"]
    assert fakes["anthropic"][0].requests == []


async def test_media_over_the_limits_is_a_413_naming_the_limit(
    small_bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], anyio_backend: str
) -> None:
    big = png(20, 20, level=0)
    assert len(big) > 1000
    async with openai.AsyncOpenAI(
        base_url=f"{small_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        with pytest.raises(openai.APIStatusError) as part:
            await client.chat.completions.create(
                model="claude", messages=chat_user(chat_image(data_url(big, "image/png")))
            )
        assert part.value.status_code == 413
        assert "max_media_part_bytes = 1000" in part.value.body["message"]
        small = chat_image(data_url(png(13, 13, level=0), "image/png"))
        with pytest.raises(openai.APIStatusError) as total:
            await client.chat.completions.create(
                model="claude", messages=chat_user(small, small, small)
            )
        assert total.value.status_code == 413
        assert "max_media_request_bytes = 1500" in total.value.body["message"]
    assert fakes["anthropic"][0].requests == []


PNG_BLOCK = messages_block(PNG, "image/png")
PDF_BLOCK = messages_block(PDF, "application/pdf")
PDF_PART = chat_file(PDF)
PNG_PART = chat_image(data_url(PNG, "image/png"))


@pytest.mark.parametrize("stream", [False, True])
async def test_openai_client_tool_result_image_reaches_anthropic_tool_result(
    oai: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["anthropic"][0]
    messages = chat_tool_turns(PNG_PART)
    await chat_text(oai, stream, model="claude", messages=messages, tools=[CHAT_CHART_TOOL])
    assert fake.problems == []
    (result,) = fake.requests[-1]["messages"][-1]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "call_1"
    text, image = result["content"]
    assert text == {"type": "text", "text": "The chart:"}
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"], validate=True) == PNG


@pytest.mark.parametrize("stream", [False, True])
async def test_anthropic_client_tool_result_media_follow_as_a_user_message_to_openai(
    ant: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["openai"][0]
    messages = messages_tool_turns(PNG_BLOCK, PDF_BLOCK)
    await messages_text(
        ant, stream, model="gpt", max_tokens=50, tools=[MESSAGES_CHART_TOOL], messages=messages
    )
    assert fake.problems == []
    *_, tool, user = fake.requests[-1]["messages"]
    assert tool == {"role": "tool", "tool_call_id": "toolu_1", "content": "The chart:"}
    assert_openai_media(user["content"], "Returned by chart:")


async def test_anthropic_client_tool_result_media_reach_anthropic_unchanged(
    ant: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["anthropic"][0]
    tools = [MESSAGES_CHART_TOOL]
    messages = messages_tool_turns(PNG_BLOCK, PDF_BLOCK)
    await ant.messages.create(model="claude", max_tokens=50, tools=tools, messages=messages)
    assert fake.problems == []
    (result,) = fake.requests[-1]["messages"][-1]["content"]
    assert result["content"] == messages[-1]["content"][0]["content"]


async def test_bad_media_in_a_tool_result_is_refused_before_the_upstream(
    oai: Any, ant: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    not_png = chat_image(data_url(PDF, "image/png"))
    with pytest.raises(openai.BadRequestError) as refused:
        await oai.chat.completions.create(
            model="claude", messages=chat_tool_turns(not_png), tools=[CHAT_CHART_TOOL]
        )
    assert "not image/png as declared" in refused.value.body["message"]
    assert refused.value.body["param"] == "messages[2].content[0]"
    private = messages_url_block("image", "https://10.0.0.1/a.png")
    with pytest.raises(anthropic.BadRequestError) as private_url:
        await ant.messages.create(
            model="claude", max_tokens=5, messages=messages_tool_turns(private)
        )
    assert "not a public address" in str(private_url.value)
    assert fakes["anthropic"][0].requests == []


def gemini_user_parts(fake: Fake) -> list[dict[str, Any]]:
    contents = fake.requests[-1]["contents"]
    return [c for c in contents if c["role"] == "user"][-1]["parts"]


def inline_bytes(part: dict[str, Any], media_type: str) -> bytes:
    inline = part.get("inline_data") or part["inlineData"]
    assert (inline.get("mime_type") or inline.get("mimeType")) == media_type
    return base64.b64decode(inline["data"], validate=True)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("client", ["openai", "anthropic"])
async def test_an_image_and_a_pdf_reach_a_gemini_upstream_as_inline_data(
    oai: Any, ant: Any, fakes: dict[str, tuple[Fake, str]], client: str, stream: bool
) -> None:
    fake = fakes["gemini"][0]
    if client == "openai":
        messages = chat_user(PNG_PART, PDF_PART)
        text = await chat_text(oai, stream, model="gemini", messages=messages)
    else:
        messages = messages_user(PNG_BLOCK, PDF_BLOCK)
        text = await messages_text(ant, stream, model="gemini", max_tokens=50, messages=messages)
    assert text == "Hello from the fake."
    assert fake.problems == []
    said, image, document = gemini_user_parts(fake)
    assert said == {"text": "What is this?"}
    assert inline_bytes(image, "image/png") == PNG
    assert inline_bytes(document, "application/pdf") == PDF


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("client", ["openai", "anthropic"])
async def test_tool_result_media_reach_gemini_after_the_function_response(
    oai: Any, ant: Any, fakes: dict[str, tuple[Fake, str]], client: str, stream: bool
) -> None:
    fake = fakes["gemini"][0]
    if client == "openai":
        messages = chat_tool_turns(PNG_PART, PDF_PART)
        await chat_text(oai, stream, model="gemini", messages=messages, tools=[CHAT_CHART_TOOL])
    else:
        messages = messages_tool_turns(PNG_BLOCK, PDF_BLOCK)
        await messages_text(
            ant,
            stream,
            model="gemini",
            max_tokens=50,
            tools=[MESSAGES_CHART_TOOL],
            messages=messages,
        )
    assert fake.problems == []
    response, said, image, document = gemini_user_parts(fake)
    function_response = response.get("function_response") or response["functionResponse"]
    assert function_response["name"] == "chart"
    assert function_response["response"] == {"output": "The chart:"}
    assert said == {"text": "Returned by chart:"}
    assert inline_bytes(image, "image/png") == PNG
    assert inline_bytes(document, "application/pdf") == PDF


@pytest.fixture
def gem(media_bridge: BackgroundServer, anyio_backend: str) -> genai.Client:
    return genai.Client(
        api_key=CLIENT_KEY, http_options=genai_types.HttpOptions(base_url=media_bridge.url)
    )


async def gemini_text(gem: genai.Client, stream: bool, model: str, parts: list[Any]) -> str:
    """The reply's text to a generateContent request from the google-genai client."""
    contents = gemini_user(*parts)
    if stream:
        chunks = await gem.aio.models.generate_content_stream(model=model, contents=contents)
        return "".join([chunk.text or "" async for chunk in chunks])
    reply = await gem.aio.models.generate_content(model=model, contents=contents)
    return reply.text or ""


def inline_parts() -> list[Any]:
    return [gemini_inline(PNG, "image/png"), gemini_inline(PDF, "application/pdf")]


@pytest.mark.parametrize("stream", [False, True])
async def test_gemini_client_inline_data_reaches_anthropic_upstream(
    gem: genai.Client, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["anthropic"][0]
    assert await gemini_text(gem, stream, "claude", inline_parts()) == "Hello from the fake."
    assert fake.problems == []
    assert_anthropic_media(upstream_user_content(fake), "What is this?")


@pytest.mark.parametrize("stream", [False, True])
async def test_gemini_client_inline_data_reaches_openai_upstream(
    gem: genai.Client, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["openai"][0]
    assert await gemini_text(gem, stream, "gpt", inline_parts()) == "Hello from the fake."
    assert fake.problems == []
    assert_openai_media(upstream_user_content(fake), "What is this?")


@pytest.mark.parametrize("stream", [False, True])
async def test_gemini_function_response_media_reach_anthropic_tool_result(
    gem: genai.Client, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["anthropic"][0]
    contents = gemini_tool_turns(
        gemini_response_media(PNG, "image/png"), gemini_response_media(PDF, "application/pdf")
    )
    config = genai_types.GenerateContentConfig(
        tools=[GEMINI_CHART_TOOL],
        automatic_function_calling=genai_types.AutomaticFunctionCallingConfig(disable=True),
    )
    if stream:
        chunks = await gem.aio.models.generate_content_stream(
            model="claude", contents=contents, config=config
        )
        _ = [chunk async for chunk in chunks]
    else:
        await gem.aio.models.generate_content(model="claude", contents=contents, config=config)
    assert fake.problems == []
    (result,) = fake.requests[-1]["messages"][-1]["content"]
    assert result["type"] == "tool_result"
    assert_anthropic_media(result["content"], "The chart:")


async def test_gemini_function_response_media_follow_to_openai_and_bad_parts_are_a_400(
    gem: genai.Client, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    config = genai_types.GenerateContentConfig(
        tools=[GEMINI_CHART_TOOL],
        automatic_function_calling=genai_types.AutomaticFunctionCallingConfig(disable=True),
    )
    contents = gemini_tool_turns(gemini_response_media(PNG, "image/png"))
    await gem.aio.models.generate_content(model="gpt", contents=contents, config=config)
    assert fake.problems == []
    *_, tool, user = fake.requests[-1]["messages"]
    assert tool["role"] == "tool" and tool["content"] == "The chart:"
    said, image = user["content"]
    assert said == {"type": "text", "text": "Returned by chart:"}
    assert data_url_bytes(image["image_url"]["url"], "image/png") == PNG
    asked = len(fake.requests)
    not_png = gemini_response_media(PDF, "image/png")
    with pytest.raises(genai_errors.ClientError) as refused:
        await gem.aio.models.generate_content(
            model="gpt", contents=gemini_tool_turns(not_png), config=config
        )
    assert refused.value.code == 400 and "not image/png as declared" in str(refused.value.message)
    empty = genai_types.FunctionResponsePart()
    with pytest.raises(genai_errors.ClientError) as refused:
        await gem.aio.models.generate_content(
            model="gpt", contents=gemini_tool_turns(empty), config=config
        )
    assert refused.value.code == 400
    assert "contents[2].parts[0].functionResponse.parts[0]" in str(refused.value.message)
    assert len(fake.requests) == asked


async def test_gemini_client_file_data_goes_as_a_url_or_is_a_400(
    gem: genai.Client, fakes: dict[str, tuple[Fake, str]]
) -> None:
    url = "https://example.com/receipt.png"
    part = gemini_file(url, "image/png")
    await gemini_text(gem, False, "claude", [part])
    image = upstream_user_content(fakes["anthropic"][0])[1]
    assert image == {"type": "image", "source": {"type": "url", "url": url}}
    await gemini_text(gem, False, "gpt", [part])
    assert upstream_user_content(fakes["openai"][0])[1] == chat_image(url)
    asked = len(fakes["ollama"][0].requests)
    with pytest.raises(genai_errors.ClientError) as refused:
        await gemini_text(gem, False, "ollama", [part])
    assert refused.value.code == 400 and "send the image bytes" in str(refused.value.message)
    assert len(fakes["ollama"][0].requests) == asked


async def test_a_private_url_on_responses_and_gemini_is_refused_and_never_connected(
    oai: Any,
    gem: genai.Client,
    fakes: dict[str, tuple[Fake, str]],
    listener: tuple[socket.socket, int],
) -> None:
    sock, port = listener
    asked = len(fakes["anthropic"][0].requests)
    for scheme in ("https", "http"):
        url = f"{scheme}://127.0.0.1:{port}/secret.png"
        with pytest.raises(openai.BadRequestError):
            await oai.responses.create(model="claude", input=responses_user(responses_image(url)))
        part = gemini_file(url, "image/png")
        with pytest.raises(genai_errors.ClientError) as refused:
            await gemini_text(gem, False, "claude", [part])
        assert refused.value.code == 400
    with pytest.raises(BlockingIOError):
        sock.accept()
    assert len(fakes["anthropic"][0].requests) == asked


@pytest.fixture(scope="module")
def responses_upstream() -> Iterator[tuple[ResponsesFake, BackgroundServer]]:
    """A bridge whose model ``gpt-responses`` is served by a Responses API upstream."""
    fake = ResponsesFake()
    upstream = BackgroundServer(fake.app()).start()
    entry = {
        "name": "gpt-responses",
        "provider": "openai-responses",
        "model": "gpt-4.1",
        "base_url": upstream.url + "/v1",
        "api_key_env": "GA_TEST_UPSTREAM_KEY",
        "mode": "native",
        "profile": ALL_MEDIA,
    }
    config = {"server": {"api_keys_env": "GA_TEST_CLIENT_KEYS"}, "models": [entry]}
    bridge = BackgroundServer(create_app(parse_config(config))).start()
    yield fake, bridge
    bridge.stop()
    upstream.stop()


def input_media_bytes(parts: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """The kind and bytes of each ``input_image`` / ``input_file`` part."""
    found = []
    for part in parts:
        if part["type"] == "input_image":
            found.append(("image", data_url_bytes(part["image_url"], "image/png")))
        elif part["type"] == "input_file":
            found.append(("file", data_url_bytes(part["file_data"], "application/pdf")))
    return found


@pytest.mark.parametrize("stream", [False, True])
async def test_media_reach_a_responses_upstream_as_input_image_and_input_file(
    responses_upstream: tuple[ResponsesFake, BackgroundServer], anyio_backend: str, stream: bool
) -> None:
    fake, bridge = responses_upstream
    async with openai.AsyncOpenAI(
        base_url=f"{bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        messages = chat_user(PNG_PART, PDF_PART)
        await chat_text(client, stream, model="gpt-responses", messages=messages)
    assert fake.problems == []
    (item,) = [i for i in fake.requests[-1]["input"] if i.get("role") == "user"]
    assert item["content"][0] == {"type": "input_text", "text": "What is this?"}
    assert input_media_bytes(item["content"]) == [("image", PNG), ("file", PDF)]


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_result_media_reach_a_responses_function_call_output(
    responses_upstream: tuple[ResponsesFake, BackgroundServer], anyio_backend: str, stream: bool
) -> None:
    fake, bridge = responses_upstream
    async with anthropic.AsyncAnthropic(
        base_url=bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as client:
        messages = messages_tool_turns(PNG_BLOCK, PDF_BLOCK)
        await messages_text(
            client,
            stream,
            model="gpt-responses",
            max_tokens=50,
            tools=[MESSAGES_CHART_TOOL],
            messages=messages,
        )
    assert fake.problems == []
    (output,) = [i for i in fake.requests[-1]["input"] if i.get("type") == "function_call_output"]
    assert output["call_id"] == "toolu_1"
    assert output["output"][0] == {"type": "input_text", "text": "The chart:"}
    assert input_media_bytes(output["output"]) == [("image", PNG), ("file", PDF)]


async def test_audio_to_a_responses_upstream_is_a_400_before_any_request(
    responses_upstream: tuple[ResponsesFake, BackgroundServer], anyio_backend: str
) -> None:
    fake, bridge = responses_upstream
    asked = len(fake.requests)
    audio = chat_audio(WAV)
    async with openai.AsyncOpenAI(
        base_url=f"{bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        for stream in (False, True):
            with pytest.raises(openai.BadRequestError) as refused:
                await client.chat.completions.create(
                    model="gpt-responses", messages=chat_user(audio), stream=stream
                )
            assert refused.value.body["code"] == "unsupported_media"
            assert "audio" in refused.value.body["message"]
    assert len(fake.requests) == asked


async def test_limits_and_false_media_types_hold_on_responses_and_gemini(
    small_bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], anyio_backend: str
) -> None:
    big, jpeg = png(20, 20, level=0), b"\xff\xd8\xff\xe0" + bytes(40)
    asked = len(fakes["anthropic"][0].requests)
    gem = genai.Client(
        api_key=CLIENT_KEY, http_options=genai_types.HttpOptions(base_url=small_bridge.url)
    )
    async with openai.AsyncOpenAI(
        base_url=f"{small_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        cases = ((big, 413, "max_media_part_bytes = 1000"), (jpeg, 400, "not image/png"))
        for data, status, said in cases:
            image = responses_image(data_url(data, "image/png"), detail=None)
            with pytest.raises(openai.APIStatusError) as refused:
                await client.responses.create(model="claude", input=responses_user(image))
            assert refused.value.status_code == status
            assert said in str(refused.value.body)
            part = gemini_inline(data, "image/png")
            with pytest.raises(genai_errors.APIError) as gemini_refused:
                await gemini_text(gem, False, "claude", [part])
            assert gemini_refused.value.code == status
            assert said in str(gemini_refused.value.message)
    assert len(fakes["anthropic"][0].requests) == asked
