"""Run the same agent against a different provider with one argument.

    python examples/switch_providers.py gpt-4o-mini
    python examples/switch_providers.py anthropic:claude-sonnet-4-5
    python examples/switch_providers.py gemini-2.5-flash
    python examples/switch_providers.py ollama:qwen2.5
    python examples/switch_providers.py ollama:qwen2.5 --mode validated

Keys come from the usual environment variables (OPENAI_API_KEY, ANTHROPIC_API_KEY,
GEMINI_API_KEY, OLLAMA_HOST).
"""

from __future__ import annotations

import argparse
import math

import anyio

from good_agent import Agent, tool
from good_agent.models.resolve import resolve_model


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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a model name, optionally provider-prefixed")
    parser.add_argument(
        "--mode", default="auto", help="auto, native, structured, validated or parsed"
    )
    args = parser.parse_args()
    anyio.run(main, args.model, args.mode)
