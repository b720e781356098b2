"""Output validators over loopback HTTP, in each tool-calling mode, whole and streamed.

The fake upstreams of the bridge tests check every body against the provider's rules;
a validator rejects the first answer and the model's second answer ends the run.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from bridge_fakes import UPSTREAM_KEY, Fake, Reply
from openai import AsyncOpenAI
from pydantic import BaseModel

from good_agent import Agent, ModelRetry
from good_agent.core.output import OUTPUT_TOOL_NAME
from good_agent.models import OpenAIChatModel

pytestmark = pytest.mark.anyio

CLIENTS: list[Any] = []


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    while CLIENTS:
        await CLIENTS.pop().close()


class Invoice(BaseModel):
    """An invoice."""

    number: str
    total: float


WRONG, RIGHT = {"number": "A-17", "total": -1.0}, {"number": "A-17", "total": 99.5}


def model(fakes: dict[str, tuple[Fake, str]], fake: str, mode: str) -> OpenAIChatModel:
    client = AsyncOpenAI(base_url=fakes[fake][1] + "/v1", api_key=UPSTREAM_KEY, max_retries=0)
    CLIENTS.append(client)
    return OpenAIChatModel("fake-gpt", client=client, mode=mode)


def answer(mode: str, invoice: dict[str, Any]) -> Reply:
    if mode == "native":
        return Reply(calls=[(OUTPUT_TOOL_NAME, invoice)])
    if mode == "structured":
        action = {"tool": OUTPUT_TOOL_NAME, "arguments": invoice, "scratchpad": None}
        return Reply(text=json.dumps({"action": action}))
    return Reply(text=json.dumps(invoice))


def scripted(*replies: Reply) -> Callable[[dict[str, Any]], Reply]:
    queue = list(replies)
    return lambda body: queue.pop(0)


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize(
    ("mode", "fake"), [("native", "openai"), ("structured", "openai"), ("validated", "text")]
)
async def test_a_validator_sends_the_model_back_in_every_tool_calling_mode(
    fakes: dict[str, tuple[Fake, str]], mode: str, fake: str, streamed: bool
) -> None:
    upstream = fakes[fake][0]
    upstream.script = scripted(answer(mode, WRONG), answer(mode, RIGHT))
    agent = Agent(model=model(fakes, fake, mode), output_type=Invoice)
    seen: list[float] = []

    @agent.output_validator
    def positive(invoice: Invoice) -> Invoice:
        seen.append(invoice.total)
        if invoice.total < 0:
            raise ModelRetry("The total cannot be negative: read it again.")
        return invoice

    if streamed:
        async with agent.stream("Extract the invoice") as run:
            await run.wait()
        output = run.output
    else:
        output = (await agent.run("Extract the invoice")).output
    assert output == Invoice(**RIGHT) and seen == [-1.0, 99.5]
    assert upstream.problems == []
    retry = json.dumps(upstream.requests[1]["messages"][-1])
    assert "The total cannot be negative" in retry
