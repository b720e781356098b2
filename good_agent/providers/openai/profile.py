"""OpenAI's profile rules: its providers (Chat Completions and Responses) and its own
model families."""

from __future__ import annotations

from good_agent.providers.profile_rules import (
    NATIVE_STRICT,
    REASONING,
    ProfileRule,
    ProviderInfo,
)
from good_agent.providers.strategies.base import ToolCallingMode

PROVIDERS = {
    "openai": ProviderInfo("openai", "openai_chat"),
    "openai-responses": ProviderInfo("openai-responses", "openai_responses"),
}
"""OpenAI's provider prefixes and their codecs (``openai`` also names any
OpenAI-compatible server)."""

OPENAI_FAMILIES = (
    "gpt-5*",
    "gpt-4.1*",
    "gpt-4o*",
    "gpt-4*",
    "gpt-3.5*",
    "o1*",
    "o3*",
    "o4*",
    "chatgpt-*",
)
"""OpenAI's own models: native tools with strict schemas."""

OPENAI_REASONING = ("gpt-5*", "o1*", "o3*", "o4*", "codex-*")
"""OpenAI's reasoning models: they take the ``thinking`` setting (``reasoning_effort``),
no sampling settings, and ``max_tokens`` as ``max_completion_tokens``."""

OPENAI_CHAT_ONLY = ("gpt-5-chat*",)
"""``gpt-5`` names that are not reasoning models (they take sampling settings)."""

OPENAI_WITHOUT_TOOLS = ("o1-mini*", "o1-preview*")
"""OpenAI models whose API takes no tools (nor ``response_format``): tools are prompted."""

OPENAI_AUDIO = ("gpt-4o-audio-preview*", "gpt-4o-mini-audio-preview*", "gpt-audio*")
"""OpenAI models that take audio input (Chat Completions ``input_audio`` parts)."""

RULES: list[ProfileRule] = [
    *(
        ProfileRule(pattern, {"mode": ToolCallingMode.VALIDATED, **REASONING}, provider=provider)
        for provider in PROVIDERS
        for pattern in OPENAI_WITHOUT_TOOLS
    ),
    *(
        ProfileRule(pattern, {**NATIVE_STRICT, "supports_thinking": False}, provider=provider)
        for provider in PROVIDERS
        for pattern in OPENAI_CHAT_ONLY
    ),
    *(
        ProfileRule(
            pattern, {**NATIVE_STRICT, **REASONING, "supports_thinking": True}, provider=provider
        )
        for provider in PROVIDERS
        for pattern in OPENAI_REASONING
    ),
    *(
        ProfileRule(pattern, {**NATIVE_STRICT, "accepts_audio": True}, provider="openai")
        for pattern in OPENAI_AUDIO
    ),
    *(
        ProfileRule(pattern, dict(NATIVE_STRICT), provider=provider)
        for provider in PROVIDERS
        for pattern in OPENAI_FAMILIES
    ),
    ProfileRule("gpt-*", dict(NATIVE_STRICT), provider="openai-responses"),
]
"""OpenAI's rules, consulted before the open model families."""
