"""Cheap unique ids for requests, completions and messages.

An id is a prefix (``req_``, ``chatcmpl-``, ``msg_``) and 24 hex digits: 12 drawn at
random once per process (again in a forked child) and 12 from a counter. Ids are
unique across the worker processes of one server and across restarts (with
overwhelming odds), cost a few string operations instead of a ``uuid4`` each, and
carry nothing secret: they only name a request in logs and replies.
"""

from __future__ import annotations

import itertools
import os
import secrets


class _Ids:
    """The process's random part and its counter."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """A new random part and a new counter (at import, and in a forked child)."""
        self.process = secrets.token_hex(6)
        self.counter = itertools.count()


_IDS = _Ids()
os.register_at_fork(after_in_child=_IDS.reset)


def fresh_id(prefix: str) -> str:
    """``prefix`` and 24 hex digits, never the same twice in this process."""
    return f"{prefix}{_IDS.process}{next(_IDS.counter):012x}"


REQUEST_ID_HEADER = "x-request-id"
"""The response header carrying the request's id (also in the access log and error logs)."""


def new_request_id() -> str:
    """A fresh request id (``req_`` and 24 hex digits)."""
    return fresh_id("req_")
