"""Run the same agent against a different provider with one argument.

    python examples/switch_providers.py gpt-4o-mini
    python examples/switch_providers.py anthropic:claude-sonnet-4-6
    python examples/switch_providers.py gemini-2.5-flash
    python examples/switch_providers.py ollama:qwen2.5
    python examples/switch_providers.py ollama:qwen2.5 --mode validated

Keys come from the usual environment variables (OPENAI_API_KEY, ANTHROPIC_API_KEY,
GEMINI_API_KEY, OLLAMA_HOST).

Without a model name it runs offline: for each provider it prints the request the
same agent would send, so you can see the one argument change the wire format.
"""

from __future__ import annotations

import argparse
import math

import anyio

from good_agent import Agent, ModelRequest, UserMessage, tool
from good_agent.models.resolve import resolve_model

OFFLINE_MODELS = [
    "gpt-4.1-mini",
    "anthropic:claude-sonnet-4-6",
    "gemini-2.5-flash",
    "ollama:qwen2.5",
]


@tool
def factorial(n: int) -> int:
    """Return n! for a non-negative integer n."""
    return math.factorial(n)


@tool
def word_length(word: str) -> int:
    """Return the number of characters in a word."""
    return len(word)


async def main(model_name: str, mode: str) -> None:
    model = resolve_model(model_name, mode=mode)
    agent = Agent(
        "You are precise. Use the tools for arithmetic and counting.",
        model=model,
        tools=[factorial, word_length],
    )
    async with agent:
        answer = await agent.call("What is the factorial of the length of 'provider'?")
    print(f"[{model_name}, mode={mode}] {answer.content}")


async def show_requests(mode: str) -> None:
    """Print the body each provider would receive for the same first request."""
    agent = Agent("You are precise.", tools=[factorial, word_length])
    request = ModelRequest(
        messages=[*agent.messages, UserMessage(content="What is 5!?")],
        tools=await agent.tool_signatures(),
    )
    for name in OFFLINE_MODELS:
        model = resolve_model(name, mode=mode, api_key="offline", base_url="http://127.0.0.1:9")
        body = model.build_body(request)  # type: ignore[attr-defined]
        keys = ", ".join(sorted(body))
        print(f"{name:<30} {type(model).__name__:<16} body keys: {keys}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", help="a model name, optionally provider-prefixed")
    parser.add_argument(
        "--mode", default="auto", help="auto, native, structured, validated or parsed"
    )
    args = parser.parse_args()
    if args.model is None:
        anyio.run(show_requests, args.mode)
    else:
        anyio.run(main, args.model, args.mode)
