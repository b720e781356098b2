"""Accumulation of one streamed tool call in linear time.

Argument fragments are appended to a list and joined once, when the call is
finished. `CallBuffer.partial_arguments` parses what has arrived so far with
``jiter`` in partial mode; it reads the whole buffer, so calling it on every chunk
makes a stream quadratic. Call it when a consumer actually wants a preview.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jiter

from good_agent.providers.arguments import parsed_call
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ToolCall


@dataclass(slots=True)
class CallBuffer:
    """The parts of one tool call received so far."""

    id: str = ""
    name: str = ""
    fragments: list[str] = field(default_factory=list)
    complete_arguments: JSONDict | None = None

    def add(self, fragment: str) -> None:
        """Append one argument fragment (constant time)."""
        if fragment:
            self.fragments.append(fragment)

    def arguments_text(self) -> str:
        """The argument text so far (joins the fragments: linear in their size)."""
        return "".join(self.fragments)

    def partial_arguments(self) -> Any:
        """The arguments parsed so far, incomplete values dropped or truncated.

        Linear in the buffer size per call; do not call it per chunk on long streams.
        """
        if self.complete_arguments is not None:
            return self.complete_arguments
        text = self.arguments_text()
        if not text.strip():
            return {}
        try:
            return jiter.from_json(text.encode(), partial_mode="trailing-strings")
        except ValueError:
            return None

    def finish(self) -> ToolCall:
        """The finished call, its argument text decoded once."""
        raw: str | JSONDict | None = (
            self.complete_arguments
            if self.complete_arguments is not None
            else self.arguments_text()
        )
        return parsed_call(self.id, self.name, raw)
