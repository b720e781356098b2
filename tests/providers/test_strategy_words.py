"""Words: "Adapter" means ToolAdapter; the tool-calling strategies are strategies."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import good_agent
from good_agent import get_adapter
from good_agent.adapters import ToolAdapter
from good_agent.providers.strategies import (
    CodecStrategy,
    NativeStrategy,
    StructuredStrategy,
    ToolCallingStrategy,
    ValidatedStrategy,
)


def our_classes() -> list[type]:
    """Every class defined in a module of ``good_agent``."""
    found: list[type] = []
    for info in pkgutil.walk_packages(good_agent.__path__, "good_agent."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        found += [
            value
            for value in vars(module).values()
            if inspect.isclass(value) and value.__module__ == info.name
        ]
    return found


def test_only_the_tool_adapter_machinery_is_called_adapter() -> None:
    misnamed = {
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in our_classes()
        if "Adapter" in cls.__name__
        and not issubclass(cls, ToolAdapter)
        and not cls.__module__.startswith("good_agent.adapters")
    }
    assert misnamed == set()


def test_get_adapter_stays_the_entry_point_and_returns_a_strategy() -> None:
    native = get_adapter("gpt-4o-mini")
    assert isinstance(native, NativeStrategy)
    assert isinstance(native, CodecStrategy) and isinstance(native, ToolCallingStrategy)
    assert isinstance(get_adapter("gpt-4o-mini", "structured"), StructuredStrategy)
    assert isinstance(get_adapter("gpt-4o-mini", "validated"), ValidatedStrategy)
    assert "strategy" in (get_adapter.__doc__ or "")


def test_strategy_for_is_the_name_and_get_adapter_its_alias() -> None:
    from good_agent import strategy_for

    for mode in ("auto", "native", "structured", "validated"):
        assert type(strategy_for("gpt-4o-mini", mode)) is type(get_adapter("gpt-4o-mini", mode))
    assert "strategy_for" in (get_adapter.__doc__ or "")
