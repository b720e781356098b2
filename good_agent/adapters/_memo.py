"""A `ToolMemo`: a value remembered per tool, without keeping the tool alive."""

from __future__ import annotations

from typing import TypeVar

from good_agent._util.by_identity import ByIdentity
from good_agent.tools.tool import Tool

V = TypeVar("V")


class ToolMemo(ByIdentity[Tool, V]):
    """Values remembered per `Tool` (by identity), dropped with the tool.

    ``should_adapt`` and ``signature_key`` are asked at every request; an adapter
    whose answer depends only on the tool can remember it here. A lookup costs a
    dictionary read, where a ``weakref.WeakKeyDictionary`` makes a weak reference
    each time.
    """

    __slots__ = ()
