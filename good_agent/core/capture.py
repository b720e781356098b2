"""``capture_run_messages()``: the messages of a run, also when it raised.

```python
with capture_run_messages() as messages:
    try:
        await agent.run("...")
    except AgentRunError:
        print(messages)  # what the run had sent and received
```

Inside the block, the first run that starts is captured: ``messages`` is a live view
of its conversation (the history it continued, then what it added), readable while it
runs and after it ended or raised; ``messages.new_messages`` holds only what the run
added. Later runs in the same block are not captured (nest another block for them).
Each task and thread has its own capture (a `ContextVar`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import overload

from good_agent.types.messages import Message

__all__ = ["CapturedMessages", "capture_run_messages", "note_run"]


class CapturedMessages(Sequence[Message]):
    """The messages of the captured run (empty until a run starts), as a sequence.

    Compares equal to a list of the same messages.
    """

    __slots__ = ("_source", "_start")

    def __init__(self) -> None:
        self._source: list[Message] | None = None
        self._start = 0

    @property
    def captured(self) -> bool:
        """Whether a run has started in the block."""
        return self._source is not None

    @property
    def new_messages(self) -> list[Message]:
        """The messages the run added to its conversation."""
        return list(self._source[self._start :]) if self._source is not None else []

    def _list(self) -> list[Message]:
        return self._source if self._source is not None else []

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...

    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        return self._list()[index]

    def __len__(self) -> int:
        return len(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CapturedMessages):
            return self._list() == other._list()
        return isinstance(other, list) and self._list() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CapturedMessages({self._list()!r})"


_CAPTURE: ContextVar[CapturedMessages | None] = ContextVar("good_agent_capture", default=None)


@contextmanager
def capture_run_messages() -> Iterator[CapturedMessages]:
    """Capture the messages of the first run started inside the block (see the module)."""
    captured = CapturedMessages()
    token = _CAPTURE.set(captured)
    try:
        yield captured
    finally:
        _CAPTURE.reset(token)


def note_run(messages: list[Message], start: int) -> None:
    """Called by the run engine when a run starts on ``messages`` (its conversation,
    ``start`` the length before the run): captured when a block waits for a run."""
    captured = _CAPTURE.get()
    if captured is not None and captured._source is None:
        captured._source = messages
        captured._start = start


def note_taken_back(messages: list[Message]) -> None:
    """Called by the run engine just before it takes a failed run's messages back out of
    ``messages`` (the model answered nothing): a capture of that run keeps them."""
    captured = _CAPTURE.get()
    if captured is not None and captured._source is messages:
        captured._source = list(messages)
