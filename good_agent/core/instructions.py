"""Instructions: text for the model's system slot, computed for every run, never stored.

Unlike the system prompt (a `SystemMessage` in the history),
instructions are evaluated at the start of each run and added to the system text of
each request of that run only. A history saved and loaded later gets the
instructions of the agent that continues it, not the ones it was written with.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeAlias

from good_agent.core.run_context import RunContext, takes_context
from good_agent.types.messages import Message, SystemMessage

InstructionsFunction: TypeAlias = Callable[..., "str | Awaitable[str | None] | None"]
"""A sync or async function returning instructions text (``None`` or ``""``: none),
taking the run's `RunContext` or nothing."""

Instruction: TypeAlias = "str | InstructionsFunction"
"""A piece of instructions: fixed text or a function computing it."""

__all__ = ["Instruction", "Instructions", "InstructionsFunction", "with_system_text"]


class Instructions:
    """An agent's instructions: fixed texts and functions, in the order given."""

    def __init__(self, parts: str | InstructionsFunction | Iterable[Instruction] | None) -> None:
        if parts is None:
            items: list[Instruction] = []
        elif isinstance(parts, str) or callable(parts):
            items = [parts]
        else:
            items = list(parts)
        self._parts: list[tuple[Instruction, bool]] = []
        for part in items:
            self.add(part)

    def add(self, part: Instruction) -> None:
        """Add fixed text or a function (after the parts already there)."""
        if not isinstance(part, str) and not callable(part):
            raise TypeError(f"instructions must be text or functions, not {type(part).__name__}")
        self._parts.append((part, not isinstance(part, str) and takes_context(part, 0)))

    def plus(self, parts: str | InstructionsFunction | Iterable[Instruction]) -> Instructions:
        """These instructions followed by ``parts`` (a new object; this one is unchanged)."""
        combined = Instructions(None)
        combined._parts = list(self._parts)
        for part in Instructions(parts)._parts:
            combined._parts.append(part)
        return combined

    def __bool__(self) -> bool:
        return bool(self._parts)

    async def render(self, run: RunContext[Any]) -> str | None:
        """The instructions of one run: each part evaluated, joined with blank lines."""
        texts: list[str] = []
        for part, with_context in self._parts:
            if isinstance(part, str):
                text: Any = part
            else:
                text = part(run) if with_context else part()
                if inspect.isawaitable(text):
                    text = await text
            if text:
                texts.append(str(text))
        return "\n\n".join(texts) or None


def with_system_text(messages: list[Message], text: str | None) -> list[Message]:
    """``messages`` with ``text`` added to the system message (a copy; the first
    message when it is one, else a new one in front). ``None`` changes nothing."""
    if not text:
        return messages
    if messages and isinstance(messages[0], SystemMessage):
        first = messages[0]
        return [SystemMessage(content=f"{first.content}\n\n{text}"), *messages[1:]]
    return [SystemMessage(content=text), *messages]
