"""What a one-key change in a large shared state costs the kernel, in both directions.

In a real ipykernel with a fake front end (``tests/kernel_harness.py``), with a state of 10,000
keys of 90 characters (about 1 MB of JSON):

- **kernel → view**: a cell assigns ``chat.state = {**chat.state, key: value}``; the views get a
  JSON Patch (``state_patch``). Baseline: the same assignment to a synced ``traitlets.Dict`` of an
  anywidget, which re-sends the whole value.
- **view → kernel**: a view edits one key (a ``state_edit`` request with a one-operation patch);
  the kernel applies it, and ``chat.state`` shows it. Baseline: a view writing the synced ``Dict``
  trait, which sends the whole value (``model.set``, ``save_changes``).

Kernel CPU (``time.process_time`` in the kernel) is measured over a window that holds the change
and the work it leaves for later (trait refreshes, timers: the window waits ``--settle`` seconds),
minus the same window with no change in it; the median of ``--repeat`` changes, each way and its
baseline taking turns. Bytes are the comm messages' sizes on the wire.

Usage::

    python benchmarks/state_cost.py [--keys 10000] [--repeat 15] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.kernel_harness import FakeFrontEnd, WidgetComm  # noqa: E402

SETUP = r'''
import asyncio, random, string, time
import anywidget, traitlets
from agui_widget import AgentChat

_rng = random.Random(7)
STATE = {{f"key{{i:05d}}": "".join(_rng.choice(string.ascii_letters) for _ in range(90)) for i in range({keys})}}


class Baseline(anywidget.AnyWidget):
    _esm = "export default {{}}"
    data = traitlets.Dict().tag(sync=True)


chat = AgentChat(state=STATE)
baseline = Baseline(data=STATE)
SETTLE = {settle}


async def window(change=None):
    """Kernel CPU over one window holding ``change`` (None: an empty window, the idle cost)."""
    await asyncio.sleep(SETTLE)
    cpu0 = time.process_time()
    if change is not None:
        change()
    await asyncio.sleep(SETTLE)
    return time.process_time() - cpu0


_marks = {{}}


def mark(name):
    _marks[name] = time.process_time()


def since(name):
    return time.process_time() - _marks[name]
'''


async def kernel_to_view(fe: FakeFrontEnd, widget: WidgetComm, expression: str) -> tuple[float, int]:
    seen = len(widget.received)
    cpu = float(await fe.evaluate(f"await window(lambda: {expression})", timeout=60))
    await asyncio.sleep(0.05)
    return cpu, sum(m.size for m in widget.received[seen:])


async def view_to_kernel(fe: FakeFrontEnd, send: Any, applied: str, settle: float) -> tuple[float, int]:
    """Kernel CPU from a view's message to the change being in ``chat.state`` (or the trait)."""
    await fe.execute(f"await asyncio.sleep({settle}); mark('edit')")
    message = send()
    deadline = asyncio.get_running_loop().time() + 30
    while not await fe.evaluate(applied):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"the change never arrived: {applied}")
        await asyncio.sleep(0.01)
    await asyncio.sleep(settle)
    cpu = float(await fe.evaluate("since('edit')"))
    return cpu, len(json.dumps(message["content"]["data"], ensure_ascii=False).encode())


async def idle_with_probes(fe: FakeFrontEnd, settle: float) -> float:
    """What the view → kernel measurement costs with no change: the marks and one probe."""
    await fe.execute(f"await asyncio.sleep({settle}); mark('edit')")
    await fe.evaluate("True")
    await asyncio.sleep(settle)
    return float(await fe.evaluate("since('edit')"))


async def run(keys: int, repeat: int, settle: float) -> dict[str, Any]:
    async with FakeFrontEnd.running() as fe:
        created = await fe.execute(SETUP.format(keys=keys, settle=settle), timeout=120)
        opened = {w.model_id: w for w in fe.widgets.values() if w.opened_by == created.msg_id}
        chat = next(w for name, w in opened.items() if name.endswith("AgentChat"))
        baseline = next(w for name, w in opened.items() if name.endswith("Baseline"))
        state_bytes = int(await fe.evaluate("len(__json.dumps(STATE).encode())"))
        whole = await fe.evaluate("STATE", timeout=60)
        rows: dict[str, list[tuple[float, int]]] = {k: [] for k in ("idle", "k2v", "k2v_base", "idle_v2k", "v2k", "v2k_base")}
        for n in range(repeat):
            rows["idle"].append((float(await fe.evaluate("await window()")), 0))
            rows["k2v"].append(await kernel_to_view(fe, chat, f"setattr(chat, 'state', {{**chat.state, 'key00042': 'py{n}'}})"))
            rows["k2v_base"].append(
                await kernel_to_view(fe, baseline, f"setattr(baseline, 'data', {{**baseline.data, 'key00042': 'py{n}'}})")
            )
            rows["idle_v2k"].append((await idle_with_probes(fe, settle), 0))
            edit = {"kind": "state_edit", "patch": [{"op": "replace", "path": "/key00043", "value": f"view{n}"}]}
            rows["v2k"].append(
                await view_to_kernel(
                    fe, lambda edit=edit: fe.send_custom(chat, edit), f"chat.state['key00043'] == 'view{n}'", settle
                )
            )
            whole = {**whole, "key00043": f"view{n}"}
            rows["v2k_base"].append(
                await view_to_kernel(
                    fe,
                    lambda whole=whole: fe.send_update(baseline, {"data": whole}),
                    f"baseline.data['key00043'] == 'view{n}'",
                    settle,
                )
            )
        sent = [m["patch"] for m in chat.of_kind("state_patch")]
        assert [{"op": "replace", "path": "/key00042", "value": f"py{repeat - 1}"}] in sent, sent[-2:]  # one operation each

    def cpu_ms(name: str, idle: str) -> float:
        idle_cpu = statistics.median(c for c, _ in rows[idle])
        return statistics.median(c - idle_cpu for c, _ in rows[name]) * 1000

    def size(name: str) -> float:
        return statistics.median(b for _, b in rows[name])

    return {
        "keys": keys,
        "state_bytes": state_bytes,
        "repeat": repeat,
        "kernel_to_view": {"cpu_ms": cpu_ms("k2v", "idle"), "bytes": size("k2v")},
        "kernel_to_view_baseline": {"cpu_ms": cpu_ms("k2v_base", "idle"), "bytes": size("k2v_base")},
        "view_to_kernel": {"cpu_ms": cpu_ms("v2k", "idle_v2k"), "bytes": size("v2k")},
        "view_to_kernel_baseline": {"cpu_ms": cpu_ms("v2k_base", "idle_v2k"), "bytes": size("v2k_base")},
        "machine": f"{platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores, Python {platform.python_version()}",
    }


def _bytes(value: float) -> str:
    return f"{value / 1e6:,.2f} MB" if value >= 1e6 else f"{value:,.0f} B"


def report(results: dict[str, Any]) -> str:
    lines = [
        f"A one-key change in a {_bytes(results['state_bytes'])} state ({results['keys']:,} keys), median of "
        f"{results['repeat']} ({results['machine']}):",
        "",
        "| direction | agui-widget kernel CPU ms | bytes | synced `Dict` trait kernel CPU ms | bytes |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, key in (("kernel → view (`chat.state = {...}`)", "kernel_to_view"), ("view → kernel (an edit)", "view_to_kernel")):
        ours, base = results[key], results[key + "_baseline"]
        lines.append(
            f"| {label} | {ours['cpu_ms']:.2f} | {_bytes(ours['bytes'])} | {base['cpu_ms']:.2f} | {_bytes(base['bytes'])} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--settle", type=float, default=0.15, help="seconds each window waits before and after")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = asyncio.run(run(args.keys, args.repeat, args.settle))
    print(json.dumps(results, indent=2) if args.json else report(results))


if __name__ == "__main__":
    main()
