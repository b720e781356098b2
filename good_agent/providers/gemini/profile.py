"""Gemini's profile rules: its provider, its aliases, and ``gemini*`` names."""

from __future__ import annotations

from good_agent.providers.profile_rules import NATIVE, ProfileRule, ProviderInfo

PROVIDERS = {"gemini": ProviderInfo("gemini", "gemini", {**NATIVE, "accepts_audio": True})}
"""Gemini's provider prefix: the ``generateContent`` codec, native tools, audio input."""

ALIASES = {"google": "gemini", "google-gla": "gemini"}
"""Other spellings of the ``gemini`` prefix."""

THINKING_MODELS = ("gemini-2.5*", "gemini-3*", "gemini-2.0-flash-thinking*")
"""Gemini models that think (the ``thinking`` setting)."""

RULES: list[ProfileRule] = [
    *(ProfileRule(p, {"supports_thinking": True}, "gemini") for p in THINKING_MODELS),
    *(
        ProfileRule(
            p, {"provider": "gemini", **NATIVE, "supports_thinking": True}, "openai", False
        )
        for p in THINKING_MODELS
    ),
    # An unprefixed gemini* name is Google's, not an OpenAI-compatible server's.
    ProfileRule("gemini*", {"provider": "gemini", **NATIVE}, "openai", base_names=False),
]
"""Gemini's rules, consulted before the open model families."""

LAST_RULES: list[ProfileRule] = [ProfileRule("*", {}, provider="gemini")]
"""Gemini's catch-all, consulted last: any name it serves is known."""
