"""Media URLs the bridge fetches itself (``server.fetch_media_hosts``), sent by the
real openai and anthropic clients: fetched only from listed hosts, only for an
upstream that needs the bytes, never from a private address, within the limits."""

from __future__ import annotations

import base64
import datetime
import socket
import ssl
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from bridge_fakes import Fake
from bridge_harness import CLIENT_KEY, fake_entry
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from google import genai
from google.genai import types as genai_types
from media_files import pdf, png
from media_requests import (
    chat_image,
    chat_user,
    data_url,
    data_url_bytes,
    gemini_file,
    gemini_user,
    messages_tool_turns,
    messages_url_block,
    responses_image,
    responses_user,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from good_agent.providers.parts import read_part
from good_agent.server import ConfigError, create_app, parse_config
from good_agent.server.background import BackgroundServer
from good_agent.server.common.errors import BridgeError
from good_agent.server.media import MediaLimits
from good_agent.server.media_fetch import MediaFetcher

PNG = png(3, 3)
PDF = pdf()
BIG = png(40, 40, level=0)
LIMIT = 4000


class ImageHost:
    """A loopback web server with a PNG, a PDF, an oversized PNG, a page that is not
    an image and redirects; it records the paths asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def handle(self, request: Request) -> Response:
        path = request.url.path
        self.asked.append(f"{request.headers['host'].partition(':')[0]}{path}")
        if path == "/chart.png":
            return Response(PNG, media_type="image/png")
        if path == "/chart":
            return Response(PNG, media_type="image/png")
        if path == "/invoice.pdf":
            return Response(PDF, media_type="application/pdf")
        if path == "/big.png":
            return Response(BIG, media_type="image/png")
        if path == "/page.png":
            return Response(b"<html>not an image</html>", media_type="text/html")
        if path == "/moved.png":
            return RedirectResponse("/chart.png", status_code=302)
        if path == "/away.png":
            port = request.url.port
            return RedirectResponse(f"http://elsewhere.test:{port}/chart.png", status_code=302)
        return Response(status_code=404)

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self.handle, methods=["GET"])])


def bridge_config(fakes: dict[str, tuple[Fake, str]], **server: Any) -> dict[str, Any]:
    def entry(name: str, provider: str, model: str) -> dict[str, Any]:
        return fake_entry(fakes, name, provider, provider, model, mode="native")

    return {
        "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", "max_media_part_bytes": LIMIT, **server},
        "models": [
            entry("ollama", "ollama", "llava"),
            entry("gpt", "openai", "fake-gpt"),
            entry("claude", "anthropic", "claude-sonnet-4-6"),
        ],
    }


@pytest.fixture(scope="module")
def image_host() -> Iterator[tuple[ImageHost, int]]:
    host = ImageHost()
    server = BackgroundServer(host.app()).start()
    yield host, int(server.url.rsplit(":", 1)[1])
    server.stop()


@pytest.fixture(scope="module")
def fetching_bridge(
    fakes: dict[str, tuple[Fake, str]], image_host: tuple[ImageHost, int]
) -> Iterator[BackgroundServer]:
    """A bridge that may fetch from ``images.test`` (pinned to the loopback image
    host, allowed only through the unsafe test flag)."""
    config = bridge_config(
        fakes,
        fetch_media_hosts=["images.test", "elsewhere.test"],
        fetch_media_resolve={"images.test": ["127.0.0.1"], "elsewhere.test": ["127.0.0.1"]},
        allow_private_fetch=True,
    )
    server = BackgroundServer(create_app(parse_config(config))).start()
    yield server
    server.stop()


@pytest.fixture
def asked(image_host: tuple[ImageHost, int]) -> list[str]:
    image_host[0].asked.clear()
    return image_host[0].asked


@pytest.fixture
def base(image_host: tuple[ImageHost, int]) -> str:
    return f"http://images.test:{image_host[1]}"


@pytest.fixture
async def oai(fetching_bridge: BackgroundServer, anyio_backend: str) -> AsyncIterator[Any]:
    async with openai.AsyncOpenAI(
        base_url=f"{fetching_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


def user_image(url: str) -> list[dict[str, Any]]:
    return chat_user(chat_image(url))


def ollama_images(fakes: dict[str, tuple[Fake, str]]) -> list[bytes]:
    message = fakes["ollama"][0].requests[-1]["messages"][-1]
    return [base64.b64decode(image, validate=True) for image in message["images"]]


@pytest.mark.parametrize("stream", [False, True])
async def test_an_allowed_url_is_fetched_for_an_upstream_that_needs_the_bytes(
    oai: Any, fakes: dict[str, tuple[Fake, str]], asked: list[str], base: str, stream: bool
) -> None:
    messages = user_image(f"{base}/chart")
    if stream:
        chunks = await oai.chat.completions.create(model="ollama", messages=messages, stream=True)
        text = "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
    else:
        reply = await oai.chat.completions.create(model="ollama", messages=messages)
        text = reply.choices[0].message.content
    assert text == "Hello from the fake."
    assert fakes["ollama"][0].problems == []
    assert ollama_images(fakes) == [PNG]
    assert asked == ["images.test/chart"]


async def test_a_document_url_in_a_tool_result_is_fetched_for_openai_chat(
    fetching_bridge: BackgroundServer,
    fakes: dict[str, tuple[Fake, str]],
    asked: list[str],
    base: str,
    anyio_backend: str,
) -> None:
    document = messages_url_block("document", f"{base}/invoice.pdf")
    messages = messages_tool_turns(document, tool="fetch", asked="Fetch the invoice.", said=None)
    async with anthropic.AsyncAnthropic(
        base_url=fetching_bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as client:
        await client.messages.create(
            model="gpt",
            max_tokens=20,
            tools=[{"name": "fetch", "input_schema": {"type": "object"}}],
            messages=messages,
        )
    fake = fakes["openai"][0]
    assert fake.problems == []
    *_, user = fake.requests[-1]["messages"]
    file = user["content"][1]["file"]
    assert data_url_bytes(file["file_data"], "application/pdf") == PDF
    assert asked == ["images.test/invoice.pdf"]


async def test_an_upstream_that_takes_urls_gets_the_url_and_nothing_is_fetched(
    oai: Any, fakes: dict[str, tuple[Fake, str]], asked: list[str], base: str
) -> None:
    await oai.chat.completions.create(model="claude", messages=user_image(f"{base}/chart.png"))
    image = fakes["anthropic"][0].requests[-1]["messages"][-1]["content"][1]
    assert image == messages_url_block("image", f"{base}/chart.png")
    assert asked == []


async def test_a_url_of_a_host_not_listed_is_not_fetched(
    oai: Any, fakes: dict[str, tuple[Fake, str]], asked: list[str]
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await oai.chat.completions.create(
            model="ollama", messages=user_image("https://cdn.example.com/chart.png")
        )
    assert "send the image bytes" in refused.value.body["message"]
    assert fakes["ollama"][0].requests == [] and asked == []


async def test_an_oversized_fetch_is_a_413_naming_the_limit(
    oai: Any, fakes: dict[str, tuple[Fake, str]], base: str
) -> None:
    assert len(BIG) > LIMIT
    with pytest.raises(openai.APIStatusError) as refused:
        await oai.chat.completions.create(model="ollama", messages=user_image(f"{base}/big.png"))
    assert refused.value.status_code == 413
    assert f"max_media_part_bytes = {LIMIT}" in refused.value.body["message"]
    assert fakes["ollama"][0].requests == []


async def test_fetched_bytes_that_are_not_the_media_type_are_a_400(
    oai: Any, fakes: dict[str, tuple[Fake, str]], base: str
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await oai.chat.completions.create(model="ollama", messages=user_image(f"{base}/page.png"))
    assert "are not image/png" in refused.value.body["message"]
    assert fakes["ollama"][0].requests == []


async def test_redirects_are_followed_only_to_allowed_hosts(
    oai: Any, fakes: dict[str, tuple[Fake, str]], asked: list[str], base: str
) -> None:
    await oai.chat.completions.create(model="ollama", messages=user_image(f"{base}/moved.png"))
    assert ollama_images(fakes) == [PNG]
    assert asked == ["images.test/moved.png", "images.test/chart.png"]


async def test_a_host_name_resolving_to_a_private_address_is_never_connected(
    fakes: dict[str, tuple[Fake, str]], listener: tuple[socket.socket, int], anyio_backend: str
) -> None:
    sock, port = listener
    config = bridge_config(
        fakes,
        fetch_media_hosts=["evil.test", "mixed.test"],
        fetch_media_resolve={"evil.test": ["127.0.0.1"], "mixed.test": ["8.8.8.8", "127.0.0.1"]},
    )
    server = BackgroundServer(create_app(parse_config(config))).start()
    try:
        async with openai.AsyncOpenAI(
            base_url=f"{server.url}/v1", api_key=CLIENT_KEY, max_retries=0
        ) as client:
            for host in ("evil.test", "mixed.test"):
                with pytest.raises(openai.BadRequestError) as refused:
                    await client.chat.completions.create(
                        model="ollama", messages=user_image(f"https://{host}:{port}/a.png")
                    )
                message = refused.value.body["message"]
                assert "resolves to 127.0.0.1, not a public address" in message
                assert refused.value.body["code"] == "media_fetch_failed"
            with pytest.raises(openai.BadRequestError) as plain:
                await client.chat.completions.create(
                    model="ollama", messages=user_image(f"http://evil.test:{port}/a.png")
                )
            assert "only https" in plain.value.body["message"]
    finally:
        server.stop()
    with pytest.raises(BlockingIOError):
        sock.accept()
    assert fakes["ollama"][0].requests == []


async def test_every_address_a_name_resolves_to_is_checked(anyio_backend: str) -> None:
    config = parse_config(
        {"server": {"fetch_media_hosts": ["localhost"]}, "models": [bridge_entry()]}
    )
    fetcher = MediaFetcher(config.server, MediaLimits(LIMIT, LIMIT))
    with pytest.raises(BridgeError, match="not a public address") as refused:
        await fetcher.addresses("localhost", 443, "messages[0].content[1]")
    assert refused.value.status == 400


async def test_a_redirect_to_a_host_not_listed_is_refused(
    fakes: dict[str, tuple[Fake, str]],
    image_host: tuple[ImageHost, int],
    asked: list[str],
    anyio_backend: str,
) -> None:
    config = bridge_config(
        fakes,
        fetch_media_hosts=["images.test"],
        fetch_media_resolve={"images.test": ["127.0.0.1"]},
        allow_private_fetch=True,
    )
    server = BackgroundServer(create_app(parse_config(config))).start()
    url = f"http://images.test:{image_host[1]}/away.png"
    try:
        async with openai.AsyncOpenAI(
            base_url=f"{server.url}/v1", api_key=CLIENT_KEY, max_retries=0
        ) as client:
            with pytest.raises(openai.BadRequestError) as refused:
                await client.chat.completions.create(model="ollama", messages=user_image(url))
    finally:
        server.stop()
    assert "'elsewhere.test' (not in server.fetch_media_hosts)" in refused.value.body["message"]
    assert asked == ["images.test/away.png"]
    assert fakes["ollama"][0].requests == []


def bridge_entry() -> dict[str, Any]:
    return {"name": "m", "provider": "ollama", "model": "llava"}


def certificate(tmp: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp / f"{name}.pem", tmp / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


async def test_an_https_fetch_connects_to_the_checked_address_and_verifies_the_host_name(
    tmp_path: Path, anyio_backend: str
) -> None:
    host = ImageHost()
    cert_file, key_file = certificate(tmp_path, "images.test")
    server = BackgroundServer(
        host.app(), ssl_certfile=str(cert_file), ssl_keyfile=str(key_file)
    ).start()
    port = int(server.url.rsplit(":", 1)[1])
    trusted = ssl.create_default_context(cafile=str(cert_file))
    config = parse_config(
        {
            "server": {
                "fetch_media_hosts": ["images.test", "other.test"],
                "fetch_media_resolve": {"images.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]},
                "allow_private_fetch": True,
            },
            "models": [bridge_entry()],
        }
    )
    fetcher = MediaFetcher(config.server, MediaLimits(LIMIT, LIMIT), verify=trusted)
    try:
        part = chat_image(f"https://images.test:{port}/chart")
        media = read_part(part)
        assert media is not None
        inline = await fetcher.fetch(part, media, "messages[0].content[0]")
        assert inline["image_url"]["url"] == data_url(PNG, "image/png")
        assert host.asked == ["images.test/chart"]
        wrong = chat_image(f"https://other.test:{port}/chart")
        wrong_media = read_part(wrong)
        assert wrong_media is not None
        with pytest.raises(BridgeError, match="failed: ConnectError") as refused:
            await fetcher.fetch(wrong, wrong_media, "messages[0].content[0]")
        assert refused.value.status == 400
        assert host.asked == ["images.test/chart"]
    finally:
        await fetcher.aclose()
        server.stop()


@pytest.mark.parametrize(
    "hosts", [["https://images.example.com"], ["images.example.com:443"], ["*."], [""]]
)
def test_fetch_media_hosts_must_be_host_names(hosts: list[str]) -> None:
    with pytest.raises(ConfigError, match=r"server\.fetch_media_hosts"):
        parse_config({"server": {"fetch_media_hosts": hosts}, "models": [bridge_entry()]})


def test_the_bridge_fetches_nothing_by_default() -> None:
    server = parse_config({"models": [bridge_entry()]}).server
    assert server.fetch_media_hosts == () and not server.allow_private_fetch


@pytest.mark.parametrize("stream", [False, True])
async def test_v1_responses_fetches_an_allowed_image_url_too(
    oai: Any, fakes: dict[str, tuple[Fake, str]], asked: list[str], base: str, stream: bool
) -> None:
    content = responses_user(responses_image(f"{base}/chart.png"), text="What is this?")
    kw: dict[str, Any] = {"model": "ollama", "input": content}
    if stream:
        events = await oai.responses.create(**kw, stream=True)
        kinds = [event.type async for event in events]
        assert kinds[-1] == "response.completed"
    else:
        reply = await oai.responses.create(**kw)
        assert reply.output_text == "Hello from the fake."
    assert fakes["ollama"][0].problems == []
    assert ollama_images(fakes) == [PNG]
    assert asked == ["images.test/chart.png"]


@pytest.mark.parametrize("stream", [False, True])
async def test_gemini_file_data_of_an_allowed_host_is_fetched_too(
    fetching_bridge: BackgroundServer,
    fakes: dict[str, tuple[Fake, str]],
    asked: list[str],
    base: str,
    stream: bool,
    anyio_backend: str,
) -> None:
    client = genai.Client(
        api_key=CLIENT_KEY, http_options=genai_types.HttpOptions(base_url=fetching_bridge.url)
    )
    contents = gemini_user(gemini_file(f"{base}/chart.png", "image/png"), text="Hi")
    if stream:
        chunks = await client.aio.models.generate_content_stream(model="ollama", contents=contents)
        text = "".join([chunk.text or "" async for chunk in chunks])
    else:
        reply = await client.aio.models.generate_content(model="ollama", contents=contents)
        text = reply.text or ""
    assert text == "Hello from the fake."
    assert fakes["ollama"][0].problems == []
    assert ollama_images(fakes) == [PNG]
    assert asked == ["images.test/chart.png"]
