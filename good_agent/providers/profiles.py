"""Data-only model profiles, resolved from the model name by a registry of rules.

A name may carry a provider prefix (``anthropic:claude-sonnet-4-6``,
``ollama:qwen2.5``); the prefix picks the provider and its codec. Rules match the
bare name (lower-cased, shell-style patterns); the first matching rule wins and
user rules come first. Users add rules in code with :func:`register_profile` or from
a TOML file with :func:`load_profiles`.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from good_agent.providers.prompting import Constraint, Notation, SchemaFormat
from good_agent.providers.strategies.base import ToolCallingMode


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """What good-agent knows about one model.

    ``provider`` names the transport (``openai``, ``openai-responses``,
    ``anthropic``, ``gemini``, ``ollama``), ``codec`` the wire format, ``model``
    the upstream id without the provider prefix, ``mode`` the default strategy,
    ``rule`` the pattern that matched (``None``: no rule, the fallback profile).
    For prompt-based modes, ``prompt_format`` (``json`` or ``typescript``) says how
    tools are listed and ``constrained_decoding`` (``json_object``, ``json_schema``,
    ``vllm``, ``vllm_guided`` or ``None``) which constrained output to ask for,
    and ``prompt_notation`` (``tags`` or ``thought``) how calls are written.
    """

    model: str
    provider: str = "openai"
    codec: str = "openai_chat"
    mode: ToolCallingMode = ToolCallingMode.VALIDATED
    supports_strict: bool = False
    supports_parallel: bool = True
    supports_tool_choice: bool = True
    supports_response_format: bool = False
    prompt_format: SchemaFormat = "json"
    constrained_decoding: Constraint | None = None
    rule: str | None = None
    prompt_notation: Notation = "tags"


IDENTITY_FIELDS = frozenset({"model", "provider", "codec", "rule"})
"""The :class:`ModelProfile` fields that say which model it describes and how it was
found, not what the model can do (a configuration cannot override them)."""


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """A provider prefix: its codec and the profile fields it implies."""

    name: str
    codec: str
    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ProfileRule:
    """``pattern`` (on the bare, lower-cased name) sets ``values`` on the profile.

    ``provider`` limits the rule to one provider; ``None`` matches any. With
    ``base_names`` (the default) the pattern is also tried on the name's base forms
    (see :func:`name_candidates`: the base model of a fine-tune, the last segment of
    an ``org/model`` name); rules that move a name to another provider match the
    whole name only.
    """

    pattern: str
    values: dict[str, Any]
    provider: str | None = None
    base_names: bool = True

    def matches(self, provider: str, name: str) -> bool:
        """Whether this rule applies to ``name`` served by ``provider``."""
        if self.provider is not None and self.provider != provider:
            return False
        pattern = self.pattern.lower()
        candidates = name_candidates(name) if self.base_names else [name.lower()]
        return any(fnmatch.fnmatchcase(candidate, pattern) for candidate in candidates)


def name_candidates(name: str) -> list[str]:
    """The lower-cased forms of a model name that rules are matched against.

    The whole name first, then the base model of an OpenAI fine-tune
    (``ft:gpt-4o-mini:org::id`` -> ``gpt-4o-mini``) and the last segment of a
    path-style name (``azure/gpt-4o`` -> ``gpt-4o``,
    ``meta-llama/Meta-Llama-3.1-8B-Instruct`` -> ``meta-llama-3.1-8b-instruct``).
    """
    whole = name.strip().lower()
    found = [whole]
    if whole.startswith("ft:"):
        found.append(whole[3:].split(":", 1)[0])
    for form in list(found):
        if "/" in form:
            found.append(form.rstrip("/").rsplit("/", 1)[-1])
    return list(dict.fromkeys(f for f in found if f))


_NATIVE = {"mode": ToolCallingMode.NATIVE, "supports_response_format": True}
_OPENAI = {**_NATIVE, "supports_strict": True}

BUILTIN_PROVIDERS: dict[str, ProviderInfo] = {
    "openai": ProviderInfo("openai", "openai_chat"),
    "openai-responses": ProviderInfo("openai-responses", "openai_responses"),
    "anthropic": ProviderInfo("anthropic", "anthropic_messages", dict(_NATIVE)),
    "gemini": ProviderInfo("gemini", "gemini", dict(_NATIVE)),
    "ollama": ProviderInfo("ollama", "ollama", {"supports_tool_choice": False}),
}
"""The provider prefixes known out of the box (``google`` is an alias of ``gemini``)."""

PROVIDER_ALIASES = {"google": "gemini", "google-gla": "gemini", "claude": "anthropic"}
"""Alternative spellings of provider prefixes."""

MODEL_PREFIXES = frozenset({"ft"})
"""Name prefixes that are part of a model id, not a provider (``ft:`` fine-tunes)."""

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

OPENAI_WITHOUT_TOOLS = ("o1-mini*", "o1-preview*")
"""OpenAI models whose API takes no tools (nor ``response_format``): tools are prompted."""

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

_OPENAI_RULES = [
    *(
        ProfileRule(pattern, {"mode": ToolCallingMode.VALIDATED}, provider=provider)
        for provider in ("openai", "openai-responses")
        for pattern in OPENAI_WITHOUT_TOOLS
    ),
    *(
        ProfileRule(pattern, dict(_OPENAI), provider=provider)
        for provider in ("openai", "openai-responses")
        for pattern in OPENAI_FAMILIES
    ),
]

BUILTIN_RULES: list[ProfileRule] = [
    ProfileRule("claude*", {"provider": "anthropic", **_NATIVE}, "openai", base_names=False),
    ProfileRule("gemini*", {"provider": "gemini", **_NATIVE}, "openai", base_names=False),
    *_OPENAI_RULES,
    ProfileRule("gpt-*", dict(_OPENAI), provider="openai-responses"),
    # Code models follow TypeScript-style tool listings best when prompted.
    ProfileRule("codellama*", {**_NATIVE, "prompt_format": "typescript"}),
    ProfileRule("starcoder*", {**_NATIVE, "prompt_format": "typescript"}),
    *[ProfileRule(pattern, dict(_NATIVE)) for pattern in OPEN_FAMILIES],
    ProfileRule("openai/*", dict(_NATIVE), base_names=False),
    ProfileRule("anthropic/*", dict(_NATIVE), base_names=False),
    ProfileRule("google/*", dict(_NATIVE), base_names=False),
    ProfileRule("mistralai/*", dict(_NATIVE), base_names=False),
    ProfileRule("*", {}, provider="anthropic"),
    ProfileRule("*", {}, provider="gemini"),
]
"""The built-in rules, in order (first match wins).

No built-in rule picks ``STRUCTURED``: it is chosen only by an explicit mode or a
user rule (``register_profile("my-model*", mode="structured")``).
"""


class ProfileRegistry:
    """Providers and rules; user rules are consulted before the built-in ones."""

    def __init__(self) -> None:
        self.providers: dict[str, ProviderInfo] = dict(BUILTIN_PROVIDERS)
        self.user_rules: list[ProfileRule] = []
        self.rules: list[ProfileRule] = list(BUILTIN_RULES)

    def split(self, model: str) -> tuple[str, str]:
        """``(provider, bare name)`` for a possibly prefixed model name."""
        prefix, sep, rest = model.partition(":")
        key = PROVIDER_ALIASES.get(prefix.lower(), prefix.lower())
        if sep and key in self.providers:
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
        if key in self.providers or self.resolve(model).rule is not None:
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
        info = self.providers.get(provider) or self.providers["openai"]
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
"""The process-wide registry used by :func:`get_profile` and :func:`get_adapter`."""


def get_profile(model: str, registry: ProfileRegistry | None = None) -> ModelProfile:
    """The :class:`ModelProfile` for ``model``."""
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
``base_url`` or by Ollama (see :func:`unknown_name_profile`)."""


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
