"""What running code through the notebook tools' cell runner costs, against a plain implementation.

``run_python`` and a view's "Run in kernel" run code with ``run_cell_code`` (``agui_widget/inputs/
_cell_runner.py``): IPython's ``run_cell`` in a worker thread, what that thread prints and shows
routed to the cell's capture by thread (``_cell_capture.py``: ``sys.stdout``/``sys.stderr``, the
display publisher, the displayhook, the traceback), then the tool message built from it: a text
for the model bounded by ``max_chars`` and the card's MIME bundle. The baseline, measured in the
same run, is what a plain implementation would do: ``shell.run_cell(code, store_history=True)``
in a worker thread (``asyncio.to_thread``) under IPython's own ``capture_output()``, which swaps
``sys.stdout``, ``sys.stderr`` and the display publisher for every thread and builds no message.

In a real ipykernel, driven by the fake front end of the kernel-level tests, as the other
kernel-side benchmarks are: in a kernel the shell's output paths are ipykernel's (IOPub streams, a
ZMQ display publisher and displayhook, a traceback sent as an ``error`` message), and those are
what the runner routes; an ``InteractiveShell.instance()`` prints its tracebacks and results to
``sys.stdout`` instead, so neither way would be measured as a notebook runs it. Each cell is
awaited from the kernel's own event loop (a top-level ``await`` in a harness cell), the loop the
chat's tool calls run on.

The cells, run with ``notebook_tools()``' defaults (``timeout`` 60 s, ``max_chars`` 8,000):

- ``x = 1``: the fixed cost of a run;
- a loop printing 10,000 lines (98 KB of output);
- ``display()`` of a 200-row, 5-column pandas DataFrame (made beforehand, outside the timing);
- a matplotlib figure shown: a line plot, shown at the cell's end by the inline backend
  (``%matplotlib inline``, a notebook's default: matplotlib's Agg canvas drawing a PNG, the
  figure closed once shown; with the plain ``Agg`` backend ``display(fig)`` would show only its
  repr, as no PNG formatter is registered);
- a cell that raises ``ZeroDivisionError`` three frames deep (IPython's traceback formatting).

For each: wall time from the loop's call to the answer, and kernel CPU (``time.process_time()``
of the kernel process, every thread, over the run and a 50 ms settle after it for what the IOPub
thread sends). Rounds run every cell both ways, in alternating order from one round to the next,
after a warm-up round; figures are medians (with the range) of the rounds, and "above the
baseline" the median of each round's difference. Sizes: the tool message's ``content``
(characters) and the card bundle's JSON (bytes), beside what ``capture_output()`` held (printed
characters; the displays' MIME data as JSON, bytes). About 25 s on 2 cores.

Usage::

    python benchmarks/cell_run.py            # a Markdown table for docs/performance.md
    python benchmarks/cell_run.py --json     # the raw numbers, every round
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.kernel_harness import FakeFrontEnd  # noqa: E402

SETTLE = 0.05
"""Seconds each measured span waits after the run, so the CPU of what the IOPub thread sends is in it."""

CELLS: dict[str, str] = {
    "x = 1": "x = 1",
    "print 10,000 lines": "for i in range(10_000):\n    print(f'line {i:05d}')",
    "display a 200-row DataFrame": "display(frame)",
    "a matplotlib figure": (
        "fig, ax = plt.subplots(figsize=(5, 3))\nax.plot(range(200), [i * i for i in range(200)])\nax.set_title('squares');"
    ),
    "a cell that raises": ("def inner(n):\n    return 1 / n\n\ndef outer(n):\n    return inner(n - 1)\n\nouter(1)"),
}
"""The cells measured, by the name the table gives them."""

WAYS = ("runner", "plain")

KERNEL_SETUP = r'''
import asyncio, json, time
get_ipython().run_line_magic("matplotlib", "inline")
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display
from IPython.utils.capture import capture_output
from agui_widget.inputs._cell_runner import run_cell_code
from agui_widget.inputs._notebook_tools import DEFAULT_MAX_CHARS, DEFAULT_TIMEOUT
from agui_widget.vocabulary._marks import DISPLAY, mark_of

SETTLE = {settle}
CELLS = {cells}
frame = pd.DataFrame({{
    "id": range(200),
    "name": [f"customer {{i}}" for i in range(200)],
    "total": [round(i * 13.37 % 1000, 2) for i in range(200)],
    "region": [("north", "south", "east", "west")[i % 4] for i in range(200)],
    "active": [i % 3 != 0 for i in range(200)],
}})


def _json_size(value):
    return len(json.dumps(value, ensure_ascii=False, default=str).encode())


async def runner_way(code):
    answer = await run_cell_code(code, timeout=DEFAULT_TIMEOUT, max_chars=DEFAULT_MAX_CHARS)
    card = mark_of(answer, DISPLAY)
    return {{
        "failed": "error" in answer,
        "content_chars": len(answer["content"]),
        "card_bytes": _json_size(card),
        "image": "image/png" in json.dumps(card),
    }}


def _plain(code):
    with capture_output() as captured:
        result = get_ipython().run_cell(code, store_history=True)
    return captured, result


async def plain_way(code):
    captured, result = await asyncio.to_thread(_plain, code)
    printed = captured.stdout + captured.stderr
    return {{
        "failed": not result.success,
        "content_chars": len(printed),
        "card_bytes": sum(_json_size(output.data) for output in captured.outputs),
        "traceback_captured": "ZeroDivisionError" in printed,
        "image": any("image/png" in output.data for output in captured.outputs),
    }}


WAY = {{"runner": runner_way, "plain": plain_way}}


async def measure(way, name):
    await asyncio.sleep(SETTLE)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    sizes = await WAY[way](CELLS[name])
    wall = time.perf_counter() - wall0
    await asyncio.sleep(SETTLE)
    return {{"wall": wall, "cpu": time.process_time() - cpu0, **sizes}}


async def measure_round(ways):
    """Every cell, each way once in the order given."""
    return {{name: {{way: await measure(way, name) for way in ways}} for name in CELLS}}
'''


async def run(rounds: int) -> dict[str, Any]:
    async with FakeFrontEnd.running() as fe:
        await fe.execute(KERNEL_SETUP.format(settle=SETTLE, cells=repr(CELLS)))
        await fe.evaluate(f"await measure_round({list(WAYS)!r})", timeout=300)  # warm-up: imports, caches
        reps: dict[str, dict[str, list[dict[str, Any]]]] = {name: {way: [] for way in WAYS} for name in CELLS}
        for index in range(rounds):
            ways = WAYS if index % 2 == 0 else WAYS[::-1]
            measured = await fe.evaluate(f"await measure_round({list(ways)!r})", timeout=300)
            for name, by_way in measured.items():
                for way, result in by_way.items():
                    reps[name][way].append(result)
        errors_seen = len(fe.errors)
    results: dict[str, Any] = {"rounds": rounds, "front_end_errors": errors_seen, "cells": {}}
    for name, by_way in reps.items():
        runner, plain = by_way["runner"], by_way["plain"]
        summary: dict[str, Any] = {"code": CELLS[name], "runs": by_way}
        for key in ("wall", "cpu"):
            for way, runs in by_way.items():
                values = sorted(r[key] * 1000 for r in runs)
                summary[f"{way}_{key}_ms"] = statistics.median(values)
                summary[f"{way}_{key}_ms_range"] = [values[0], values[-1]]
            summary[f"{key}_ms_above"] = statistics.median((r[key] - p[key]) * 1000 for r, p in zip(runner, plain))
        for way, runs in by_way.items():
            summary[f"{way}_content_chars"] = statistics.median(r["content_chars"] for r in runs)
            summary[f"{way}_card_bytes"] = statistics.median(r["card_bytes"] for r in runs)
            summary[f"{way}_failed"] = any(r["failed"] for r in runs)
        summary["plain_traceback_captured"] = any(r.get("traceback_captured") for r in plain)
        raises = name == "a cell that raises"
        for way, runs in by_way.items():
            assert all(r["failed"] == raises for r in runs), f"{name}: {way} did not end as expected"
            assert all(r["image"] == (name == "a matplotlib figure") for r in runs), f"{name}: {way}'s images"
        results["cells"][name] = summary
    return results


def _ms(summary: dict[str, Any], key: str) -> str:
    low, high = summary[f"{key}_range"]
    return f"{summary[key]:,.1f} ({low:,.1f}–{high:,.1f})"


def _size(value: float) -> str:
    return f"{value / 1000:,.1f} KB" if value >= 10_000 else f"{value:,.0f} B"


def table(results: dict[str, Any]) -> str:
    rows = [
        "| cell | wall ms, `run_cell_code` | wall ms, baseline | kernel CPU ms, `run_cell_code` | kernel CPU ms, "
        "baseline | CPU above the baseline, ms | tool message content (baseline: printed) | card bundle "
        "(baseline: displays) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, s in results["cells"].items():
        rows.append(
            f"| {name} | {_ms(s, 'runner_wall_ms')} | {_ms(s, 'plain_wall_ms')} | {_ms(s, 'runner_cpu_ms')} "
            f"| {_ms(s, 'plain_cpu_ms')} | {s['cpu_ms_above']:+,.1f} "
            f"| {s['runner_content_chars']:,.0f} chars ({s['plain_content_chars']:,.0f}) "
            f"| {_size(s['runner_card_bytes'])} ({_size(s['plain_card_bytes'])}) |"
        )
    raised = results["cells"].get("a cell that raises")
    where = ""
    if raised is not None and not raised["plain_traceback_captured"]:
        where = (
            " The baseline did not capture the failing cell's traceback: the kernel sent it to the front end "
            f"as an `error` message ({results['front_end_errors']} seen), under whichever cell was running."
        )
    notes = (
        f"\nMedians (min–max) of {results['rounds']} rounds in a real ipykernel, each round running every cell "
        "both ways in alternating order; CPU above the baseline is the median of each round's difference. The "
        "baseline is `shell.run_cell(code, store_history=True)` in `asyncio.to_thread` under IPython's "
        "`capture_output()`; its sizes are what it captured (printed characters, displays' MIME data as JSON), "
        f"with no message built.{where}"
    )
    return "\n".join(rows) + "\n" + notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds, each running every cell both ways (default 15)")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    results = asyncio.run(run(args.rounds))
    results["seconds"] = time.perf_counter() - began
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
