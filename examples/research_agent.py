"""A research agent with citations: the model reads sources by number and cites them.

Offline (default) a scripted model plays the researcher. Against a real model:

    OPENAI_API_KEY=... python examples/research_agent.py --model gpt-4.1-mini

The URLs in the question become sources [1] and [2]; the model's `fetch` tool takes
`citation_idx`, so it can only read sources the agent knows, and the answer's [n]
references are rendered as markdown links.
"""

from __future__ import annotations

import argparse

import anyio

from good_agent import Agent, CitationManager, tool
from good_agent.testing import ScriptedModel

PAGES = {
    "https://example.org/papers/sparse-attention": "Sparse attention cuts memory by 8x.",
    "https://example.org/blog/attention-benchmarks": "Benchmarks: sparse attention is 2x faster.",
}


@tool
def fetch(url: str) -> str:
    """Read a web page.

    Args:
        url: The page to read.
    """
    return PAGES.get(url, "(no such page)")


def scripted() -> ScriptedModel:
    """What a researcher model would do: read both sources, then answer citing them."""
    return ScriptedModel(
        [
            ScriptedModel.tool_calls(
                ("fetch", {"citation_idx": 1}), ("fetch", {"citation_idx": 2})
            ),
            "Sparse attention uses 8x less memory [1] and runs 2x faster [2].",
        ]
    )


async def main(model: str | None) -> None:
    citations = CitationManager()
    agent = Agent(
        "You research questions. Read sources with the fetch tool and cite them as [n].",
        model=model or scripted(),
        tools=[fetch],
        extensions=[citations],
    )
    async with agent:
        answer = await agent.call(
            "What do https://example.org/papers/sparse-attention and "
            "https://example.org/blog/attention-benchmarks say about sparse attention?"
        )
    print(citations.render_markdown(answer.content or ""))
    print(citations.index.sources_text(show_urls=True))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="research agent with citations")
    parser.add_argument("--model", help="a real model (default: scripted, offline)")
    anyio.run(main, parser.parse_args().model)
