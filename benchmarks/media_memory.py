"""Memory a 5 MB image costs the tool cache's key and secret redaction.

A tool called with an image (``BinaryContent`` or raw ``bytes`` among its arguments)
has a cache key built from its arguments; a history holding the image (in a user
message and in a tool result) is redacted when the agent has secrets. Neither
should copy the bytes more than once (an image without a secret is not copied at
all; one with a secret in its bytes is copied once, redacted). For each case,
``tracemalloc`` records the peak allocated while the work runs, beyond what was
allocated before it (the image itself is made first and not counted).

Target (issue 27): each peak is at most 1.2 x the image's size (one copy, with
room for the small objects around it).

Run: ``python benchmarks/media_memory.py``
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from good_agent import Agent, BinaryContent, ToolCache, UserMessage
from good_agent._util.memory import peak_of
from good_agent.core.redaction import agent_secrets
from good_agent.types.messages import AssistantMessage, ToolCall, ToolMessage

SIZE = 5 * 1024 * 1024
LIMIT = 1.2


def main() -> None:
    image = BinaryContent(b"\x89PNG\r\n\x1a\n" + os.urandom(SIZE - 8), "image/png")
    raw = image.data
    cache = ToolCache(tools=["draw"])
    agent = Agent(extensions=[cache])
    cache.agent = agent
    secrets = agent_secrets(agent)
    secrets.add("sk-secret-token-1234")
    marked = BinaryContent(raw[: SIZE - 20] + b"sk-secret-token-1234", "image/png")
    call = ToolCall(id="c1", name="describe", arguments={})
    history = [
        UserMessage(content=["What is on this picture?", image]),
        AssistantMessage(content=None, tool_calls=[call]),
        ToolMessage(tool_call_id="c1", tool_name="describe", content="ok", media=[image]),
    ]
    cases: dict[str, Callable[[], Any]] = {
        "cache key, BinaryContent argument": lambda: cache.key_for("draw", {"image": image}),
        "cache key, bytes argument": lambda: cache.key_for("draw", {"data": raw}),
        "redaction, history with the image twice": lambda: secrets.redact(history),
        "redaction, the BinaryContent": lambda: secrets.redact(image),
        "redaction, a secret inside the image": lambda: secrets.redact(marked),
    }
    print(f"image: {SIZE / 1e6:.2f} MB; target: peak <= {LIMIT} x the image")
    worst = 0.0
    for name, work in cases.items():
        work()  # warm: first-use caches (encoders, schema) are not the image's cost
        ratio = peak_of(work) / SIZE
        worst = max(worst, ratio)
        print(f"  {name:<42} peak {ratio * SIZE / 1e6:7.2f} MB = {ratio:5.2f} x")
    verdict = "meets" if worst <= LIMIT else "MISSES"
    print(f"worst: {worst:.2f} x the image ({verdict} the target of {LIMIT} x)")
    agent.close_sync()


if __name__ == "__main__":
    main()
