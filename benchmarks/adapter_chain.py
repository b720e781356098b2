"""Per-tool-call overhead of the whole pipeline, against a floor measured in the same run.

Pipeline: signature cache hit, validation against the adapted schema, unwrapping,
TOOL_CALL_BEFORE / TOOL_CALL_AFTER events (one handler each), the tool's own
validation, the call, and response adaptation. The floor is a bare pydantic
validation of the same arguments plus a direct call of the same async function.

Run: ``python benchmarks/adapter_chain.py``
"""

from __future__ import annotations

import copy
import platform
import statistics
import time
from typing import Any

import anyio

from good_agent import Agent, AgentComponent, AgentEvents, ToolAdapter, tool
from good_agent.core._execution import current_plans, execute_call
from good_agent.core.messages import ToolCall

ROUNDS = 7
CALLS = 3000


@tool
async def lookup(query: str, limit: int = 10, exact: bool = False) -> int:
    """Look something up."""
    return limit


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


async def pipeline_seconds(adapters: int) -> float:
    owner = AgentComponent()
    for index in range(adapters):
        owner.register_tool_adapter(AddFlag(index))
    agent = Agent(tools=[lookup], extensions=[owner])
    agent.events.on(AgentEvents.TOOL_CALL_BEFORE, lambda ctx: None)
    agent.events.on(AgentEvents.TOOL_CALL_AFTER, lambda ctx: None)
    arguments = {"query": "q", "limit": 3, **{f"flag_{i}": True for i in range(adapters)}}
    call = ToolCall(id="c", name="lookup", arguments=arguments)
    async with agent:
        start = time.perf_counter()
        for _ in range(CALLS):
            plans = await current_plans(agent)
            response = await execute_call(agent, call, plans)
        elapsed = time.perf_counter() - start
    assert response.success and response.response == 3, response
    return elapsed / CALLS


async def floor_seconds() -> float:
    model = lookup.arguments_model
    assert model is not None and lookup.function is not None
    function = lookup.function
    arguments = {"query": "q", "limit": 3}
    start = time.perf_counter()
    for _ in range(CALLS):
        validated = model.model_validate(arguments)
        await function(**{f: getattr(validated, f) for f in type(validated).model_fields})
    return (time.perf_counter() - start) / CALLS


async def main() -> None:
    counts = [0, 1, 4, 16]
    floors: list[float] = []
    results: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(ROUNDS):  # interleaved rounds, medians reported
        floors.append(await floor_seconds())
        for n in counts:
            results[n].append(await pipeline_seconds(n))
    floor = statistics.median(floors)
    machine = f"python {platform.python_version()} on {platform.machine()}"
    print(f"{machine}, {ROUNDS} rounds x {CALLS} calls")
    print(f"floor (pydantic validation + bare call): {floor * 1e6:.2f} us")
    print(f"{'adapters':>8}  {'us/call':>8}  {'x floor':>8}")
    for n in counts:
        per_call = statistics.median(results[n])
        print(f"{n:>8}  {per_call * 1e6:>8.2f}  {per_call / floor:>8.1f}")
    four = statistics.median(results[4])
    verdict = "meets" if four / floor < 10 and four < 50e-6 else "MISSES"
    print(f"target (4 adapters < 10x floor and < 50 us): {verdict}")


if __name__ == "__main__":
    anyio.run(main)
