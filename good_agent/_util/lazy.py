"""Names a package face imports on first use (PEP 562 ``__getattr__`` and ``__dir__``).

A face lists each lazy name and the module that defines it; the module is imported the
first time the name is read (``from good_agent import ToolCache`` or
``good_agent.ToolCache``), and the value is then kept on the face, so later reads are
plain attribute reads. The same names are imported under ``if TYPE_CHECKING:`` in the
face, so type checkers, IDEs and the API reference see them as if they were imported.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_face"]


def lazy_face(
    face: str, table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package ``face``.

    ``table`` maps each lazy name to the module that defines it under the same name.
    An unknown name raises `AttributeError` as a plain module would.
    """

    def __getattr__(name: str) -> Any:
        home = table.get(name)
        if home is None:
            raise AttributeError(f"module {face!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[face], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[face])) | set(table))

    return __getattr__, __dir__
