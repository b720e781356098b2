"""The agent's CPU per model request over loopback HTTP: the SDK client against the
project's HTTP transport.

An agent run is one tool call and then an answer: two requests to a fake
OpenAI-compatible upstream (``bridge_upstream.py ... raw agent``: plain asyncio, in
its own process, so its CPU is not counted). The same run goes through

* ``http``: the default, ``resolve_model("openai:...", base_url=...)``, on
  :class:`~good_agent.providers.openai.http_transport.OpenAIHttpTransport` (the
  transport the bridge builds for an OpenAI-compatible upstream);
* ``sdk``: the same model given an official ``openai.AsyncOpenAI`` client
  (``OpenAIChatModel(..., client=...)``), the option for a caller who brings one.

Each path keeps one model (its connection pool) and builds an agent per run. Rounds
are interleaved (the order flips each round); a round's figure is the CPU time of this
process (``time.process_time``) over its runs, per request; the report gives medians.

Target (issue #26): the per-request CPU of the agent over loopback HTTP is not worse
than the SDK path (``http`` / ``sdk`` at most 1.0; under 1.05 is reported as
within noise).

Run: ``python benchmarks/agent_transport.py [--rounds 9] [--runs 60]``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bridge import free_port, process  # noqa: E402
from bridge_upstream import ANSWER_TEXT  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402

from good_agent import Agent, resolve_model  # noqa: E402
from good_agent.models import OpenAIChatModel  # noqa: E402
from good_agent.providers.profiles import get_profile  # noqa: E402

MODEL = "fake-gpt"
KEY = "bench-key"
NOISE = 1.05


def get_weather(city: str) -> str:
    """The weather in ``city``."""
    return f"sunny in {city}"


def http_model(base_url: str) -> Any:
    """The default: the model ``resolve_model`` builds (the project's HTTP transport)."""
    return resolve_model(f"openai:{MODEL}", base_url=base_url, api_key=KEY)


def sdk_model(base_url: str) -> OpenAIChatModel:
    """The same model given an ``openai.AsyncOpenAI`` client (the caller closes it)."""
    return OpenAIChatModel(
        MODEL,
        base_url=base_url,
        client=AsyncOpenAI(base_url=base_url, api_key=KEY),
        mode="auto",
        profile=get_profile(f"openai:{MODEL}"),
        strict="profile",
    )


async def close(model: Any) -> None:
    """Close ``model``, and the SDK client it was given."""
    await model.aclose()
    client = getattr(model.transport, "client", None)
    if isinstance(client, AsyncOpenAI):
        await client.close()


async def one_run(model: Any) -> None:
    """One agent run: a tool call, its result, the answer."""
    agent = Agent(model=model, tools=[get_weather])
    reply = await agent.call("What is the weather in Paris?")
    assert reply.content == ANSWER_TEXT, reply.content
    results = [m for m in agent.messages if getattr(m, "role", "") == "tool"]
    assert len(results) == 1 and "sunny in Paris" in str(results[0].content)


async def cpu_per_request(model: Any, runs: int) -> float:
    """CPU seconds of this process per model request over ``runs`` agent runs."""
    start = time.process_time()
    for _ in range(runs):
        await one_run(model)
    return (time.process_time() - start) / (2 * runs)


async def measure(base_url: str, rounds: int, runs: int) -> dict[str, list[float]]:
    models = {"sdk": sdk_model(base_url), "http": http_model(base_url)}
    figures: dict[str, list[float]] = {name: [] for name in models}
    for model in models.values():  # warm-up: imports, connections, compiled signatures
        await cpu_per_request(model, max(3, runs // 10))
    for number in range(rounds):
        order = list(models) if number % 2 == 0 else list(reversed(models))
        for name in order:
            figures[name].append(await cpu_per_request(models[name], runs))
    for model in models.values():
        await close(model)
    return figures


def report(figures: dict[str, list[float]], rounds: int, runs: int) -> None:
    sdk = statistics.median(figures["sdk"]) * 1e6
    http = statistics.median(figures["http"]) * 1e6
    ratios = sorted(h / s for h, s in zip(figures["http"], figures["sdk"], strict=True))
    ratio = http / sdk
    print(
        f"python {platform.python_version()}, {rounds} interleaved rounds of {runs} agent runs "
        f"(2 requests each), CPU time of the client process"
    )
    print(f"sdk  (a given openai SDK client):           {sdk:8.1f} us CPU per request (median)")
    print(f"http (OpenAIHttpTransport, the default):    {http:8.1f} us CPU per request (median)")
    print(
        f"ratio http / sdk: {ratio:.2f} (per round: {ratios[0]:.2f} to {ratios[-1]:.2f}); "
        f"http saves {sdk - http:.1f} us per request"
    )
    if ratio <= 1.0:
        verdict = "meets"
    elif ratio < NOISE:
        verdict = "meets within noise"
    else:
        verdict = "MISSES"
    print(f"target: per-request CPU over loopback HTTP not worse than the SDK path: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--runs", type=int, default=60, help="agent runs per path and round")
    args = parser.parse_args()
    port = free_port()
    upstream = [sys.executable, str(HERE / "bridge_upstream.py"), str(port), "raw", "agent"]
    with process(upstream, f"http://127.0.0.1:{port}/v1/models"):
        figures = anyio.run(measure, f"http://127.0.0.1:{port}/v1", args.rounds, args.runs)
    report(figures, args.rounds, args.runs)


if __name__ == "__main__":
    main()
