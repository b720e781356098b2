"""Tool definitions shared by the tests, in the OpenAI function format the codecs take
(and, where a test speaks Gemini to the bridge, Gemini's own declaration)."""

from __future__ import annotations

from typing import Any

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
"""``get_weather(city)``: one required string argument."""

GEMINI_WEATHER: dict[str, Any] = {
    "name": "get_weather",
    "description": "Weather for a city.",
    "parameters": {
        "type": "OBJECT",
        "properties": {"city": {"type": "STRING"}},
        "required": ["city"],
    },
}
"""``WEATHER`` as a Gemini ``functionDeclaration`` (OpenAPI types in capitals)."""
