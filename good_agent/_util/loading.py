"""Load an object named ``module:attr``, as the command line's ``serve-agent`` and
``mcp-serve`` take it."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any


def load_object(spec: str) -> Any:
    """Import ``module:attr`` and return the attribute (dotted attributes, such as
    ``module:obj.agent``, are followed). The current directory is importable, as it is
    for ``python -m``.

    Raises:
        ValueError: ``spec`` is not of the form ``module:attr``.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected 'module:attr', got {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    value: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        value = getattr(value, part)
    return value
