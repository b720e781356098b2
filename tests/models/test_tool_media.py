"""Tools that return images: each vendor gets them in its own slot, through the agent.

Anthropic takes them in the ``tool_result`` block's content, OpenAI Responses in the
``function_call_output``'s ``output`` list; OpenAI Chat, Gemini and Ollama in a user
message right after the tool results.
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
from media_requests import data_url_bytes
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from vendor_models import Vendors, vendor_model

from good_agent import Agent, BinaryContent, ToolMessage
from good_agent.models import OpenAIResponsesModel
from good_agent.server.background import BackgroundServer
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
        return data_url_bytes(user["content"][1]["image_url"]["url"], "image/png")
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


def responses_turns(bodies: list[dict[str, Any]]) -> Starlette:
    """A Responses endpoint: a ``chart`` function call first, then a text answer."""

    def reply(output: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": f"resp_{len(bodies)}",
            "object": "response",
            "created_at": 0,
            "model": "gpt-4.1",
            "status": "completed",
            "output": output,
            "usage": {"input_tokens": 9, "output_tokens": 2, "total_tokens": 11},
        }

    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "chart",
        "arguments": "{}",
        "status": "completed",
    }
    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Sales went up.", "annotations": []}],
    }

    async def handle(request: Request) -> Response:
        bodies.append(await request.json())
        return JSONResponse(reply([call] if len(bodies) == 1 else [text]))

    return Starlette(routes=[Route("/v1/responses", handle, methods=["POST"])])


async def test_openai_responses_gets_a_tools_image_in_its_function_call_output() -> None:
    from openai import AsyncOpenAI

    bodies: list[dict[str, Any]] = []
    server = BackgroundServer(responses_turns(bodies)).start()
    client = AsyncOpenAI(api_key="k", base_url=f"{server.url}/v1", max_retries=0)
    try:
        model = OpenAIResponsesModel("gpt-4.1", client=client, mode="native")
        async with Agent(model=model, tools=[chart]) as agent:
            result = await agent.run("How did sales go?")
    finally:
        await client.close()
        server.stop()
    assert result.output == "Sales went up."
    items = bodies[1]["input"]
    output = next(i for i in items if i.get("type") == "function_call_output")
    assert output["call_id"] == "call_1"
    text, image = output["output"]
    assert text == {"type": "input_text", "text": "[returned: image image/png]"}
    assert image["type"] == "input_image"
    prefix = "data:image/png;base64,"
    assert image["image_url"].startswith(prefix)
    assert base64.b64decode(image["image_url"][len(prefix) :], validate=True) == PNG
    assert items[-1] is output, "no user message follows with the image"
