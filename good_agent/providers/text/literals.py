"""Safe evaluation of Python literals and keyword-only calls by walking the AST.

Nothing is ever evaluated: only constants, lists, tuples, dicts with string keys,
signed numbers and the names ``true``/``false``/``null`` are accepted.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Any

from good_agent.providers.text.scanner import MAX_DEPTH, nesting_depth

_NAMES: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
}
_PARSE_ERRORS = (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError)
# UnicodeEncodeError (lone surrogates in the source) is a ValueError.
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile("\\\\[\ud800-\udfff]")


class NotLiteralError(ValueError):
    """Raised inside this module when a node is not a plain literal."""


def literal_value(node: ast.expr) -> Any:
    """Return the JSON-compatible value of a literal node, or raise NotLiteralError."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, str | bool | int | float):
            return value
        raise NotLiteralError("unsupported constant")
    if isinstance(node, ast.List | ast.Tuple):
        return [literal_value(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        result: dict[str, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                raise NotLiteralError("dict keys must be strings")
            result[key.value] = literal_value(item)
        return result
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = literal_value(node.operand)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
        raise NotLiteralError("sign on a non-number")
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    raise NotLiteralError(f"not a literal: {type(node).__name__}")


def parse_expression(text: str) -> ast.expr | None:
    """Parse ``text`` as one Python expression, or return None.

    Input nested deeper than `MAX_DEPTH` is refused before parsing. Lone
    surrogates (which the parser cannot encode) are written as ``\\uXXXX``
    escapes first, so inside a string literal they decode to themselves.
    """
    if nesting_depth(text) > MAX_DEPTH:
        return None
    try:
        return _parse(text)
    except UnicodeEncodeError:
        if _ESCAPED_SURROGATE.search(text):
            return None  # an escape would change what the backslash means
        text = _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    except _PARSE_ERRORS:
        return None
    try:
        return _parse(text)
    except _PARSE_ERRORS:
        return None


def _parse(text: str) -> ast.expr:
    with warnings.catch_warnings():
        # Model text like '\\d' inside a string literal is an invalid escape:
        # the parse keeps it as written; no warning is printed for model output.
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        return ast.parse(text.strip(), mode="eval").body


def python_literal(text: str) -> tuple[bool, Any]:
    """Decode a Python literal such as a dict repr: ``(True, value)`` or ``(False, None)``."""
    node = parse_expression(text)
    if node is None:
        return False, None
    try:
        return True, literal_value(node)
    except (NotLiteralError, RecursionError):
        return False, None


def python_calls(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """Decode ``[f(a=1), g(x="y")]`` into ``[(name, kwargs), ...]``, or None.

    Every element must be a call of a (dotted) name with keyword arguments whose
    values are literals; anything else makes the whole list not a call list.
    """
    node = parse_expression(text)
    if not isinstance(node, ast.List) or not node.elts:
        return None
    calls: list[tuple[str, dict[str, Any]]] = []
    try:
        for element in node.elts:
            if not isinstance(element, ast.Call) or element.args:
                return None
            name = _dotted_name(element.func)
            if name is None:
                return None
            kwargs: dict[str, Any] = {}
            for keyword in element.keywords:
                if keyword.arg is None:
                    return None
                kwargs[keyword.arg] = literal_value(keyword.value)
            calls.append((name, kwargs))
    except (NotLiteralError, RecursionError):
        return None
    return calls


def _dotted_name(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
