"""Where a server listens: the ``Host`` names it answers to for the address it binds,
and a port already taken (both the bridge and the agent server start through these)."""

from __future__ import annotations

import errno
import socket

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
