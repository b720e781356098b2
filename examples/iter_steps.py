"""A run step by step with ``agent.iter``, offline.

The program watches each step of a run, and steps in twice: it caps the amount
of a ``refund`` call the model asked for before the call runs, and adds a note for
the model before its next request. A scripted model stands in for a real one;
swap in ``model="gpt-4.1-mini"`` to run it against OpenAI.
"""

from __future__ import annotations

import anyio

from good_agent import (
    Agent,
    EndStep,
    ModelStep,
    ToolCallsStep,
    ToolResultsStep,
    UserMessage,
    tool,
)
from good_agent.testing import ScriptedModel


@tool
def refund(order: int, amount: float) -> str:
    """Refund an amount on an order."""
    return f"Refunded {amount:.2f} on order {order}."


model = ScriptedModel(
    [
        ScriptedModel.tool_call("refund", {"order": 17, "amount": 900.0}),
        "Refunded 100.00 on order 17; a supervisor will review the rest.",
    ]
)
agent = Agent("You handle refunds.", model=model, tools=[refund])


# --8<-- [start:iter]
async def main() -> None:
    async with agent.iter("Refund order 17 in full (900 EUR).") as run:
        async for step in run:
            if isinstance(step, ModelStep):
                calls = [f"{c.name}({c.arguments})" for c in step.message.tool_calls]
                print("model replied:", step.message.content or calls)
            elif isinstance(step, ToolCallsStep):
                # Cap every refund at 100 before it runs.
                step.calls = [
                    call.model_copy(update={"arguments": {**call.arguments, "amount": 100.0}})
                    if call.name == "refund" and call.arguments.get("amount", 0) > 100
                    else call
                    for call in step.calls
                ]
            elif isinstance(step, ToolResultsStep):
                print("tools answered:", [r.content for r in step.results])
                await run.add_message(UserMessage(content="Refunds over 100 need a supervisor."))
            elif isinstance(step, EndStep):
                print("answer:", step.result.output)
    assert run.result is not None
    assert run.result.new_messages[2].content == "Refunded 100.00 on order 17."
    assert model.requests[1].messages[-1].content == "Refunds over 100 need a supervisor."


# --8<-- [end:iter]

anyio.run(main)
