"""A tool that calls an authenticated API: the key is injected, the model never sees it.

Offline (default) a scripted model calls the tool. Against a real model:

    OPENAI_API_KEY=... WEATHER_API_KEY=... python examples/authenticated_api.py --model gpt-4.1-mini

The `api_key` parameter is removed from the tool's signature and filled in at each
call from the provider below; the key never appears in requests, history or logs.
"""

from __future__ import annotations

import argparse
import json
import os

import anyio
from pydantic import SecretStr

from good_agent import Agent, AuthInjector, tool
from good_agent.testing import ScriptedModel


@tool
def weather(city: str, api_key: SecretStr) -> str:
    """Current weather for a city, from an API that needs a key.

    Args:
        city: City name.
        api_key: The API key (injected).
    """
    key = api_key.get_secret_value()  # revealed only where the request is made
    return json.dumps({"city": city, "celsius": 21, "authorized": bool(key)})


def api_key() -> str:
    """Resolved at every call: from the environment here, a vault in production."""
    return os.environ.get("WEATHER_API_KEY", "demo-key-not-secret")


async def main(model: str | None) -> None:
    scripted = ScriptedModel([ScriptedModel.tool_call("weather", {"city": "Lisbon"}), "21°C."])
    agent = Agent(
        "You report the weather.",
        model=model or scripted,
        tools=[weather],
        extensions=[AuthInjector().api_key(api_key, tools=["weather"])],
    )
    async with agent:
        answer = await agent.call("How warm is it in Lisbon?")
        signature = await agent.tool_signatures()
    print("the model sees:", sorted(signature[0]["function"]["parameters"]["properties"]))
    print("tool result:", agent.messages[-2].content)
    print("answer:", answer.content)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="authenticated API tool")
    parser.add_argument("--model", help="a real model (default: scripted, offline)")
    anyio.run(main, parser.parse_args().model)
