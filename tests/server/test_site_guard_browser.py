"""Other sites, in real headless Chromium: a page served from another origin (a second
loopback server, ``http://localhost:<p2>``, against the agent on ``http://127.0.0.1:<p1>``)
cannot start a run (a ``no-cors`` fetch with a ``text/plain`` body, a top-level form
post), cannot approve a waiting call, and a page on a foreign name that resolves to
``127.0.0.1`` (DNS rebinding, simulated with Chromium's ``--host-resolver-rules``) reads
nothing. An origin the app lists does get CORS and may use it. The bridge is tried the
same way: a form post from another site spends no upstream call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from bridge_fakes import Fake
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route
from test_agent_ui_browser import CHROMIUM_ARGS, _chromium
from ui_harness import ag_ui, run_input, served, user

from good_agent import Agent, tool
from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel

ATTACKER_PAGE = "<!doctype html><html><body><h1>cute cats</h1></body></html>"


def attacker_app() -> Starlette:
    """Another site: one harmless-looking page whose script is run by the tests."""

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(ATTACKER_PAGE)

    return Starlette(routes=[Route("/", page)])


@pytest.fixture(scope="module")
def attacker() -> Iterator[str]:
    with served(attacker_app()) as server:
        yield f"http://localhost:{server.port}"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    binary = _chromium()
    from playwright.sync_api import sync_playwright

    args = [*CHROMIUM_ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, args=args)
        try:
            yield browser
        finally:
            browser.close()


def side_effect_agent(sent: list[str]) -> Agent:
    @tool
    def send_email(to: str) -> str:
        """Send an email."""
        sent.append(to)
        return f"sent to {to}"

    model = ScriptedModel(
        [
            ScriptedModel.tool_call("send_email", {"to": "boss@example.com"}, id="m1"),
            "The email is sent: secret-reply-text.",
        ]
    )
    return Agent(model=model, tools=[send_email])


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def vercel_body(text: str) -> dict[str, Any]:
    return {
        "id": "thread-v",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}],
    }


NO_CORS_POST = """async ([url, body]) => {
  try {
    await fetch(url, {method: "POST", mode: "no-cors", body: body,
                      headers: {"content-type": "text/plain"}});
    return "sent";
  } catch (e) { return "failed: " + e; }
}"""

FORM_POST = """([url, name, value]) => {
  const form = document.createElement("form");
  form.method = "POST";
  form.action = url;
  form.enctype = "text/plain";
  const input = document.createElement("input");
  input.name = name;
  input.value = value;
  form.appendChild(input);
  document.body.appendChild(form);
  form.submit();
}"""

CORS_READ = """async ([url, body]) => {
  try {
    const r = await fetch(url, {method: "POST", body: body,
                                headers: {"content-type": "application/json"}});
    return {status: r.status, text: await r.text()};
  } catch (e) { return {status: 0, text: "failed: " + e}; }
}"""


def form_fields(body: dict[str, Any]) -> tuple[str, str]:
    """A JSON body as one ``text/plain`` form field: ``name=value`` reads as ``body``
    with one extra key (the classic way a form posts JSON)."""
    text = json.dumps({**body, "pad": "="})
    name, _, rest = text.rpartition('"pad": "=')
    return name + '"pad": "', rest


def test_a_page_of_another_origin_cannot_start_a_run_with_a_no_cors_fetch(
    chromium: Any, attacker: str
) -> None:
    sent: list[str] = []
    agent = side_effect_agent(sent)
    model = agent.model
    assert isinstance(model, ScriptedModel)
    with served(agent_app(agent)) as server:
        page = chromium.new_page()
        page.goto(attacker + "/")
        body = json.dumps(run_input("t1", [user("email my boss")]))
        assert page.evaluate(NO_CORS_POST, [server.url + "/ag-ui", body]) == "sent"
        body = json.dumps(vercel_body("email my boss"))
        assert page.evaluate(NO_CORS_POST, [server.url + "/vercel", body]) == "sent"
        page.wait_for_timeout(1000)  # time for a run the page started to call its tool
        page.close()
        assert (sent, model.remaining) == ([], 2)  # no run started: the model was not asked
        # the same request without a page behind it (no Origin) is still served
        events = ag_ui(server, run_input("t2", [user("email my boss")]))
    assert sent == ["boss@example.com"]
    assert any(getattr(e, "delta", "") == "The email is sent: secret-reply-text." for e in events)


def test_a_top_level_form_post_from_another_origin_starts_no_run(
    chromium: Any, attacker: str
) -> None:
    sent: list[str] = []
    with served(agent_app(side_effect_agent(sent))) as server:
        page = chromium.new_page()
        page.goto(attacker + "/")
        name, value = form_fields(vercel_body("email my boss"))
        with page.expect_navigation():
            page.evaluate(FORM_POST, [server.url + "/vercel", name, value])
        shown = page.content()
        page.close()
    assert sent == []
    assert "secret-reply-text" not in shown
    assert "origin_not_allowed" in shown


def test_a_page_of_another_origin_cannot_approve_a_waiting_call(
    chromium: Any, attacker: str
) -> None:
    call = ScriptedModel.tool_call("delete_file", {"path": "/tmp/x"}, id="c1")
    agent = Agent(model=ScriptedModel([call, "Deleted."]), tools=[delete_file])
    with served(agent_app(agent)) as server:
        (interrupt,) = ag_ui(server, run_input("t3", [user("rm /tmp/x")]))[-1].outcome.interrupts
        resume = [
            {"interruptId": interrupt.id, "status": "resolved", "payload": {"approved": True}}
        ]
        body = run_input("t3", resume=resume)
        page = chromium.new_page()
        page.goto(attacker + "/")
        assert page.evaluate(NO_CORS_POST, [server.url + "/ag-ui", json.dumps(body)]) == "sent"
        name, value = form_fields(body)
        with page.expect_navigation():
            page.evaluate(FORM_POST, [server.url + "/ag-ui", name, value])
        page.close()
        # the call still waits: its owner's approval runs it now, and only now
        events = ag_ui(server, body)
    results = [e.content for e in events if type(e).__name__ == "ToolCallResultEvent"]
    assert results == ["deleted /tmp/x"]


def test_a_rebound_name_reads_nothing_and_runs_nothing(chromium: Any) -> None:
    sent: list[str] = []
    with served(agent_app(side_effect_agent(sent))) as server:
        page = chromium.new_page()
        # the name resolves to 127.0.0.1 (as after a rebinding), so the page's own
        # requests are same-origin for the browser and their replies readable
        response = page.goto(f"http://evil.example:{server.port}/")
        assert response is not None and response.status == 421
        body = json.dumps(run_input("t4", [user("email my boss")]))
        read = page.evaluate(CORS_READ, [f"http://evil.example:{server.port}/ag-ui", body])
        page.close()
    assert read["status"] == 421
    assert "host_not_allowed" in read["text"]
    assert "secret-reply-text" not in read["text"]
    assert sent == []


def test_a_listed_origin_gets_cors_and_reads_its_reply(chromium: Any, attacker: str) -> None:
    sent: list[str] = []
    app = agent_app(side_effect_agent(sent), allowed_origins=[attacker])
    with served(app) as server:
        page = chromium.new_page()
        page.goto(attacker + "/")
        body = json.dumps(run_input("t5", [user("email my boss")]))
        read = page.evaluate(CORS_READ, [server.url + "/ag-ui", body])
        page.close()
    assert read["status"] == 200, read
    assert "secret-reply-text" in read["text"]
    assert sent == ["boss@example.com"]


@pytest.fixture
def open_bridge(fakes: dict[str, tuple[Fake, str]]) -> Iterator[tuple[BackgroundServer, Fake]]:
    """A bridge on loopback with no client keys (the local default), over a fake OpenAI."""
    fake, url = fakes["openai"]
    config = parse_config(
        {
            "models": [
                {
                    "name": "gpt",
                    "provider": "openai",
                    "model": "fake-gpt",
                    "base_url": url + "/v1",
                    "api_key_env": "GA_TEST_UPSTREAM_KEY",
                }
            ]
        }
    )
    with served(create_app(config)) as server:
        yield server, fake


def test_a_page_of_another_origin_cannot_spend_the_bridges_upstream_key(
    chromium: Any, attacker: str, open_bridge: tuple[BackgroundServer, Fake]
) -> None:
    bridge, fake = open_bridge
    chat = {"model": "gpt", "messages": [{"role": "user", "content": "hi"}]}
    page = chromium.new_page()
    page.goto(attacker + "/")
    url = bridge.url + "/v1/chat/completions"
    assert page.evaluate(NO_CORS_POST, [url, json.dumps(chat)]) == "sent"
    name, value = form_fields(chat)
    with page.expect_navigation():
        page.evaluate(FORM_POST, [url, name, value])
    page.close()
    assert fake.requests == []
    # a client that is no page (no Origin) is served as before
    answer = httpx.post(url, json=chat, timeout=30)
    assert answer.status_code == 200, answer.text
    assert len(fake.requests) == 1
