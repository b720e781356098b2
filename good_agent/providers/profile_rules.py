"""The parts every profile rule is made of: `ModelProfile` (what good-agent knows
about one model), `ProviderInfo` (a provider prefix), `ProfileRule` (a
pattern and the profile fields it sets) and the capability sets the vendors share.

Each vendor's rules are written with these in its own folder
(``providers/<vendor>/profile.py``); `good_agent.providers.profiles` lists the
built-ins and resolves a name against them.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Literal

from good_agent.providers.prompting import Constraint, Notation, SchemaFormat
from good_agent.providers.strategies.base import ToolCallingMode

MaxTokensSetting = Literal["max_tokens", "max_completion_tokens"]
"""The wire key a ``max_tokens`` setting is sent as (see `ModelProfile`)."""


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
    ``accepts_images``, ``accepts_documents`` and ``accepts_audio`` say which media
    parts of a user message the model takes (a part it cannot take fails before any
    request with [`ModelCapabilityError`][good_agent.ModelCapabilityError]); a model
    in a prompted mode (``validated``, ``parsed``) takes none, unless
    ``media_placeholder`` is set: then each part the model cannot take is sent as a
    short text placeholder instead. ``supports_thinking`` says whether the model
    reasons, so takes the ``thinking`` setting (see `good_agent.providers.thinking`).

    ``sampling_settings`` is false for reasoning models that refuse sampling settings
    (``temperature``, ``top_p``, penalties...: dropped with one warning), and
    ``max_tokens_setting`` names the wire key a ``max_tokens`` setting is sent as
    (``max_completion_tokens`` for OpenAI's reasoning models); see
    `good_agent.providers.settings`.
    """

    model: str
    provider: str = "openai"
    codec: str = "openai_chat"
    mode: ToolCallingMode = ToolCallingMode.VALIDATED
    supports_strict: bool = False
    supports_parallel: bool = True
    supports_tool_choice: bool = True
    supports_response_format: bool = False
    sampling_settings: bool = True
    max_tokens_setting: MaxTokensSetting = "max_tokens"
    prompt_format: SchemaFormat = "json"
    constrained_decoding: Constraint | None = None
    rule: str | None = None
    prompt_notation: Notation = "tags"
    accepts_images: bool = True
    accepts_documents: bool = True
    accepts_audio: bool = False
    media_placeholder: bool = False
    supports_thinking: bool = False


IDENTITY_FIELDS = frozenset({"model", "provider", "codec", "rule"})
"""The `ModelProfile` fields that say which model it describes and how it was
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
    (see `name_candidates`: the base model of a fine-tune, the last segment of
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


NATIVE: dict[str, Any] = {"mode": ToolCallingMode.NATIVE, "supports_response_format": True}
"""Profile fields of a model with a native tools API and ``response_format``."""

NATIVE_STRICT: dict[str, Any] = {**NATIVE, "supports_strict": True}
"""`NATIVE`, with strict schemas (OpenAI's own models)."""

REASONING: dict[str, Any] = {
    "sampling_settings": False,
    "max_tokens_setting": "max_completion_tokens",
}
"""Profile fields of a reasoning model (OpenAI's ``o1``/``o3``/``o4``/``gpt-5``): no sampling
settings, ``max_tokens`` sent as ``max_completion_tokens``."""
