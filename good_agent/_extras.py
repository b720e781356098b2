"""Optional extras: the error raised when one is not installed, naming what to install.

``good-agent`` keeps its required dependencies small; the bridge, MCP, Redis,
DBOS, Anthropic, Gemini and OpenTelemetry support each live in an extra. Code that needs
one calls `require_extra` (or turns a caught ``ModuleNotFoundError`` into a
`MissingExtraError` with `missing_extra`), so a missing extra ends in
one sentence that says what to install, never in a bare traceback.
"""

from __future__ import annotations

import importlib

from good_agent.types.errors import GoodAgentError

EXTRAS: dict[str, tuple[str, ...]] = {
    "server": ("starlette", "uvicorn"),
    "ui": ("starlette", "uvicorn", "ag_ui"),
    "mcp": ("mcp", "mcp_types"),
    "redis": ("redis",),
    "anthropic": ("anthropic",),
    "google": ("google.genai",),
    "otel": ("opentelemetry",),
    "repair": ("json_repair",),
    "dbos": ("dbos",),
}
"""The top-level modules each extra provides."""


class MissingExtraError(GoodAgentError, ImportError):
    """A feature needs an optional extra that is not installed.

    Also an `ImportError`, so ``except ImportError`` keeps working.
    """

    def __init__(self, extra: str, feature: str, module: str | None) -> None:
        self.extra, self.feature, self.module = extra, feature, module
        missing = f" ({module} is not installed)" if module else ""
        super().__init__(
            f"{feature} needs the '{extra}' extra{missing}: from your good-agent "
            f"checkout, pip install '.[{extra}]' (the 'good-agent' name on the public "
            "index is another project)",
            name=module,
        )


def missing_extra(extra: str, feature: str, exc: ImportError) -> MissingExtraError:
    """The `MissingExtraError` for ``exc``, raised while importing ``extra``'s modules."""
    return MissingExtraError(extra, feature, exc.name)


def require_extra(extra: str, feature: str) -> None:
    """Import ``extra``'s modules, or raise `MissingExtraError` naming ``extra``."""
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            raise missing_extra(extra, feature, exc) from None
