"""DEBUG records of each model request and each tool call.

Off unless the ``good_agent`` loggers are enabled for ``DEBUG``; nothing is logged at
``INFO`` by default. The records carry no message text, arguments or results, only
names, counts, durations and outcomes, so no secret can reach them.

* ``good_agent.models``: ``model request: model=gpt-4o-mini mode=native messages=3
  tools=2 streamed=False``, with ``extra`` fields ``model``, ``mode``,
  ``message_count``, ``tool_count``, ``streamed``.
* ``good_agent.tools``: ``tool call: get_weather ok in 1.2 ms``, with ``extra``
  fields ``tool_name``, ``tool_call_id``, ``duration_ms`` and ``outcome`` (``ok``
  or ``error``).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from good_agent.models.base import LanguageModel, ModelRequest
from good_agent.models.traits import request_mode
from good_agent.types.messages import ToolCall, ToolResponse

model_logger = logging.getLogger("good_agent.models")
"""Where model requests are logged."""

tool_logger = logging.getLogger("good_agent.tools")
"""Where tool calls are logged (the logger tool errors already go to)."""


def log_model_request(model: Any, request: ModelRequest, *, streamed: bool) -> None:
    """Log one model request at DEBUG: model, mode, message and tool counts."""
    if not model_logger.isEnabledFor(logging.DEBUG):
        return
    name = model.model_name if isinstance(model, LanguageModel) else type(model).__name__
    mode = request_mode(model, request) or "-"
    model_logger.debug(
        "model request: model=%s mode=%s messages=%d tools=%d streamed=%s",
        name,
        mode,
        len(request.messages),
        len(request.tools),
        streamed,
        extra={
            "model": name,
            "mode": mode,
            "message_count": len(request.messages),
            "tool_count": len(request.tools),
            "streamed": streamed,
        },
    )


def tool_clock() -> float:
    """The start time `log_tool_call` measures from (0.0 when DEBUG is off)."""
    return time.perf_counter() if tool_logger.isEnabledFor(logging.DEBUG) else 0.0


def log_tool_call(call: ToolCall, response: ToolResponse, started: float) -> None:
    """Log one finished tool call at DEBUG: name, duration and outcome."""
    if not started or not tool_logger.isEnabledFor(logging.DEBUG):
        return
    duration_ms = (time.perf_counter() - started) * 1000.0
    outcome = "ok" if response.success else "error"
    tool_logger.debug(
        "tool call: %s %s in %.1f ms",
        call.name,
        outcome,
        duration_ms,
        extra={
            "tool_name": call.name,
            "tool_call_id": call.id,
            "duration_ms": duration_ms,
            "outcome": outcome,
        },
    )
