"""``good-agent serve-agent module:agent``: an agent's UI endpoints and chat page on uvicorn.

The target names an [`Agent`][good_agent.Agent] (each run a conversation of its own, so
threads run concurrently) or a function returning one (each run its own agent). It
binds to loopback unless told otherwise, and refuses a non-loopback host without client
keys (the variable named by ``--api-keys-env``), as the bridge does. It answers to the
loopback names and those given with ``--allowed-host`` (needed when bound to every
interface), and accepts state-changing requests from pages of its own origin and of
``--allowed-origin``.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from good_agent._util.loading import load_object
from good_agent.http.transport import transport_address, unusable_reason
from good_agent.http.wire_errors import shown_url
from good_agent.models.base import LanguageModel
from good_agent.models.traits import model_provider, model_transport
from good_agent.server.common.auth import ClientKeys, is_loopback
from good_agent.server.common.listen import check_port, hosts_for_bind, run_server
from good_agent.server.common.redaction import redact
from good_agent.server.config import ConfigError, check_allowed_host, check_allowed_origin
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
    value = load_object(spec)
    from good_agent.core.agent import Agent

    if not isinstance(value, Agent) and not callable(value):
        raise ValueError(f"{spec} is {type(value).__name__}, not an Agent or a function")
    return value


STORE_FORMS = (
    "a file path (threads.db) or sqlite:///threads.db for SQLite (sqlite:////abs/path.db "
    "for an absolute path), redis://host:6379/0 (or rediss://, unix://) for Redis, "
    "postgresql://user@host:5432/db for Postgres; none: in memory"
)
"""The forms ``--store`` takes, as ``--help`` and its errors name them."""

_SQLITE_URL = "sqlite:///"
_MEMORY = ("sqlite://", "sqlite:///:memory:", ":memory:")


def store_from(spec: str | None) -> ThreadStore:
    """A store from ``--store``, checked: a ``redis://`` or ``postgresql://`` URL (its
    server must answer), an SQLite file (a path or ``sqlite:///path``; its directory
    must exist), or memory (``None``).

    Raises:
        ConfigError: The form is not one of `STORE_FORMS`,
            or the store cannot be opened or reached; the message says which and why.
    """
    if spec is None or spec in _MEMORY:
        return SQLiteThreadStore()
    if spec.startswith(("redis://", "rediss://", "unix://")):
        _ping_redis(spec)
        return RedisThreadStore(spec)
    if spec.startswith(("postgresql://", "postgres://")):
        _ping_postgres(spec)
        return PostgresThreadStore(spec)
    if spec.startswith(_SQLITE_URL):
        path = spec[len(_SQLITE_URL) :]
    elif "://" in spec or spec.startswith("sqlite:"):
        scheme = spec.split(":", 1)[0]
        raise ConfigError(f"--store: {scheme}: is not a store this server knows; use {STORE_FORMS}")
    else:
        path = spec
    return _sqlite_file(spec, path)


def _sqlite_file(spec: str, path: str) -> SQLiteThreadStore:
    if not path:
        raise ConfigError(f"--store {spec}: no file named; use {STORE_FORMS}")
    folder = Path(path).expanduser().resolve().parent
    if not folder.is_dir():
        raise ConfigError(
            f"--store {spec}: the directory {folder} does not exist (create it, or name "
            "a file in an existing directory)"
        )
    try:
        return SQLiteThreadStore(str(Path(path).expanduser()))
    except sqlite3.Error as exc:
        raise ConfigError(f"--store {spec}: cannot open it as an SQLite database: {exc}") from None


def _ping_redis(url: str) -> None:
    shown = shown_url(url)
    try:
        import redis
    except ImportError:
        raise ConfigError(
            f"--store {shown} needs the 'redis' extra: pip install '.[redis]'"
        ) from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
    except ValueError as exc:
        raise ConfigError(f"--store {shown}: not a Redis URL ({exc}); use {STORE_FORMS}") from None
    try:
        client.ping()
    except redis.RedisError as exc:
        raise ConfigError(f"--store {shown}: the Redis server cannot be reached: {exc}") from None
    finally:
        client.close()


def _ping_postgres(url: str) -> None:
    shown = shown_url(url)
    try:
        import psycopg
    except ImportError:
        raise ConfigError(
            f"--store {shown} needs the 'postgres' extra: pip install '.[postgres]'"
        ) from None
    try:
        with psycopg.connect(url, connect_timeout=5) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as exc:
        reason = redact(str(exc)).strip().splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(
            f"--store {shown}: the Postgres server cannot be reached: {reason}"
        ) from None


def describe_model(model: Any) -> tuple[str, str | None]:
    """How the startup report names ``model`` (provider, model id and upstream URL), and
    why it cannot send (no key for its provider), if so."""
    provider = model_provider(model)
    name = model.model_name if isinstance(model, LanguageModel) else type(model).__name__
    transport = model_transport(model)
    if not provider:
        return f"{name} ({type(model).__name__}, no upstream)", None
    address = transport_address(transport) if transport is not None else None
    upstream = shown_url(address) if address else "the provider's default endpoint"
    unusable = unusable_reason(transport) if transport is not None else None
    return f"{provider} {name}, upstream {upstream}", str(unusable) if unusable else None


def _model_of(target: Any, entry: Any) -> Any:
    from good_agent.core.agent import Agent
    from good_agent.models.resolve import resolve_model

    try:
        if isinstance(entry, str):
            return resolve_model(entry)
        if entry is not None:
            return entry
        agent = target if isinstance(target, Agent) else target()
        return agent.model
    except Exception as exc:  # reported, not fatal: a run builds its own
        return exc


def startup_report(
    target: str,
    agent: Any,
    models: Mapping[str, Any],
    *,
    host: str,
    port: int,
    store: str | None,
    keys: ClientKeys,
    api_keys_env: str,
) -> list[str]:
    """The lines printed at startup: where, the endpoints, each model with its provider
    and upstream, the store, whether client keys are asked for, and a warning for each
    model that has no key for its provider (as `good-agent serve` prints)."""
    url = f"http://{host}:{port}"
    lines = [
        f"good-agent serve-agent: {target} on {url}/",
        "  endpoints: GET / (the chat page), POST /ag-ui (AG-UI), POST /vercel "
        "(Vercel AI UI message stream), GET /models, GET /health",
    ]
    warnings: list[str] = []
    for name, entry in models.items():
        model = _model_of(agent, entry)
        if isinstance(model, Exception):
            lines.append(f"  model {name!r}: not known before a run ({redact(str(model))})")
            continue
        described, problem = describe_model(model)
        lines.append(f"  model {name!r}: {described}")
        if problem:
            warnings.append(f"  warning: model {name!r}: {problem}; its chats fail until it is set")
    if store is None or store in _MEMORY:
        lines.append("  store: in memory (threads are lost when the server stops)")
    elif store.startswith(("redis://", "rediss://", "unix://")):
        lines.append(f"  store: Redis at {shown_url(store)}")
    elif store.startswith(("postgresql://", "postgres://")):
        lines.append(f"  store: Postgres at {shown_url(store)}")
    else:
        path = store[len(_SQLITE_URL) :] if store.startswith(_SQLITE_URL) else store
        lines.append(f"  store: SQLite file {Path(path).expanduser().resolve()}")
    if keys.required:
        lines.append(f"  client keys: on (from {api_keys_env})")
    else:
        lines.append(
            f"  client keys: off (anyone who reaches {host}:{port} may chat; "
            f"set {api_keys_env} to ask for keys)"
        )
    return lines + warnings


def serve_agent(
    target: str,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_UI_PORT,
    api_keys_env: str = DEFAULT_KEYS_ENV,
    store: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
    out: TextIO | None = None,
) -> None:
    """Serve ``target`` until interrupted, answering to the loopback names and
    ``allowed_hosts``, and to pages of its own origin and ``allowed_origins``."""
    keys = ClientKeys.from_env(api_keys_env)
    if not is_loopback(host) and not keys.required:
        raise ConfigError(
            f"refusing to listen on {host} without client keys: set {api_keys_env} "
            "to a comma-separated list of keys, or bind to 127.0.0.1"
        )
    try:
        hosts = tuple(check_allowed_host(name) for name in allowed_hosts)
        origins = tuple(check_allowed_origin(origin) for origin in allowed_origins)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    hosts = hosts_for_bind(host, hosts)
    check_port(host, port)
    agent = load_agent(target)
    app = agent_app(
        agent,
        store=store_from(store),
        client_keys=keys,
        allowed_hosts=hosts,
        allowed_origins=origins,
    )
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    report = startup_report(
        target,
        agent,
        app.state.served.models,
        host=host,
        port=port,
        store=store,
        keys=keys,
        api_keys_env=api_keys_env,
    )
    print("\n".join(report), file=out or sys.stderr, flush=True)
    run_server(app, host, port)


def run_command(
    target: str,
    *,
    host: str | None = None,
    port: int | None = None,
    api_keys_env: str | None = None,
    store: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
) -> int:
    """``good-agent serve-agent``: serve, or print why not and return 1."""
    try:
        serve_agent(
            target,
            host=host or "127.0.0.1",
            port=DEFAULT_UI_PORT if port is None else port,
            api_keys_env=api_keys_env or DEFAULT_KEYS_ENV,
            store=store,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
        )
    except (ConfigError, ImportError, AttributeError, ValueError) as exc:
        print(f"good-agent serve-agent: {exc}", file=sys.stderr)
        return 1
    return 0
