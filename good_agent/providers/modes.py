"""Tool-calling modes and `strategy_for`, the strategy for a model name (`get_adapter`
is its original name, kept).

The rule: ``AUTO`` takes the mode from the model's
`ModelProfile`, which is ``NATIVE`` for every
model whose profile supports native tools (OpenAI's ``gpt-4o*``, ``gpt-4.1*``,
``o1*``/``o3*``/``o4*``, ``gpt-5*``, Claude, Gemini, and the open families served
with a tools API), with strict schemas for each tool whose schema allows it.
``STRUCTURED`` is used only when asked for: an explicit mode, or a profile rule
registered with ``mode="structured"``. Names no rule knows get ``VALIDATED``
(prompt-based) here; a model served from a ``base_url`` or by Ollama is instead
"native with fallback" (`unknown_name_profile`,
applied by the model core, which can fall back). The chosen mode is logged at DEBUG on
the ``good_agent.providers.modes`` logger once per model object and mode (see
`log_mode`).
"""

from __future__ import annotations

import logging

from good_agent.providers.profiles import ModelProfile, ProfileRegistry, get_profile, with_mode
from good_agent.providers.prompting import Constraint, PromptStyle
from good_agent.providers.registry import get_codec
from good_agent.providers.strategies.base import (
    ToolCallingMode,
    ToolCallingStrategy,
    ToolCallValidation,
)
from good_agent.providers.strategies.native import CodecStrategy, NativeStrategy
from good_agent.providers.strategies.prompted import PromptedStrategy, ValidatedStrategy
from good_agent.providers.strategies.structured import StructuredStrategy

STRATEGIES: dict[ToolCallingMode, type[CodecStrategy]] = {
    ToolCallingMode.NATIVE: NativeStrategy,
    ToolCallingMode.STRUCTURED: StructuredStrategy,
    ToolCallingMode.VALIDATED: ValidatedStrategy,
    ToolCallingMode.PARSED: PromptedStrategy,
}
"""The tool-calling strategy class for each explicit mode."""


logger = logging.getLogger("good_agent.providers.modes")


def strategy_for_profile(profile: ModelProfile) -> CodecStrategy:
    """The tool-calling strategy a profile asks for (``AUTO`` with no rule: ``VALIDATED``)."""
    mode = profile.mode if profile.mode is not ToolCallingMode.AUTO else ToolCallingMode.VALIDATED
    strict: bool | None = None if profile.supports_strict else False
    codec = get_codec(profile.codec)
    log_mode(profile, mode)
    if mode in (ToolCallingMode.VALIDATED, ToolCallingMode.PARSED):
        style = PromptStyle(
            schema_format="typescript" if profile.prompt_format == "typescript" else "json",
            constrained=_constraint(profile.constrained_decoding),
            notation="thought" if profile.prompt_notation == "thought" else "tags",
        )
        return STRATEGIES[mode](profile.model, codec, strict=strict, style=style)  # type: ignore[call-arg]
    return STRATEGIES[mode](profile.model, codec, strict=strict)


def log_mode(profile: ModelProfile, mode: ToolCallingMode) -> None:
    """Log (DEBUG) which tool-calling mode was chosen for ``profile`` and why.

    Called each time a strategy is built: a model object builds one per mode it uses
    (`StrategyChoice` keeps them), so it logs once
    per model object and mode; each `strategy_for` call logs its own choice.
    """
    why = f"rule {profile.rule!r}" if profile.rule is not None else "no rule matched"
    strict = "strict tools where the schema allows" if profile.supports_strict else "no strict"
    logger.debug(
        "model %s:%s uses %s tool calling (%s; %s)",
        profile.provider,
        profile.model,
        mode.value,
        why,
        strict,
    )


def _constraint(value: str | None) -> Constraint | None:
    if value in (None, "", "none"):
        return None
    if value not in ("json_object", "json_schema", "vllm", "vllm_guided"):
        raise ValueError(
            f"unknown constrained_decoding {value!r}: "
            "use json_object, json_schema, vllm or vllm_guided"
        )
    return value  # type: ignore[return-value]


def strategy_for(
    model: str,
    mode: ToolCallingMode | str = ToolCallingMode.AUTO,
    *,
    registry: ProfileRegistry | None = None,
) -> CodecStrategy:
    """The tool-calling strategy (a `ToolCallingStrategy`) for ``model`` in ``mode``:
    native, structured, validated or parsed.

    ``AUTO`` follows the profile (see the module docs for the rule); any other mode
    is used as given.
    """
    profile = with_mode(get_profile(model, registry), ToolCallingMode(mode))
    return strategy_for_profile(profile)


def get_adapter(
    model: str,
    mode: ToolCallingMode | str = ToolCallingMode.AUTO,
    *,
    registry: ProfileRegistry | None = None,
) -> CodecStrategy:
    """The original design's name of [`strategy_for`][good_agent.strategy_for], kept as
    an alias: the same tool-calling strategy for ``model`` in ``mode``.

    What it returns is a strategy (native, structured, validated or parsed), not a tool
    adapter: in good-agent "adapter" means [`ToolAdapter`][good_agent.ToolAdapter] only.
    """
    return strategy_for(model, mode, registry=registry)


__all__ = [
    "STRATEGIES",
    "ToolCallValidation",
    "ToolCallingMode",
    "ToolCallingStrategy",
    "get_adapter",
    "strategy_for",
    "strategy_for_profile",
]
