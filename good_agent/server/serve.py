"""Running the bridge with uvicorn: ``good-agent serve --config FILE [--workers N]``.

The bridge binds to loopback unless told otherwise, and refuses a non-loopback
host unless client keys are configured (``[server].api_keys_env`` naming a
non-empty variable). It answers to the loopback names, plus the names given with
``--allowed-host`` (or ``[server].allowed_hosts``); bound to every interface
(``0.0.0.0``) it needs them (see `hosts_for_bind`). At startup it prints the
models it serves with their modes, and warns about each ``api_key_env`` that is not
set. With ``workers > 1``, uvicorn runs that many worker processes accepting on the
same socket; the bridge keeps no state that workers would need to share.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from good_agent._extras import require_extra
from good_agent.server.common.auth import ClientKeys, is_loopback
from good_agent.server.common.heap import settle_heap
from good_agent.server.common.listen import (
    check_port,
    hosts_for_bind,
    run_server,
    server_options,
)
from good_agent.server.config import BridgeConfig, ConfigError, ServerConfig, load_config

CONFIG_ENV = "GOOD_AGENT_BRIDGE_CONFIG"
"""The variable through which worker processes learn the configuration file."""

SITES_ENV = "GOOD_AGENT_BRIDGE_SITES"
"""The variable through which worker processes learn the hosts and origins given on the
command line."""


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
    """The ASGI app of the configuration named by `CONFIG_ENV` (a worker's factory)."""
    from good_agent.server.app import create_app

    sites = json.loads(os.environ.get(SITES_ENV) or "{}")
    config = with_sites(
        load_config(os.environ[CONFIG_ENV]),
        tuple(sites.get("hosts", ())),
        tuple(sites.get("origins", ())),
    )
    app = create_app(config)
    settle_heap()  # (each worker process its own)
    return app


def with_sites(
    config: BridgeConfig, hosts: tuple[str, ...], origins: tuple[str, ...]
) -> BridgeConfig:
    """``config`` with ``hosts`` and ``origins`` added to its allowed hosts and origins
    (validated as the configuration's are)."""
    if not hosts and not origins:
        return config
    server = config.server
    data = server.model_dump()
    data["allowed_hosts"] = tuple(dict.fromkeys((*server.allowed_hosts, *hosts)))
    data["allowed_origins"] = tuple(dict.fromkeys((*server.allowed_origins, *origins)))
    try:
        checked = ServerConfig.model_validate(data)
    except ValidationError as exc:
        reasons = "; ".join(str(err["msg"]) for err in exc.errors())
        raise ConfigError(reasons) from None
    return config.model_copy(update={"server": checked})


def serve(
    path: str | Path,
    *,
    host: str | None = None,
    port: int | None = None,
    workers: int = 1,
    allowed_hosts: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
    out: TextIO | None = None,
) -> None:
    """Load the configuration at ``path`` and serve until interrupted.

    ``allowed_hosts`` and ``allowed_origins`` (``--allowed-host``, ``--allowed-origin``)
    are added to the configuration's ``[server]`` lists."""
    require_extra("server", "The bridge server (good-agent serve)")
    import uvicorn

    from good_agent.server.app import create_app

    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {workers}")
    config = with_sites(load_config(path), allowed_hosts, allowed_origins)
    host = host or config.server.host
    port = config.server.port if port is None else port
    check_exposure(config, host)
    hosts = hosts_for_bind(host, config.server.allowed_hosts)
    config = with_sites(config, hosts, ())
    check_port(host, port)
    logging.basicConfig(
        level=config.server.log_level.upper(), format="%(levelname)s %(name)s %(message)s"
    )
    print("\n".join(startup_report(config, host, port, workers)), file=out or sys.stderr)
    options: dict[str, Any] = {"log_level": config.server.log_level, "access_log": False}
    if workers == 1:
        run_server(create_app(config), host, port, **options)
        return
    os.environ[CONFIG_ENV] = str(Path(path).resolve())
    os.environ[SITES_ENV] = json.dumps(
        {"hosts": config.server.allowed_hosts, "origins": config.server.allowed_origins}
    )
    # Each worker process settles its own heap (`app_from_env`).
    uvicorn.run(
        "good_agent.server.serve:app_from_env",
        factory=True,
        workers=workers,
        **server_options(host=host, port=port, **options),
    )


def run_command(
    config: str,
    host: str | None = None,
    port: int | None = None,
    workers: int = 1,
    allowed_hosts: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
) -> int:
    """``good-agent serve``: serve, or print why not and return 1."""
    try:
        serve(
            config,
            host=host,
            port=port,
            workers=workers,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
        )
    except ConfigError as exc:
        print(f"good-agent serve: {exc}", file=sys.stderr)
        return 1
    return 0
