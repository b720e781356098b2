"""Durable runs on DBOS: each model request and each tool call a checkpointed step.

`Durable` does nothing outside a DBOS workflow. When ``agent.run(...)`` runs
inside one (a function decorated with ``@DBOS.workflow()``), every model request
and every tool call of the run becomes a DBOS step: its result is written to the
system database before the run goes on. A workflow recovered after a crash runs
its code again from the top; the steps that had finished return their recorded
results instead of running, so no tool runs twice and no answered model request
is sent again.

The step boundary sits where the model's view ends. A tool step starts with the
model-visible arguments and ends with the tool's response with the agent's
secrets redacted; credentials (`AuthInjector`) are put in
place inside the step and the run's deps are never a step's input or output, so
neither reaches the system database. DBOS stores step outputs only, never their
inputs.

Durable approvals: `Durable.run` waits for the decisions on deferred calls
as DBOS messages (`send_decision`), published as the workflow event
`PENDING_EVENT` (`waiting_calls`), so a run can wait for days and be
approved from another process.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any

from good_agent._extras import missing_extra
from good_agent.adapters import CallContext, CallNext, ConflictStrategy, ToolAdapter
from good_agent.core.approvals import Approval, Approved
from good_agent.core.components import AgentComponent, ModelCall, on
from good_agent.core.events import AgentEvents, EventContext
from good_agent.core.redaction import agent_secrets
from good_agent.core.results import DeferredCall, RunResult
from good_agent.models.base import ModelRequest, ModelResponse
from good_agent.tools import Tool
from good_agent.types.content import UserPrompt
from good_agent.types.errors import GoodAgentError
from good_agent.types.messages import Message, ToolResponse

try:
    from dbos import DBOS, DBOSClient
except ModuleNotFoundError as exc:  # pragma: no cover - the extra is installed in tests
    raise missing_extra("dbos", "Durable runs (good_agent.extensions.durable)", exc) from None

__all__ = [
    "DEFAULT_APPROVAL_TIMEOUT",
    "MODEL_STEP",
    "PENDING_EVENT",
    "TOOL_STEP",
    "Durable",
    "DurableAdapter",
    "DurableRunError",
    "approval_topic",
    "in_workflow",
    "send_decision",
    "waiting_calls",
]

logger = logging.getLogger("good_agent.extensions.durable")

PENDING_EVENT = "good_agent.pending"
"""The workflow event listing the calls a durable run waits on (a list of
`DeferredCall`, empty when none)."""

DEFAULT_APPROVAL_TIMEOUT = 7 * 24 * 3600.0
"""How long `Durable.run` waits for a decision by default: a week, in seconds."""

MODEL_STEP = "good_agent.model_request"
"""The DBOS step name of a model request."""

TOOL_STEP = "good_agent.tool_call"
"""The DBOS step name of a tool call."""


class DurableRunError(GoodAgentError):
    """A durable run cannot go on: its recorded steps do not match what it does now."""


def approval_topic(call_id: str) -> str:
    """The DBOS message topic that carries the decision on call ``call_id``."""
    return f"good_agent.approval:{call_id}"


def in_workflow() -> bool:
    """Whether the caller runs inside a DBOS workflow (and not inside one of its steps)."""
    return DBOS.workflow_id is not None and DBOS.step_id is None


@DBOS.step(name=MODEL_STEP)
async def _model_step(call_next: ModelCall, request: ModelRequest) -> ModelResponse:
    return await call_next(request)


@DBOS.step(name=TOOL_STEP)
async def _tool_step(call_next: CallNext, ctx: CallContext) -> ToolResponse:
    response = await call_next(ctx)
    secrets = agent_secrets(ctx.agent)
    return secrets.redact(response) if secrets else response


class DurableAdapter(ToolAdapter):
    """The adapter behind `Durable`: in a workflow, each tool call is a step.

    Outermost (priority 100000) so that the whole call, every other ``around_call``
    included, is inside the step. Parameters are unwrapped (credentials resolved)
    before ``around_call``, but DBOS never stores a step's inputs.
    """

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Every tool of the agent."""
        return True

    async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
        """The call as a step inside a workflow, else the call itself."""
        if not in_workflow():
            return await call_next(ctx)
        response = await _tool_step(call_next, ctx)
        if response.tool_call_id != ctx.call.id:
            raise DurableRunError(
                f"workflow {DBOS.workflow_id}: the recorded step answers call "
                f"'{response.tool_call_id}', not '{ctx.call.id}' ({ctx.call.name}): the run "
                "took another path than when it was recorded (see 'What must be "
                "deterministic' in docs/durable-runs.md)"
            )
        return response


class Durable(AgentComponent):
    """Make the agent's runs durable when they run inside a DBOS workflow.

    Install it like any component (``Agent(..., extensions=[Durable()])``) and call
    ``agent.run(...)`` (or `run`, which also waits for approvals) inside a
    function decorated with ``@DBOS.workflow()``. Outside a workflow the agent
    behaves exactly as without it.

    Args:
        stream: The key of a DBOS stream of the workflow that receives each message
            the run adds to the history (as JSON-ready dicts), in order, for a live
            listener (``DBOS.read_stream(workflow_id, stream)`` or a
            ``DBOSClient``). Each write is a workflow operation: a recovered run
            does not write the messages again. ``None``: no stream.
        priority: The tool adapter's priority; the default keeps it outermost.
    """

    def __init__(self, *, stream: str | None = None, priority: int = 100_000) -> None:
        super().__init__()
        self.stream = stream
        self.register_tool_adapter(DurableAdapter(self, priority, ConflictStrategy.CHAIN))

    @on(AgentEvents.MESSAGE_APPEND, priority=-1_000_000)
    async def _publish(self, ctx: EventContext) -> None:
        """Write the appended message to the stream (last: it is the final message)."""
        if self.stream is not None and in_workflow():
            message: Message = ctx.payload
            await DBOS.write_stream_async(self.stream, message.model_dump(mode="json"))

    def around_model_request(
        self, request: ModelRequest, call_next: ModelCall
    ) -> Awaitable[ModelResponse]:
        """The request as a step inside a workflow, else the request itself."""
        if not in_workflow():
            return call_next(request)
        return _model_step(call_next, request)

    async def run(
        self,
        prompt: UserPrompt | None = None,
        *,
        approval_timeout: float = DEFAULT_APPROVAL_TIMEOUT,
        **options: Any,
    ) -> RunResult[Any]:
        """``agent.run(prompt, **options)``, waiting durably for approvals.

        While the run waits for approvals, the waiting calls are the workflow event
        `PENDING_EVENT` and each decision arrives as a DBOS message on
        `approval_topic` (`send_decision`). A call with no decision
        within ``approval_timeout`` seconds is denied ("no decision in time"). The
        run then resumes with the same ``options`` (deps, output type...).

        Must be called inside a DBOS workflow, with the component installed (inside
        ``async with agent:``).
        """
        if not in_workflow():
            raise DurableRunError("Durable.run must be called inside a DBOS workflow")
        agent: Any = self.agent  # the Agent it is installed on
        if agent is None:
            raise DurableRunError(
                "Durable.run needs the component installed on its agent: call it inside "
                "'async with agent:' (or after 'await agent.install()')"
            )
        result: RunResult[Any] = await agent.run(prompt, **options)
        while result.is_deferred:
            await DBOS.set_event_async(PENDING_EVENT, list(result.deferred))
            decisions = {
                pending.call_id: await _decision(pending, approval_timeout)
                for pending in result.deferred
            }
            await DBOS.set_event_async(PENDING_EVENT, [])
            result = await agent.run(approvals=decisions, **options)
        return result


async def _decision(pending: DeferredCall, wait_seconds: float) -> Approval:
    """The decision on ``pending``: the first message that decides it, else a denial."""
    while True:
        message = await DBOS.recv_async(approval_topic(pending.call_id), wait_seconds)
        if message is None:
            return f"no decision within {wait_seconds:g} seconds"
        if not isinstance(message, dict) or not isinstance(message.get("approve"), bool):
            logger.warning("ignored a malformed decision on call %s", pending.call_id)
            continue
        if not message["approve"]:
            reason = message.get("reason")
            return reason if isinstance(reason, str) and reason else False
        if message.get("digest") != pending.digest:
            logger.warning(
                "ignored an approval of call %s bound to another version of the call",
                pending.call_id,
            )
            continue
        return Approved(pending.digest)


def _message(decision: Approval) -> dict[str, Any]:
    if isinstance(decision, Approved):
        return {"approve": True, "digest": decision.digest}
    if decision is True:
        raise GoodAgentError(
            "a durable run is approved from outside the process that deferred the call: "
            "pass the approval bound to the call that was shown, pending.approve() or "
            "Approved(pending.digest), not a bare True"
        )
    reason = decision if isinstance(decision, str) else ""
    return {"approve": False, "reason": reason}


def send_decision(
    workflow_id: str, call_id: str, decision: Approval, *, client: DBOSClient | None = None
) -> None:
    """Send the decision on call ``call_id`` to the durable run ``workflow_id``.

    ``decision`` is ``pending.approve()`` (or ``Approved(digest)``), ``False`` or a
    denial reason. Without ``client`` this process's launched DBOS sends it. The
    run takes the first decision per call; later ones are never read, so a call
    decided twice (or by two processes at once) runs at most once.
    """
    message = _message(decision)
    if client is not None:
        client.send(workflow_id, message, approval_topic(call_id))
    else:
        DBOS.send(workflow_id, message, approval_topic(call_id))


def waiting_calls(
    workflow_id: str, *, client: DBOSClient | None = None, timeout: float = 60.0
) -> list[DeferredCall]:
    """The calls the durable run ``workflow_id`` waits on (waiting up to ``timeout``
    seconds for it to publish them; empty when it waits on none)."""
    if client is not None:
        value = client.get_event(workflow_id, PENDING_EVENT, timeout)
    else:
        value = DBOS.get_event(workflow_id, PENDING_EVENT, timeout)
    return list(value or [])
