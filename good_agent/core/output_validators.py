"""Output validators: application checks on a run's validated output.

A validator receives the output (and, if it asks, the run's
`RunContext`) and returns it, possibly changed. Raising
`ToolRetry` (alias `ModelRetry`) sends the model
back with the message; that counts against the run's output retries.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from good_agent.core.output import OutputRejected
from good_agent.core.run_context import RunContext, takes_context
from good_agent.types.errors import ToolRetry

OutputValidator: TypeAlias = Callable[..., "Any | Awaitable[Any]"]
"""A sync or async function ``(output) -> output`` or ``(ctx, output) -> output``."""

__all__ = ["OutputRejected", "OutputValidator", "OutputValidators"]


class OutputValidators:
    """An agent's output validators, run in the order they were added."""

    def __init__(self) -> None:
        self._validators: list[tuple[OutputValidator, bool]] = []

    def add(self, validator: OutputValidator) -> None:
        """Add ``validator`` after the ones already there."""
        if not callable(validator):
            raise TypeError(f"an output validator must be callable, not {validator!r}")
        self._validators.append((validator, takes_context(validator, 1)))

    def __bool__(self) -> bool:
        return bool(self._validators)

    async def validate(self, output: Any, run: RunContext[Any]) -> Any:
        """``output`` through every validator; `OutputRejected` when one retries."""
        for validator, with_context in self._validators:
            try:
                value = validator(run, output) if with_context else validator(output)
                if inspect.isawaitable(value):
                    value = await value
            except ToolRetry as retry:
                raise OutputRejected([str(retry)]) from None
            output = value
        return output
