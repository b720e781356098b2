"""Images and documents in a prompt, offline.

An agent is shown a chart (PNG bytes made here) and a PDF link; a scripted model
answers. Then the same prompt is encoded for Anthropic and Gemini without sending
it, a text-only (prompted) model refuses the image before any request, and the
history is saved and restored with its bytes.
"""

from __future__ import annotations

import struct
import zlib

from good_agent import (
    Agent,
    AnthropicModel,
    BinaryContent,
    DocumentUrl,
    GeminiModel,
    ModelCapabilityError,
    OpenAIChatModel,
    UserMessage,
)
from good_agent.models import ModelRequest
from good_agent.testing import ScriptedModel
from good_agent.types.history import dump_messages, load_messages


def tiny_png() -> bytes:
    """A valid 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


PROMPT = [
    "What does this chart show, and what do the terms say?",
    BinaryContent(tiny_png(), "image/png"),
    DocumentUrl("https://example.com/terms.pdf"),
]

# 1. An agent run with a list prompt (a scripted model stands in for a real one).
model = ScriptedModel(["A single red pixel; the terms are at the link."])
with Agent(model=model) as agent:
    print("answer:", agent.run_sync(PROMPT).output)
    sent = model.requests[0].messages[-1]
    print("the model received:", sent.content)

# 2. What each vendor would receive (encoded here, not sent).
request = ModelRequest([UserMessage(content=PROMPT)], [], None, {})
claude = AnthropicModel("claude-sonnet-4-6", api_key="unused")
blocks = claude.build_body(request)["messages"][0]["content"]
print("anthropic blocks:", [(b["type"], b.get("source", {}).get("type")) for b in blocks])
gemini = GeminiModel("gemini-2.5-flash", api_key="unused")
parts = gemini.build_body(request)["contents"][0]["parts"]
print("gemini parts:", [next(iter(p)) for p in parts])

# 3. A model called with prompted tool calling is text-only: refused before any request.
local = OpenAIChatModel("my-local-model", base_url="http://127.0.0.1:9/v1", mode="validated")
try:
    local.build_body(request)
except ModelCapabilityError as error:
    print("refused:", error)

# 4. The history, bytes included, survives a dump and a load.
history = load_messages(dump_messages(agent.messages))
restored = history[-2]
assert isinstance(restored, UserMessage) and restored.content == PROMPT
print("restored history:", len(history), "messages, image bytes intact")
