"""The ``good-agent`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import anyio

from good_agent.core.errors import GoodAgentError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="good-agent", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run a small agent end to end")
    demo.add_argument("--model", help="a real model, e.g. gpt-4o-mini (default: scripted)")
    demo.add_argument("--base-url", help="an OpenAI-compatible endpoint for --model")
    serve = commands.add_parser("mcp-serve", help="serve an agent's tools over MCP (stdio)")
    serve.add_argument("target", help="module:attr naming an Agent or a list of tools")
    serve.add_argument("--name", help="the server name reported to clients")
    bridge = commands.add_parser("serve", help="run the OpenAI-compatible bridge")
    bridge.add_argument("--config", required=True, help="the bridge's TOML configuration")
    bridge.add_argument("--host", help="address to bind (default: the config's, 127.0.0.1)")
    bridge.add_argument("--port", type=int, help="port (default: the config's, 7285)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``good-agent`` console script."""
    args = _parser().parse_args(argv)
    if args.command == "demo":
        from good_agent.demo import run_demo

        try:
            anyio.run(lambda: run_demo(args.model, base_url=args.base_url))
        except GoodAgentError as exc:
            print(f"good-agent demo failed: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.command == "mcp-serve":
        from good_agent.extensions.mcp.__main__ import run

        return run(args)
    if args.command == "serve":
        from good_agent.server.serve import run_command

        return run_command(args.config, host=args.host, port=args.port)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
