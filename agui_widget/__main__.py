"""``agui-widget`` (or ``python -m agui_widget``): command-line entry points.

``agui-widget serve [NAME=]MODULE:ATTR ...`` serves agents over AG-UI (needs the ``server`` extra).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="agui-widget", description="AG-UI agent chats for notebooks, and AG-UI servers.")
    commands = parser.add_subparsers(dest="command", required=True)
    add_arguments(
        commands.add_parser(
            "serve",
            help="serve agents as an AG-UI HTTP endpoint",
            description="Serve agents as an AG-UI endpoint (POST RunAgentInput, SSE events). See docs/remote.md.",
        )
    )
    args = parser.parse_args(argv)
    try:
        from .server import _cli
    except ImportError as exc:
        print(f"agui-widget serve: {exc}", file=sys.stderr)
        return 2
    return _cli.serve(args)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets",
        nargs="*",
        metavar="[NAME=]MODULE:ATTR",
        help="the agent to serve, e.g. myagents:planner or path/to/file.py:agent; several as "
        "planner=myagents:planner coder=myagents:coder. None: the demo agent.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--path", default="/", help="URL path the app is served under (default /)")
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser origin allowed to call the server, e.g. http://localhost:3000 (repeatable; none by default)",
    )
    parser.add_argument(
        "--store", default=None, help="save each thread's transcript and state here: an SQLite file, or a postgresql:// URL"
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1); see docs/remote.md on scaling out")
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=None,
        metavar="N",
        help="largest request body accepted, in bytes (default 10 MiB; 0 for no limit)",
    )
    parser.add_argument(
        "--token",
        default=None,
        metavar="TOKEN",
        help="require 'Authorization: Bearer TOKEN' on every request but /health (default: $AGUI_WIDGET_TOKEN; "
        "prefer the variable, a command line is visible to other users of the machine)",
    )
    parser.add_argument(
        "--tokens",
        default=None,
        metavar="FILE",
        help="a token per user: a file of 'USER TOKEN' lines, or a JSON object {user: token} (default: "
        "$AGUI_WIDGET_TOKENS); each user sees only their own threads",
    )
    parser.add_argument(
        "--max-runs-per-user",
        type=int,
        default=None,
        metavar="N",
        help="runs one user (or one address, without tokens) may stream at once per worker; more get HTTP 429",
    )
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="MODULE:ATTR",
        help="a function (or a list of tools) the server runs itself, e.g. myagents:lookup_order (repeatable)",
    )
    parser.add_argument(
        "--mcp",
        action="append",
        default=[],
        metavar="SERVER",
        help="an MCP server whose tools the server runs: its command as one string, or an http(s) URL (repeatable)",
    )
    parser.add_argument(
        "--max-tool-rounds",
        type=int,
        default=None,
        metavar="N",
        help="times one request may run the server's tools and ask the agent again (default 10)",
    )
    parser.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])


if __name__ == "__main__":
    sys.exit(main())
