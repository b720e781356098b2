"""Google-style docstring reading: a summary and per-argument descriptions."""

from __future__ import annotations

import inspect

_SECTION_HEADERS = {
    "args:",
    "arguments:",
    "parameters:",
    "params:",
    "returns:",
    "return:",
    "raises:",
    "yields:",
    "examples:",
    "example:",
    "note:",
    "notes:",
}
_ARG_HEADERS = {"args:", "arguments:", "parameters:", "params:"}


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Return ``(summary, {argument: description})`` from a Google-style docstring.

    The summary is the text before the first section header. Argument entries are
    ``name: text`` or ``name (type): text``, continued on more-indented lines.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    entry_indent = -1
    for line in lines:
        stripped = line.strip()
        lowered = stripped.lower()
        indent = len(line) - len(line.lstrip())
        if lowered in _SECTION_HEADERS and indent == 0:
            section = lowered
            current = None
            entry_indent = -1
            continue
        if section is None:
            summary.append(line)
            continue
        if section not in _ARG_HEADERS or not stripped:
            continue
        if entry_indent < 0:
            entry_indent = indent
        if indent <= entry_indent and ":" in stripped:
            name, _, text = stripped.partition(":")
            name = name.split("(")[0].strip().lstrip("*")
            current = name
            args[name] = text.strip()
        elif current is not None:
            args[current] = f"{args[current]} {stripped}".strip()
    return "\n".join(summary).strip(), args
