"""Saving and restoring a conversation as JSON."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import TypeAdapter, ValidationError

from good_agent.types.errors import GoodAgentError
from good_agent.types.messages import Message

_HISTORY: TypeAdapter[list[Message]] = TypeAdapter(list[Message])


class HistoryFormatError(GoodAgentError, ValueError):
    """The data given to `load_messages` is not a dumped history."""


def dump_messages(messages: Sequence[Message]) -> bytes:
    """A history as JSON bytes: every message type, tool calls, reasoning and usage.

    `load_messages` restores it exactly, in this process or another one.
    """
    return _HISTORY.dump_json(list(messages))


def load_messages(data: str | bytes) -> list[Message]:
    """The history that `dump_messages` wrote; raises `HistoryFormatError`."""
    try:
        return _HISTORY.validate_json(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'history'}: {e['msg']}"
            for e in exc.errors(include_url=False)[:5]
        )
        raise HistoryFormatError(f"not a dumped message history: {problems}") from None
