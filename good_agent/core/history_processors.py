"""History processors: what the model sees of the history, chosen before each request.

A processor receives the messages about to be sent (a copy of the agent's history)
and returns the messages to send instead: keep the last turns, drop old tool results,
summarize. The stored history is unchanged. The result must still pair every tool
call with its result, or the request is refused with a `HistoryProcessorError`
(providers reject such a history, with far less helpful errors).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeAlias

from good_agent.core.run_context import RunContext, takes_context
from good_agent.types.errors import GoodAgentError
from good_agent.types.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

HistoryProcessor: TypeAlias = Callable[..., "list[Message] | Awaitable[list[Message]]"]
"""A sync or async function ``(messages) -> messages`` or ``(ctx, messages) -> messages``."""

__all__ = ["HistoryProcessor", "HistoryProcessorError", "HistoryProcessors", "check_pairs"]


class HistoryProcessorError(GoodAgentError, ValueError):
    """A history processor returned messages that cannot be sent (a tool call separated
    from its result, no messages, something that is not a message)."""


class HistoryProcessors:
    """An agent's history processors, applied in order before each model request."""

    def __init__(self, processors: Iterable[HistoryProcessor] = ()) -> None:
        self._processors: list[tuple[HistoryProcessor, bool]] = []
        for processor in processors:
            if not callable(processor):
                raise TypeError(f"a history processor must be callable, not {processor!r}")
            self._processors.append((processor, takes_context(processor, 1)))

    def __bool__(self) -> bool:
        return bool(self._processors)

    async def apply(self, messages: list[Message], run: RunContext[Any]) -> list[Message]:
        """``messages`` through every processor, each result checked."""
        for processor, with_context in self._processors:
            result: Any = processor(run, messages) if with_context else processor(messages)
            if inspect.isawaitable(result):
                result = await result
            messages = _checked(result, _name(processor))
        return messages


_MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)


def _name(processor: HistoryProcessor) -> str:
    return str(getattr(processor, "__qualname__", None) or repr(processor))


def _checked(result: Any, name: str) -> list[Message]:
    if not isinstance(result, list | tuple):
        raise HistoryProcessorError(
            f"history processor {name} returned {type(result).__name__}, not a list of messages"
        )
    messages = list(result)
    for message in messages:
        if not isinstance(message, _MESSAGE_TYPES):
            raise HistoryProcessorError(
                f"history processor {name} returned a {type(message).__name__} among the messages"
            )
    if not messages:
        raise HistoryProcessorError(f"history processor {name} returned no messages")
    problem = check_pairs(messages)
    if problem is not None:
        raise HistoryProcessorError(
            f"history processor {name} {problem}: keep or drop a tool call together with "
            "its result (the assistant message with the call and every tool message after it)"
        )
    return messages


def check_pairs(messages: Sequence[Message]) -> str | None:
    """What separates a tool call from its result in ``messages``, or ``None``.

    Each assistant message's calls must each be answered by a tool message after it and
    before any other message; each tool message must answer such a call.
    """
    waiting: dict[str, str] = {}
    for index, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            if waiting.pop(message.tool_call_id, None) is None:
                return (
                    f"left the result of call '{message.tool_call_id}' ({message.tool_name}) "
                    f"at message {index} without its call"
                )
            continue
        if waiting:
            break
        if isinstance(message, AssistantMessage):
            waiting = {call.id: call.name for call in message.tool_calls}
    if waiting:
        call_id, name = next(iter(waiting.items()))
        return f"left call '{call_id}' ({name}) without its result"
    return None
