"""Running the bridge with uvicorn: ``good-agent serve --config FILE``.

The bridge binds to loopback unless told otherwise, and refuses a non-loopback
host unless client keys are configured (``[server].api_keys_env`` naming a
non-empty variable).
"""

from __future__ import annotations

import logging
from pathlib import Path

from good_agent.server.auth import ClientKeys, is_loopback
from good_agent.server.config import BridgeConfig, ConfigError, load_config


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


def serve(path: str | Path, *, host: str | None = None, port: int | None = None) -> None:
    """Load the configuration at ``path`` and serve until interrupted."""
    import uvicorn

    from good_agent.server.app import create_app

    config = load_config(path)
    host = host or config.server.host
    port = config.server.port if port is None else port
    check_exposure(config, host)
    logging.basicConfig(
        level=config.server.log_level.upper(), format="%(levelname)s %(name)s %(message)s"
    )
    uvicorn.run(
        create_app(config),
        host=host,
        port=port,
        log_level=config.server.log_level,
        access_log=False,
        timeout_graceful_shutdown=5,
    )


def run_command(config: str, host: str | None = None, port: int | None = None) -> int:
    """``good-agent serve``: serve, or print why not and return 1."""
    import sys

    try:
        serve(config, host=host, port=port)
    except ConfigError as exc:
        print(f"good-agent serve: {exc}", file=sys.stderr)
        return 1
    except ImportError as exc:
        print(
            f"good-agent serve needs the server extra ({exc.name} is missing): "
            "pip install 'good-agent[server]'",
            file=sys.stderr,
        )
        return 1
    return 0
