"""How fast the chat shows what the agent streams, in a real JupyterLab in Chromium.

Starts JupyterLab the way the browser tests do (``tests/browser/conftest.py``: a server on a free
port of 127.0.0.1 with a temporary root, Debian's headless Chromium through Playwright) and
measures, in the page of a notebook:

a. **token latency**: from the agent emitting a token to the token being in the page. The agent
   (an AG-UI agent defined in the notebook, one TEXT_MESSAGE_CONTENT per token, paced on a
   schedule) notes, for every token, the kernel's ``time.time()`` just before it yields the event
   and the message's length after it. In the page a MutationObserver notes ``Date.now()`` each
   time the answer's ``.agui-text`` changes, with its ``data-source-length`` (the length of the
   Markdown source rendered, set in the same render as the text); the next animation frame's
   ``Date.now()`` is noted too. The kernel and Chromium run on this machine and share its clock.
   A token is in the DOM at the first change whose length covers it, and on screen at the frame
   after that. Measured at ``--latency-rate`` (a model's pace) and at ``--rate``;
b. **frame times while streaming** ``--tokens`` tokens at ``--rate`` tokens/s: the intervals
   between ``requestAnimationFrame`` callbacks from the first token shown to the last (p50, p95,
   max, and the frames over 50 ms), and the page's long tasks (over 50 ms) meanwhile. A self-check
   blocks the page for 120 ms afterwards: the frame intervals must show it;
c. **the first render of a long transcript**: a cell runs ``AgentChat(messages=[...])`` with
   ``--messages`` and with ``--long-messages`` messages (user questions, and Markdown answers with
   lists and code) and displays it; from the cell's start (the kernel's clock) and from the view's
   element appearing, to the newest message's row in the DOM, and to the frame in which it is on
   screen (the chat follows the end). Then the transcript must answer at once: a scroll to the
   top (the Home key's keydown, which stops the following, and the scroll offset set to 0), to
   the first message's row on screen. Also the elements in the view once it is shown, and
   appending one message from a cell (``chat.messages = chat.messages + [...]``): from the
   kernel's clock before the assignment to the row on screen, with the kernel's own time for the
   assignment, and the elements the page added and removed for it. The best and the median of
   ``--repeats`` runs. A transcript is windowed (only the rows near the view are drawn) from
   200 rows; the same transcripts drawn whole (``globalThis.aguiWidgetWindowFrom = Infinity``
   in the page) are the baseline, ``--baseline-repeats`` runs each (``0``: none). A displayed
   chat also leaves the conversation as a Markdown output, which JupyterLab renders (hidden)
   before the view exists; the same windowed runs with ``keep_conversation=False`` show what
   that copy costs. (The chat rewrites that copy half a second after an appended message, once
   the row is on screen, so the appending measures do not include it.)

Tokens are words of 3 to 5 letters and a space, with a paragraph break every 40 tokens. The
state and event panels stay closed.

Usage::

    python benchmarks/browser_latency.py            # a Markdown table
    python benchmarks/browser_latency.py --json     # the raw numbers
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect  # noqa: E402

from tests.browser.helpers_ui import lab_session  # noqa: E402

SETUP = r'''
import asyncio, json, random, string, time
from ag_ui.core import (
    RunFinishedEvent, RunFinishedSuccessOutcome, RunStartedEvent, TextMessageContentEvent,
    TextMessageEndEvent, TextMessageStartEvent,
)
from agui_widget import AgentChat

_rng = random.Random(7)


def words(n, paragraph=40):
    """n tokens: a word of 3-5 letters and a space, a paragraph break every `paragraph` tokens."""
    return [
        "".join(_rng.choice(string.ascii_lowercase) for _ in range(_rng.randint(3, 5)))
        + ("\n\n" if (i + 1) % paragraph == 0 else " ")
        for i in range(n)
    ]


class PacedAgent:
    """One TEXT_MESSAGE_CONTENT per token at `rate` tokens/s (a schedule, so the mean pace holds).
    For every token it notes the wall clock just before yielding it and the message's length
    (UTF-16 units, as the view counts) once it is added."""

    def __init__(self):
        self.plan = ([], 1.0)
        self.log = []

    async def run(self, input):
        tokens, rate = self.plan
        self.log = log = []
        mid = f"answer-{input.run_id}"
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id=mid, role="assistant")
        length = 0
        t0 = time.perf_counter()
        for i, token in enumerate(tokens):
            delay = t0 + i / rate - time.perf_counter()
            await asyncio.sleep(delay if delay > 0 else 0)
            length += len(token.encode("utf-16-le")) // 2
            log.append((time.time(), length))
            yield TextMessageContentEvent(message_id=mid, delta=token)
        yield TextMessageEndEvent(message_id=mid)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedSuccessOutcome())


agent = PacedAgent()
chat = AgentChat(agent)
chat'''

# Notes every change of the last answer's source length (Date.now() and performance.now()), the
# Date.now() of the animation frame after it, every frame's time, and long tasks.
RECORDER = r"""
(root) => {
  const rec = { samples: [], frames: [], longTasks: [], running: true };
  let last = -1;
  let waiting = [];
  const sample = () => {
    const texts = root.querySelectorAll(".agui-bubble-assistant .agui-text");
    const el = texts[texts.length - 1];
    if (!el) return;
    const length = Number(el.dataset.sourceLength || 0);
    if (length === last) return;
    last = length;
    const s = [Date.now(), performance.now(), length, null];
    rec.samples.push(s);
    waiting.push(s);
  };
  rec.observer = new MutationObserver(sample);
  rec.observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["data-source-length"] });
  const frame = (t) => {
    rec.frames.push(t);
    if (waiting.length) {
      const now = Date.now();
      for (const s of waiting) s[3] = now;
      waiting = [];
    }
    if (rec.running) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  try {
    rec.longObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) rec.longTasks.push([e.startTime, e.duration]);
    });
    rec.longObserver.observe({ type: "longtask" });
  } catch (e) { /* no long task timing here */ }
  rec.stop = () => {
    rec.running = false;
    rec.observer.disconnect();
    if (rec.longObserver) rec.longObserver.disconnect();
    return { samples: rec.samples, frames: rec.frames, longTasks: rec.longTasks };
  };
  return rec;
}
"""

TRANSCRIPT_SETUP = r'''
import time
from agui_widget import AgentChat


def transcript(n):
    """n messages: a question, then a Markdown answer (a list every 5th, a code block every 10th)."""
    messages = []
    for i in range(n // 2):
        messages.append({"id": f"u{i}", "role": "user", "content": f"Question {i}: what does step {i} of the pipeline do?"})
        answer = f"Step **{i}** reads the `input`, checks it and passes it on. It takes about {i % 7 + 1} ms."
        if i % 5 == 0:
            answer += "\n\n- reads the input\n- checks the framing\n- *emits* the events"
        if i % 10 == 0:
            answer += f"\n\n```python\nfor event in stream({i}):\n    handle(event)  # step {i}\n```"
        messages.append({"id": f"a{i}", "role": "assistant", "content": answer})
    return messages


MESSAGES = {n: transcript(n) for n in {counts}}
EXTRA = {"id": "extra", "role": "assistant", "content": "One more answer, **appended** from a cell."}
len(MESSAGES)'''

# Notes when the chat view appears in the notebook panel, when the newest message's row is in the
# DOM and when it is on screen; then scrolls to the top as the Home key does and notes when the
# first message's row is on screen.
TRANSCRIPT_RECORDER = r"""
([panelId, firstId, lastId]) => {
  const panel = document.getElementById(panelId);
  const rec = { armed: Date.now(), created: null, rows: null, frame: null, nodes: null, rowCount: null, topAsked: null, top: null, topFrame: null };
  const onScreen = (box, el) => {
    const b = box.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.bottom > b.top + 1 && r.top < b.bottom - 1;
  };
  const toTop = (root, box) => {
    rec.topAsked = Date.now();
    // The user's key: the chat stops following the end. The browser would then scroll; so do we.
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Home", bubbles: true }));
    box.scrollTop = 0;
    const look = () => {
      const first = root.querySelector(`.agui-transcript > [data-row="${firstId}"]`);
      if (first && box.scrollTop < 1 && onScreen(box, first)) {
        rec.top = Date.now();
        requestAnimationFrame(() => { rec.topFrame = Date.now(); });
      } else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  };
  const check = () => {
    const root = panel.querySelector(".jp-OutputArea-output .agui-widget");
    if (!root) return;
    if (rec.created === null) rec.created = Date.now();
    const last = root.querySelector(`.agui-transcript > [data-row="${lastId}"]`);
    if (last && rec.rows === null) {
      rec.rows = Date.now();
      observer.disconnect();
      const box = root.querySelector(".agui-scroll");
      const shown = () => {
        if (!onScreen(box, last)) return requestAnimationFrame(shown);
        rec.frame = Date.now();
        rec.nodes = root.querySelectorAll("*").length;
        rec.rowCount = root.querySelectorAll(".agui-transcript > [data-row]").length;
        setTimeout(() => toTop(root, box), 0);
      };
      requestAnimationFrame(shown);
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(panel, { subtree: true, childList: true });
  window.__transcriptRecord = rec;
}
"""

# Back at the end (following again), then counts what the page adds and removes in the transcript
# until the row `id` is on screen.
APPEND_RECORDER = r"""
([root, id]) => new Promise((ready) => {
  const box = root.querySelector(".agui-scroll");
  const column = root.querySelector(".agui-transcript");
  const jump = [...root.querySelectorAll("button")].find((b) => /Jump to latest/.test(b.textContent || ""));
  if (jump) jump.click();
  const rec = { added: 0, removed: 0, row: null, frame: null };
  const onScreen = (el) => {
    const b = box.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.bottom > b.top + 1 && r.top < b.bottom - 1;
  };
  // Two quiet frames at the end before counting.
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const observer = new MutationObserver((records) => {
      for (const r of records) { rec.added += r.addedNodes.length; rec.removed += r.removedNodes.length; }
      const row = column.querySelector(`:scope > [data-row="${id}"]`);
      if (row && rec.row === null) {
        rec.row = Date.now();
        const shown = () => {
          if (!onScreen(row)) return requestAnimationFrame(shown);
          rec.frame = Date.now();
          requestAnimationFrame(() => observer.disconnect());
        };
        requestAnimationFrame(shown);
      }
    });
    observer.observe(column, { childList: true });
    window.__appendRecord = rec;
    ready(true);
  }));
})
"""


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": percentile(values, 0.5),
        "p95": percentile(values, 0.95),
        "max": max(values) if values else float("nan"),
        "mean": statistics.fmean(values) if values else float("nan"),
    }


# A self-check of (b): a 120 ms task blocks the page while frames are counted; the longest
# interval must show it, or this browser's frame times say nothing about the page's work.
FRAME_PROBE = r"""
() => new Promise((resolve) => {
  const frames = [];
  const loop = (t) => {
    frames.push(t);
    if (frames.length < 30) requestAnimationFrame(loop);
    else resolve(Math.max(...frames.slice(1).map((t, i) => t - frames[i])));
  };
  requestAnimationFrame(loop);
  setTimeout(() => { const end = performance.now() + 120; while (performance.now() < end) { /* busy */ } }, 100);
})
"""


def stream_once(nb, chat, tokens: int, rate: float) -> dict[str, Any]:
    """One paced answer of `tokens` tokens at `rate` tokens/s; latencies and frame times."""
    nb.run_cell(f"chat.clear()\nagent.plan = (words({tokens}), {rate!r})")
    total = int(nb.run_cell("print(sum(len(t.encode('utf-16-le')) // 2 for t in agent.plan[0]))").text.strip())
    expect(chat.root.locator(".agui-empty", has_text="No messages yet")).to_be_visible()
    recorder = chat.root.evaluate_handle(RECORDER)
    chat.send("go")
    budget = tokens / rate * 1000 + 60_000
    nb.page.wait_for_function(
        "([rec, total]) => rec.samples.length > 0 && rec.samples[rec.samples.length - 1][2] >= total && rec.samples[rec.samples.length - 1][3] !== null",
        arg=[recorder, total],
        timeout=budget,
    )
    chat.wait_idle(timeout=budget)
    recorded = recorder.evaluate("rec => rec.stop()")
    stamps_file = nb.session.server.root / "stamps.json"
    nb.run_cell(f"with open({str(stamps_file)!r}, 'w') as f:\n    json.dump(agent.log, f)")
    stamps = json.loads(stamps_file.read_text())
    assert len(stamps) == tokens, (len(stamps), tokens)

    samples = recorded["samples"]
    dom, frame = [], []
    at = 0
    for emitted, length in stamps:
        while at < len(samples) and samples[at][2] < length:
            at += 1
        if at == len(samples):
            raise AssertionError(f"the page never showed a length of {length}")
        dom.append(samples[at][0] - emitted * 1000)
        frame.append(samples[at][3] - emitted * 1000)
    # Frame intervals while the answer streamed into the page.
    first, last = samples[0][1], samples[-1][1]
    times = [t for t in recorded["frames"] if first <= t <= last + 20]
    intervals = [b - a for a, b in zip(times, times[1:])]
    long_tasks = [d for start, d in recorded["longTasks"] if first <= start <= last]
    return {
        "tokens": tokens,
        "rate": rate,
        "chars": total,
        "stream_s": stamps[-1][0] - stamps[0][0],
        "shown_s": (samples[-1][0] - samples[0][0]) / 1000,
        "dom_updates": len(samples),
        "latency_dom_ms": summary(dom),
        "latency_frame_ms": summary(frame),
        "frame_ms": summary(intervals),
        "frames": len(intervals),
        "frames_over_50ms": sum(1 for i in intervals if i > 50),
        "long_tasks": len(long_tasks),
        "long_task_ms_max": max(long_tasks, default=0.0),
    }


def transcript_once(nb, count: int, windowed: bool, kept: bool = True) -> dict[str, Any]:
    page = nb.page
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    expect(nb.chat_roots).to_have_count(0)
    page.evaluate(
        "w => { if (w) delete globalThis.aguiWidgetWindowFrom; else globalThis.aguiWidgetWindowFrom = Infinity; }", windowed
    )
    page.evaluate(TRANSCRIPT_RECORDER, [nb.panel_id, "u0", f"a{count // 2 - 1}"])
    clicked = time.time() * 1000
    options = "" if kept else ", keep_conversation=False"
    cell = nb.run_cell(f"print(time.time())\nbig = AgentChat(messages=MESSAGES[{count}]{options})\nbig", timeout=300_000)
    cell_start = float(cell.text.strip().splitlines()[0]) * 1000
    page.wait_for_function("() => window.__transcriptRecord.topFrame !== null", timeout=300_000)
    rec = page.evaluate("() => window.__transcriptRecord")
    if not windowed:
        shown = nb.chat_roots.first.locator(".agui-transcript > [data-row]").count()
        assert shown == count, f"{shown} rows for {count} messages drawn whole"

    root = nb.chat_roots.first.element_handle()
    page.evaluate(APPEND_RECORDER, [root, "extra"])
    appended = nb.run_cell("t0 = time.time()\nbig.messages = big.messages + [EXTRA]\nprint(t0, time.time())", timeout=120_000)
    t0, t1 = (float(x) * 1000 for x in appended.text.split())
    page.wait_for_function("() => window.__appendRecord.frame !== null", timeout=120_000)
    add = page.evaluate("() => window.__appendRecord")
    return {
        "messages": count,
        "windowed": windowed,
        "kept": kept,
        "run_requested_to_cell_start_ms": cell_start - clicked,
        "cell_start_to_view_ms": rec["created"] - cell_start,
        "cell_start_to_rows_ms": rec["rows"] - cell_start,
        "view_to_rows_ms": rec["rows"] - rec["created"],
        "cell_start_to_frame_ms": rec["frame"] - cell_start,
        "top_to_rows_ms": rec["top"] - rec["topAsked"],
        "top_to_frame_ms": rec["topFrame"] - rec["topAsked"],
        "cell_start_to_top_frame_ms": rec["topFrame"] - cell_start,
        "elements": rec["nodes"],
        "rows": rec["rowCount"],
        "append_kernel_ms": t1 - t0,
        "append_to_row_ms": add["row"] - t0,
        "append_to_frame_ms": add["frame"] - t0,
        "append_added": add["added"],
        "append_removed": add["removed"],
    }


TIMES = (
    "cell_start_to_view_ms",
    "cell_start_to_rows_ms",
    "view_to_rows_ms",
    "cell_start_to_frame_ms",
    "top_to_rows_ms",
    "top_to_frame_ms",
    "cell_start_to_top_frame_ms",
    "elements",
    "rows",
    "append_kernel_ms",
    "append_to_row_ms",
    "append_to_frame_ms",
    "append_added",
    "append_removed",
)


def transcript_runs(nb, count: int, windowed: bool, repeats: int, kept: bool = True) -> dict[str, Any]:
    runs = [transcript_once(nb, count, windowed, kept) for _ in range(repeats)]
    return {
        "messages": count,
        "windowed": windowed,
        "kept": kept,
        "runs": runs,
        **{key: {"best": min(r[key] for r in runs), "median": statistics.median(r[key] for r in runs)} for key in TIMES},
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
    }
    with lab_session("browser-latency") as lab:
        results["machine"]["chromium"] = lab.browser.version
        nb = lab.open([SETUP])
        chat = nb.chat()
        stream_once(nb, chat, 40, args.latency_rate)  # warm-up: bundle, Markdown, highlight paths
        results["latency"] = stream_once(nb, chat, args.latency_tokens, args.latency_rate)
        results["stream"] = stream_once(nb, chat, args.tokens, args.rate)
        probe = nb.page.evaluate(FRAME_PROBE)
        results["frame_probe_ms"] = probe
        if probe < 100:
            print(f"warning: a 120 ms task showed as a {probe:.0f} ms frame: frame times are not measured here", file=sys.stderr)

        counts = [n for n in (args.messages, args.long_messages) if n > 0]
        nb2 = lab.open([TRANSCRIPT_SETUP.replace("{counts}", repr(counts))])
        results["transcripts"] = []
        for count in counts:
            results["transcripts"].append(transcript_runs(nb2, count, True, args.repeats))
            results["transcripts"].append(transcript_runs(nb2, count, True, args.repeats, kept=False))
            if args.baseline_repeats > 0:
                results["transcripts"].append(transcript_runs(nb2, count, False, args.baseline_repeats))
    return results


def table(results: dict[str, Any]) -> str:
    lat, st = results["latency"], results["stream"]

    def trio(s: dict[str, float]) -> str:
        return f"{s['p50']:.0f} / {s['p95']:.0f} / {s['max']:.0f}"

    streaming = [
        "| measure | p50 / p95 / max |",
        "|---|---:|",
        f"| (a) token emitted → in the DOM, {lat['tokens']:,} tokens at {lat['rate']:,.0f} tokens/s (ms) | {trio(lat['latency_dom_ms'])} |",
        f"| (a) token emitted → the next animation frame, same run (ms) | {trio(lat['latency_frame_ms'])} |",
        f"| (a) token emitted → in the DOM, {st['tokens']:,} tokens at {st['rate']:,.0f} tokens/s (ms) | {trio(st['latency_dom_ms'])} |",
        f"| (a) token emitted → the next animation frame, same run (ms) | {trio(st['latency_frame_ms'])} |",
        f"| (b) frame interval while streaming {st['tokens']:,} tokens at {st['rate']:,.0f} tokens/s (ms) | {trio(st['frame_ms'])} |",
        f"| (b) frames over 50 ms, of all frames; long tasks (the longest) | {st['frames_over_50ms']} of {st['frames']}; "
        f"{st['long_tasks']} ({st['long_task_ms_max']:.0f} ms) |",
        f"| (b) updates of the answer in the DOM; streaming time in the kernel / in the page | {st['dom_updates']}; "
        f"{st['stream_s']:.2f} s / {st['shown_s']:.2f} s |",
    ]
    transcript = []
    for count in sorted({t["messages"] for t in results["transcripts"]}):
        of = [t for t in results["transcripts"] if t["messages"] == count]
        windowed = next(t for t in of if t["windowed"] and t["kept"])
        bare = next((t for t in of if t["windowed"] and not t["kept"]), None)
        whole = next((t for t in of if not t["windowed"]), None)
        transcript += [
            f"| (c) a transcript of {count:,} messages, best / median | windowed | windowed, no kept copy | every row drawn |",
            "|---|---:|---:|---:|",
        ]
        for key, label, digits in (
            ("cell_start_to_view_ms", "cell starts → the view's element is in the page (ms)", 0),
            ("view_to_rows_ms", "the view's element → the newest message's row in the DOM (ms)", 0),
            ("cell_start_to_rows_ms", "cell starts → the newest message's row in the DOM (ms)", 0),
            ("cell_start_to_frame_ms", "cell starts → the frame with the newest message on screen (ms)", 0),
            ("top_to_rows_ms", "a scroll to the top → the first message on screen (ms)", 0),
            ("top_to_frame_ms", "a scroll to the top → the next frame (ms)", 0),
            ("cell_start_to_top_frame_ms", "cell starts → shown, scrolled to the top and shown there (ms)", 0),
            ("elements", "elements in the view once shown", 0),
            ("rows", "rows in the DOM once shown", 0),
            ("append_to_frame_ms", "appending one message from a cell → on screen (ms)", 0),
            ("append_kernel_ms", "of which the kernel's assignment (ms)", 0),
            ("append_added", "elements added / removed in the transcript for it", 0),
        ):

            def cell(t: dict[str, Any] | None, key: str = key, digits: int = digits) -> str:
                if t is None:
                    return "not measured"
                if key == "append_added":
                    return f"{t['append_added']['median']:.0f} / {t['append_removed']['median']:.0f}"
                return f"{t[key]['best']:,.{digits}f} / {t[key]['median']:,.{digits}f}"

            transcript.append(f"| {label} | {cell(windowed)} | {cell(bare)} | {cell(whole)} |")
        transcript.append("")
    m = results["machine"]
    note = (
        f"Chromium {m['chromium']}, headless with software rendering; {m['cpus']} CPUs; Python {m['python']}; "
        f"(c) over {max((len(t['runs']) for t in results['transcripts'] if t['windowed']), default=0)} runs, "
        f"the baseline over {max((len(t['runs']) for t in results['transcripts'] if not t['windowed']), default=0)}. "
        f"Self-check of (b): a 120 ms task in the page showed as a "
        f"{results['frame_probe_ms']:.0f} ms frame."
    )
    return "\n".join([*streaming, "", *transcript, note])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    parser.add_argument("--latency-tokens", type=int, default=300)
    parser.add_argument("--latency-rate", type=float, default=50.0, help="tokens/s of the latency run")
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens/s of the streaming run")
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--long-messages", type=int, default=10000, help="a second, longer transcript (0: none)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--baseline-repeats", type=int, default=2, help="runs of each transcript drawn whole, without windowing (0: none)"
    )
    args = parser.parse_args(argv)
    results = run(args)
    print(json.dumps(results, indent=2) if args.json else table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
