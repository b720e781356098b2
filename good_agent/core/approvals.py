"""Calls waiting for a decision, read from the history, and how decisions are applied.

A run that reaches a call to a ``requires_approval`` tool stops with that call
unanswered at the end of the history. The pending calls are read back from the
history itself, so a run dumped with :func:`good_agent.messages.dump_messages`
can be resumed by another process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

from good_agent.core.errors import ApprovalError
from good_agent.core.messages import AssistantMessage, Message, ToolCall, ToolMessage

Approval = bool | str
"""A decision: ``True`` runs the call, ``False`` denies it, a string denies it with a reason."""

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


def check_decisions(pending: Sequence[ToolCall], approvals: Mapping[str, Approval]) -> None:
    """Raise :class:`ApprovalError` unless ``approvals`` decides exactly the pending calls."""
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


def denial_text(decision: Approval) -> str:
    """The tool result the model reads for a denied call."""
    if isinstance(decision, str) and decision:
        return f"The user denied this tool call: {decision}"
    return "The user denied this tool call."


def hide_secrets(value: Any) -> Any:
    """``value`` with every secret (``SecretStr``, ``SecretBytes``) replaced by :data:`HIDDEN`."""
    if isinstance(value, SecretStr | SecretBytes):
        return HIDDEN
    if isinstance(value, Mapping):
        return {key: hide_secrets(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [hide_secrets(item) for item in value]
    if isinstance(value, BaseModel):
        return hide_secrets(dict(value))
    return value
