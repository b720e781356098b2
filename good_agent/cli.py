"""The ``good-agent`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import anyio

from good_agent import __version__
from good_agent._extras import MissingExtraError, require_extra
from good_agent.types.errors import GoodAgentError

DESCRIPTION = (
    "Run a demo agent, serve an agent's tools over MCP, or run the OpenAI-compatible bridge "
    "or an agent's chat server."
)
"""The one sentence ``good-agent --help`` opens with."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="good-agent", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"good-agent {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    about = "Run a small agent with one tool end to end (scripted, or against a real model)."
    demo = commands.add_parser("demo", help=about, description=about)
    demo.add_argument("--model", help="a real model, e.g. gpt-4o-mini (default: scripted)")
    demo.add_argument("--base-url", help="an OpenAI-compatible endpoint for --model")
    about = (
        "Serve an agent's tools (adapters applied) as an MCP server over stdio, or over "
        "Streamable HTTP with --http; needs [mcp]."
    )
    serve = commands.add_parser("mcp-serve", help=about, description=about)
    serve.add_argument("target", help="module:attr naming an Agent or a list of tools")
    serve.add_argument("--name", help="the server name reported to clients")
    serve.add_argument(
        "--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio"
    )
    serve.add_argument("--host", help="with --http: loopback address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="with --http: port (default: 7287)")
    _site_arguments(serve)
    about = (
        "Run the bridge (OpenAI Chat Completions, Responses and embeddings, Anthropic "
        "Messages, Gemini generateContent) "
        "over the models in a TOML file; needs [server]."
    )
    bridge = commands.add_parser("serve", help=about, description=about)
    bridge.add_argument("--config", required=True, help="the bridge's TOML configuration")
    bridge.add_argument("--host", help="address to bind (default: the config's, 127.0.0.1)")
    bridge.add_argument("--port", type=int, help="port (default: the config's, 7285)")
    bridge.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes sharing the port (default: 1)",
    )
    _site_arguments(bridge)
    about = (
        "Serve an agent to user interfaces: AG-UI, the Vercel AI UI message stream "
        "and a chat page at /; needs [ui]."
    )
    agent = commands.add_parser("serve-agent", help=about, description=about)
    agent.add_argument("target", help="module:attr naming an Agent or a function returning one")
    agent.add_argument("--host", help="address to bind (default: 127.0.0.1)")
    agent.add_argument("--port", type=int, help="port (default: 7286)")
    agent.add_argument(
        "--api-keys-env",
        help="variable holding the client keys, comma-separated (default: GOOD_AGENT_UI_KEYS)",
    )
    agent.add_argument(
        "--store",
        help="where threads are kept, checked at startup: an SQLite file (threads.db, or "
        "sqlite:///threads.db; sqlite:////abs/path.db for an absolute path), "
        "redis://host:6379/0 (rediss://, unix://), postgresql://user@host:5432/db "
        "(default: in memory)",
    )
    _site_arguments(agent)
    return parser


def _site_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name served besides the loopback names (example.com, example.com:8443, "
        "*.example.com, or * for any); repeatable; needed when bound to 0.0.0.0",
    )
    command.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser origin (https://app.example.com) whose pages may send requests "
        "and get CORS headers; repeatable",
    )


def _run(args: argparse.Namespace) -> int:
    if args.command == "demo":
        from good_agent.demo import run_demo

        try:
            anyio.run(lambda: run_demo(args.model, base_url=args.base_url))
        except GoodAgentError as exc:
            print(f"good-agent demo failed: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.command == "mcp-serve":
        if args.http:
            from good_agent.server.mcp_http import DEFAULT_MCP_PORT
            from good_agent.server.mcp_http import run_command as serve_http

            return serve_http(
                args.target,
                name=args.name,
                host=args.host or "127.0.0.1",
                port=DEFAULT_MCP_PORT if args.port is None else args.port,
                allowed_hosts=tuple(args.allowed_host),
                allowed_origins=tuple(args.allowed_origin),
            )
        from good_agent.extensions.mcp.__main__ import run

        return run(args)
    if args.command == "serve":
        from good_agent.server.serve import run_command

        return run_command(
            args.config,
            host=args.host,
            port=args.port,
            workers=args.workers,
            allowed_hosts=tuple(args.allowed_host),
            allowed_origins=tuple(args.allowed_origin),
        )
    if args.command == "serve-agent":
        require_extra("ui", "good-agent serve-agent")
        from good_agent.server.ui.serve import run_command as serve_agent

        return serve_agent(
            args.target,
            host=args.host,
            port=args.port,
            api_keys_env=args.api_keys_env,
            store=args.store,
            allowed_hosts=tuple(args.allowed_host),
            allowed_origins=tuple(args.allowed_origin),
        )
    return 2  # pragma: no cover - argparse rejects unknown commands


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``good-agent`` console script."""
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except MissingExtraError as exc:
        print(f"good-agent {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
