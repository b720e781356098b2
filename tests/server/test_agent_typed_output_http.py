"""Typed output over loopback HTTP through the real OpenAI and Anthropic SDKs.

The agent talks to the fake upstreams of the bridge tests (they validate each body
against the provider's rules) in native, structured and prompted modes, whole and
streamed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anthropic
import pytest
from bridge_fakes import UPSTREAM_KEY, Fake, Reply
from openai import AsyncOpenAI
from pydantic import BaseModel

from good_agent import Agent, OutputValidationError, tool
from good_agent.core.output import OUTPUT_TOOL_NAME
from good_agent.models import AnthropicModel, OpenAIChatModel

pytestmark = pytest.mark.anyio


class Invoice(BaseModel):
    """An invoice."""

    number: str
    total: float


INVOICE = {"number": "A-17", "total": 99.5}


@tool
def lookup(number: str) -> str:
    """Look an invoice up by number."""
    return f"invoice {number}: total 99.5"


CLIENTS: list[Any] = []


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    while CLIENTS:
        await CLIENTS.pop().close()


def openai(fakes: dict[str, tuple[Fake, str]], fake: str, mode: str) -> OpenAIChatModel:
    client = AsyncOpenAI(base_url=fakes[fake][1] + "/v1", api_key=UPSTREAM_KEY, max_retries=0)
    CLIENTS.append(client)
    return OpenAIChatModel("fake-gpt", client=client, mode=mode)


def claude(fakes: dict[str, tuple[Fake, str]], mode: str) -> AnthropicModel:
    client = anthropic.AsyncAnthropic(
        api_key=UPSTREAM_KEY,
        base_url=fakes["anthropic"][1],
        default_headers={"x-api-key": UPSTREAM_KEY},
        max_retries=0,
    )
    CLIENTS.append(client)
    return AnthropicModel("claude-sonnet-4-6", client=client, mode=mode)


async def run(agent: Agent, streamed: bool, prompt: str = "Extract the invoice") -> Any:
    if not streamed:
        return (await agent.run(prompt, output_type=Invoice)).output
    async with agent.stream(prompt, output_type=Invoice) as streamed_run:
        await streamed_run.wait()
    return streamed_run.output


def scripted(*replies: Reply) -> Callable[[dict[str, Any]], Reply]:
    queue = list(replies)
    return lambda body: queue.pop(0)


@pytest.mark.parametrize("streamed", [False, True])
async def test_openai_native_mode_uses_the_output_tool(
    fakes: dict[str, tuple[Fake, str]], streamed: bool
) -> None:
    fake = fakes["openai"][0]
    fake.script = scripted(
        Reply(calls=[("lookup", {"number": "A-17"})]),
        Reply(calls=[(OUTPUT_TOOL_NAME, INVOICE)]),
    )
    agent = Agent(model=openai(fakes, "openai", "native"), tools=[lookup])
    assert await run(agent, streamed) == Invoice(**INVOICE)
    assert fake.problems == []
    first = fake.requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["lookup", OUTPUT_TOOL_NAME]
    assert first["tool_choice"] == "required"
    assert fake.requests[1]["messages"][-1]["role"] == "tool"


@pytest.mark.parametrize("streamed", [False, True])
async def test_openai_structured_mode_holds_the_answer_to_a_strict_schema(
    fakes: dict[str, tuple[Fake, str]], streamed: bool
) -> None:
    fake = fakes["openai"][0]
    action = {"action": {"tool": OUTPUT_TOOL_NAME, "arguments": INVOICE, "scratchpad": None}}
    fake.script = scripted(Reply(text=json.dumps(action)))
    agent = Agent(model=openai(fakes, "openai", "structured"))
    assert await run(agent, streamed) == Invoice(**INVOICE)
    assert fake.problems == []
    body = fake.requests[0]
    assert "tools" not in body
    fmt = body["response_format"]["json_schema"]
    assert fmt["strict"] is True
    (variant,) = fmt["schema"]["properties"]["action"]["anyOf"]  # no free-text answer variant
    assert variant["properties"]["tool"]["enum"] == [OUTPUT_TOOL_NAME]
    assert variant["properties"]["arguments"]["required"] == ["number", "total"]


@pytest.mark.parametrize("streamed", [False, True])
async def test_openai_native_output_mode_sends_a_strict_response_format(
    fakes: dict[str, tuple[Fake, str]], streamed: bool
) -> None:
    fake = fakes["openai"][0]
    fake.script = scripted(Reply(text=json.dumps(INVOICE)))
    agent = Agent(model=openai(fakes, "openai", "native"), output_mode="native")
    assert await run(agent, streamed) == Invoice(**INVOICE)
    fmt = fake.requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert "tools" not in fake.requests[0]


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_prompted_text_only_server_answers_in_json(
    fakes: dict[str, tuple[Fake, str]], streamed: bool
) -> None:
    fake = fakes["text"][0]
    fake.script = scripted(
        Reply(text='<tool_call>{"name": "lookup", "arguments": {"number": "A-17"}}</tool_call>'),
        Reply(text="Here you are:\n```json\n" + json.dumps(INVOICE) + "\n```"),
    )
    agent = Agent("You read invoices.", model=openai(fakes, "text", "validated"), tools=[lookup])
    assert await run(agent, streamed) == Invoice(**INVOICE)
    assert fake.problems == []
    system = fake.requests[0]["messages"][0]["content"]
    assert "lookup" in system and '"total"' in system and "JSON schema" in system
    assert "tools" not in fake.requests[0]


@pytest.mark.parametrize("streamed", [False, True])
async def test_anthropic_native_mode_uses_the_output_tool(
    fakes: dict[str, tuple[Fake, str]], streamed: bool
) -> None:
    fake = fakes["anthropic"][0]
    fake.script = scripted(
        Reply(calls=[(OUTPUT_TOOL_NAME, {"number": "A-17", "total": "n/a"})]),
        Reply(calls=[(OUTPUT_TOOL_NAME, INVOICE)]),
    )
    agent = Agent(model=claude(fakes, "native"))
    assert await run(agent, streamed) == Invoice(**INVOICE)
    assert fake.problems == []
    first = fake.requests[0]
    assert [t["name"] for t in first["tools"]] == [OUTPUT_TOOL_NAME]
    assert first["tool_choice"]["type"] == "any"
    retry = fake.requests[1]["messages"][-1]["content"][0]
    assert retry["type"] == "tool_result" and retry["is_error"] is True
    assert "total" in json.dumps(retry["content"])


@pytest.mark.parametrize("streamed", [False, True])
async def test_anthropic_prompted_mode_parses_the_json_answer(
    fakes: dict[str, tuple[Fake, str]], streamed: bool
) -> None:
    fake = fakes["anthropic"][0]
    fake.script = scripted(Reply(text=json.dumps(INVOICE)))
    agent = Agent(model=claude(fakes, "validated"))
    assert await run(agent, streamed) == Invoice(**INVOICE)
    assert fake.problems == []
    assert "tools" not in fake.requests[0]
    assert (
        '"number"' in fake.requests[0]["system"][0]["text"]
        if isinstance(fake.requests[0]["system"], list)
        else '"number"' in fake.requests[0]["system"]
    )


async def test_an_answer_that_never_validates_raises_with_the_history(
    fakes: dict[str, tuple[Fake, str]],
) -> None:
    fake = fakes["text"][0]
    fake.script = lambda body: Reply(text="I cannot say.")
    agent = Agent(model=openai(fakes, "text", "validated"), output_retries=2)
    with pytest.raises(OutputValidationError) as caught:
        await agent.run("Extract", output_type=Invoice)
    assert len(fake.requests) == 3 and fake.problems == []
    assert caught.value.messages == agent.messages
