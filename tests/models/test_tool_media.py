"""Tools that return images: each vendor gets them in its own slot, through the agent.

Anthropic takes them in the ``tool_result`` block's content; OpenAI Chat, Gemini and
Ollama in a user message right after the tool results.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from bridge_fakes import (
    Reply,
    _g,
)
from media_files import png
from vendor_models import Vendors, vendor_model

from good_agent import Agent, BinaryContent, ToolMessage
from good_agent.types.history import dump_messages, load_messages

pytestmark = pytest.mark.anyio

PNG = png(4, 3)


def chart() -> BinaryContent:
    """Draw the sales chart."""
    return BinaryContent(PNG, "image/png")


def image_sent_back(kind: str, body: dict[str, Any]) -> bytes:
    if kind == "anthropic":
        results = [
            block
            for message in body["messages"]
            for block in message["content"]
            if isinstance(message["content"], list) and block.get("type") == "tool_result"
        ]
        text, image = results[0]["content"]
        assert text == {"type": "text", "text": "[returned: image image/png]"}
        assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
        return base64.b64decode(image["source"]["data"])
    if kind == "openai":
        *_, tool, user = body["messages"]
        assert tool["role"] == "tool" and user["role"] == "user"
        assert user["content"][0] == {"type": "text", "text": "Returned by chart:"}
        url = user["content"][1]["image_url"]["url"]
        assert url.startswith("data:image/png;base64,")
        return base64.b64decode(url.split(",", 1)[1])
    if kind == "gemini":
        parts = body["contents"][-1]["parts"]
        assert _g(parts[0], "function_response")["name"] == "chart"
        inline = _g(parts[-1], "inline_data")
        return base64.urlsafe_b64decode(inline["data"])
    *_, tool, user = body["messages"]
    assert tool["role"] == "tool" and user["role"] == "user"
    return base64.b64decode(user["images"][0])


@pytest.mark.parametrize("kind", ["openai", "anthropic", "gemini", "ollama"])
async def test_an_image_a_tool_returns_reaches_the_model_in_the_vendors_slot(
    kind: str, vendors: Vendors
) -> None:
    fake, url = vendors[kind]
    replies = iter([Reply(calls=[("chart", {})]), Reply(text="Sales went up.")])
    fake.script = lambda body: next(replies)
    model = vendor_model(kind, url)
    try:
        async with Agent(model=model, tools=[chart]) as agent:
            result = await agent.run("How did sales go?")
    finally:
        await model.aclose()
    assert result.output == "Sales went up."
    assert not fake.problems
    assert image_sent_back(kind, fake.requests[1]) == PNG
    tool_message = next(m for m in agent.messages if isinstance(m, ToolMessage))
    assert tool_message.media == [BinaryContent(PNG, "image/png")]
    assert load_messages(dump_messages(agent.messages)) == agent.messages
