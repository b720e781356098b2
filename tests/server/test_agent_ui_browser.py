"""The chat page driven in headless Chromium: a question, streamed text, tool calls with
their arguments and results, an approval, the answer. Takes the docs' screenshot: into
``docs/images/chat-page.png`` when ``GOOD_AGENT_UPDATE_SCREENSHOTS=1`` is set (or the file is
missing), else into the test's temporary folder, so a test run leaves the tree unchanged.

Skipped, with the reason printed, where Playwright or Debian's ``chromium`` is missing;
under ``CI`` that is a failure instead.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ui_harness import served

from good_agent import Agent, tool
from good_agent.models.base import ModelRequest, ModelStreamItem
from good_agent.providers.streaming import TextDelta
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel

SCREENSHOT = Path(__file__).parents[2] / "docs" / "images" / "chat-page.png"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _chromium() -> str:
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "playwright is not installed (pip install playwright)"
    binary = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if missing is None and binary is None:
        missing = "chromium is not on PATH (apt-get install -y chromium)"
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    assert binary is not None
    return binary


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"Sunny, 21 °C in {city}"


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


class PacedModel(ScriptedModel):
    """Its text pieces a few frames apart, as a model writes them: the page draws a
    growing answer at most once a frame, so pieces sent at once are drawn once."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelStreamItem]:
        async for item in super().stream(request):
            yield item
            if isinstance(item, TextDelta):
                await asyncio.sleep(0.05)


def scripted_agent() -> tuple[Agent, dict[str, Any]]:
    model = PacedModel(
        [
            ScriptedModel.streamed(
                "Let me check ",
                "the weather first. ",
                ScriptedModel.call("get_weather", {"city": "Paris"}, id="w1"),
            ),
            ScriptedModel.streamed(
                "Now the old report. ",
                ScriptedModel.call("delete_file", {"path": "/tmp/old-report.pdf"}, id="d1"),
            ),
            ScriptedModel.streamed(
                "Done: it is sunny in Paris, ", "and /tmp/old-report.pdf ", "is deleted."
            ),
        ]
    )
    agent = Agent("You tidy up.", model=model, tools=[get_weather, delete_file])
    return agent, {"scripted": model, "backup": ScriptedModel(["(the backup model)"])}


def test_the_chat_page_streams_text_shows_tool_calls_and_takes_an_approval(tmp_path: Path) -> None:
    binary = _chromium()
    from playwright.sync_api import sync_playwright

    agent, models = scripted_agent()
    app = agent_app(agent, models=models, title="good-agent chat")
    with served(app) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 960, "height": 720})
            outside: list[str] = []
            page.on(
                "request",
                lambda r: None if r.url.startswith(server.url) else outside.append(r.url),
            )
            page.goto(server.url + "/")
            page.wait_for_selector("#model option[value='backup']", state="attached")
            assert page.eval_on_selector_all("#model option", "os => os.map(o => o.value)") == [
                "scripted",
                "backup",
            ]
            # count the changes of the first answer's text as it streams in
            page.evaluate(
                """() => {
                  window.textChanges = 0;
                  new MutationObserver((records) => {
                    for (const r of records) {
                      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
                      if (el && el.classList.contains("assistant")) window.textChanges++;
                    }
                  }).observe(document.getElementById("log"),
                             {subtree: true, childList: true, characterData: true});
                }"""
            )
            page.fill("#prompt", "What's the weather in Paris, and delete my old report?")
            page.click("#send")

            page.wait_for_selector(".msg.assistant >> text=Let me check the weather first.")
            assert page.evaluate("window.textChanges") >= 2  # arrived in pieces
            weather = page.locator(".tool[data-call-id='w1']")
            weather.locator(".result").wait_for()
            assert weather.locator(".name").inner_text() == "get_weather"
            assert '"city": "Paris"' in weather.locator(".args").inner_text()
            assert weather.locator(".result").inner_text() == "Sunny, 21 °C in Paris"

            delete = page.locator(".tool[data-call-id='d1']")
            delete.locator("button.approve").wait_for()
            assert "/tmp/old-report.pdf" in delete.locator(".args").inner_text()
            assert delete.locator(".result").inner_text() == ""  # not run yet
            delete.locator("button.approve").click()

            page.wait_for_selector(".msg.assistant >> text=is deleted.")
            assert delete.locator(".result").inner_text() == "deleted /tmp/old-report.pdf"
            answers = page.locator(".msg.assistant").all_inner_texts()
            assert answers[-1] == "Done: it is sunny in Paris, and /tmp/old-report.pdf is deleted."
            assert not page.locator(".msg.error").count()
            assert outside == []  # nothing fetched from outside the server
            update = os.environ.get("GOOD_AGENT_UPDATE_SCREENSHOTS") == "1"
            target = SCREENSHOT if update or not SCREENSHOT.exists() else tmp_path / "chat.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(target), full_page=False)
            assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        finally:
            browser.close()
    assert models["scripted"].remaining == 0
