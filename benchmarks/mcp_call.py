"""What calling an MCP server's tool through ``mcp_tools()`` costs, against the MCP SDK used directly.

``mcp_tools()`` (``agui_widget/inputs/_mcp_tools.py``, ``_mcp_connection.py``) keeps every MCP
session on one thread of its own, with its own event loop: the kernel's loop hands each call over
to that thread and awaits the answer (``asyncio.wrap_future``), and ``McpTool.answer_call`` turns
the result into the tool message (text for the model, a display bundle for the card, the result
kept in the ``mcp`` mark). The baseline, measured in the same run, is what a user of the official
``mcp`` SDK would write: an ``mcp.Client`` entered on the caller's own event loop and
``await client.call_tool(...)``, no thread between them and no message built. Both talk to the
project's demo server (``agui_widget.teaching.mcp_demo``): over stdio (each way its own server
process, started by the SDK) and over streamable HTTP (one server process started here with
``--http PORT`` on a free port, both ways connecting to it).

What is timed, from the caller's event loop (standing in for the kernel's, where a chat's tool
calls run):

- a call of ``add`` (``{"a": 1, "b": 2}``): ``await tool.answer_call(args_text)`` against
  ``await client.call_tool("add", ...)``;
- a call of ``sparkline`` (40 values: a 160×32 PNG of 268 bytes), whose tool message carries the
  image as a display bundle, the same way;
- starting the server and listing its tools: ``mcp_tools(server)`` from a plain thread (as a cell
  calls it: it waits for the owner thread, which starts the server, lists every page of its tools
  and builds the ``McpTool`` objects) against ``async with Client(...)`` and
  ``await client.list_tools()``; over HTTP the server is already running, so this is connecting
  (the session's handshake) and listing. Stopping is not timed. Fewer rounds: a stdio start is
  a Python process importing the SDK.

A round of calls makes each call ``--calls`` times each way, the two ways taking turns call by
call, a round of starts one start each way; which way goes first alternates from one round to the
next, after a warm-up round (imports, a server's first call). A round's figures are the median
wall time of its calls and the caller's process CPU per call (``time.process_time()`` over each
call: the caller's thread and, for ``mcp_tools``, the owner thread; not the server's process). Figures are medians over the rounds
(with their range), "above the baseline" the median of each round's difference. Apart, building
the tool message from the baseline's own result (``result_message``), the part of the
difference that is not the thread handoff. About 20 s on 2 cores.

Usage::

    python benchmarks/mcp_call.py            # a Markdown table for docs/performance.md
    python benchmarks/mcp_call.py --json     # the raw numbers, every round
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.types import CallToolResult, ImageContent  # noqa: E402

from agui_widget import mcp_tools  # noqa: E402
from agui_widget.inputs._mcp_connection import stop_all  # noqa: E402
from agui_widget.inputs._mcp_results import result_message  # noqa: E402
from agui_widget.teaching.mcp_demo import COMMAND  # noqa: E402
from agui_widget.vocabulary._marks import DISPLAY, mark_of  # noqa: E402

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "`add`": ("add", {"a": 1, "b": 2}),
    "`sparkline` (an image)": ("sparkline", {"values": [float((i * 7) % 11) for i in range(40)]}),
}
"""The calls measured, by the name the table gives them: the tool, its arguments."""

START = "starting the server, listing its tools"
WAYS = ("mcp_tools", "baseline")
TRANSPORTS = ("stdio", "HTTP")
HTTP_START_TIMEOUT = 30.0
"""Seconds the HTTP demo server may take to listen."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def http_server() -> Iterator[str]:
    """The demo server over streamable HTTP in a process of its own, listening; its URL."""
    port = free_port()
    process = subprocess.Popen([*COMMAND, "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + HTTP_START_TIMEOUT
    try:
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                raise RuntimeError(f"the HTTP demo server exited: {process.stderr.read().decode() if process.stderr else ''}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the HTTP demo server did not listen within {HTTP_START_TIMEOUT:g} s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.asynccontextmanager
async def sdk_client(server: str | list[str]) -> AsyncIterator[Client]:
    """The baseline's ``mcp.Client``, entered, as the SDK's documentation makes one (a stdio
    server's stderr discarded, as ``mcp_tools`` keeps it aside)."""
    if isinstance(server, str):
        async with Client(server) as client:
            yield client
        return
    parameters = StdioServerParameters(command=server[0], args=list(server[1:]))
    with open(os.devnull, "w") as discarded:
        async with Client(stdio_client(parameters, errlog=discarded)) as client:
            yield client


async def timed_calls(ask: dict[str, Callable[[], Awaitable[Any]]], ways: tuple[str, ...], count: int) -> dict[str, Any]:
    """``count`` calls each way, the ways taking turns call by call (so both meet the same spells of
    a busy machine): each way's median wall time of one, its process CPU per call, its last answer."""
    walls: dict[str, list[float]] = {way: [] for way in ways}
    cpu = dict.fromkeys(ways, 0.0)
    answers: dict[str, Any] = {}
    for _ in range(count):
        for way in ways:
            spent, began = time.process_time(), time.perf_counter()
            answers[way] = await ask[way]()
            walls[way].append(time.perf_counter() - began)
            cpu[way] += time.process_time() - spent
    return {way: {"wall": statistics.median(walls[way]), "cpu": cpu[way] / count, "answer": answers[way]} for way in ways}


def checked(way: str, tool: str, answer: Any) -> None:
    """The answer each way got is the tool's answer (an image for ``sparkline``), not an error."""
    if way == "mcp_tools":
        assert "error" not in answer, f"{tool}: {answer['content']}"
        bundle = mark_of(answer, DISPLAY)
        assert (tool == "sparkline") == ("image/png" in (bundle or {})), f"{tool}: the card's bundle {bundle}"
    else:
        assert isinstance(answer, CallToolResult) and not answer.is_error, f"{tool}: {answer}"
        assert (tool == "sparkline") == any(isinstance(block, ImageContent) for block in answer.content)


async def call_rounds(
    server: str | list[str], rounds: int, count: int
) -> tuple[dict[str, dict[str, list[dict[str, Any]]]], dict[str, float]]:
    """The calls, both ways, ``rounds`` rounds after a warm-up one (a round's figures per call), and
    the seconds building each call's tool message takes."""
    tools = {tool.name: tool for tool in await asyncio.to_thread(mcp_tools, server)}
    reps: dict[str, dict[str, list[dict[str, Any]]]] = {name: {way: [] for way in WAYS} for name in CALLS}
    async with sdk_client(server) as client:
        for index in range(rounds + 1):
            ways = WAYS if index % 2 == 0 else WAYS[::-1]
            for name, (tool_name, arguments) in CALLS.items():
                ask: dict[str, Callable[[], Awaitable[Any]]] = {
                    "mcp_tools": functools.partial(tools[tool_name].answer_call, json.dumps(arguments)),
                    "baseline": functools.partial(client.call_tool, tool_name, arguments),
                }
                for way, measured in (await timed_calls(ask, ways, count)).items():
                    checked(way, tool_name, measured.pop("answer"))
                    if index:  # the first round warms up
                        reps[name][way].append(measured)
        building = {name: message_building(await client.call_tool(*CALLS[name]), CALLS[name][0]) for name in CALLS}
    await asyncio.to_thread(stop_all)
    return reps, building


def message_building(result: CallToolResult, tool: str, repeat: int = 200) -> float:
    """Seconds ``result_message`` takes to make a result the tool message (median of ``repeat``)."""
    spans = []
    for _ in range(repeat):
        began = time.perf_counter()
        result_message(result, tool)
        spans.append(time.perf_counter() - began)
    return statistics.median(spans)


def listed_by_mcp_tools(server: str | list[str]) -> dict[str, Any]:
    """``mcp_tools(server)`` timed from this (plain) thread, then its server stopped, untimed."""
    cpu, began = time.process_time(), time.perf_counter()
    tools = mcp_tools(server)
    wall = time.perf_counter() - began
    spent = time.process_time() - cpu
    assert "add" in {tool.name for tool in tools}
    tools.server.run(tools.server.stop(), 30)
    return {"wall": wall, "cpu": spent}


async def listed_by_sdk(server: str | list[str]) -> dict[str, Any]:
    """``async with Client(...)`` and ``list_tools()`` timed; leaving the client (the stop) untimed."""
    async with contextlib.AsyncExitStack() as stack:
        cpu, began = time.process_time(), time.perf_counter()
        client = await stack.enter_async_context(sdk_client(server))
        listed = await client.list_tools()
        wall = time.perf_counter() - began
        spent = time.process_time() - cpu
        assert "add" in {tool.name for tool in listed.tools}
    return {"wall": wall, "cpu": spent}


async def start_rounds(server: str | list[str], rounds: int) -> dict[str, list[dict[str, Any]]]:
    reps: dict[str, list[dict[str, Any]]] = {way: [] for way in WAYS}
    for index in range(rounds + 1):
        for way in WAYS if index % 2 == 0 else WAYS[::-1]:
            if way == "mcp_tools":
                measured = await asyncio.to_thread(listed_by_mcp_tools, server)
            else:
                measured = await listed_by_sdk(server)
            if index:
                reps[way].append(measured)
    return reps


def summary(by_way: dict[str, list[dict[str, Any]]], building: float | None = None) -> dict[str, Any]:
    """Medians over the rounds (with ranges) and the median of each round's difference, in ms."""
    found: dict[str, Any] = {"runs": by_way}
    for key in ("wall", "cpu"):
        for way, runs in by_way.items():
            values = sorted(run[key] * 1000 for run in runs)
            found[f"{way}_{key}_ms"] = statistics.median(values)
            found[f"{way}_{key}_ms_range"] = [values[0], values[-1]]
        pairs = zip(by_way["mcp_tools"], by_way["baseline"], strict=True)
        found[f"{key}_ms_above"] = statistics.median((ours[key] - theirs[key]) * 1000 for ours, theirs in pairs)
    found["building_message_ms"] = None if building is None else building * 1000
    return found


@contextlib.asynccontextmanager
async def servers() -> AsyncIterator[dict[str, str | list[str]]]:
    with http_server() as url:
        try:
            yield {"stdio": COMMAND, "HTTP": url}
        finally:
            await asyncio.to_thread(stop_all)


async def run(rounds: int, count: int, starts: int) -> dict[str, Any]:
    results: dict[str, Any] = {"rounds": rounds, "calls_per_round": count, "start_rounds": starts, "rows": []}
    async with servers() as by_transport:
        for transport, server in by_transport.items():
            reps, building = await call_rounds(server, rounds, count)
            for name, by_way in reps.items():
                results["rows"].append({"what": name, "transport": transport, **summary(by_way, building[name])})
            results["rows"].append({"what": START, "transport": transport, **summary(await start_rounds(server, starts))})
    return results


def _ms(row: dict[str, Any], key: str) -> str:
    low, high = row[f"{key}_range"]
    digits = 0 if row[key] >= 100 else 2
    return f"{row[key]:,.{digits}f} ({low:,.{digits}f}–{high:,.{digits}f})"


def table(results: dict[str, Any]) -> str:
    rows = [
        "| what | transport | wall ms, `mcp_tools` | wall ms, SDK directly | wall above the SDK, ms "
        "| caller CPU ms, `mcp_tools` | caller CPU ms, SDK directly | of which the tool message, ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["rows"]:
        building = row["building_message_ms"]
        rows.append(
            f"| {row['what']} | {row['transport']} | {_ms(row, 'mcp_tools_wall_ms')} | {_ms(row, 'baseline_wall_ms')} "
            f"| {row['wall_ms_above']:+,.2f} | {_ms(row, 'mcp_tools_cpu_ms')} | {_ms(row, 'baseline_cpu_ms')} "
            f"| {'–' if building is None else f'{building:.3f}'} |"
        )
    notes = (
        f"\nMedians (min–max) over {results['rounds']} rounds of {results['calls_per_round']} calls each way, "
        f"taking turns ({results['start_rounds']} rounds for a start), the way going first alternating from one round "
        "to the next, after a warm-up round; "
        "\"above\" is the median of each round's difference. Caller CPU is this process's (with `mcp_tools`, the "
        "owner thread's too), not the server's. The tool message's share is `result_message` on the SDK's own result. "
        f"{results['seconds']:.0f} s in all."
    )
    return "\n".join(rows) + "\n" + notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds of calls (default 15)")
    parser.add_argument("--calls", type=int, default=15, help="calls each way in a round (default 15)")
    parser.add_argument("--starts", type=int, default=5, help="rounds of starting the server (default 5)")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    results = asyncio.run(run(args.rounds, args.calls, args.starts))
    results["seconds"] = time.perf_counter() - began
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
