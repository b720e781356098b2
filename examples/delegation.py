"""Delegation between agents, offline: an agent as a tool, and a hand-off.

Agent as a tool: a travel agent's ``research`` tool runs a module-level research
agent, each call on a conversation of its own (``message_history=[]``: no call sees
another's question, and two calls in one turn run at the same time), with the run's
usage and deps (``usage=ctx.usage, deps=ctx.deps``), so the travel agent's
``result.usage`` counts the research agent's requests and its ``UsageLimits`` cover
both. Hand-off: a triage agent decides who should answer (its ``transfer`` tool
records the choice in the deps), and the billing agent continues the same
conversation, with its own system prompt. Scripted models stand in for real ones;
swap in ``model="gpt-4.1-mini"`` to run them against OpenAI.
"""

from __future__ import annotations

from dataclasses import dataclass

from good_agent import Agent, ModelRequest, RunContext, SystemMessage, UsageLimits, tool
from good_agent.testing import ScriptedModel


@dataclass
class Deps:
    user: str
    transfer_to: str | None = None


# --8<-- [start:agent_as_tool]
def facts(request: ModelRequest) -> str:
    """The research model's answer: about the place its one question names."""
    question = str(request.messages[-1].content)
    return "Lisbon: 16 C in January." if "Lisbon" in question else "Porto: 14 C in January."


research_agent: Agent[Deps, str] = Agent(
    "You find facts about places.",
    model=ScriptedModel([facts, facts]),
    deps_type=Deps,
)


@tool
async def research(ctx: RunContext[Deps], question: str) -> str:
    """Ask the research agent a question."""
    result = await research_agent.run(
        question, message_history=[], usage=ctx.usage, deps=ctx.deps
    )
    return result.output


travel_agent: Agent[Deps, str] = Agent(
    "You plan trips.",
    model=ScriptedModel(
        [
            ScriptedModel.tool_calls(  # two delegations in one turn, run at the same time
                ("research", {"question": "Lisbon in January?"}, "c1"),
                ("research", {"question": "Porto in January?"}, "c2"),
            ),
            "Both are mild in January (14-16 C): pack a light jacket.",
        ]
    ),
    tools=[research],
    deps_type=Deps,
    usage_limits=UsageLimits(request_limit=5),  # both agents' requests count
)
result = travel_agent.run_sync("Lisbon or Porto in January?", deps=Deps(user="ada"))
print(result.output)
print(f"requests: {result.usage.requests} (2 travel + 2 research)")
assert result.usage.requests == 4
assert research_agent.messages[1:] == []  # each call had its own conversation
# --8<-- [end:agent_as_tool]


# --8<-- [start:hand_off]
@tool
def transfer(ctx: RunContext[Deps], team: str) -> str:
    """Hand the conversation to another team: "billing" or "support"."""
    ctx.deps.transfer_to = team
    return f"Transferred to {team}."


triage: Agent[Deps, str] = Agent(
    "You route customers to the right team.",
    model=ScriptedModel(
        [ScriptedModel.tool_call("transfer", {"team": "billing"}), "Passing you to billing."]
    ),
    tools=[transfer],
    deps_type=Deps,
)
deps = Deps(user="ada")
triage.run_sync("I was charged twice for order 17.", deps=deps)
assert deps.transfer_to == "billing"

# The billing agent continues the conversation (everything but triage's system prompt).
billing_model = ScriptedModel(["I see two charges for order 17: the second is refunded."])
billing: Agent[Deps, str] = Agent(
    "You handle billing. Refund duplicate charges.",
    model=billing_model,
    messages=[m for m in triage.messages if not isinstance(m, SystemMessage)],
    deps_type=Deps,
)
answer = billing.run_sync(deps=deps)  # no new prompt: it answers the conversation so far
print(answer.output)
sent = billing_model.requests[0].messages
assert sent[0].content.startswith("You handle billing")
assert any("charged twice" in str(m.content) for m in sent)
# --8<-- [end:hand_off]
