"""``good-agent serve-agent module:agent``: an agent's UI endpoints and chat page on uvicorn.

The target names an [`Agent`][good_agent.Agent] (each run a conversation of its own, so
threads run concurrently) or a function returning one (each run its own agent). It
binds to loopback unless told otherwise, and refuses a non-loopback host without client
keys (the variable named by ``--api-keys-env``), as the bridge does.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, TextIO

from good_agent.server.auth import ClientKeys, is_loopback
from good_agent.server.config import ConfigError
from good_agent.server.serve import check_port
from good_agent.server.ui.app import agent_app
from good_agent.server.ui.threads import (
    PostgresThreadStore,
    RedisThreadStore,
    SQLiteThreadStore,
    ThreadStore,
)

DEFAULT_UI_PORT = 7286
"""The port ``serve-agent`` listens on by default (the bridge's is 7285)."""

DEFAULT_KEYS_ENV = "GOOD_AGENT_UI_KEYS"
"""The variable holding the client keys (comma-separated) unless another is named."""


def load_agent(spec: str) -> Any:
    """Import ``module:attr`` (dotted attributes followed); the current directory is importable.

    Raises:
        ValueError: ``spec`` is malformed or does not name an agent or a function.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected 'module:attr', got {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    value: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        value = getattr(value, part)
    from good_agent.core.agent import Agent

    if not isinstance(value, Agent) and not callable(value):
        raise ValueError(f"{spec} is {type(value).__name__}, not an Agent or a function")
    return value


def store_from(spec: str | None) -> ThreadStore:
    """A store from ``--store``: a ``redis://`` or ``postgresql://`` URL, an SQLite file,
    or memory (``None``)."""
    if spec is None:
        return SQLiteThreadStore()
    if spec.startswith(("redis://", "rediss://", "unix://")):
        return RedisThreadStore(spec)
    if spec.startswith(("postgresql://", "postgres://")):
        return PostgresThreadStore(spec)
    return SQLiteThreadStore(spec)


def serve_agent(
    target: str,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_UI_PORT,
    api_keys_env: str = DEFAULT_KEYS_ENV,
    store: str | None = None,
    out: TextIO | None = None,
) -> None:
    """Serve ``target`` until interrupted."""
    import uvicorn

    keys = ClientKeys.from_env(api_keys_env)
    if not is_loopback(host) and not keys.required:
        raise ConfigError(
            f"refusing to listen on {host} without client keys: set {api_keys_env} "
            "to a comma-separated list of keys, or bind to 127.0.0.1"
        )
    check_port(host, port)
    app = agent_app(load_agent(target), store=store_from(store), client_keys=keys)
    print(
        f"good-agent serve-agent: {target} on http://{host}:{port}/ "
        "(chat page at /, AG-UI at /ag-ui, Vercel AI at /vercel)",
        file=out or sys.stderr,
        flush=True,
    )
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=5)


def run_command(
    target: str,
    *,
    host: str | None = None,
    port: int | None = None,
    api_keys_env: str | None = None,
    store: str | None = None,
) -> int:
    """``good-agent serve-agent``: serve, or print why not and return 1."""
    try:
        serve_agent(
            target,
            host=host or "127.0.0.1",
            port=DEFAULT_UI_PORT if port is None else port,
            api_keys_env=api_keys_env or DEFAULT_KEYS_ENV,
            store=store,
        )
    except (ConfigError, ImportError, AttributeError, ValueError) as exc:
        print(f"good-agent serve-agent: {exc}", file=sys.stderr)
        return 1
    return 0
