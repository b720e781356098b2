"""Anthropic's profile rules: its provider, its aliases, and ``claude*`` names."""

from __future__ import annotations

from good_agent.providers.profile_rules import NATIVE, ProfileRule, ProviderInfo

PROVIDERS = {"anthropic": ProviderInfo("anthropic", "anthropic_messages", dict(NATIVE))}
"""Anthropic's provider prefix: the Messages codec, native tools."""

ALIASES = {"claude": "anthropic"}
"""Other spellings of the ``anthropic`` prefix."""

THINKING_MODELS = ("claude-3-7*", "claude-sonnet-4*", "claude-opus-4*", "claude-haiku-4*")
"""Claude models with extended thinking (the ``thinking`` setting)."""

RULES: list[ProfileRule] = [
    *(ProfileRule(p, {"supports_thinking": True}, "anthropic") for p in THINKING_MODELS),
    *(
        ProfileRule(
            p, {"provider": "anthropic", **NATIVE, "supports_thinking": True}, "openai", False
        )
        for p in THINKING_MODELS
    ),
    # An unprefixed claude* name is Anthropic's, not an OpenAI-compatible server's.
    ProfileRule("claude*", {"provider": "anthropic", **NATIVE}, "openai", base_names=False),
]
"""Anthropic's rules, consulted before the open model families."""

LAST_RULES: list[ProfileRule] = [ProfileRule("*", {}, provider="anthropic")]
"""Anthropic's catch-all, consulted last: any name it serves is known."""
