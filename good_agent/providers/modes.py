"""Tool-calling modes and :func:`get_adapter`, the strategy for a model name.

``AUTO`` takes the mode from the model's :class:`~good_agent.providers.profiles.ModelProfile`;
an explicit mode overrides it.
"""

from __future__ import annotations

from good_agent.providers.codecs import get_codec
from good_agent.providers.profiles import ModelProfile, ProfileRegistry, get_profile, with_mode
from good_agent.providers.prompting import Constraint, PromptStyle
from good_agent.providers.strategies.base import (
    ToolCallingAdapter,
    ToolCallingMode,
    ToolCallValidation,
)
from good_agent.providers.strategies.native import CodecAdapter, NativeAdapter
from good_agent.providers.strategies.prompted import PromptedAdapter, ValidatedAdapter
from good_agent.providers.strategies.structured import StructuredAdapter

ADAPTERS: dict[ToolCallingMode, type[CodecAdapter]] = {
    ToolCallingMode.NATIVE: NativeAdapter,
    ToolCallingMode.STRUCTURED: StructuredAdapter,
    ToolCallingMode.VALIDATED: ValidatedAdapter,
    ToolCallingMode.PARSED: PromptedAdapter,
}
"""The adapter class for each explicit mode."""


def adapter_for_profile(profile: ModelProfile) -> CodecAdapter:
    """The adapter a profile asks for."""
    mode = profile.mode if profile.mode is not ToolCallingMode.AUTO else ToolCallingMode.VALIDATED
    strict: bool | None = None if profile.supports_strict else False
    codec = get_codec(profile.codec)
    if mode in (ToolCallingMode.VALIDATED, ToolCallingMode.PARSED):
        style = PromptStyle(
            schema_format="typescript" if profile.prompt_format == "typescript" else "json",
            constrained=_constraint(profile.constrained_decoding),
        )
        return ADAPTERS[mode](profile.model, codec, strict=strict, style=style)  # type: ignore[call-arg]
    return ADAPTERS[mode](profile.model, codec, strict=strict)


def _constraint(value: str | None) -> Constraint | None:
    if value in (None, "", "none"):
        return None
    if value not in ("json_object", "json_schema", "vllm", "vllm_guided"):
        raise ValueError(
            f"unknown constrained_decoding {value!r}: "
            "use json_object, json_schema, vllm or vllm_guided"
        )
    return value  # type: ignore[return-value]


def get_adapter(
    model: str,
    mode: ToolCallingMode | str = ToolCallingMode.AUTO,
    *,
    registry: ProfileRegistry | None = None,
) -> CodecAdapter:
    """The :class:`ToolCallingAdapter` for ``model`` in ``mode``."""
    profile = with_mode(get_profile(model, registry), ToolCallingMode(mode))
    return adapter_for_profile(profile)


__all__ = [
    "ADAPTERS",
    "ToolCallValidation",
    "ToolCallingAdapter",
    "ToolCallingMode",
    "adapter_for_profile",
    "get_adapter",
]
