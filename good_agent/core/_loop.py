"""The tool loop: ask the model, run its tool calls, repeat until it answers in text."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from good_agent.core._execution import current_plans, execute_calls
from good_agent.core.errors import MaxIterationsError, ToolRetriesExceededError
from good_agent.core.events import AgentEvents
from good_agent.core.messages import AssistantMessage, ToolMessage
from good_agent.models.base import ModelRequest, ModelResponse

if TYPE_CHECKING:
    from good_agent.core.agent import Agent


async def request_model(agent: Agent, request: ModelRequest) -> ModelResponse:
    """Send ``request`` through the LLM request/response events to the agent's model."""
    request = await agent.events.emit(AgentEvents.LLM_REQUEST_BEFORE, request)
    response = await agent.model.request(request)
    result: ModelResponse = await agent.events.emit(AgentEvents.LLM_RESPONSE_AFTER, response)
    return result


async def run_loop(agent: Agent) -> AssistantMessage:
    """Run the loop on the agent's current history and return the final answer.

    Each model request carries the tool signatures as adapters shape them now; the
    tool calls of a reply are unwrapped by the same plans that produced what the
    model saw. Failed calls count per tool against ``agent.max_tool_retries``.
    """
    failures: Counter[str] = Counter()
    for _ in range(agent.max_iterations):
        plans = await current_plans(agent)
        request = ModelRequest(
            messages=list(agent.messages),
            tools=[plan.signature for plan in plans.values()],
            tool_choice=agent.tool_choice if plans else None,
            settings=dict(agent.model_settings),
        )
        response = await request_model(agent, request)
        message = await agent.append(response.to_message())
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            assert isinstance(message, AssistantMessage)
            return message
        results = await execute_calls(agent, message.tool_calls, plans, failures)
        for result in results:
            await agent.append(ToolMessage.from_response(result))
            if not result.success:
                failures[result.tool_name] += 1
        over = [name for name, count in failures.items() if count > agent.max_tool_retries]
        if over:
            raise ToolRetriesExceededError(
                f"tool '{over[0]}' failed {failures[over[0]]} times in this run "
                f"(max_tool_retries={agent.max_tool_retries}); last error: "
                f"{next(r.error for r in reversed(results) if r.tool_name == over[0])}",
                agent.messages,
            )
    raise MaxIterationsError(
        f"the model was still calling tools after {agent.max_iterations} requests "
        "(max_iterations); the history is on this error's .messages",
        agent.messages,
    )
