"""The chat page in headless Chromium, as a person uses it: Approve / Deny brought into
view, Send held while a call waits for approval, a failed tool call shown as an error,
markdown rendered as a safe subset (an XSS corpus, and random text through the
renderer), reasoning collapsed, no 404 for the icon, and a header on one line at 390 px.

Screenshots go to the test's temporary folder (``GOOD_AGENT_KEEP_SCREENSHOTS=dir`` keeps
them in ``dir`` to look at).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_agent_ui_browser import CHROMIUM_ARGS, _chromium
from ui_harness import served

from good_agent import Agent, tool
from good_agent.providers.streaming.deltas import ReasoningDelta
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel


@tool
def lookup(query: str) -> str:
    """Look something up."""
    raise RuntimeError("the index is offline")


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"Sunny in {city}"


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def shot(page: Any, tmp_path: Path, name: str) -> Path:
    folder = Path(os.environ.get("GOOD_AGENT_KEEP_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}.png"
    page.screenshot(path=str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return target


@contextmanager
def browser_page(app: Any, width: int = 960, height: int = 720) -> Iterator[tuple[Any, Any]]:
    """The chat page of ``app`` open in Chromium; yields (page, what it saw: failed
    responses, dialogs, page errors)."""
    binary = _chromium()
    from playwright.sync_api import sync_playwright

    with served(app) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            seen: dict[str, list[Any]] = {"failed": [], "dialogs": [], "errors": []}
            page.on(
                "response",
                lambda r: seen["failed"].append((r.url, r.status)) if r.status >= 400 else None,
            )
            page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            page.goto(server.url + "/")
            page.wait_for_selector("#model option", state="attached")
            page.wait_for_load_state("networkidle")
            yield page, seen
        finally:
            browser.close()


def ask(page: Any, text: str) -> None:
    page.fill("#prompt", text)
    page.press("#prompt", "Enter")


LONG = "\n\n".join(f"Paragraph {n}: " + "some words to fill the screen " * 6 for n in range(12))


def test_approve_and_deny_are_brought_into_view_and_send_waits_for_them(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            ScriptedModel.streamed(LONG, ScriptedModel.call("delete_file", {"path": "/tmp/a"})),
            "Deleted.",
        ]
    )
    app = agent_app(Agent(model=model, tools=[delete_file]))
    with browser_page(app, width=390, height=640) as (page, seen):
        posts: list[str] = []
        page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
        ask(page, "Write a lot, then delete /tmp/a")
        approve = page.locator("button.approve")
        approve.wait_for()
        log_box = page.locator("#log").bounding_box()
        for button in (approve, page.locator("button.deny")):
            box = button.bounding_box()
            assert box["y"] >= log_box["y"] and box["y"] + box["height"] <= (
                log_box["y"] + log_box["height"]
            ), "the buttons are out of view"
        assert page.evaluate("document.activeElement.className") == "approve"
        shot(page, tmp_path, "approval-in-view")

        # Send waits for the decision: the button is disabled and Enter sends nothing
        assert page.locator("#send").is_disabled()
        sent_before = len(posts)
        ask(page, "one more thing")
        page.wait_for_timeout(300)
        assert len(posts) == sent_before
        assert page.input_value("#prompt") == "one more thing"  # kept, not lost
        assert not page.locator(".msg.error").count()

        approve.click()
        page.wait_for_selector(".msg.assistant >> text=Deleted.")
        page.wait_for_selector("#send:not([disabled])")  # a selector: the page's CSP forbids eval
        page.press("#prompt", "Enter")  # now it goes
        page.wait_for_selector(".msg.user >> text=one more thing")
        assert seen["errors"] == []


def test_a_failed_tool_call_shows_as_an_error_and_a_denied_one_as_denied(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            ScriptedModel.streamed(
                ScriptedModel.call("lookup", {"query": "x"}, id="bad"),
                ScriptedModel.call("get_weather", {"city": "Paris"}, id="good"),
            ),
            ScriptedModel.streamed("The index is down. ", "Now deleting."),
        ]
    )
    model2 = ScriptedModel(
        [ScriptedModel.tool_call("delete_file", {"path": "/x"}, id="ask"), "Left alone."]
    )
    with browser_page(agent_app(Agent(model=model, tools=[lookup, get_weather]))) as (page, _):
        ask(page, "look it up")
        page.wait_for_selector(".msg.assistant >> text=Now deleting.")
        bad = page.locator(".tool[data-call-id='bad']")
        good = page.locator(".tool[data-call-id='good']")
        assert "failed" in bad.get_attribute("class")
        assert bad.locator(".state").inner_text() == "failed"
        assert "the index is offline" in bad.locator(".result").inner_text()
        red = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--bad')")
        color = bad.evaluate("e => getComputedStyle(e.querySelector('.result')).borderLeftColor")
        assert color == page.evaluate(
            "c => { const d = document.createElement('div'); d.style.color = c; "
            "document.body.append(d); const v = getComputedStyle(d).color; d.remove(); "
            "return v; }",
            red.strip(),
        )
        assert "failed" not in good.get_attribute("class")
        assert good.locator(".state").inner_text() == "done"
        shot(page, tmp_path, "failed-call")
    with browser_page(agent_app(Agent(model=model2, tools=[delete_file]))) as (page, _):
        ask(page, "delete it")
        page.locator("button.deny").click()
        page.wait_for_selector(".msg.assistant >> text=Left alone.")
        card = page.locator(".tool[data-call-id='ask']")
        assert card.locator(".state").inner_text() == "denied"
        assert "failed" not in card.get_attribute("class")


MARKDOWN = """Here is **bold**, *em*, __strong__, _em_ and `code <b>`, snake_case_name stays.

- one
- two with **strong *nested em***
  - a sub item

3. third
4. fourth

```python
print("<b>hi</b>")
```

A [link](https://example.com/a?b=1) and [mail](mailto:a@example.com)."""


def test_answers_render_a_safe_subset_of_markdown(tmp_path: Path) -> None:
    pieces = [MARKDOWN[i : i + 9] for i in range(0, len(MARKDOWN), 9)]  # streamed in pieces
    model = ScriptedModel([ScriptedModel.streamed(*pieces)])
    with browser_page(agent_app(Agent(model=model))) as (page, seen):
        ask(page, "Show me markdown")
        page.wait_for_selector(".msg.assistant a[href^='mailto:']")
        answer = page.locator(".msg.assistant")
        assert answer.locator("p strong").first.inner_text() == "bold"
        assert answer.locator("p > em").first.inner_text() == "em"
        assert answer.locator("p > strong").nth(1).inner_text() == "strong"
        assert answer.locator("p > code").inner_text() == "code <b>"
        assert "snake_case_name stays" in answer.locator("p").first.inner_text()
        assert answer.locator("ul > li").first.inner_text() == "one"
        nested = answer.locator("ul > li").nth(1)
        assert nested.locator("strong > em").inner_text() == "nested em"
        assert nested.locator("ul > li").inner_text() == "a sub item"
        assert answer.locator("ol").get_attribute("start") == "3"
        assert answer.locator("ol > li").all_inner_texts() == ["third", "fourth"]
        assert answer.locator("pre > code").inner_text() == 'print("<b>hi</b>")'
        link = answer.locator("a[href^='https:']")
        assert link.get_attribute("href") == "https://example.com/a?b=1"
        assert link.get_attribute("rel") == "noopener noreferrer"
        assert "**" not in answer.inner_text()
        assert seen["errors"] == []
        shot(page, tmp_path, "markdown")


XSS = [
    '<img src=x onerror="window.__xss = 1">',
    "<script>window.__xss = 2</script>",
    "[click](javascript:window.__xss=3)",
    '[click](JaVaScRiPt:window.__xss=4 "title")',
    "[click](java\tscript:window.__xss=5)",
    "[click](&#106;avascript:window.__xss=6)",
    "[click](data:text/html,<script>window.__xss=7</script>)",
    "[click](vbscript:msgbox)",
    '<a href="javascript:window.__xss=8">a</a>',
    "&lt;img src=x onerror=window.__xss=9&gt; &amp; &#60;script&#62;",
    "**<svg onload=window.__xss=10>**",
    "***nested *em* and `<b onclick=window.__xss=11>x</b>`***",
    "`<iframe src=javascript:window.__xss=12>`",
    "```\n<script>window.__xss=13</script>\n```",
    "- <details open ontoggle=window.__xss=14>",
    "> <body onload=window.__xss=15>",
    "[**<img src=x onerror=window.__xss=16>**](https://example.com/ok)",
    '<style>body{display:none}</style><form action="javascript:1">'
    "<input autofocus onfocus=window.__xss=17>",
    "[x](//evil.example/path) [y](/relative) [z](#frag)",
]

CHECK_DOM = """() => {
  const log = document.getElementById("log");
  const bad = [];
  const allowed = new Set(["DIV", "P", "BR", "STRONG", "EM", "CODE", "PRE", "UL", "OL", "LI",
                           "A", "SPAN", "BLOCKQUOTE", "H3", "H4", "DETAILS", "SUMMARY",
                           "BUTTON"]);
  for (const node of log.querySelectorAll("*")) {
    if (!allowed.has(node.tagName)) bad.push("tag " + node.tagName);
    for (const attr of node.attributes) {
      if (attr.name.startsWith("on")) bad.push("handler " + attr.name);
      if (/^\\s*(javascript|data|vbscript):/i.test(attr.value)) bad.push("url " + attr.value);
    }
    if (node.tagName === "A") {
      const url = new URL(node.href);
      if (!["http:", "https:", "mailto:"].includes(url.protocol)) bad.push("href " + node.href);
      if (node.rel !== "noopener noreferrer") bad.push("rel " + node.rel);
    }
  }
  return bad;
}"""


def test_an_xss_corpus_runs_no_script_and_leaves_no_handler_or_unsafe_link(
    tmp_path: Path,
) -> None:
    answer = "\n\n".join(XSS)
    model = ScriptedModel(
        [
            ScriptedModel.streamed(
                *[answer[i : i + 5] for i in range(0, len(answer), 5)],
                ScriptedModel.call("get_weather", {"city": "<img src=x onerror=window.__xss=20>"}),
            ),
            ScriptedModel.streamed(answer),
        ]
    )
    with browser_page(agent_app(Agent(model=model, tools=[get_weather]))) as (page, seen):
        ask(page, '<img src=x onerror="window.__xss=30"> [u](javascript:window.__xss=31)')
        page.locator(".msg.assistant").nth(1).wait_for()  # a selector: the CSP forbids eval
        page.wait_for_timeout(300)  # time for an injected handler to fire
        assert page.evaluate("window.__xss") is None
        assert seen["dialogs"] == [] and seen["errors"] == []
        assert page.evaluate(CHECK_DOM) == []
        text = page.locator("#log").inner_text()
        assert '<img src=x onerror="window.__xss = 1">' in text  # shown, as text
        assert "<script>window.__xss = 2</script>" in text
        assert "&lt;img src=x" in text  # entities are not decoded into markup
        assert page.locator(".msg.assistant a[href='https://example.com/ok']").count() == 2
        # every other link target is refused: only the link's text is shown
        assert page.locator(".msg.assistant a").count() == 2
        assert page.locator("text=Sunny in <img src=x").count() == 1  # the tool result
        shot(page, tmp_path, "xss")


MARKS = st.text(
    alphabet=st.sampled_from(list("*_`[]()<>\"'&#!:/=\n -ajvscriptonerrhm1.")), max_size=60
) | st.lists(
    st.sampled_from(
        [
            "*",
            "**",
            "_",
            "`",
            "```",
            "[a](",
            "javascript:",
            "https://x.example/",
            ")",
            "<img src=x onerror=window.__xss=1>",
            "<script>",
            "\n",
            "\n\n",
            "- ",
            "1. ",
            "> ",
            "  ",
            "word",
        ]
    ),
    max_size=14,
).map("".join)


def test_the_renderer_never_makes_markup_from_random_text() -> None:
    model = ScriptedModel(["ok"])
    with browser_page(agent_app(Agent(model=model))) as (page, seen):

        @settings(
            max_examples=300,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        )
        @given(MARKS)
        def rendered_safely(text: str) -> None:
            bad = page.evaluate(
                """(text) => {
                  const root = window.goodAgentMarkdown(text);
                  const bad = [];
                  const allowed = new Set(["DIV", "P", "BR", "STRONG", "EM", "CODE", "PRE",
                                           "UL", "OL", "LI", "A", "SPAN", "BLOCKQUOTE",
                                           "H3", "H4"]);
                  for (const node of root.querySelectorAll("*")) {
                    if (!allowed.has(node.tagName)) bad.push(node.tagName);
                    for (const attr of node.attributes) {
                      if (!["href", "rel", "target", "start", "data-lang"].includes(attr.name))
                        bad.push(attr.name);
                    }
                    if (node.tagName === "A" && !/^(https?|mailto):/.test(node.href))
                      bad.push(node.href);
                  }
                  return bad;
                }""",
                text,
            )
            assert bad == [], text

        rendered_safely()
        assert page.evaluate("window.__xss") is None
        assert seen["errors"] == []
        # text made to be slow to read (openers that never close) is read in bounded
        # steps: it renders with every word kept (a renderer that backtracks would hang here
        # and hit the test's timeout); nesting deeper than the renderer follows ends as
        # text, not as a page that hangs
        deep = ["> " * 12 + "quoted", "".join(f"{'  ' * n}- level {n}\n" for n in range(12))]
        for text in deep:
            assert page.evaluate("(t) => window.goodAgentMarkdown(t).textContent", text)
        for unit in ("*a ", "_a ", "**a "):
            shown = page.evaluate(
                "(unit) => window.goodAgentMarkdown(unit.repeat(20000)).textContent", unit
            )
            assert shown.count("a") == 20000, unit  # every word is shown


def test_reasoning_shows_collapsed_above_the_answer(tmp_path: Path) -> None:
    reply = ScriptedModel.streamed(
        ReasoningDelta("First I weigh "), ReasoningDelta("the options."), "The answer is 42."
    )
    with browser_page(agent_app(Agent(model=ScriptedModel([reply])))) as (page, _):
        ask(page, "What is it?")
        page.wait_for_selector(".msg.assistant >> text=The answer is 42.")
        details = page.locator("details.reasoning")
        assert details.count() == 1
        assert details.evaluate("d => d.open") is False  # collapsed
        assert details.locator("summary").inner_text() == "Reasoning"
        assert not details.locator("div").is_visible()
        details.locator("summary").click()
        assert details.locator("div").inner_text() == "First I weigh the options."
        order = page.evaluate(
            "[...document.getElementById('log').children].map(e => e.tagName + '.' + e.className)"
        )
        assert order == ["DIV.msg user", "DETAILS.reasoning", "DIV.msg assistant"]
        shot(page, tmp_path, "reasoning")


def test_no_request_of_the_page_fails_and_favicon_ico_is_not_a_404() -> None:
    app = agent_app(Agent(model=ScriptedModel(["Hi."])))
    with served(app) as server:
        response = httpx.get(server.url + "/favicon.ico")
        assert response.status_code == 204
    with browser_page(agent_app(Agent(model=ScriptedModel(["Hi."])))) as (page, seen):
        ask(page, "hello")
        page.wait_for_selector(".msg.assistant >> text=Hi.")
        icon = page.evaluate("document.querySelector('link[rel=icon]').href")
        assert icon.startswith("data:image/svg+xml")
        assert seen["failed"] == []


@pytest.mark.parametrize("width", [390, 320, 960])
def test_the_header_fits_one_line(tmp_path: Path, width: int) -> None:
    app = agent_app(
        Agent(model=ScriptedModel(["Hi."])),
        models={"gpt-4o-mini-2024-07-18": ScriptedModel(["Hi."]), "b": ScriptedModel([])},
        title="good-agent chat",
    )
    with browser_page(app, width=width, height=700) as (page, _):
        sizes = page.evaluate(
            """() => {
              const header = document.querySelector("header");
              const items = [...header.children].filter((e) => e.offsetParent !== null);
              const line = parseFloat(getComputedStyle(header.querySelector("button")).height);
              return {
                height: header.getBoundingClientRect().height,
                padding: parseFloat(getComputedStyle(header).paddingTop) +
                         parseFloat(getComputedStyle(header).paddingBottom),
                line,
                title: header.querySelector("h1").getBoundingClientRect().height,
                titleLine: parseFloat(getComputedStyle(header.querySelector("h1")).lineHeight),
                tops: items.map((e) => Math.round(e.getBoundingClientRect().top +
                                                  e.getBoundingClientRect().height / 2)),
                overflow: header.scrollWidth - header.clientWidth,
                right: Math.max(...items.map((e) => e.getBoundingClientRect().right)),
              };
            }"""
        )
        shot(page, tmp_path, f"header-{width}")
    # one row: the header is as tall as its tallest control plus its padding
    assert sizes["height"] <= sizes["line"] + sizes["padding"] + 2, sizes
    assert sizes["title"] <= sizes["titleLine"] + 1, sizes  # the title on one line
    assert max(sizes["tops"]) - min(sizes["tops"]) <= 2, sizes  # all on one row
    assert sizes["overflow"] <= 0 and sizes["right"] <= width, sizes
