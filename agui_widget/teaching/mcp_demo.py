"""A small MCP server to try ``mcp_tools()`` offline, and for the tests and lessons that need one.

    python -m agui_widget.teaching.mcp_demo              # over stdio (what mcp_tools(command) starts)
    python -m agui_widget.teaching.mcp_demo --http 8765  # streamable HTTP at http://127.0.0.1:8765/mcp

In a notebook: ``mcp_tools([sys.executable, "-m", "agui_widget.teaching.mcp_demo"])`` (or
:data:`COMMAND`). Its tools cover each kind of answer a chat shows: text (``add``, ``roll_dice``),
an error the server meant (``fail``), a slow call (``slow``), an image (``sparkline``), structured
output (``stats``, ``server_info``), a server that dies (``crash``), and an MCP App (``counter``,
whose card shows ``ui://agui-widget-demo/counter.html``, and ``increment``, which only the app
calls). Its resources (``demo://readme``, ``demo://counter``) are context for
``mcp_tools(..., resources=True)``.

It needs the ``mcp`` extra (``pip install 'agui-widget[mcp]'``); nothing else in agui-widget
imports this module.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import struct
import sys
import zlib
from pathlib import Path
from typing import TypedDict

import anyio
from mcp.server.apps import Apps
from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

COMMAND = [sys.executable, "-m", "agui_widget.teaching.mcp_demo"]
"""The command that starts this server over stdio, with the kernel's own Python."""

COUNTER_APP = "ui://agui-widget-demo/counter.html"
"""The counter's MCP App: the HTML the chat shows in ``counter``'s card."""

APP_FILE = Path(__file__).resolve().parent.parent / "static" / "mcp_counter_app.html"

NOT_BUILT = """<!doctype html>
<html><body><p>The counter app's front end is not built: run <code>npm run build</code> in js/
(or reinstall agui-widget) to make agui_widget/static/mcp_counter_app.html.</p></body></html>
"""

README = """# The agui-widget demo MCP server

Tools: add, roll_dice, fail, slow, sparkline, stats, server_info, crash, counter (an MCP App).
The counter's value lives in the server process: counter(start) sets it, the app's button
increments it.
"""

STARTED = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

_count = 0
_calls = 0


def _called() -> None:
    global _calls
    _calls += 1


def _counter_result() -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=f"The counter is at {_count}.")], structured_content={"count": _count}
    )


def counter(start: int = 0) -> CallToolResult:
    """Show a counter starting at ``start``; the user counts up with its button."""
    global _count
    _called()
    _count = start
    return _counter_result()


def increment(by: int = 1) -> CallToolResult:
    """Count up by ``by`` (the counter app's button calls it; the model is not offered it)."""
    global _count
    _called()
    _count += by
    return _counter_result()


def add(a: float, b: float) -> float:
    """Add two numbers."""
    _called()
    return a + b


def roll_dice(sides: int = 6, count: int = 1, seed: int | None = None) -> list[int]:
    """Roll ``count`` dice with ``sides`` sides each; the same ``seed`` gives the same rolls."""
    _called()
    if not 2 <= sides <= 1000 or not 1 <= count <= 100:
        raise ToolError("roll between 1 and 100 dice of 2 to 1000 sides")
    rng = random.Random(seed)
    return [rng.randint(1, sides) for _ in range(count)]


def fail(message: str) -> str:
    """Fail with ``message`` (to see how a tool's error reaches the model)."""
    _called()
    raise ToolError(message)


async def slow(seconds: float) -> str:
    """Wait ``seconds`` seconds, then answer."""
    _called()
    await anyio.sleep(seconds)
    return f"Waited {seconds:g} s."


def sparkline(values: list[float]) -> Image:
    """A small line chart of ``values`` as a PNG image."""
    _called()
    if not values:
        raise ToolError("give at least one value")
    return Image(data=sparkline_png(values), format="png")


class Stats(BaseModel):
    """A summary of numbers."""

    count: int
    mean: float
    minimum: float
    maximum: float


def stats(values: list[float]) -> Stats:
    """The count, mean, minimum and maximum of ``values`` (structured output)."""
    _called()
    if not values:
        raise ToolError("give at least one value")
    return Stats(count=len(values), mean=statistics.fmean(values), minimum=min(values), maximum=max(values))


class ServerInfo(TypedDict):
    pid: int
    started: str
    calls: int


def server_info() -> ServerInfo:
    """This server's process id, when it started, and how many calls it answered."""
    _called()
    return {"pid": os.getpid(), "started": STARTED, "calls": _calls}


def crash() -> str:
    """Kill this server's process at once (to see a dead server started again)."""
    sys.stderr.write("agui-widget-demo: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(1)


def readme() -> str:
    return README


def counter_value() -> str:
    return f"The counter is at {_count}."


def sparkline_png(values: list[float], height: int = 32, step: int = 4) -> bytes:
    """``values`` drawn as a dark line on white, a greyscale PNG made by hand (no plotting library)."""
    width = max(len(values) * step, 8)
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    rows = [bytearray(b"\xff" * width) for _ in range(height)]
    points = [(min(i * step + step // 2, width - 1), round((high - v) / span * (height - 1))) for i, v in enumerate(values)]
    for (x0, y0), (x1, y1) in zip(points, points[1:] or points, strict=False):
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for k in range(steps + 1):
            rows[y0 + (y1 - y0) * k // steps][x0 + (x1 - x0) * k // steps] = 0x20
    raw = b"".join(b"\x00" + bytes(row) for row in rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def build_server() -> MCPServer:
    """The demo server, made when it is about to serve: making an ``MCPServer`` sets up logging for
    the process, which a notebook that only imports :data:`COMMAND` should not get."""
    apps = Apps()
    apps.tool(resource_uri=COUNTER_APP)(counter)
    apps.tool(resource_uri=COUNTER_APP, visibility=["app"])(increment)
    page = APP_FILE.read_text(encoding="utf-8") if APP_FILE.exists() else NOT_BUILT
    apps.add_html_resource(COUNTER_APP, page, name="counter", description="The counter app")
    server = MCPServer(
        "agui-widget-demo",
        instructions="A demo server: arithmetic, dice, a sparkline, an error on purpose and a counter app.",
        extensions=[apps],  # the counter's tools and HTML: the server takes them when made
    )
    for tool in (add, roll_dice, fail, slow, sparkline, stats, server_info, crash):
        server.tool()(tool)
    server.resource("demo://readme", name="readme", description="What this demo server offers", mime_type="text/markdown")(readme)
    server.resource("demo://counter", name="counter", description="The counter's current value", mime_type="text/plain")(
        counter_value
    )
    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agui_widget.teaching.mcp_demo", description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on this port (default: stdio)")
    parser.add_argument("--host", default="127.0.0.1", help="the address to serve HTTP on (default: 127.0.0.1)")
    options = parser.parse_args(argv)
    server = build_server()
    if options.http is None:
        server.run()
    else:
        server.run("streamable-http", host=options.host, port=options.http)


if __name__ == "__main__":
    main()
