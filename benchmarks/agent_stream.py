"""What a streamed run adds per event, against reading the same model stream directly.

Floor: iterate ``ScriptedModel.stream`` for a reply of N text deltas. Measured:
``agent.stream(...)`` over the same reply, reading every event (the run engine in
its task, the LLM events, one event object per delta through an unbuffered
channel, the turn end, the history). Rounds are interleaved; medians are reported
with a verdict against the target.

Target: at most 100 microseconds added per event, 1% of the time between two tokens
of a model streaming 100 tokens per second. Each event is handed over through an
unbuffered channel (two task switches), so a reader that stops reading stops the run
exactly there.

Run: ``python benchmarks/agent_stream.py``
"""

from __future__ import annotations

import platform
import statistics
import time

import anyio

from good_agent import Agent
from good_agent.models.base import ModelRequest
from good_agent.testing import ScriptedModel

ROUNDS = 7
DELTAS = 2000
TARGET_US = 100.0


def reply() -> ScriptedModel:
    return ScriptedModel([ScriptedModel.streamed(*(["tok "] * DELTAS))])


async def floor() -> float:
    model = reply()
    start = time.perf_counter()
    async for _ in model.stream(ModelRequest(messages=[])):
        pass
    return (time.perf_counter() - start) / DELTAS * 1e6


async def streamed() -> float:
    agent = Agent(model=reply())
    await agent.install()
    start = time.perf_counter()
    async with agent.stream("go") as run:
        async for _ in run:
            pass
    elapsed = (time.perf_counter() - start) / DELTAS * 1e6
    assert run.output == "tok " * DELTAS
    return elapsed


async def main() -> None:
    bare: list[float] = []
    agent: list[float] = []
    for _ in range(ROUNDS):
        bare.append(await floor())
        agent.append(await streamed())
    floor_us, agent_us = statistics.median(bare), statistics.median(agent)
    added = agent_us - floor_us
    print(f"python {platform.python_version()}, {DELTAS} deltas, {ROUNDS} interleaved rounds")
    print(f"model stream read directly: {floor_us:7.2f} us/delta (median)")
    print(f"agent.stream, every event:  {agent_us:7.2f} us/event (median)")
    print(f"added by the run:           {added:7.2f} us/event ({agent_us / floor_us:.1f}x)")
    verdict = "MET" if added <= TARGET_US else "MISSED"
    print(f"target: at most {TARGET_US:.0f} us added per event: {verdict}")


if __name__ == "__main__":
    anyio.run(main)
