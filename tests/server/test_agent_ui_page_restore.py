"""The chat page in headless Chromium keeps its thread over a reload: the thread id is in
the page's storage, the messages come back from the server (its owner only), and a call
waiting for approval asks again."""

from __future__ import annotations

from pathlib import Path

from test_agent_ui_browser import CHROMIUM_ARGS, _chromium
from ui_harness import served

from good_agent import Agent, tool
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel

KEY = "page-key"


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def test_a_reload_restores_the_thread_and_its_pending_approval(tmp_path: Path) -> None:
    binary = _chromium()
    from playwright.sync_api import sync_playwright

    model = ScriptedModel(
        [
            ScriptedModel.streamed(
                "Deleting **now**. ",
                ScriptedModel.call("delete_file", {"path": "/tmp/old.pdf"}, id="d1"),
            ),
            ScriptedModel.streamed("The file is deleted."),
        ]
    )
    agent = Agent("You tidy up.", model=model, tools=[delete_file])
    app = agent_app(agent, client_keys=[KEY, "other-key"])
    with served(app) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 960, "height": 720})
            page.add_init_script(f"localStorage.setItem('good-agent-key', '{KEY}')")
            page.goto(server.url + "/")
            page.wait_for_selector("#model option", state="attached")
            page.fill("#prompt", "Delete my old report")
            page.click("#send")
            page.locator(".tool[data-call-id='d1'] button.approve").wait_for()
            thread = page.evaluate("localStorage.getItem('good-agent-thread:/')")
            assert thread

            page.reload()
            page.locator(".tool[data-call-id='d1'] button.approve").wait_for()
            assert page.locator(".msg.user").all_inner_texts() == ["Delete my old report"]
            assert page.locator(".msg.assistant strong").inner_text() == "now"  # markdown
            assert "/tmp/old.pdf" in page.locator(".tool[data-call-id='d1'] .args").inner_text()
            assert page.is_disabled("#send")  # waiting for the decision
            page.locator(".tool[data-call-id='d1'] button.approve").click()
            page.wait_for_selector(".msg.assistant >> text=The file is deleted.")

            page.reload()
            page.wait_for_selector(".msg.assistant >> text=The file is deleted.")
            card = page.locator(".tool[data-call-id='d1']")
            assert card.locator(".result").inner_text() == "deleted /tmp/old.pdf"
            assert card.locator("button.approve").count() == 0
            assert not page.is_disabled("#send")

            # another browser (another owner's key) with the same thread id sees nothing
            other = browser.new_page()
            other.add_init_script(
                f"localStorage.setItem('good-agent-key', 'other-key');"
                f"localStorage.setItem('good-agent-thread:/', '{thread}')"
            )
            statuses: list[int] = []
            other.on(
                "response", lambda r: statuses.append(r.status) if "/threads/" in r.url else None
            )
            other.goto(server.url + "/")
            other.wait_for_timeout(500)
            assert statuses == [404]
            assert other.locator(".msg").count() == 0
            assert other.evaluate("localStorage.getItem('good-agent-thread:/')") is None

            page.click("#new")
            page.reload()
            page.wait_for_selector("#model option", state="attached")
            page.wait_for_timeout(300)
            assert page.locator(".msg").count() == 0
            assert page.evaluate("localStorage.getItem('good-agent-thread:/')") is None
        finally:
            browser.close()
