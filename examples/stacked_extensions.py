"""Citations, auth, caching and logging stacked on one agent, offline with ScriptedModel.

Run with ``python examples/stacked_extensions.py``. The model asks for source [2]
twice: the first call runs the tool (with the bearer token injected), the second
is answered from the cache. The model never sees the URL or the token.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from pydantic import SecretStr

from good_agent import Agent, tool
from good_agent.extensions import (
    AuthInjector,
    CitationManager,
    MemoryStore,
    ToolCache,
    ToolLogger,
)
from good_agent.testing import ScriptedModel

calls: list[str] = []


@tool
async def fetch(url: str, headers: dict[str, SecretStr]) -> dict[str, Any]:
    """Fetch a web page.

    Args:
        url: The address of the page.
        headers: HTTP headers (injected, never shown to the model).
    """
    token = headers["Authorization"].get_secret_value()  # reveal only here
    calls.append(url)
    return {"url": url, "title": "Quarterly report", "authorized": token.startswith("Bearer ")}


async def get_token() -> str:
    """A credential provider, resolved at every call (e.g. from a vault)."""
    return "example-token-123"


async def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("fetch", {"citation_idx": 2}),
            ScriptedModel.tool_call("fetch", {"citation_idx": 2}),
            "The report [2] is more recent than the blog post [1].",
        ]
    )
    citations = CitationManager()
    cache = ToolCache(MemoryStore(), tools=["fetch"], ttl=600)
    logger = ToolLogger(tracing=False)
    auth = AuthInjector().bearer(get_token, tools=["fetch"])
    agent = Agent(
        "You compare documents.",
        model=model,
        tools=[fetch],
        extensions=[citations, auth, cache, logger],
    )
    async with agent:
        answer = await agent.call(
            "Compare https://blog.example.com/posts/2024/05/why-we-moved "
            "with https://investors.example.com/reports/2024/q2-report.pdf"
        )

    signature = model.requests[0].tools[0]["function"]["parameters"]["properties"]
    print("model-visible parameters:", sorted(signature))
    print("tool ran for:", calls)
    print(f"cache: {cache.stats.hits} hit(s), {cache.stats.misses} miss(es)")
    metrics = logger.snapshot()["fetch"]
    print(f"logged calls: {metrics.calls}, mean {metrics.mean_ms:.2f} ms")
    print("answer:", citations.render_markdown(answer.content or ""))
    print(citations.index.sources_text(show_urls=True))


if __name__ == "__main__":
    anyio.run(main)
