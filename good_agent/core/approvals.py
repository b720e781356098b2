"""Calls waiting for a decision, read from the history, and how decisions are applied.

A run that reaches a call to a ``requires_approval`` tool stops with that call
unanswered at the end of the history. The pending calls are read back from the
history itself, so a run dumped with `good_agent.messages.dump_messages`
can be resumed by another process.

A decision approves one exact call: the `call_digest` of the call that was
shown (its id, tool name and arguments). A resume whose history no longer holds
that call (its arguments or tool name edited since the deferral) is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

from good_agent.types.errors import ApprovalError
from good_agent.types.messages import AssistantMessage, Message, ToolCall, ToolMessage


@dataclass(frozen=True, slots=True)
class Approved:
    """Approve exactly the call whose `call_digest` is ``digest``.

    Built by [`DeferredCall.approve`][good_agent.DeferredCall.approve]; it stays valid in another
    process, where the agent that deferred the call is gone.
    """

    digest: str


Approval = bool | str | Approved
"""A decision: ``True`` or `Approved` runs the call, ``False`` denies it, a string
denies it with a reason. A bare ``True`` is accepted only by the agent that deferred the call."""


def approves(decision: Approval) -> bool:
    """Whether ``decision`` runs the call (``True`` or `Approved`)."""
    return decision is True or isinstance(decision, Approved)


def call_digest(call: ToolCall) -> str:
    """The SHA-256 of a call's id, tool name and arguments: what an approval approves."""
    canonical = json.dumps(
        [call.id, call.name, call.arguments],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
        default=str,
    )
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


HIDDEN = "**********"
"""What a secret value looks like in a pending call's parameters."""


def unanswered_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """The calls of the last assistant turn that have no tool result after them."""
    answered: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
        elif isinstance(message, AssistantMessage):
            return [call for call in message.tool_calls if call.id not in answered]
        else:
            return []
    return []


def check_decisions(
    pending: Sequence[ToolCall],
    approvals: Mapping[str, Approval],
    deferred_here: Mapping[str, str],
) -> None:
    """Raise `ApprovalError` unless ``approvals`` decides exactly the pending calls,
    each approval for the very call that was deferred.

    ``deferred_here`` maps the ids of the calls this agent deferred to their
    `call_digest`: a bare ``True`` is checked against it, an `Approved`
    carries its own digest.
    """
    waiting = [call.id for call in pending]
    if not waiting:
        raise ApprovalError("no tool call is waiting for approval in this agent's history")
    missing = [call_id for call_id in waiting if call_id not in approvals]
    unknown = [call_id for call_id in approvals if call_id not in waiting]
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"no decision for {', '.join(missing)}")
        if unknown:
            parts.append(f"no pending call has id {', '.join(unknown)}")
        raise ApprovalError(
            f"approvals must decide every waiting call ({', '.join(waiting)}): " + "; ".join(parts)
        )
    for call in pending:
        decision = approvals[call.id]
        if isinstance(decision, Approved):
            approved = decision.digest
        elif decision is True:
            if call.id not in deferred_here:
                raise ApprovalError(
                    f"call {call.id} ({call.name}) was not deferred by this agent, so a bare "
                    "True cannot say which call was approved: pass the approval of the call "
                    "that was shown, result.deferred[i].approve()"
                )
            approved = deferred_here[call.id]
        else:
            continue  # a denial runs nothing
        if approved != call_digest(call):
            raise ApprovalError(
                f"call {call.id} ({call.name}) is not the call that was approved: its tool "
                "name or arguments changed in the history since it was deferred; nothing ran"
            )


def denial_text(decision: Approval) -> str:
    """The tool result the model reads for a denied call."""
    if isinstance(decision, str) and decision:
        return f"The user denied this tool call: {decision}"
    return "The user denied this tool call."


def hide_secrets(value: Any) -> Any:
    """``value`` with every secret (``SecretStr``, ``SecretBytes``) replaced by `HIDDEN`."""
    if isinstance(value, SecretStr | SecretBytes):
        return HIDDEN
    if isinstance(value, Mapping):
        return {key: hide_secrets(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [hide_secrets(item) for item in value]
    if isinstance(value, BaseModel):
        return hide_secrets(dict(value))
    return value
