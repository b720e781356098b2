"""Provider-neutral stream events: what every upstream stream is decoded into.

Tool-call deltas follow OpenAI chunk semantics: ``index`` counts calls from 0,
``id`` and ``name`` are set on a call's first delta only, and the ``arguments``
fragments of one index concatenate to the call's JSON arguments.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of answer text."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning (``<think>`` text of a prompted model)."""

    text: str


@dataclass(frozen=True, slots=True)
class CallDelta:
    """A fragment of one tool call (see the module docs)."""

    index: int
    id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True, slots=True)
class Finish:
    """The upstream's finish reason, in the OpenAI vocabulary."""

    reason: str | None


@dataclass(frozen=True, slots=True)
class UsageDelta:
    """Token counts reported so far; ``None`` means not reported in this event."""

    input_tokens: int | None = None
    output_tokens: int | None = None


StreamEvent = TextDelta | ReasoningDelta | CallDelta | Finish | UsageDelta
"""One neutral stream event."""
