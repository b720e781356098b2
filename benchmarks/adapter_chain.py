"""Per-tool-call cost of the full loop, with the built-in extensions and with dummy adapters.

Each measurement is one ``agent.call`` whose ``ScriptedModel`` script asks for
``CALLS`` tool calls one after the other, then answers in text: every tool call
is a model turn, an assistant message, the adapter chain, the tool, events and a
tool message in the history. The per-call figure is the run's time over ``CALLS``
(the closing text turn included). One warm-up turn on the same agent comes first,
so one-off costs (installing components, compiling the adapted schemas) are left
out.

Stacks:

* ``none``: the loop with no extension;
* ``builtin``: ``CitationManager``, ``AuthInjector``, ``ToolCache(MemoryStore())``
  (every call a miss: the ``page`` argument changes) and ``ToolLogger`` (its logger
  at the default level, so nothing listens at INFO);
* ``citations``, ``auth``, ``cache``, ``logger``: each of those four alone (what
  each adds over ``none``);
* ``dummy-N``: N adapters that each add and remove one optional flag.

The floor is what any framework must do per call: ``json.loads`` of the arguments
text, pydantic validation of the arguments and the call of the same async function.
Rounds interleave the stacks and the floor; medians are reported.

Times are CPU time of this process (``time.process_time``), so other work on a
shared machine does not land on one stack more than another.

Targets: ``builtin`` under 40 us and under 15x the floor (a verdict for each);
``none`` under 10x the floor; at 200 sequential calls the per-call cost within 1.5x
of the cost at 10.

Run: ``python benchmarks/adapter_chain.py``
"""

from __future__ import annotations

import copy
import json
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import anyio
from pydantic import SecretStr

from good_agent import Agent, AgentComponent, ToolAdapter, tool
from good_agent.extensions import (
    AuthInjector,
    CitationManager,
    MemoryStore,
    ToolCache,
    ToolLogger,
)
from good_agent.testing import ScriptedModel

ROUNDS = 21
CLOCK = time.process_time
"""CPU time of this process: on a shared machine, time other processes take is not
counted against any stack (wall time swings several-fold with the load)."""
CALLS = 50
URL = "https://example.com/articles/first-article"


@tool
async def fetch(url: str, page: int = 1, api_key: SecretStr | None = None) -> str:
    """Fetch one page of a source."""
    return f"page {page}"


class AddFlag(ToolAdapter):
    """Adds an optional flag the model may send; drops it on the way back."""

    def __init__(self, index: int) -> None:
        super().__init__(None, priority=1000 - index)
        self.param = f"flag_{index}"

    def adapt_signature(self, tool: Any, signature: Any, agent: Any) -> Any:
        out = copy.deepcopy(signature)
        out["function"]["parameters"]["properties"][self.param] = {"type": "boolean"}
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        parameters.pop(self.param, None)
        return parameters


def builtin() -> tuple[list[AgentComponent], Callable[[int], dict[str, Any]]]:
    """The four built-in extensions, and the arguments the model sends for call ``i``."""
    extensions: list[AgentComponent] = [
        CitationManager(),
        AuthInjector({"api_key": "bench-secret-0001"}, tools=["fetch"]),
        ToolCache(MemoryStore(max_entries=100_000), tools=["fetch"]),
        ToolLogger(),
    ]
    return extensions, lambda i: {"citation_idx": 1, "page": i}


def alone(name: str) -> Callable[[], tuple[list[AgentComponent], Callable[[int], dict[str, Any]]]]:
    """One of the four built-in extensions by itself (where the stack's time goes)."""

    def build() -> tuple[list[AgentComponent], Callable[[int], dict[str, Any]]]:
        extensions, arguments = builtin()
        index = ["citations", "auth", "cache", "logger"].index(name)
        if name == "citations":
            return [extensions[index]], arguments
        return [extensions[index]], lambda i: {"url": URL, "page": i}

    return build


def dummies(count: int) -> tuple[list[AgentComponent], Callable[[int], dict[str, Any]]]:
    """``count`` flag adapters, and the arguments the model sends for call ``i``."""
    owner = AgentComponent()
    for index in range(count):
        owner.register_tool_adapter(AddFlag(index))
    flags = {f"flag_{i}": True for i in range(count)}
    return [owner], lambda i: {"url": URL, "page": i, **flags}


def plain() -> tuple[list[AgentComponent], Callable[[int], dict[str, Any]]]:
    """No extension."""
    return [], lambda i: {"url": URL, "page": i}


STACKS: dict[str, Callable[[], tuple[list[AgentComponent], Callable[[int], dict[str, Any]]]]] = {
    "none": plain,
    "builtin": builtin,
    "citations": alone("citations"),
    "auth": alone("auth"),
    "cache": alone("cache"),
    "logger": alone("logger"),
    "dummy-1": lambda: dummies(1),
    "dummy-4": lambda: dummies(4),
    "dummy-16": lambda: dummies(16),
}


async def loop_seconds(stack: str, calls: int) -> float:
    """Seconds per tool call of one ``agent.call`` running ``calls`` tool calls."""
    extensions, arguments = STACKS[stack]()
    warm = [ScriptedModel.tool_call("fetch", arguments(-1)), "warmed up"]
    script: list[Any] = [ScriptedModel.tool_call("fetch", arguments(i)) for i in range(calls)]
    model = ScriptedModel([*warm, *script, "done"])
    agent = Agent(model=model, tools=[fetch], extensions=extensions, max_iterations=calls + 1)
    async with agent:
        # One warm-up turn: signatures compiled, components installed, first span made.
        await agent.call(f"Read {URL}")
        start = CLOCK()
        await agent.call("Now read every page.")
        elapsed = CLOCK() - start
    results = [m for m in agent.messages if getattr(m, "role", "") == "tool"]
    assert len(results) == calls + 1 and all(not r.content.startswith("Error") for r in results)
    return elapsed / calls


async def floor_seconds(calls: int) -> float:
    """``json.loads`` + pydantic validation + the call, per call."""
    model = fetch.arguments_model
    function = fetch.function
    assert model is not None and function is not None
    texts = [json.dumps({"url": URL, "page": i}) for i in range(calls)]
    start = CLOCK()
    for text in texts:
        validated = model.model_validate(json.loads(text))
        await function(**{f: getattr(validated, f) for f in type(validated).model_fields})
    return (CLOCK() - start) / calls


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


async def main() -> None:
    floors: list[float] = []
    results: dict[str, list[float]] = {name: [] for name in STACKS}
    growth: dict[tuple[str, int], list[float]] = {
        (name, n): [] for name in ("none", "builtin") for n in (10, 200)
    }
    for _ in range(ROUNDS):  # interleaved rounds, medians reported
        floors.append(await floor_seconds(CALLS * 20))
        for name in STACKS:
            results[name].append(await loop_seconds(name, CALLS))
        for name, n in growth:
            growth[(name, n)].append(await loop_seconds(name, n))
    floor = statistics.median(floors)
    per = {name: statistics.median(values) for name, values in results.items()}
    print(f"python {platform.python_version()} on {platform.machine()}, {ROUNDS} rounds")
    print(f"floor (json.loads + pydantic validation + call): {floor * 1e6:.2f} us")
    print(f"{'stack':>10}  {'us/call':>8}  {'x floor':>8}   ({CALLS} calls in one agent.call)")
    for name, seconds in per.items():
        added = ""
        if name in ("citations", "auth", "cache", "logger", "builtin"):
            added = f"   (+{(seconds - per['none']) * 1e6:.1f} us over none)"
        print(f"{name:>10}  {seconds * 1e6:>8.2f}  {seconds / floor:>8.1f}{added}")
    for name in ("none", "builtin"):
        ten = statistics.median(growth[(name, 10)])
        many = statistics.median(growth[(name, 200)])
        print(
            f"{name:>10}: {ten * 1e6:.1f} us/call at 10 calls, {many * 1e6:.1f} us/call at 200"
            f" ({many / ten:.2f}x)"
        )
    built, none = per["builtin"], per["none"]
    # The target has two bounds; each gets its verdict (the absolute one
    # depends on the machine: its floor was about 2 us where the target was set).
    print(f"target builtin < 15x floor: {verdict(built / floor < 15)} ({built / floor:.1f}x)")
    print(
        f"target builtin < 40 us: {verdict(built < 40e-6)} ({built * 1e6:.1f} us; "
        f"floor here {floor * 1e6:.2f} us)"
    )
    print(f"target none < 10x floor: {verdict(none / floor < 10)} ({none / floor:.1f}x)")
    for name in ("none", "builtin"):
        ratio = statistics.median(growth[(name, 200)]) / statistics.median(growth[(name, 10)])
        print(f"target {name} 200 calls within 1.5x of 10: {verdict(ratio <= 1.5)} ({ratio:.2f}x)")


if __name__ == "__main__":
    anyio.run(main)
