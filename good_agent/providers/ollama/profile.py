"""Ollama's profile rules: its provider (``/api/chat`` takes no ``tool_choice``)."""

from __future__ import annotations

from good_agent.providers.profile_rules import ProfileRule, ProviderInfo

PROVIDERS = {
    "ollama": ProviderInfo(
        "ollama", "ollama", {"supports_tool_choice": False, "accepts_documents": False}
    )
}
"""Ollama's provider prefix (images only, no documents); its models' profiles come
from the open model families."""

RULES: tuple[ProfileRule, ...] = ()
"""Ollama's own rules: none (a name no rule knows is "native with fallback")."""
