"""The site guard over loopback HTTP, on the agent app and on the bridge: ``Host``
(DNS rebinding), ``Origin`` on state-changing requests, JSON content types, CORS only
for listed origins, the chat page's anti-framing headers, request bodies that must
arrive in time (a raw socket sending half a body), and the configuration and command
line that set them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from bridge_fakes import Fake
from hypothesis import given
from hypothesis import strategies as st
from ui_harness import run_input, served, user

from good_agent import Agent
from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer
from good_agent.server.common.listen import hosts_for_bind
from good_agent.server.common.site_guard import HostRule, split_host
from good_agent.server.config import ConfigError
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel


def chat_agent() -> Agent:
    return Agent(model=ScriptedModel(["Hello."] * 20))


@pytest.fixture(scope="module")
def ui() -> Iterator[BackgroundServer]:
    app = agent_app(
        chat_agent(),
        allowed_hosts=["agent.example.com", "*.corp.example", "pinned.example:8443"],
        allowed_origins=["https://app.example.com"],
        body_timeout=1,
    )
    with served(app) as server:
        yield server


def post(server: BackgroundServer, path: str, body: Any, **headers: str) -> httpx.Response:
    return httpx.post(
        server.url + path,
        content=json.dumps(body).encode(),
        headers={"content-type": "application/json", **headers},
        timeout=30,
    )


AG = run_input("t", [user("hi")])


# --- Host ---------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1.evil.example"])
def test_a_foreign_host_is_a_421_naming_the_header(ui: BackgroundServer, host: str) -> None:
    for response in (
        post(ui, "/ag-ui", AG, host=host),
        httpx.get(ui.url + "/", headers={"host": host}),
        httpx.get(ui.url + "/models", headers={"host": host}),
    ):
        assert response.status_code == 421
        error = response.json()["error"]
        assert error["param"] == "Host" and error["code"] == "host_not_allowed"
        assert "Hello." not in response.text and "<script>" not in response.text


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "LOCALHOST:1234",
        "localhost.:1",
        "127.0.0.1",
        "[::1]:7286",
        "agent.example.com",
        "agent.example.com:443",
        "a.b.corp.example",
        "pinned.example:8443",
    ],
)
def test_loopback_names_and_listed_hosts_are_served(ui: BackgroundServer, host: str) -> None:
    response = post(ui, "/ag-ui", AG, host=host)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("host", ["pinned.example", "pinned.example:80", "corp.example"])
def test_a_pinned_port_or_a_bare_domain_is_not_its_wildcard(
    ui: BackgroundServer, host: str
) -> None:
    assert httpx.get(ui.url + "/health", headers={"host": host}).status_code == 421


names = st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z][a-z0-9-]{0,10}){0,3}", fullmatch=True)


@given(names, st.integers(1, 65535), names)
def test_a_listed_name_is_served_at_any_port_and_nothing_else_is(
    name: str, port: int, other: str
) -> None:
    rule = HostRule([name])
    assert rule.allows(f"{name}:{port}") and rule.allows(name.upper())
    assert split_host(f"{name}:{port}") == (name, str(port))
    if other != name and other != "localhost":
        assert not rule.allows(other) and not rule.allows(f"{other}:{port}")
        assert not rule.allows(f"{name}.{other}")


# --- Origin and content type --------------------------------------------------------


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://localhost:1"])
def test_a_post_from_another_origin_is_a_403_and_nothing_runs(
    ui: BackgroundServer, origin: str
) -> None:
    response = post(ui, "/ag-ui", AG, origin=origin)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["param"] == "Origin" and error["code"] == "origin_not_allowed"
    assert "access-control-allow-origin" not in response.headers


def test_the_apps_own_origin_and_a_listed_origin_may_post(ui: BackgroundServer) -> None:
    own = post(ui, "/ag-ui", AG, origin=ui.url)
    assert own.status_code == 200 and "access-control-allow-origin" not in own.headers
    listed = post(ui, "/ag-ui", AG, origin="https://app.example.com")
    assert listed.status_code == 200
    assert listed.headers["access-control-allow-origin"] == "https://app.example.com"
    assert "Origin" in listed.headers["vary"]


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
    ],
)
def test_a_body_that_is_not_declared_json_is_a_415_naming_the_header(
    ui: BackgroundServer, content_type: str
) -> None:
    response = post(ui, "/ag-ui", AG, **{"content-type": content_type})
    assert response.status_code == 415
    error = response.json()["error"]
    assert error["param"] == "Content-Type" and content_type in error["message"]


@pytest.mark.parametrize(
    "content_type", ["application/json", "Application/JSON; charset=utf-8", "application/x+json"]
)
def test_json_content_types_are_served(ui: BackgroundServer, content_type: str) -> None:
    assert post(ui, "/ag-ui", AG, **{"content-type": content_type}).status_code == 200


def test_a_preflight_is_answered_for_a_listed_origin_only(ui: BackgroundServer) -> None:
    ask = {
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
    }
    listed = httpx.options(ui.url + "/ag-ui", headers={"origin": "https://app.example.com", **ask})
    assert listed.status_code == 204
    assert listed.headers["access-control-allow-origin"] == "https://app.example.com"
    assert "POST" in listed.headers["access-control-allow-methods"]
    assert listed.headers["access-control-allow-headers"] == "content-type"
    other = httpx.options(ui.url + "/ag-ui", headers={"origin": "http://evil.example", **ask})
    assert other.status_code == 403 and "access-control-allow-origin" not in other.headers


def test_the_chat_page_may_not_be_framed_or_sniffed(ui: BackgroundServer) -> None:
    page = httpx.get(ui.url + "/")
    assert page.status_code == 200
    assert page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


# --- Request bodies that never finish -------------------------------------------------


def half_body(server: BackgroundServer, path: str, wait: float = 10.0) -> tuple[bytes, float]:
    """Send the headers and half the declared body, then nothing: what comes back, and
    after how many seconds."""
    body = json.dumps(AG).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        sock.sendall(head.encode() + body[: len(body) // 2])
        start = time.monotonic()
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            pass
        return received, time.monotonic() - start


def test_a_half_sent_body_gets_a_408_and_the_connection_closed(ui: BackgroundServer) -> None:
    received, took = half_body(ui, "/ag-ui")
    assert received.startswith(b"HTTP/1.1 408"), received[:200]
    assert took < 5  # closed by the server, not by the client's own timeout
    assert b'"code":"request_timeout"' in received
    # the server still serves everyone else
    assert post(ui, "/ag-ui", AG).status_code == 200


def test_a_slow_body_that_arrives_in_time_is_served(ui: BackgroundServer) -> None:
    body = json.dumps(AG).encode()
    with socket.create_connection(("127.0.0.1", ui.port), timeout=10) as sock:
        head = (
            f"POST /ag-ui HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        sock.sendall(head.encode() + body[:10])
        time.sleep(0.3)
        sock.sendall(body[10:])
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received.startswith(b"HTTP/1.1 200"), received[:200]


# --- The bridge ---------------------------------------------------------------------


def bridge_config(fakes: dict[str, tuple[Fake, str]], **server: Any) -> Any:
    return parse_config(
        {
            "server": server,
            "models": [
                {
                    "name": "gpt",
                    "provider": "openai",
                    "model": "fake-gpt",
                    "base_url": fakes["openai"][1] + "/v1",
                    "api_key_env": "GA_TEST_UPSTREAM_KEY",
                }
            ],
        }
    )


@pytest.fixture
def open_bridge(fakes: dict[str, tuple[Fake, str]]) -> Iterator[tuple[BackgroundServer, Fake]]:
    config = bridge_config(fakes, body_timeout=1, allowed_origins=["https://app.example.com"])
    with served(create_app(config)) as server:
        yield server, fakes["openai"][0]


CHAT = {"model": "gpt", "messages": [{"role": "user", "content": "hi"}]}
MESSAGES = {"model": "gpt", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}


def test_the_bridge_refuses_foreign_hosts_origins_and_content_types_in_each_apis_shape(
    open_bridge: tuple[BackgroundServer, Fake],
) -> None:
    bridge, fake = open_bridge
    chat = post(bridge, "/v1/chat/completions", CHAT, host="evil.example")
    assert chat.status_code == 421 and chat.json()["error"]["param"] == "Host"
    anthropic = post(bridge, "/v1/messages", MESSAGES, origin="http://evil.example")
    assert anthropic.status_code == 403
    assert anthropic.json()["type"] == "error"
    assert anthropic.json()["error"]["type"] == "permission_error"
    gemini = post(
        bridge,
        "/v1beta/models/gpt:generateContent",
        {"contents": [{"parts": [{"text": "hi"}]}]},
        **{"content-type": "text/plain"},
    )
    assert gemini.status_code == 415
    assert gemini.json()["error"]["status"] == "UNKNOWN" or gemini.json()["error"]["code"] == 415
    assert "Content-Type" in gemini.json()["error"]["message"]
    health = httpx.get(bridge.url + "/health", headers={"host": "evil.example"})
    assert health.status_code == 421
    assert fake.requests == []
    served_ = post(bridge, "/v1/chat/completions", CHAT, origin="https://app.example.com")
    assert served_.status_code == 200
    assert served_.headers["access-control-allow-origin"] == "https://app.example.com"
    assert len(fake.requests) == 1


def test_the_bridge_answers_a_half_sent_body_with_a_408(
    open_bridge: tuple[BackgroundServer, Fake],
) -> None:
    bridge, fake = open_bridge
    received, took = half_body(bridge, "/v1/chat/completions")
    assert received.startswith(b"HTTP/1.1 408"), received[:200]
    assert took < 5
    assert fake.requests == []


# --- Configuration and command line -------------------------------------------------


def test_bad_allowed_hosts_and_origins_are_refused_naming_the_field(
    fakes: dict[str, tuple[Fake, str]],
) -> None:
    with pytest.raises(ConfigError, match=r"server\.allowed_origins.*not an origin"):
        bridge_config(fakes, allowed_origins=["app.example.com"])
    with pytest.raises(ConfigError, match=r"server\.allowed_hosts.*not a host name"):
        bridge_config(fakes, allowed_hosts=["https://example.com/"])
    with pytest.raises(ConfigError, match=r"server\.body_timeout"):
        bridge_config(fakes, body_timeout=0)


def test_every_interface_needs_allowed_hosts_a_named_address_serves_its_name() -> None:
    with pytest.raises(ConfigError, match="--allowed-host"):
        hosts_for_bind("0.0.0.0", ())
    with pytest.raises(ConfigError, match="--allowed-host"):
        hosts_for_bind("::", ())
    assert hosts_for_bind("0.0.0.0", ("example.com",)) == ("example.com",)
    assert hosts_for_bind("10.1.2.3", ()) == ("10.1.2.3",)
    assert hosts_for_bind("fd00::1", ()) == ("[fd00::1]",)
    assert hosts_for_bind("127.0.0.1", ()) == ()


AGENT_MODULE = """
from good_agent import Agent
from good_agent.testing import ScriptedModel

agent = Agent(model=ScriptedModel(["Hello from the command line."]))
"""


def test_serve_agent_on_every_interface_asks_for_allowed_hosts(tmp_path: Path) -> None:
    (tmp_path / "my_agent.py").write_text(AGENT_MODULE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "GA_SITE_KEYS": "k-123456"}
    command = [sys.executable, "-m", "good_agent.cli", "serve-agent", "my_agent:agent"]
    refused = subprocess.run(
        [*command, "--host", "0.0.0.0", "--api-keys-env", "GA_SITE_KEYS", "--port", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1 and "--allowed-host" in refused.stderr
    bad = subprocess.run(
        [*command, "--allowed-origin", "example.com"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1 and "not an origin" in bad.stderr


def test_serve_on_every_interface_asks_for_allowed_hosts_and_checks_origins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from good_agent.cli import main

    path = tmp_path / "bridge.toml"
    path.write_text(
        '[server]\napi_keys_env = "GA_SITE_BRIDGE_KEYS"\n\n[[models]]\n'
        'name = "m"\nprovider = "openai"\nmodel = "x"\n'
    )
    os.environ["GA_SITE_BRIDGE_KEYS"] = "k-123456"
    assert main(["serve", "--config", str(path), "--host", "0.0.0.0", "--port", "1"]) == 1
    assert "--allowed-host" in capsys.readouterr().err
    bad = ["serve", "--config", str(path), "--allowed-origin", "app.example.com"]
    assert main(bad) == 1
    assert "not an origin" in capsys.readouterr().err
