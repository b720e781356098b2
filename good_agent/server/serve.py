"""Running the bridge with uvicorn: ``good-agent serve --config FILE [--workers N]``.

The bridge binds to loopback unless told otherwise, and refuses a non-loopback
host unless client keys are configured (``[server].api_keys_env`` naming a
non-empty variable). At startup it prints the models it serves with their modes,
and warns about each ``api_key_env`` that is not set. With ``workers > 1``,
uvicorn runs that many worker processes accepting on the same socket; the bridge
keeps no state that workers would need to share.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

from good_agent._extras import require_extra
from good_agent.server.auth import ClientKeys, is_loopback
from good_agent.server.config import BridgeConfig, ConfigError, load_config

CONFIG_ENV = "GOOD_AGENT_BRIDGE_CONFIG"
"""The variable through which worker processes learn the configuration file."""


def check_exposure(config: BridgeConfig, host: str) -> None:
    """Refuse to listen on a non-loopback ``host`` without client keys."""
    if is_loopback(host):
        return
    if not ClientKeys.from_env(config.server.api_keys_env).required:
        where = config.server.api_keys_env or "[server].api_keys_env"
        raise ConfigError(
            f"refusing to listen on {host} without client keys: set {where} "
            "to a comma-separated list of keys, or bind to 127.0.0.1"
        )


def check_port(host: str, port: int) -> None:
    """Raise :class:`ConfigError` naming the port, and how to pick another, if it is taken."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
            raise ConfigError(
                f"port {port} on {host} is already in use: stop the other server, or choose "
                "another port with --port N (or [server].port in the configuration)"
            ) from None


def startup_report(config: BridgeConfig, host: str, port: int, workers: int = 1) -> list[str]:
    """The lines printed at startup: where, which models and modes, and unset keys."""
    where = f"http://{host}:{port}/v1"
    plural = "es" if workers != 1 else ""
    lines = [f"good-agent bridge on {where} ({workers} worker process{plural})"]
    for entry in config.models:
        upstream = entry.base_url or "the provider's default endpoint"
        lines.append(
            f"  model {entry.name!r}: {entry.provider} {entry.model}, mode {entry.mode}, "
            f"text format {entry.text_format}, upstream {upstream}"
        )
    for entry in config.models:
        if entry.api_key_env and not os.environ.get(entry.api_key_env):
            lines.append(
                f"  warning: {entry.api_key_env} is not set: requests to {entry.name!r} "
                "will be refused by its upstream until it is"
            )
    return lines


def app_from_env() -> Any:
    """The ASGI app of the configuration named by :data:`CONFIG_ENV` (a worker's factory)."""
    from good_agent.server.app import create_app

    return create_app(load_config(os.environ[CONFIG_ENV]))


def serve(
    path: str | Path,
    *,
    host: str | None = None,
    port: int | None = None,
    workers: int = 1,
    out: TextIO | None = None,
) -> None:
    """Load the configuration at ``path`` and serve until interrupted."""
    require_extra("server", "The bridge server (good-agent serve)")
    import uvicorn

    from good_agent.server.app import create_app

    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {workers}")
    config = load_config(path)
    host = host or config.server.host
    port = config.server.port if port is None else port
    check_exposure(config, host)
    check_port(host, port)
    logging.basicConfig(
        level=config.server.log_level.upper(), format="%(levelname)s %(name)s %(message)s"
    )
    print("\n".join(startup_report(config, host, port, workers)), file=out or sys.stderr)
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": config.server.log_level,
        "access_log": False,
        "timeout_graceful_shutdown": 5,
    }
    if workers == 1:
        uvicorn.run(create_app(config), **options)
        return
    os.environ[CONFIG_ENV] = str(Path(path).resolve())
    uvicorn.run("good_agent.server.serve:app_from_env", factory=True, workers=workers, **options)


def run_command(
    config: str, host: str | None = None, port: int | None = None, workers: int = 1
) -> int:
    """``good-agent serve``: serve, or print why not and return 1."""
    try:
        serve(config, host=host, port=port, workers=workers)
    except ConfigError as exc:
        print(f"good-agent serve: {exc}", file=sys.stderr)
        return 1
    return 0
