"""Model settings: which keys each wire format takes, and what a model's profile changes.

A model's settings (``Agent(model_settings=...)``, a model's ``settings=``, a bridge
route's ``settings``) are checked against the codec of the model's profile:

- a key the codec knows (its module's ``KNOWN_SETTINGS``, listed per provider in
  `PROVIDER_SETTINGS`) is sent the way that API takes it;
- a key the framework itself reads (`FRAMEWORK_SETTINGS`: ``mode``,
  ``parallel_tool_calls``, ``response_format``, ``strict_tools``, ``extra_body``,
  ``builtin_tools``) is consumed before the body is built (``extra_body``'s fields are
  merged into the body as they are: the escape for anything no list has; built-in tools
  are written by each codec in its API's form, see `good_agent.providers.builtin_tools`);
- a key another provider knows (``top_k`` to OpenAI, ``seed`` to Anthropic) is not sent;
- a key no provider knows (``temprature``) is a ``ValueError`` naming it and the close
  matches.

The profile then adapts what is sent (`apply_profile`): a reasoning model
(``sampling_settings=False``) gets no ``temperature``, ``top_p``, penalties or
``logit_bias`` (dropped with one warning per model), and ``max_tokens`` goes on the
wire under the profile's ``max_tokens_setting`` (``max_completion_tokens``).
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from good_agent.providers.profile_rules import ModelProfile
from good_agent.providers.registry import codec_names, get_codec
from good_agent.providers.vendor import Codec

__all__ = [
    "FRAMEWORK_SETTINGS",
    "PROVIDER_SETTINGS",
    "SAMPLING_SETTINGS",
    "apply_profile",
    "check_settings",
    "codec_of",
    "known_settings",
]

FRAMEWORK_SETTINGS = frozenset(
    {
        "mode",
        "parallel_tool_calls",
        "response_format",
        "strict_tools",
        "extra_body",
        "builtin_tools",
    }
)
"""Settings read by good-agent itself, for every provider."""

SAMPLING_SETTINGS = (
    "temperature",
    "top_p",
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "logprobs",
    "top_logprobs",
)
"""Settings a reasoning model refuses (dropped when its profile has no sampling settings)."""


def _provider_settings() -> dict[str, frozenset[str]]:
    return {name: get_codec(name).settings for name in codec_names()}


if TYPE_CHECKING:
    PROVIDER_SETTINGS: Mapping[str, frozenset[str]] = _provider_settings()
    """The settings each built-in codec takes, by codec name (``openai_chat``,
    ``openai_responses``, ``anthropic_messages``, ``gemini``, ``ollama``). A codec
    lists them in its module's ``KNOWN_SETTINGS``; ``thinking`` is known to every one.
    Computed when read: reading it loads every vendor's codecs."""


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        # PROVIDER_SETTINGS asks every codec: the vendors' folders load when it is read.
        if name == "PROVIDER_SETTINGS":
            return _provider_settings()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def codec_of(profile: ModelProfile) -> Codec | None:
    """The codec of ``profile`` (``None`` when none is registered under its name)."""
    try:
        return get_codec(profile.codec)
    except KeyError:
        return None


def known_settings(codec: Codec | None = None) -> frozenset[str]:
    """The settings ``codec`` takes (with the framework's); every provider's when ``None``."""
    if codec is not None:
        return FRAMEWORK_SETTINGS | codec.settings
    known = set(FRAMEWORK_SETTINGS)
    for name in codec_names():
        known |= get_codec(name).settings
    return frozenset(known)


def check_settings(settings: Mapping[str, Any], codec: Codec | None = None) -> None:
    """Raise ``ValueError`` for a setting no provider knows, naming it and the close
    matches (among ``codec``'s settings first). A key another provider knows passes:
    it is simply not sent to this one."""
    unknown = [key for key in settings if key not in known_settings()]
    if not unknown:
        return
    own = sorted(known_settings(codec)) if codec is not None else []
    everyone = sorted(known_settings())
    problems = []
    for key in unknown:
        close = difflib.get_close_matches(key, everyone, n=3)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        problems.append(f"{key!r}{hint}")
    where = f" for {codec.name}" if codec is not None and codec.settings else ""
    listed = f"; known{where}: {', '.join(own or everyone)}"
    raise ValueError(
        f"unknown model setting {', '.join(problems)}{listed}. A field a provider takes"
        " that no list has goes in extra_body={...}, merged into the request body as given"
    )


def apply_profile(
    settings: dict[str, Any], profile: ModelProfile, warned: set[str] | None = None
) -> dict[str, Any]:
    """``settings`` as ``profile``'s model takes them (a new dict when changed).

    Sampling settings are dropped for a model without them, with one warning (once
    per ``warned`` set: a model object passes its own); ``max_tokens`` is renamed to
    the profile's ``max_tokens_setting``.
    """
    out = settings
    if not profile.sampling_settings:
        dropped = [key for key in SAMPLING_SETTINGS if key in settings]
        if dropped:
            out = {k: v for k, v in settings.items() if k not in dropped}
            if warned is None or "sampling" not in warned:
                if warned is not None:
                    warned.add("sampling")
                warnings.warn(
                    f"model {profile.model!r} is a reasoning model that takes no sampling "
                    f"settings: {', '.join(dropped)} not sent",
                    UserWarning,
                    stacklevel=3,
                )
    wire = profile.max_tokens_setting
    if wire != "max_tokens" and "max_tokens" in out:
        out = {k: v for k, v in out.items() if k != "max_tokens"}
        out.setdefault(wire, settings["max_tokens"])
    return out
