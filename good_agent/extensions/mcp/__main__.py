"""``python -m good_agent.extensions.mcp module:attr``: serve tools over stdio.

The same as ``good-agent mcp-serve module:attr``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from good_agent.extensions.mcp.serve import serve_target


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and serve until the client disconnects."""
    parser = argparse.ArgumentParser(
        prog="python -m good_agent.extensions.mcp",
        description="Serve an agent's tools (adapters applied) as an MCP server over stdio.",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run(args)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``target`` and ``--name`` arguments to ``parser``."""
    parser.add_argument("target", help="module:attr naming an Agent or a list of tools")
    parser.add_argument("--name", help="the server name reported to clients")


def run(args: argparse.Namespace) -> int:
    """Serve ``args.target``; report a bad target on stderr with exit code 1."""
    try:
        serve_target(args.target, name=args.name)
    except (ImportError, AttributeError, ValueError) as exc:
        print(f"good-agent mcp-serve: cannot load {args.target!r}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
