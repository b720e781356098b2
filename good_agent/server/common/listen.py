"""Where a server listens: the ``Host`` names it answers to for the address it binds,
a port already taken, and the start of a one-process server (the bridge, the agent
server and the MCP server start through these)."""

from __future__ import annotations

import errno
import socket
from typing import Any

from good_agent.server.common.auth import is_loopback
from good_agent.server.common.errors import ConfigError


def hosts_for_bind(host: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The ``Host`` names a server bound to ``host`` answers to besides the loopback
    names: ``allowed`` when given; else, bound to a named address or a specific IP,
    that name or IP; bound to every interface (``0.0.0.0``, ``::``) without ``allowed``,
    a `ConfigError` asking for them (the names the machine is reached by are
    not known here, and answering to any would let other sites in by DNS rebinding)."""
    if allowed or is_loopback(host):
        return allowed
    bare = host.strip("[]")
    if bare in ("0.0.0.0", "::", ""):
        raise ConfigError(
            f"listening on {host} (every interface): name the hosts clients reach this "
            "server by with --allowed-host NAME (repeatable; [server].allowed_hosts in the "
            "bridge's configuration), or --allowed-host '*' to answer to any"
        )
    return (f"[{bare}]" if ":" in bare else bare,)


def check_port(host: str, port: int) -> None:
    """Raise `ConfigError` naming the port, and how to pick another, if it is taken."""
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


def server_options(**options: Any) -> dict[str, Any]:
    """The ``uvicorn.run`` keyword arguments of every serving command: a warning log,
    five seconds to finish in-flight requests on shutdown, and the batched writes of
    `good_agent.server.common.batched_writes.BatchedHTTP`; ``options`` added or
    replacing them."""
    from good_agent.server.common.batched_writes import BatchedHTTP

    return {"log_level": "warning", "timeout_graceful_shutdown": 5, "http": BatchedHTTP, **options}


def run_server(app: Any, host: str, port: int, **options: Any) -> None:
    """Serve ``app`` on ``host``:``port`` in this process until interrupted: the heap
    settled for serving (`good_agent.server.common.heap.settle_heap`), then uvicorn with
    `server_options` (``options`` are more ``uvicorn.run`` keyword arguments)."""
    import uvicorn

    from good_agent.server.common.heap import settle_heap

    settle_heap()
    uvicorn.run(app, host=host, port=port, **server_options(**options))
