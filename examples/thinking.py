"""One ``thinking`` setting, the wire form of each API, offline.

The same ``thinking`` value goes to an OpenAI reasoning model as ``reasoning_effort``,
to the Responses API as ``reasoning``, to Claude as a ``thinking`` budget and to Gemini
as ``thinking_config``; a model without reasoning refuses it before sending anything.
Nothing is sent: ``build_body`` shows the request each model would make.

    python examples/thinking.py
"""

from __future__ import annotations

import json

from good_agent import ModelCapabilityError
from good_agent.models import (
    AnthropicModel,
    GeminiModel,
    ModelRequest,
    OpenAIChatModel,
    OpenAIResponsesModel,
)
from good_agent.types.messages import UserMessage

ask = ModelRequest(
    messages=[UserMessage(content="Why is the sky blue?")], settings={"thinking": "high"}
)
wire_keys = ("reasoning_effort", "reasoning", "thinking", "max_tokens", "generation_config")

for model in (
    OpenAIChatModel("o3", api_key="sk-example"),
    OpenAIResponsesModel("gpt-5", api_key="sk-example"),
    AnthropicModel("claude-sonnet-4-6", api_key="sk-ant-example"),
    GeminiModel("gemini-2.5-flash", api_key="example"),
    GeminiModel("gemini-3-pro-preview", api_key="example"),
):
    body = model.build_body(ask)
    wire = {key: body[key] for key in wire_keys if key in body}
    print(f"{model.model_name}: {json.dumps(wire)}")

try:
    OpenAIChatModel("gpt-4o", api_key="sk-example").build_body(ask)
except ModelCapabilityError as refused:
    print(f"gpt-4o: refused: {refused}")
