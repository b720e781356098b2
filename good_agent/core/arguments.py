"""Checks of ``Agent(...)`` arguments at construction, with errors that say the fix.

A wrong ``model`` type or an unknown ``tool_choice`` would otherwise surface only at
the first request, far from the line that caused it.
"""

from __future__ import annotations

from typing import Any

from good_agent.models.base import LanguageModel
from good_agent.providers.tool_choice import parse_tool_choice
from good_agent.types.errors import ModelConfigError

TOOL_CHOICES = '"auto", "required", "none" or {"type": "function", "function": {"name": ...}}'
"""The accepted ``tool_choice`` values, as the errors list them."""


def check_model(model: Any) -> None:
    """Refuse a ``model`` that is neither a name nor a `LanguageModel`."""
    if model is None or isinstance(model, str):
        if isinstance(model, str) and not model.strip():
            raise ModelConfigError('model is an empty string: pass a name such as "gpt-4o-mini"')
        return
    if isinstance(model, type):
        raise ModelConfigError(
            f"model={model.__name__} is a class: pass an instance, e.g. model={model.__name__}(...)"
        )
    if not isinstance(model, LanguageModel) and not (
        hasattr(model, "model_name") and callable(getattr(model, "request", None))
    ):
        raise ModelConfigError(
            f"model must be a model name (str) or a LanguageModel (an object with model_name "
            f'and request()), not {type(model).__name__}: e.g. model="gpt-4o-mini"'
        )


def check_tool_choice(tool_choice: Any) -> None:
    """Refuse a ``tool_choice`` the providers cannot express."""
    if tool_choice is None:
        return
    try:
        parse_tool_choice(tool_choice)
    except (ValueError, TypeError, AttributeError):
        raise ModelConfigError(f"unknown tool_choice {tool_choice!r}: use {TOOL_CHOICES}") from None


def check_agent_arguments(model: Any, tool_choice: Any) -> None:
    """Run every construction-time check of `Agent`."""
    check_model(model)
    check_tool_choice(tool_choice)


def check_tool_limits(tool_timeout: Any, max_concurrency: Any) -> None:
    """Refuse a ``tool_timeout`` that is not a positive number of seconds, or a
    ``max_concurrency`` that is not a positive whole number."""
    if tool_timeout is not None and (
        isinstance(tool_timeout, bool)
        or not isinstance(tool_timeout, int | float)
        or not tool_timeout > 0
    ):
        raise ModelConfigError(
            f"tool_timeout must be a positive number of seconds or None, not {tool_timeout!r}"
        )
    if max_concurrency is not None and (
        isinstance(max_concurrency, bool)
        or not isinstance(max_concurrency, int)
        or max_concurrency < 1
    ):
        raise ModelConfigError(
            f"max_concurrency must be a whole number of at least 1 or None, not {max_concurrency!r}"
        )
