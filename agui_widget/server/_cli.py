"""``agui-widget serve``: run agents as an AG-UI HTTP server with uvicorn."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from ._app import create_app
from ._request import DEFAULT_MAX_BODY_BYTES
from ._tools import DEFAULT_MAX_TOOL_ROUNDS

SPEC_VARIABLE = "AGUI_WIDGET_SERVE"
"""Carries the command's options to worker processes (uvicorn starts each from an import string)."""

TOKEN_VARIABLE = "AGUI_WIDGET_TOKEN"
"""The shared token, when ``--token`` is not given (a command line is visible to every user)."""

TOKENS_VARIABLE = "AGUI_WIDGET_TOKENS"
"""The file of a token per user, when ``--tokens`` is not given."""


def serve(args: argparse.Namespace) -> int:
    """Build the app (checking every target first) and run uvicorn until interrupted."""
    spec = {
        "targets": args.targets,
        "path": args.path,
        "cors_origins": args.cors_origin,
        "store": args.store,
        "max_body_bytes": getattr(args, "max_body_bytes", None),
        "token": getattr(args, "token", None) or os.environ.get(TOKEN_VARIABLE) or None,
        "tokens": getattr(args, "tokens", None) or os.environ.get(TOKENS_VARIABLE) or None,
        "max_runs_per_user": getattr(args, "max_runs_per_user", None),
        "tools": getattr(args, "tools", None) or [],
        "mcp": getattr(args, "mcp", None) or [],
        "max_tool_rounds": getattr(args, "max_tool_rounds", None),
        "cwd": os.getcwd(),
    }
    app = app_from_spec(spec)  # fail here, once, with a clear message, before any worker starts
    common: dict[str, Any] = {"host": args.host, "port": args.port, "log_level": args.log_level}
    if args.workers > 1:
        os.environ[SPEC_VARIABLE] = json.dumps(spec)
        uvicorn.run(f"{__name__}:app_from_environment", factory=True, workers=args.workers, **common)
    else:
        uvicorn.run(app, **common)
    return 0


def app_from_environment() -> FastAPI:
    """The app of a worker process, from the options the command left in the environment."""
    return app_from_spec(json.loads(os.environ[SPEC_VARIABLE]))


def app_from_spec(spec: dict[str, Any]) -> FastAPI:
    cwd = spec.get("cwd") or os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)  # `serve myagents:agent` finds myagents.py in the current directory
    targets: list[str] = spec.get("targets") or []
    agents: Any
    if not targets:
        agents = None
    elif len(targets) == 1 and "=" not in targets[0].split(":", 1)[0]:
        agents = load_target(targets[0])
    else:
        agents = {}
        for target in targets:
            name, sep, reference = target.partition("=")
            if not sep or ":" in name:
                raise SystemExit(f"agui-widget serve: name each of several agents, as NAME=MODULE:ATTR (got {target!r})")
            agents[name] = load_target(reference)
    return create_app(
        agents,
        path=spec.get("path") or "/",
        cors_origins=spec.get("cors_origins") or (),
        store=spec.get("store"),
        max_body_bytes=body_limit(spec.get("max_body_bytes")),
        auth=auth_of(spec.get("token"), spec.get("tokens"), cwd),
        max_runs_per_user=runs_limit(spec.get("max_runs_per_user")),
        tools=server_tools_of(spec.get("tools") or [], spec.get("mcp") or []),
        max_tool_rounds=rounds_limit(spec.get("max_tool_rounds")),
    )


def server_tools_of(targets: list[str], mcp_servers: list[str]) -> list[Any] | None:
    """``--tools MODULE:ATTR`` (a function, or a list of tools) and ``--mcp SERVER`` (a command or
    an http(s) URL, as ``mcp_tools()`` takes it) as ``create_app(tools=...)`` takes them."""
    tools: list[Any] = []
    for target in targets:
        value = load_target(target)
        tools.extend(value if isinstance(value, (list, tuple)) else [value])
    for server in mcp_servers:
        try:
            from ..inputs._mcp_tools import mcp_tools
        except ImportError as exc:
            raise SystemExit(f'agui-widget serve: --mcp needs the MCP SDK: pip install "agui-widget[mcp]" ({exc})') from exc
        try:
            tools.extend(mcp_tools(server))
        except Exception as exc:
            raise SystemExit(f"agui-widget serve: --mcp {server!r}: {exc}") from exc
    return tools or None


def rounds_limit(option: int | None) -> int:
    """``--max-tool-rounds`` as ``create_app`` takes it."""
    if option is None:
        return DEFAULT_MAX_TOOL_ROUNDS
    if option < 1:
        raise SystemExit(f"agui-widget serve: --max-tool-rounds is a number of rounds, at least 1 (got {option})")
    return option


def auth_of(token: str | None, tokens_file: str | None, cwd: str) -> str | dict[str, str] | None:
    """``--token`` and ``--tokens`` as ``create_app(auth=...)`` takes them (None: an open server)."""
    if token is not None and tokens_file is not None:
        raise SystemExit("agui-widget serve: give --token (one shared token) or --tokens (a token per user), not both")
    if token is not None:
        if not token.strip() or " " in token.strip():
            raise SystemExit("agui-widget serve: --token needs a token without spaces")
        return token.strip()
    if tokens_file is None:
        return None
    return read_tokens(Path(cwd, tokens_file))


def read_tokens(path: Path) -> dict[str, str]:
    """User id → token from a file of ``USER TOKEN`` lines (``#`` starts a comment) or a JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"agui-widget serve: cannot read the tokens file {path}: {exc.strerror or exc}") from exc
    if text.lstrip().startswith("{"):
        try:
            table = json.loads(text)
        except ValueError as exc:
            raise SystemExit(f"agui-widget serve: {path} is not valid JSON ({exc})") from exc
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
            raise SystemExit(f"agui-widget serve: {path} must map each user id to a token (strings)")
        tokens: dict[str, str] = table
    else:
        tokens = {}
        for number, line in enumerate(text.splitlines(), 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 2:
                raise SystemExit(f"agui-widget serve: {path}, line {number}: expected 'USER TOKEN'")
            user, token = words
            if user in tokens:
                raise SystemExit(f"agui-widget serve: {path}, line {number}: {user!r} is listed twice")
            tokens[user] = token
    if not tokens:
        raise SystemExit(f"agui-widget serve: {path} lists no tokens")
    return tokens


def runs_limit(option: int | None) -> int | None:
    """``--max-runs-per-user`` as ``create_app`` takes it."""
    if option is not None and option < 1:
        raise SystemExit(f"agui-widget serve: --max-runs-per-user is a number of runs, at least 1 (got {option})")
    return option


def body_limit(option: int | None) -> int | None:
    """``--max-body-bytes`` as ``create_app`` takes it: absent is the default, 0 is no limit."""
    if option is None:
        return DEFAULT_MAX_BODY_BYTES
    if option < 0:
        raise SystemExit(f"agui-widget serve: --max-body-bytes is a number of bytes, 0 for no limit (got {option})")
    return option or None


def load_target(reference: str) -> Any:
    """The object named by ``module:attr`` (or ``file.py:attr``), with errors that say what to fix."""
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise SystemExit(f"agui-widget serve: expected MODULE:ATTR, e.g. myagents:agent (got {reference!r})")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name).resolve()
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None or not path.exists():
                raise SystemExit(f"agui-widget serve: no Python file at {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SystemExit(f"agui-widget serve: cannot import {module_name!r}: {exc}") from exc
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise SystemExit(f"agui-widget serve: {module_name!r} has no attribute {attribute!r}")
        value = getattr(value, part)
    return value
