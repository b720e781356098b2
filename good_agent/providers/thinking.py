"""The ``thinking`` setting: one way to ask any reasoning model to think, translated per API.

``thinking`` in a model's or a run's settings is ``"low"``, ``"medium"``, ``"high"``,
a budget of tokens (an ``int``), ``True`` (``"medium"``) or ``False`` (off). Each codec
puts it on its wire:

- OpenAI Chat Completions: ``reasoning_effort`` (a budget becomes the nearest effort).
- OpenAI Responses: ``reasoning: {"effort", "summary": "auto"}`` (the summary is the
  reasoning text that comes back).
- Anthropic Messages: ``thinking: {"type": "enabled", "budget_tokens"}`` (at least
  1024); ``temperature`` (but 1), ``top_k`` and a ``top_p`` under 0.95 are left out
  with a warning, ``max_tokens`` is set above the budget when not given (and must be
  above it when given); ``False`` is ``{"type": "disabled"}``.
- Gemini: ``thinking_config: {"thinking_budget" or "thinking_level",
  "include_thoughts": true}`` (``False``: a budget of 0).
- Ollama: ``think: true`` (``False``: ``think: false``).

An effort becomes a budget as LiteLLM counts it (`EFFORT_BUDGETS`), and a budget
an effort by the same steps. A model whose profile has no reasoning
(``supports_thinking``) refuses the setting before any request
(`check_thinking`). A vendor's own form (``reasoning_effort``, ``reasoning``, an
Anthropic ``thinking`` object, ``thinking_config``) still passes as it is and wins.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from good_agent.providers.types import JSONDict
from good_agent.types.errors import ModelCapabilityError

logger = logging.getLogger("good_agent.providers")

Effort = Literal["low", "medium", "high"]
"""A reasoning effort by name."""

EFFORTS: tuple[Effort, ...] = ("low", "medium", "high")
"""The efforts ``thinking`` takes by name."""

EFFORT_BUDGETS: dict[Effort, int] = {"low": 1024, "medium": 2048, "high": 4096}
"""The budget of tokens an effort stands for (LiteLLM's numbers)."""

ANTHROPIC_MIN_BUDGET = 1024
"""The smallest ``budget_tokens`` Anthropic accepts."""

ANTHROPIC_ANSWER_TOKENS = 4096
"""The tokens left for the answer above the budget when ``max_tokens`` is not set."""

THINKING_PART = "the thinking setting"
"""What a [`ModelCapabilityError`][good_agent.ModelCapabilityError] refusing ``thinking``
names as the part the model cannot take."""

Thinking = Effort | int | Literal[False]
"""A checked ``thinking`` value (``True`` has become ``"medium"``)."""


def parse_thinking(value: Any) -> Thinking | None:
    """``value`` as a checked ``thinking`` value (``None``: not set); a
    `ValueError` says which values are accepted."""
    if value is None:
        return None
    if value is True:
        return "medium"
    if value is False:
        return False
    if isinstance(value, str) and value in EFFORTS:
        return value
    if isinstance(value, int) and value > 0:
        return value
    raise ValueError(
        f"thinking must be 'low', 'medium', 'high', a budget of tokens (an int above 0), "
        f"True or False; got {value!r}"
    )


def setting_of(settings: JSONDict) -> Thinking | None:
    """The checked ``thinking`` of ``settings``; ``None`` when it is not set or is a
    vendor's own form (an object, such as Anthropic's, sent as it is)."""
    raw = settings.get("thinking")
    return None if isinstance(raw, dict) else parse_thinking(raw)


def check_thinking(settings: JSONDict, supports: bool, model: str) -> None:
    """Refuse a ``thinking`` setting that asks a model without reasoning to think
    ([`ModelCapabilityError`][good_agent.ModelCapabilityError], a ``ValueError``)."""
    value = setting_of(settings)
    if value is None or value is False or supports:
        return
    raise ModelCapabilityError(
        model,
        THINKING_PART,
        "its profile has no reasoning (supports_thinking); use a reasoning model, "
        "or set supports_thinking in its profile if it does reason",
    )


def effort_of(value: Effort | int) -> Effort:
    """The effort of a ``thinking`` value (a budget: the nearest effort at or above it)."""
    if isinstance(value, str):
        return value
    for effort in EFFORTS:
        if value <= EFFORT_BUDGETS[effort]:
            return effort
    return "high"


def budget_of(value: Effort | int) -> int:
    """The budget of tokens of a ``thinking`` value."""
    return EFFORT_BUDGETS[value] if isinstance(value, str) else value


def openai_chat(settings: JSONDict) -> JSONDict:
    """The Chat Completions fields for ``settings``' ``thinking``."""
    value = setting_of(settings)
    if value is None or value is False:
        return {}
    return {"reasoning_effort": effort_of(value)}


def openai_responses(settings: JSONDict) -> JSONDict:
    """The Responses API fields for ``settings``' ``thinking``."""
    value = setting_of(settings)
    if value is None or value is False:
        return {}
    return {"reasoning": {"effort": effort_of(value), "summary": "auto"}}


def anthropic(body: JSONDict, settings: JSONDict) -> None:
    """Put ``settings``' ``thinking`` on a Messages API ``body`` (with the sampling
    settings already on it), with the rules Anthropic sets for extended thinking."""
    raw = settings.get("thinking")
    if isinstance(raw, dict):  # Anthropic's own form, as it is
        body["thinking"] = raw
        return
    value = parse_thinking(raw)
    if value is None:
        return
    if value is False:
        body["thinking"] = {"type": "disabled"}
        return
    budget = max(budget_of(value), ANTHROPIC_MIN_BUDGET)
    body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    dropped = [key for key in ("temperature",) if key in body and body[key] != 1]
    if "top_k" in body:
        dropped.append("top_k")
    if "top_p" in body and body["top_p"] < 0.95:
        dropped.append("top_p")
    for key in dropped:
        del body[key]
    if dropped:
        logger.warning(
            "%s left out: with thinking, Anthropic takes no temperature but 1, no top_k "
            "and no top_p under 0.95",
            ", ".join(dropped),
        )
    limits = ("max_tokens", "max_completion_tokens", "max_output_tokens")
    if not any(settings.get(key) for key in limits):
        body["max_tokens"] = budget + ANTHROPIC_ANSWER_TOKENS
    elif int(body["max_tokens"]) <= budget:
        raise ValueError(
            f"max_tokens ({body['max_tokens']}) must be greater than the thinking budget "
            f"({budget}): Anthropic counts the thinking in max_tokens"
        )


def gemini(model: str, settings: JSONDict) -> JSONDict | None:
    """The Gemini ``thinking_config`` for ``settings``' ``thinking`` (``None``: not set).

    Gemini 3 models take an effort as ``thinking_level``; Gemini 2.5 models a
    ``thinking_budget`` (``0``: off)."""
    value = setting_of(settings)
    if value is None:
        return None
    if value is False:
        return {"thinking_budget": 0}
    gemini_3 = model.removeprefix("models/").startswith("gemini-3")
    if gemini_3 and isinstance(value, str):
        return {"thinking_level": value, "include_thoughts": True}
    return {"thinking_budget": budget_of(value), "include_thoughts": True}
