"""Data-only model profiles, resolved from the model name by a registry of rules.

A name may carry a provider prefix (``anthropic:claude-sonnet-4-6``,
``ollama:qwen2.5``); the prefix picks the provider and its codec. Rules match the
bare name (lower-cased, shell-style patterns); the first matching rule wins and
user rules come first. Users add rules in code with `register_profile` or from
a TOML file with `load_profiles`.

Each built-in vendor's rules live in its folder (``providers/<vendor>/profile.py``);
this module holds the registry and the table that lists them.
"""

from __future__ import annotations

import tomllib
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from good_agent.providers.profile_rules import (
    IDENTITY_FIELDS,
    NATIVE,
    ModelProfile,
    ProfileRule,
    ProviderInfo,
    name_candidates,
)
from good_agent.providers.registry import builtin_profiles, vendor_of
from good_agent.providers.strategies.base import ToolCallingMode

__all__ = [
    "BUILTIN_PROVIDERS",
    "BUILTIN_RULES",
    "DEFAULT_REGISTRY",
    "IDENTITY_FIELDS",
    "MODEL_PREFIXES",
    "NATIVE_WITH_FALLBACK",
    "OPEN_FAMILIES",
    "OPEN_MODEL_RULES",
    "PROVIDER_ALIASES",
    "ModelProfile",
    "ProfileRegistry",
    "ProfileRule",
    "ProviderInfo",
    "get_profile",
    "load_profiles",
    "name_candidates",
    "register_profile",
    "unknown_name_profile",
    "with_mode",
]


BUILTIN_PROVIDERS: dict[str, ProviderInfo] = {
    name: info for vendor in builtin_profiles() for name, info in vendor.PROVIDERS.items()
}
"""The provider prefixes known out of the box, each from its vendor's profile rules (the
folder's ``profile.py``, read without loading the vendor's codecs)."""

PROVIDER_ALIASES = {
    alias: name
    for vendor in builtin_profiles()
    for alias, name in getattr(vendor, "ALIASES", {}).items()
}
"""Alternative spellings of provider prefixes (``google`` is an alias of ``gemini``)."""

MODEL_PREFIXES = frozenset({"ft"})
"""Name prefixes that are part of a model id, not a provider (``ft:`` fine-tunes)."""

OPEN_FAMILIES = (
    "gpt-oss*",
    "mistral*",
    "mixtral*",
    "ministral*",
    "magistral*",
    "devstral*",
    "codestral*",
    "llama*",
    "meta-llama*",
    "qwen*",
    "qwq*",
    "deepseek*",
    "grok*",
    "gemma*",
    "phi-*",
    "phi4*",
    "granite*",
    "command-r*",
    "hermes*",
    "nous-hermes*",
    "functionary*",
    "glm*",
    "kimi*",
    "claude*",
    "gemini*",
)
"""Model families served by OpenAI-compatible servers with a tools API."""

OPEN_MODEL_RULES: list[ProfileRule] = [
    # Code models follow TypeScript-style tool listings best when prompted.
    ProfileRule("codellama*", {**NATIVE, "prompt_format": "typescript"}),
    ProfileRule("starcoder*", {**NATIVE, "prompt_format": "typescript"}),
    *[ProfileRule(pattern, dict(NATIVE)) for pattern in OPEN_FAMILIES],
    ProfileRule("openai/*", dict(NATIVE), base_names=False),
    ProfileRule("anthropic/*", dict(NATIVE), base_names=False),
    ProfileRule("google/*", dict(NATIVE), base_names=False),
    ProfileRule("mistralai/*", dict(NATIVE), base_names=False),
]
"""The rules of no one vendor: open model families, whoever serves them."""

BUILTIN_RULES: list[ProfileRule] = [
    *(rule for vendor in builtin_profiles() for rule in vendor.RULES),
    *OPEN_MODEL_RULES,
    *(rule for vendor in builtin_profiles() for rule in getattr(vendor, "LAST_RULES", ())),
]
"""The built-in rules, in order (first match wins): each vendor's own rules, the open
model families, then each vendor's catch-all.

No built-in rule picks ``STRUCTURED``: it is chosen only by an explicit mode or a
user rule (``register_profile("my-model*", mode="structured")``).
"""


class ProfileRegistry:
    """Providers and rules; user rules are consulted before the built-in ones."""

    def __init__(self) -> None:
        self.providers: dict[str, ProviderInfo] = dict(BUILTIN_PROVIDERS)
        self.user_rules: list[ProfileRule] = []
        self.rules: list[ProfileRule] = list(BUILTIN_RULES)

    def provider(self, name: str) -> ProviderInfo | None:
        """Provider prefix ``name``: one added to this registry, else the vendor registry's
        (a vendor registered after this registry was made is known too)."""
        info = self.providers.get(name)
        if info is None:
            vendor = vendor_of(name)
            info = None if vendor is None else vendor.providers.get(name)
        return info

    def split(self, model: str) -> tuple[str, str]:
        """``(provider, bare name)`` for a possibly prefixed model name."""
        prefix, sep, rest = model.partition(":")
        key = PROVIDER_ALIASES.get(prefix.lower(), prefix.lower())
        if sep and self.provider(key) is not None:
            return key, rest
        return "openai", model

    def unknown_prefix(self, model: str) -> str | None:
        """The provider prefix of ``model`` when it names no known provider, else None.

        ``ft:`` (fine-tunes) and names whose part before ``:`` is not an identifier
        (``qwen2.5:7b``, ``http://...``) have no provider prefix.
        """
        prefix, sep, _ = model.partition(":")
        if not sep or not prefix.isidentifier() or prefix.lower() in MODEL_PREFIXES:
            return None
        key = PROVIDER_ALIASES.get(prefix.lower(), prefix.lower())
        if self.provider(key) is not None or self.resolve(model).rule is not None:
            return None
        return prefix

    def resolve(self, model: str) -> ModelProfile:
        """The profile for ``model``: provider defaults, then the first matching rule."""
        provider, name = self.split(model)
        values: dict[str, Any] = {}
        for rule in [*self.user_rules, *self.rules]:
            if rule.matches(provider, name):
                values = {**rule.values, "rule": rule.pattern}
                break
        provider = str(values.pop("provider", provider))
        info = self.provider(provider) or self.providers["openai"]
        merged = {**info.defaults, **values}
        merged.setdefault("codec", info.codec)
        return ModelProfile(model=name, provider=provider, **_profile_fields(merged))

    def register(self, pattern: str, *, provider: str | None = None, **values: Any) -> None:
        """Add a user rule, ahead of every earlier rule."""
        if "mode" in values:
            values["mode"] = ToolCallingMode(values["mode"])
        _profile_fields(values)
        self.user_rules.insert(0, ProfileRule(pattern, values, provider))

    def register_provider(self, info: ProviderInfo) -> None:
        """Add a provider prefix (a later issue adds user-registered transports)."""
        self.providers[info.name] = info


def _profile_fields(values: dict[str, Any]) -> dict[str, Any]:
    known = {f.name for f in fields(ModelProfile)} | {"provider"}
    unknown = set(values) - known
    if unknown:
        raise ValueError(f"unknown profile fields: {', '.join(sorted(unknown))}")
    return {k: v for k, v in values.items() if k != "provider"}


DEFAULT_REGISTRY = ProfileRegistry()
"""The process-wide registry used by `get_profile` and `strategy_for`."""


def get_profile(model: str, registry: ProfileRegistry | None = None) -> ModelProfile:
    """The `ModelProfile` for ``model``."""
    return (registry or DEFAULT_REGISTRY).resolve(model)


def register_profile(
    pattern: str,
    *,
    provider: str | None = None,
    registry: ProfileRegistry | None = None,
    **values: Any,
) -> None:
    """Override the profile of models matching ``pattern`` (``mode="native"``, ...)."""
    (registry or DEFAULT_REGISTRY).register(pattern, provider=provider, **values)


def load_profiles(path: str | Path, registry: ProfileRegistry | None = None) -> int:
    """Register the ``[[profile]]`` tables of a TOML file; returns how many.

    Each table has a ``pattern``, an optional ``provider`` restriction (``for``)
    and profile fields, e.g.::

        [[profile]]
        pattern = "my-finetune*"
        mode = "native"
        supports_strict = false
    """
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    tables = data.get("profile", [])
    for table in reversed(tables):
        values = dict(table)
        pattern = str(values.pop("pattern"))
        restrict = values.pop("for", None)
        register_profile(pattern, provider=restrict, registry=registry, **values)
    return len(tables)


NATIVE_WITH_FALLBACK = "(base_url: native with fallback)"
"""The ``rule`` of the profile given to a name no rule knows that is served from a
``base_url`` or by Ollama (see `unknown_name_profile`)."""


def unknown_name_profile(profile: ModelProfile, *, own_endpoint: bool) -> ModelProfile:
    """The one rule for a model name no profile rule knows, applied by the model core
    for the agent's models and the bridge alike.

        Served from an explicit ``base_url`` (``own_endpoint``: a local or self-hosted
        server) or by Ollama, it is "native with fallback": ``NATIVE``, and in ``AUTO`` mode
        a refusal of tools falls back to prompting. Otherwise the profile is kept (on an
        OpenAI-compatible provider: ``VALIDATED``, prompt-based).
    """
    if profile.rule is None and (own_endpoint or profile.provider == "ollama"):
        return replace(profile, mode=ToolCallingMode.NATIVE, rule=NATIVE_WITH_FALLBACK)
    return profile


def with_mode(profile: ModelProfile, mode: ToolCallingMode) -> ModelProfile:
    """``profile`` with an explicit mode (``AUTO`` keeps the profile's own)."""
    return profile if mode is ToolCallingMode.AUTO else replace(profile, mode=mode)
