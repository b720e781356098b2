"""The thought signatures a Gemini transport remembers and sends back.

Gemini 3 models return a ``thought_signature`` with each function call and require it
back on that call in the next request. The history the agent or a client keeps has
no place for it, so the transport remembers it (by call name and arguments) from
each reply, whole or streamed, and puts it back on the same call when it is sent.
Replies are read in either spelling (``thoughtSignature`` over HTTP, snake_case
from the SDK).
"""

from __future__ import annotations

import json
from collections import OrderedDict

from good_agent.providers.gemini.codec import SKIP_SIGNATURE, field_of
from good_agent.providers.types import JSONDict


class ThoughtSignatures:
    """The last ``size`` signatures seen, by call name and arguments (0: none kept)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._known: OrderedDict[str, str] = OrderedDict()

    def attach(self, body: JSONDict) -> None:
        """Put a remembered signature on each call of ``body`` that has none (or only
        the codec's placeholder)."""
        if not self._known:
            return
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                call = part.get("function_call")
                if call is None or part.get("thought_signature") not in (None, SKIP_SIGNATURE):
                    continue
                known = self._known.get(_key(call))
                if known is not None:
                    part["thought_signature"] = known

    def remember(self, reply: JSONDict) -> None:
        """Keep the signatures of the calls in ``reply`` (a whole reply or a chunk)."""
        if self.size <= 0:
            return
        for candidate in field_of(reply, "candidates") or []:
            for part in field_of(field_of(candidate, "content"), "parts") or []:
                call = field_of(part, "function_call")
                signature = field_of(part, "thought_signature")
                if isinstance(call, dict) and isinstance(signature, str):
                    self._known[_key(call)] = signature
                    while len(self._known) > self.size:
                        self._known.popitem(last=False)


def _key(call: JSONDict) -> str:
    return json.dumps([call.get("name"), call.get("args") or {}], sort_keys=True)
