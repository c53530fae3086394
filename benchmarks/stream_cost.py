"""What streaming an answer into a notebook widget costs the kernel.

In a real ipykernel, driven by the fake front end of the kernel-level tests, it streams
``--tokens`` tokens of about 5 characters at ``--rate`` tokens per second and measures:

- kernel CPU per token (``time.process_time()`` of the kernel process, all threads, the IOPub
  thread included) above a null agent that only sleeps at the same pace;
- comm messages the front end received, and how many per second of streaming;
- bytes on the wire: the JSON size of every comm message received (plus binary buffers), and that
  size over the bytes of the streamed text.

Ways measured:

1. the baseline people write: append each token to a synced ``Unicode`` trait of a widget;
2. agui-widget: an AG-UI agent (any object with ``run(RunAgentInput)``) emitting one
   TEXT_MESSAGE_CONTENT per token through ``AgentChat``;
3. the same through our own adapter base (``AgentAdapter``, which adds the framing bookkeeping);
4. a one-key change in a ~1 MB state: ``chat.state = {...}`` (kernel -> view), a view's
   ``state_edit`` (view -> kernel), and for comparison the same change to a synced ``Dict`` trait.

Then where a paced token's cost goes: ``AgentChat(batch_window=...)`` at longer windows than the
default (``--windows``: fewer comm messages, each token waiting longer to be sent), and what one
comm message costs the kernel: a chat's typical ``events`` message sent back to back, and sent
once every 50 ms as a streaming chat sends them (kernel CPU, and the part of it in the thread
that sends, over a kernel that only sleeps as long).

Usage::

    python benchmarks/stream_cost.py            # a Markdown table for docs/performance.md
    python benchmarks/stream_cost.py --json     # the raw numbers
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

from tests.kernel_harness import FakeFrontEnd, WidgetComm  # noqa: E402

SETTLE = 0.2
"""Seconds every measured span waits after the stream (trailing timers, the IOPub thread)."""

KERNEL_SETUP = r'''
import asyncio, json, random, string, time
import anywidget, traitlets
from ag_ui.core import (
    RunFinishedEvent, RunFinishedSuccessOutcome, RunStartedEvent, TextMessageContentEvent,
    TextMessageEndEvent, TextMessageStartEvent,
)
from agui_widget import AgentChat
from agui_widget.adapters import AgentAdapter

N, RATE, SETTLE = {tokens}, {rate}, {settle}
_rng = random.Random(7)
TOKENS = ["".join(_rng.choice(string.ascii_lowercase) for _ in range(_rng.randint(3, 5))) + " " for _ in range(N)]


async def paced():
    """Token numbers at RATE per second; only sleeps (a schedule, so the mean pace holds)."""
    t0 = time.perf_counter()
    for i in range(N):
        delay = t0 + i / RATE - time.perf_counter()
        await asyncio.sleep(delay if delay > 0 else 0)
        yield i


async def measure(stream):
    await asyncio.sleep(SETTLE)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    streamed = await stream()
    await asyncio.sleep(SETTLE)
    return {{"cpu": time.process_time() - cpu0, "wall": time.perf_counter() - wall0, "stream_wall": streamed}}


async def null_way():
    t0 = time.perf_counter()
    async for i in paced():
        pass
    return time.perf_counter() - t0


class Baseline(anywidget.AnyWidget):
    _esm = "export default {{ render() {{}} }}"
    text = traitlets.Unicode("").tag(sync=True)
    data = traitlets.Dict().tag(sync=True)


def trait_way(widget):
    async def stream():
        t0 = time.perf_counter()
        async for i in paced():
            widget.text += TOKENS[i]
        return time.perf_counter() - t0
    return stream


class TokenAgent:
    """A plain AG-UI agent: one TEXT_MESSAGE_CONTENT per token, nothing else."""

    async def run(self, input):
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id="m1", role="assistant")
        async for i in paced():
            yield TextMessageContentEvent(message_id="m1", delta=TOKENS[i])
        yield TextMessageEndEvent(message_id="m1")
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedSuccessOutcome())


async def agent_way():
    """The agent alone, iterated without a chat: what building its events costs."""
    from ag_ui.core import RunAgentInput
    run_input = RunAgentInput(thread_id="t", run_id="r", messages=[], state={{}}, tools=[], context=[], forwarded_props=None)
    t0 = time.perf_counter()
    async for _ in TokenAgent().run(run_input):
        pass
    return time.perf_counter() - t0


class TokenAdapter(AgentAdapter):
    """The same stream through our adapter base."""

    async def _events(self, input, stream):
        async for i in paced():
            yield stream.text(TOKENS[i])


def chat_way(chat):
    async def stream():
        t0 = time.perf_counter()
        run = await chat.send("go")
        assert run.status == "finished", (run.status, run.error)
        return time.perf_counter() - t0
    return stream


class UnpacedAgent:
    """The same stream with no pacing: only the per-event work is left to measure."""

    def __init__(self, count=N):
        self.count = count

    async def run(self, input):
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id="m1", role="assistant")
        for i in range(self.count):
            await asyncio.sleep(0)
            yield TextMessageContentEvent(message_id="m1", delta=TOKENS[i])
        yield TextMessageEndEvent(message_id="m1")
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedSuccessOutcome())


COMM_MESSAGE = {{
    "kind": "events",
    "events": [{{"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg_0123456789abcdef", "delta": "".join(TOKENS[:50])}}],
    "times": [1764300000000],
}}


async def comm_cost(chat, count=60, gap=0.05, repeat=3):
    """Kernel CPU of one comm message: back to back, and one every ``gap`` seconds (over a
    kernel that sleeps as long without sending), through the chat's own send; the main thread's
    share apart (the rest is the IOPub thread's). Medians of ``repeat``."""
    import statistics
    send = chat._send_custom
    burst, burst_thread, spaced, spaced_thread = [], [], [], []
    for _ in range(repeat):
        await asyncio.sleep(SETTLE)
        cpu0, thread = time.process_time(), 0.0
        t0 = time.thread_time()
        for _ in range(count):
            send(COMM_MESSAGE)
        thread = time.thread_time() - t0
        await asyncio.sleep(SETTLE)
        burst.append((time.process_time() - cpu0) / count)
        burst_thread.append(thread / count)
        idle0 = time.process_time()
        for _ in range(count):
            await asyncio.sleep(gap)
        await asyncio.sleep(SETTLE)
        idle = time.process_time() - idle0
        cpu0, thread = time.process_time(), 0.0
        for _ in range(count):
            await asyncio.sleep(gap)
            t0 = time.thread_time()
            send(COMM_MESSAGE)
            thread += time.thread_time() - t0
        await asyncio.sleep(SETTLE)
        spaced.append((time.process_time() - cpu0 - idle) / count)
        spaced_thread.append(thread / count)
    return {{
        "burst_us": statistics.median(burst) * 1e6,
        "burst_thread_us": statistics.median(burst_thread) * 1e6,
        "spaced_us": statistics.median(spaced) * 1e6,
        "spaced_thread_us": statistics.median(spaced_thread) * 1e6,
        "gap": gap,
    }}


async def unpaced_cost(repeat=7):
    """Main-thread CPU per token of AgentChat over the agent iterated alone, both unpaced, less
    what a run of no tokens costs the chat (its start and end: in a kernel, the status traits'
    comm messages); medians."""
    import statistics
    from ag_ui.core import RunAgentInput
    run_input = RunAgentInput(thread_id="t", run_id="r", messages=[], state={{}}, tools=[], context=[])
    alone, chat, empty = [], [], []
    for _ in range(repeat):
        t0 = time.thread_time()
        async for _event in UnpacedAgent().run(run_input):
            pass
        alone.append(time.thread_time() - t0)
        widget = AgentChat(UnpacedAgent())
        t0 = time.thread_time()
        await widget.send("go")
        chat.append(time.thread_time() - t0)
        widget = AgentChat(UnpacedAgent(0))
        t0 = time.thread_time()
        await widget.send("go")
        empty.append(time.thread_time() - t0)
    run_us = statistics.median(empty) * 1e6
    return {{
        "alone_us": statistics.median(alone) / N * 1e6,
        "chat_us": (statistics.median(chat) * 1e6 - run_us) / N,
        "run_us": run_us,
    }}


def big_state():
    return {{f"key{{i:05d}}": "".join(_rng.choice(string.ascii_letters) for _ in range(90)) for i in range(10_000)}}


async def measure_change(change):
    await asyncio.sleep(SETTLE)
    cpu0 = time.process_time()
    change()
    cpu = time.process_time() - cpu0
    await asyncio.sleep(0.1)
    return {{"cpu": cpu}}
'''


def _payload_size(data: dict[str, Any]) -> int:
    """The JSON size of what the view's model receives (the custom content, or the trait state)."""
    value = data.get("content") if data.get("method") == "custom" else data.get("state")
    return len(json.dumps(value, ensure_ascii=False).encode())


async def _measured(fe: FakeFrontEnd, widget: WidgetComm | None, expression: str, timeout: float) -> dict[str, Any]:
    """Evaluate ``expression`` (a measurement) and count the widget's comm traffic meanwhile."""
    seen = len(widget.received) if widget is not None else 0
    result = await fe.evaluate(expression, timeout=timeout)
    traffic = widget.received[seen:] if widget is not None else []
    result["messages"] = len(traffic)
    result["bytes"] = sum(m.size for m in traffic)
    result["payload_bytes"] = sum(_payload_size(m.data) for m in traffic)
    return result


STREAMS = {
    "agent": (None, None, "await measure(agent_way)", None),
    "trait": ("baseline{i} = Baseline()", "Baseline", "await measure(trait_way(baseline{i}))", None),
    "pipeline": ("chat{i} = AgentChat(TokenAgent())", "AgentChat", "await measure(chat_way(chat{i}))", "chat{i}"),
    "adapter": ("adapted{i} = AgentChat(TokenAdapter())", "AgentChat", "await measure(chat_way(adapted{i}))", "adapted{i}"),
}


WINDOWS = (0.1, 0.25, 0.5)
"""The longer batch windows measured beside the default (``--windows``)."""


def window_way(window: float) -> str:
    return f"window {window:g}"


def add_windows(windows: tuple[float, ...]) -> tuple[str, ...]:
    """The ways of a round with the chat at these batch windows too."""
    for window in windows:
        name = f"w{round(window * 1000)}_{{i}}"
        STREAMS[window_way(window)] = (
            f"{name} = AgentChat(TokenAgent(), batch_window={window!r})",
            "AgentChat",
            f"await measure(chat_way({name}))",
            name,
        )
    return (*ROUND, *(window_way(window) for window in windows))


ROUND = ("null", "agent", "pipeline", "trait", "adapter")
"""One round: every way once, the null first. A way's cost is taken against the null of its own
round (a minute apart at most), not an average over the run: this machine's cost of waking up
1,000 times a second drifts by more than the differences measured."""


async def run(tokens: int, rate: float, repeat: int = 2, windows: tuple[float, ...] = WINDOWS) -> dict[str, Any]:
    timeout = tokens / rate + 60
    ways = add_windows(windows)
    async with FakeFrontEnd.running() as fe:
        await fe.execute(KERNEL_SETUP.format(tokens=tokens, rate=rate, settle=SETTLE))
        text_bytes = await fe.evaluate("sum(len(t.encode()) for t in TOKENS)")
        results: dict[str, Any] = {"tokens": tokens, "rate": rate, "text_bytes": text_bytes}
        reps: dict[str, list[dict[str, Any]]] = {way: [] for way in ways}

        number = 0
        for _round in range(repeat):
            null_cpu = 0.0
            for way in ways:
                number += 1
                if way == "null":
                    null = await _measured(fe, None, "await measure(null_way)", timeout)
                    null_cpu = null["cpu"]
                    reps["null"].append(null)
                    continue
                create, suffix, expression, chat = STREAMS[way]
                widget = await fe.create_widget(create.format(i=number), suffix=suffix) if create else None
                measured = await _measured(fe, widget, expression.format(i=number), timeout)
                measured["cpu_us_per_token"] = (measured["cpu"] - null_cpu) / tokens * 1e6
                reps[way].append(measured)
                if chat is not None:
                    name = chat.format(i=number)
                    assert await fe.evaluate(f"{name}.messages[-1]['content'] == ''.join(TOKENS)"), f"{way}: the text differs"
                    await fe.execute(f"{name}.close(); del {name}")
                elif create is not None:
                    await fe.execute(f"baseline{number}.close(); del baseline{number}")

        null_cpu = statistics.median(r["cpu"] for r in reps["null"])
        results["null"] = {"runs": reps["null"], "cpu": null_cpu, "cpu_us_per_token": null_cpu / tokens * 1e6}
        for way in (w for w in STREAMS if w in ways):
            runs = reps[way]
            for r in runs:
                r["messages_per_s"] = r["messages"] / r["stream_wall"]
            per_token = sorted(r["cpu_us_per_token"] for r in runs)
            messages = sum(r["messages"] for r in runs) / len(runs)
            wire = sum(r["bytes"] for r in runs) / len(runs)
            results[way] = {
                "runs": runs,
                # the median: on a shared 2-core machine one run in a few is disturbed by others
                "cpu_us_per_token": statistics.median(per_token),
                "cpu_us_per_token_range": [min(per_token), max(per_token)],
                "messages": messages,
                "messages_per_s": sum(r["messages_per_s"] for r in runs) / len(runs),
                "bytes": wire,
                "payload_bytes": sum(r["payload_bytes"] for r in runs) / len(runs),
                "bytes_per_text_byte": wire / text_bytes,
                "payload_per_text_byte": sum(r["payload_bytes"] for r in runs) / len(runs) / text_bytes,
            }
        # Each round's own ratio, then their median: both sides of a ratio from the same minute.
        for way in ("pipeline", "adapter", *(window_way(window) for window in windows)):
            ratios = [
                t["cpu_us_per_token"] / max(w["cpu_us_per_token"], 0.1) for t, w in zip(reps["trait"], reps[way], strict=True)
            ]
            shares = [w["cpu_us_per_token"] - a["cpu_us_per_token"] for w, a in zip(reps[way], reps["agent"], strict=True)]
            results[way]["times_below_trait"] = statistics.median(ratios)
            results[way]["own_us_per_token"] = statistics.median(shares)

        results["unpaced"] = await fe.evaluate("await unpaced_cost()", timeout=timeout * 3)
        results["windows"] = list(windows)
        await fe.create_widget("comm_chat = AgentChat(TokenAgent())")
        results["comm"] = await fe.evaluate("await comm_cost(comm_chat)", timeout=120)

        # A one-key change in a ~1 MB state.
        state_chat = await fe.create_widget("state_chat = AgentChat(TokenAgent(), state=big_state())")
        state_bytes = await fe.evaluate("len(json.dumps(state_chat.state))")
        py_to_view = await _measured(
            fe,
            state_chat,
            "await measure_change(lambda: setattr(state_chat, 'state', {**state_chat.state, 'key00042': 'changed'}))",
            60,
        )
        patches = state_chat.of_kind("state_patch")
        assert patches and patches[-1]["patch"] == [{"op": "replace", "path": "/key00042", "value": "changed"}], patches[-1:]

        edit = {"kind": "state_edit", "patch": [{"op": "replace", "path": "/key00043", "value": "edited"}]}
        message = fe.send_custom(state_chat, edit)
        view_to_py_bytes = len(json.dumps(message["content"], ensure_ascii=False).encode())
        assert await fe.evaluate("state_chat.state['key00043']") == "edited"

        dict_widget = await fe.create_widget("dict_widget = Baseline(data=big_state())", suffix="Baseline")
        dict_trait = await _measured(
            fe,
            dict_widget,
            "await measure_change(lambda: setattr(dict_widget, 'data', {**dict_widget.data, 'key00042': 'changed'}))",
            60,
        )
        results["state"] = {
            "state_bytes": state_bytes,
            "kernel_to_view": py_to_view,
            "view_to_kernel": {"messages": 1, "bytes": view_to_py_bytes},
            "dict_trait": dict_trait,
        }
        return results


def _n(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def _bytes(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:,.2f} MB"
    if value >= 1e4:
        return f"{value / 1e3:,.1f} KB"
    return f"{value:,.0f} B"


def table(results: dict[str, Any]) -> str:
    tokens, rate = results["tokens"], results["rate"]
    rows = [
        "| way | kernel CPU µs/token | comm messages | messages/s | bytes on the wire | bytes / text | message content / text |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    labels = {
        "agent": "the AG-UI agent alone, iterated without a chat (its own event objects)",
        "trait": "append each token to a synced string trait (baseline)",
        "pipeline": "agui-widget: AG-UI agent → `AgentChat` (events, batched and merged)",
        "adapter": "agui-widget: our `AgentAdapter` base → `AgentChat`",
    }
    for key, label in labels.items():
        row = results[key]
        if key == "agent":  # no widget: nothing travels
            rows.append(f"| {label} | {_n(row['cpu_us_per_token'], 1)} | — | — | — | — | — |")
            continue
        rows.append(
            f"| {label} | {_n(row['cpu_us_per_token'], 1)} | {_n(row['messages'])} | {_n(row['messages_per_s'], 1)} "
            f"| {_bytes(row['bytes'])} | {_n(row['bytes_per_text_byte'], 2)} | {_n(row['payload_per_text_byte'], 2)} |"
        )
    for key in ("pipeline", "adapter"):
        row = results[key]
        rows.append(
            f"| {labels[key]}: its own share, above the agent alone; the whole is {_n(row['times_below_trait'], 1)}× "
            f"below the baseline | {_n(row['own_us_per_token'], 1)} | | | | | |"
        )
    for window in results["windows"]:
        row = results[window_way(window)]
        rows.append(
            f"| agui-widget: AG-UI agent → `AgentChat(batch_window={window:g})` ({_n(row['times_below_trait'], 1)}× below "
            f"the baseline) | {_n(row['cpu_us_per_token'], 1)} | {_n(row['messages'])} | {_n(row['messages_per_s'], 1)} "
            f"| {_bytes(row['bytes'])} | {_n(row['bytes_per_text_byte'], 2)} | {_n(row['payload_per_text_byte'], 2)} |"
        )
    unpaced = results["unpaced"]
    rows.append(
        f"| agui-widget's per-event work alone: the same stream unpaced, main-thread CPU of `AgentChat` over the agent "
        f"iterated alone ({_n(unpaced['alone_us'], 1)} µs), less a run of no tokens ({_n(unpaced['run_us'] / 1000, 2)} ms: "
        f"its start and end) | {_n(unpaced['chat_us'] - unpaced['alone_us'], 1)} | — | — | — | — | — |"
    )
    state = results["state"]
    size = _bytes(state["state_bytes"])
    k2v, v2k, dict_trait = state["kernel_to_view"], state["view_to_kernel"], state["dict_trait"]
    rows.append(
        f"| one-key change in a {size} state, `chat.state = {{...}}` (kernel → view, `state_patch`; "
        f"{_n(k2v['cpu'] * 1e3, 1)} ms kernel CPU) | — | {k2v['messages']} | — | {_bytes(k2v['bytes'])} | — | — |"
    )
    rows.append(
        f"| one-key edit in a {size} state, view `state_edit` (view → kernel) | — | {v2k['messages']} | — "
        f"| {_bytes(v2k['bytes'])} | — | — |"
    )
    rows.append(
        f"| one-key change in a {size} synced `Dict` trait (baseline; {_n(dict_trait['cpu'] * 1e3, 1)} ms kernel CPU) "
        f"| — | {dict_trait['messages']} | — | {_bytes(dict_trait['bytes'])} | — | — |"
    )
    comm = results["comm"]
    rows.append(
        f"| one comm message (a chat's `events` of 50 tokens): sent back to back, kernel CPU (of which the sending thread) "
        f"| {_n(comm['burst_us'])} ({_n(comm['burst_thread_us'])}) | | | | | |"
    )
    rows.append(
        f"| the same, one every {_n(comm['gap'] * 1000)} ms as a streaming chat sends them, over a kernel sleeping as long "
        f"| {_n(comm['spaced_us'])} ({_n(comm['spaced_thread_us'])}) | | | | | |"
    )
    null = results["null"]
    notes = (
        f"\n{_n(tokens)} tokens ({_bytes(results['text_bytes'])} of text) at {_n(rate)} tokens/s in a real ipykernel; "
        f"kernel CPU is above a null agent that only sleeps at that pace "
        f"({_n(null['cpu_us_per_token'], 1)} µs/token), run in the same round; each figure is the median of "
        f'{len(results["pipeline"]["runs"])} rounds (a ratio: of the rounds\' ratios). "bytes on the wire" are the JSON sizes of the comm messages the '
        f'front end received (`comm_id` and ipywidgets envelope included); "message content" counts only what '
        f"the widget sends (the custom message content, or the synced trait state)."
    )
    return "\n".join(rows) + "\n" + notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens per second")
    parser.add_argument("--repeat", type=int, default=7, help="rounds, each running every way once (default 7)")
    parser.add_argument(
        "--windows", type=float, nargs="*", default=list(WINDOWS), help="longer batch windows to measure too (seconds)"
    )
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    results = asyncio.run(run(args.tokens, args.rate, args.repeat, tuple(args.windows)))
    results["seconds"] = time.perf_counter() - began
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
