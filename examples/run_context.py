"""Per-run dependencies and the run context, offline.

One agent serves a support desk. Each run gets its user as ``deps``: a tool reads the
user from its ``RunContext``, an adapter injects the user's own API token into the tool
that needs it (the model never sees it), instructions name the user for every run
without storing it in the history, and an output validator sends the model back when
its answer names none of the user's orders. A scripted model stands in for a real one;
swap in ``model="gpt-4o-mini"`` to run it against OpenAI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from good_agent import (
    Agent,
    AgentComponent,
    CallContext,
    ModelRetry,
    RunContext,
    ToolAdapter,
    tool,
)
from good_agent.testing import ScriptedModel


# --8<-- [start:deps]
@dataclass
class Deps:
    """What one run needs: its user and that user's API token."""

    user: str
    token: SecretStr
    orders: dict[str, list[str]] = field(default_factory=dict)


@tool
def my_orders(ctx: RunContext[Deps]) -> list[str]:
    """The orders of the user asking."""
    return ctx.deps.orders.get(ctx.deps.user, [])


@tool
def open_ticket(api_token: SecretStr, subject: str) -> str:
    """Open a support ticket."""
    assert api_token.get_secret_value().startswith("tok-")  # the user's own token
    return f"ticket opened: {subject}"


# --8<-- [end:deps]


# --8<-- [start:adapter]
class _UserToken(ToolAdapter):
    """Hides ``api_token`` from the model and fills it in from the run's deps."""

    def should_adapt(self, tool: Any, agent: Any) -> bool:
        return "api_token" in tool.parameters.get("properties", {})

    def adapt_signature(self, tool: Any, signature: dict[str, Any], agent: Any) -> Any:
        function = dict(signature["function"])
        parameters = dict(function["parameters"])
        parameters["properties"] = {
            k: v for k, v in parameters["properties"].items() if k != "api_token"
        }
        parameters["required"] = [r for r in parameters.get("required", []) if r != "api_token"]
        return {**signature, "function": {**function, "parameters": parameters}}

    def adapt_parameters(
        self, tool_name: str, parameters: dict[str, Any], agent: Any, ctx: CallContext | None = None
    ) -> dict[str, Any]:
        assert ctx is not None
        return {**parameters, "api_token": ctx.run.deps.token}


class UserToken(AgentComponent):
    """Injects each run's user token into the tools that take ``api_token``."""

    def __init__(self) -> None:
        super().__init__()
        self.register_tool_adapter(_UserToken(self))


# --8<-- [end:adapter]


def main() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("my_orders"),
            ScriptedModel.tool_call("open_ticket", {"subject": "order A-1 is late"}),
            "I opened a ticket.",
            "I opened a ticket about order A-1.",
        ]
    )
    agent = Agent(
        "You are a support agent.",
        model=model,
        tools=[my_orders, open_ticket],
        extensions=[UserToken()],
        deps_type=Deps,
    )

    @agent.instructions
    def name_the_user(ctx: RunContext[Deps]) -> str:
        return f"The user's name is {ctx.deps.user}."

    @agent.output_validator
    def names_an_order(ctx: RunContext[Deps], answer: str) -> str:
        orders = ctx.deps.orders.get(ctx.deps.user, [])
        if orders and not any(order in answer for order in orders):
            raise ModelRetry(f"Name the order your answer is about ({', '.join(orders)}).")
        return answer

    deps = Deps("ada", SecretStr("tok-ada"), {"ada": ["A-1"]})
    result = agent.run_sync("Where is my order?", deps=deps)
    print(result.output)
    print("system text sent:", repr(model.requests[0].messages[0].content))
    print("feedback after the first answer:", repr(model.requests[-1].messages[-1].content))
    visible = [t["function"]["name"] for t in model.requests[0].tools]
    print("tools the model saw:", visible)
    for message in result.new_messages:
        if message.role == "tool":
            print(" ", message.tool_name, "->", message.content)


if __name__ == "__main__":
    main()
