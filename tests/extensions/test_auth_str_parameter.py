"""A credential parameter typed ``str`` receives the revealed value; payloads still hide it."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from good_agent import Agent, AgentEvents, AuthInjector, tool
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio
CANARY = "canary-str-param-7781"


async def test_str_typed_credentials_work_and_stay_out_of_payloads() -> None:
    received: list[object] = []  # weather's arguments
    received_secret: list[object] = []  # secret_weather's (the two calls run concurrently)

    @tool
    def weather(city: str, api_key: str, headers: dict[str, str] | None = None) -> str:
        """Weather."""
        received.extend([api_key, headers])
        return f"sunny in {city}"

    @tool
    def secret_weather(city: str, api_key: SecretStr) -> str:
        """Weather, credential kept as SecretStr."""
        received_secret.append(api_key)
        return "rainy"

    auth = AuthInjector().api_key(CANARY, tools=["weather", "secret_weather"])
    auth.header("Authorization", "Bearer " + CANARY, parameter="headers", tools=["weather"])
    model = ScriptedModel(
        [
            ScriptedModel.tool_calls(
                ("weather", {"city": "Paris"}, "a"), ("secret_weather", {"city": "Oslo"}, "b")
            ),
            "done",
        ]
    )
    agent = Agent(model=model, tools=[weather, secret_weather], extensions=[auth])
    payloads: list[str] = []
    for event in AgentEvents:
        agent.events.on(event, lambda ctx, e=event: payloads.append(f"{e}: {ctx.payload!r}"))
    async with agent:
        await agent.call("weather?")
    assert received[0] == CANARY and isinstance(received[0], str)
    assert received[1] == {"Authorization": "Bearer " + CANARY}
    assert len(received) == 2 and len(received_secret) == 1
    secret = received_secret[0]
    assert isinstance(secret, SecretStr) and secret.get_secret_value() == CANARY
    tool_messages = [m for m in agent.messages if m.role == "tool"]
    assert all(not getattr(m, "is_error", False) for m in tool_messages)
    everything = "\n".join(payloads) + repr(agent.messages) + repr(model.requests)
    assert "ToolCallBefore" in everything and CANARY not in everything
