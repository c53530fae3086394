"""Whether a chat's memory stays flat across many runs, apart from the transcript itself.

In a real ipykernel, driven by the fake front end of the kernel-level tests (so the comm,
ipywidgets and IOPub costs are included), one displayed ``AgentChat`` with a connected view runs
``--turns`` user turns, and every ``--every`` turns the kernel reports, after ``gc.collect()``:

- its resident set size (``VmRSS`` of ``/proc/self/status``, less what ``tracemalloc`` itself
  holds);
- ``tracemalloc``'s current size: every Python allocation still alive (started before the turns);
- the transcript: ``len(json.dumps(chat.messages))``, and what it costs in memory, measured as
  the traced size of a fresh copy of it (``json.loads`` of that JSON, so no object is shared);
- the event log: how many events ``chat.events`` keeps, their JSON, and what they cost: what
  emptying the log frees (the events wait in a pickle meanwhile, whose size is taken off). The log
  is bounded: the newest 20,000 events, and about 4 MB of their JSON at most.

"The rest" is the traced growth less the growth of the transcript's and the event log's cost, per
turn, from the first sample to the last: memory the chat keeps for runs that are over.

Scenarios:

1. ``short``: a plain AG-UI agent streams a short answer (6 tokens);
2. ``tool``: an agent on our ``AgentAdapter`` base calls a backend tool, gets its result and
   answers (tool call start/args/end, result, text);
3. ``demo``: the built-in demo agent (``AgentChat()``, no delay) asked about the weather (a
   backend tool call and two streamed sentences);
4. ``snapshot``: scenario 1, each run ending with the whole transcript as MESSAGES_SNAPSHOT,
   as ag-ui-langgraph's agents do;
5. ``cleared``: scenario 1 with ``chat.clear()`` every 100 turns, so the transcript stays short.

Usage::

    python benchmarks/memory.py            # a Markdown table for docs/performance.md
    python benchmarks/memory.py --json     # the raw numbers, every sample

All five scenarios take about 10 minutes on 2 cores: a turn's work grows with the transcript
(each run sends the agent the whole history), and the transcript reaches 2,000 to 4,000 messages.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.kernel_harness import FakeFrontEnd  # noqa: E402

KERNEL_SETUP = r'''
import asyncio, gc, json, pickle, sys, tracemalloc
from ag_ui.core import (
    AssistantMessage, MessagesSnapshotEvent, RunFinishedEvent, RunFinishedSuccessOutcome, RunStartedEvent,
    TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent,
)
from agui_widget import AgentChat
from agui_widget.adapters import AgentAdapter

SHORT_ANSWER = ("Sure", ", ", "here ", "it ", "is", ".")


class ShortAnswerAgent:
    """A plain AG-UI agent: one short streamed answer per run."""

    async def run(self, input):
        message_id = "m-" + input.run_id
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id=message_id, role="assistant")
        for token in SHORT_ANSWER:
            await asyncio.sleep(0)
            yield TextMessageContentEvent(message_id=message_id, delta=token)
        yield TextMessageEndEvent(message_id=message_id)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedSuccessOutcome())


class SnapshotAgent(ShortAnswerAgent):
    """The short answer, then the whole transcript as MESSAGES_SNAPSHOT (ag-ui-langgraph ends
    every run so)."""

    async def run(self, input):
        async for event in super().run(input):
            if event.type == "RUN_FINISHED":
                answer = AssistantMessage(id="m-" + input.run_id, content="".join(SHORT_ANSWER))
                yield MessagesSnapshotEvent(messages=[*input.messages, answer])
            yield event


class BackendToolAgent(AgentAdapter):
    """Calls a tool it runs itself, then answers with its result."""

    async def _events(self, input, stream):
        yield stream.text("Looking it up.")
        call = stream.tool_call_start("lookup")
        call_id = call[0].tool_call_id
        yield call
        for piece in ('{"query": ', '"paris"', "}"):
            await asyncio.sleep(0)
            yield stream.tool_call_args(call_id, piece)
        yield stream.tool_call_end(call_id)
        yield stream.tool_result(call_id, {"answer": 42, "unit": "things"})
        for token in ("It ", "is ", "42", "."):
            await asyncio.sleep(0)
            yield stream.text(token)


def _rss_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _fresh_cost(make):
    """Traced bytes of the objects ``make()`` builds (fresh ones, sharing nothing)."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    made = make()
    cost = tracemalloc.get_traced_memory()[0] - before
    del made
    return cost


def _event_log_cost(log):
    """Traced bytes the event log (an ``EventLog``) frees when emptied, then restored.

    Its records wait in a pickle meanwhile, whose own size is taken off; restored records share no
    string with the transcript any more, so the next sample counts those strings to the log too.
    """
    gc.collect()
    with_log = tracemalloc.get_traced_memory()[0]
    kept = pickle.dumps((list(log._records), list(log._sizes)), protocol=pickle.HIGHEST_PROTOCOL)
    log._records.clear()
    log._sizes.clear()
    gc.collect()
    without_log = tracemalloc.get_traced_memory()[0] - sys.getsizeof(kept)
    records, sizes = pickle.loads(kept)
    log._records.extend(records)
    log._sizes.extend(sizes)
    del kept, records, sizes
    return with_log - without_log


def sample(chat, turns):
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0]
    rss = _rss_bytes() - tracemalloc.get_tracemalloc_memory()
    text = json.dumps(chat.messages)
    sizes = [len(json.dumps(e.model_dump(mode="json", by_alias=True, exclude_none=True))) for e in chat.events]
    result = {
        "turns": turns,
        "rss": rss,
        "traced": traced,
        "messages": len(chat.messages),
        "transcript_json": len(text.encode()),
        "transcript_cost": _fresh_cost(lambda: json.loads(text)),
        "events": len(sizes),
        "events_json": sum(sizes),
        "event_cost": _event_log_cost(chat._session.event_log),
    }
    gc.collect()
    return result


async def turns(chat, prompt, first, last, clear_every):
    """Run turns ``first``..``last``; every one must finish."""
    for number in range(first, last + 1):
        run = await chat.send(prompt)
        if run.status != "finished":
            raise RuntimeError(f"turn {number} ended {run.status}: {run.error}")
        if clear_every and number % clear_every == 0:
            chat.clear()
    await asyncio.sleep(0.2)  # the batching and trait-refresh timers, the saved output's rewrite
'''

SCENARIOS: dict[str, dict[str, Any]] = {
    "short": {
        "create": "AgentChat(ShortAnswerAgent())",
        "prompt": "Say something short.",
        "label": "a plain AG-UI agent streams a short answer (6 tokens)",
        "clear": 0,
    },
    "tool": {
        "create": "AgentChat(BackendToolAgent())",
        "prompt": "Look it up.",
        "label": "an `AgentAdapter` agent calls a backend tool and answers",
        "clear": 0,
    },
    "demo": {
        "create": "AgentChat()",
        "setup": "{name}.agent.delay = 0",
        "prompt": "What's the weather in Paris?",
        "label": "the demo agent, `AgentChat()`, asked about the weather (tool call + text)",
        "clear": 0,
    },
    "snapshot": {
        "create": "AgentChat(SnapshotAgent())",
        "prompt": "Say something short.",
        "label": "as the first, each run ending with MESSAGES_SNAPSHOT (as ag-ui-langgraph does)",
        "clear": 0,
    },
    "cleared": {
        "create": "AgentChat(ShortAnswerAgent())",
        "prompt": "Say something short.",
        "label": "as the first, with `chat.clear()` every 100 turns",
        "clear": 100,
    },
}


async def run_scenario(fe: FakeFrontEnd, name: str, total: int, every: int) -> dict[str, Any]:
    scenario = SCENARIOS[name]
    chat = f"chat_{name}"
    widget = await fe.create_widget(f"{chat} = {scenario['create']}\n{chat}")
    if "setup" in scenario:
        await fe.execute(scenario["setup"].format(name=chat))
    fe.send_custom(widget, {"kind": "hello", "viewId": f"view-{name}"})  # a view is on the page
    await fe.wait_for(lambda: widget.of_kind("snapshot"), what="the view's snapshot")
    # A few turns first, so imports and first-use caches are not counted as growth.
    await fe.execute(f"await turns({chat}, {scenario['prompt']!r}, 1, 5, 0)\n{chat}.clear()", timeout=60)
    samples = [await fe.evaluate(f"sample({chat}, 0)", timeout=120)]
    began = time.perf_counter()
    for first in range(1, total + 1, every):
        last = min(first + every - 1, total)
        block = await fe.execute(
            f"await turns({chat}, {scenario['prompt']!r}, {first}, {last}, {scenario['clear']})", timeout=60 + every * 2
        )
        samples.append(await fe.evaluate(f"sample({chat}, {last})", timeout=120))
        samples[-1]["block_seconds"] = block.elapsed
    seconds = time.perf_counter() - began
    problems = fe.problems()
    if problems:
        raise RuntimeError(f"the kernel reported problems in {name!r}:\n" + "\n".join(problems[-3:]))
    first_sample, last_sample = samples[0], samples[-1]
    turns = last_sample["turns"] - first_sample["turns"]

    def per_turn(key: str) -> float:
        return (last_sample[key] - first_sample[key]) / turns

    return {
        "label": scenario["label"],
        "turns": turns,
        "seconds": seconds,
        "samples": samples,
        "rss_per_turn": per_turn("rss"),
        "traced_per_turn": per_turn("traced"),
        "transcript_json_per_turn": per_turn("transcript_json"),
        "transcript_cost_per_turn": per_turn("transcript_cost"),
        "event_cost_per_turn": per_turn("event_cost"),
        "beyond_per_turn": per_turn("traced") - per_turn("transcript_cost") - per_turn("event_cost"),
        "view_messages": len(widget.received),
    }


async def run(names: list[str], total: int, every: int) -> dict[str, Any]:
    results: dict[str, Any] = {"turns": total, "every": every, "scenarios": {}}
    async with FakeFrontEnd.running() as fe:
        await fe.execute(KERNEL_SETUP)
        await fe.execute("tracemalloc.start()")
        for name in names:
            results["scenarios"][name] = await run_scenario(fe, name, total, every)
    return results


def _bytes(value: float) -> str:
    if abs(value) >= 1e6:
        return f"{value / 1e6:,.1f} MB"
    if abs(value) >= 1e4:
        return f"{value / 1e3:,.0f} KB"
    return f"{value:,.0f} B"


def _growth_per_turn(samples: list[dict[str, Any]], key: str, since: int = 0) -> float:
    first = next(s for s in samples if s["turns"] >= since)
    last = samples[-1]
    return (last[key] - first[key]) / max(1, last["turns"] - first["turns"])


def table(results: dict[str, Any]) -> str:
    tail = max(results["every"], results["turns"] * 3 // 10 // results["every"] * results["every"])
    since = results["turns"] - tail
    rows = [
        "| scenario | transcript at the end: JSON, in memory | event log at the end: events, JSON, in memory "
        "| memory growth per turn: all | of it the transcript | of it the event log | the rest "
        f"| per turn, last {tail:,} turns: all, of it the transcript | RSS growth |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for scenario in results["scenarios"].values():
        samples = scenario["samples"]
        last = samples[-1]
        rows.append(
            f"| {scenario['label']} "
            f"| {_bytes(last['transcript_json'])}, {_bytes(last['transcript_cost'])} "
            f"| {last['events']:,}, {_bytes(last['events_json'])}, {_bytes(last['event_cost'])} "
            f"| {_bytes(scenario['traced_per_turn'])} | {_bytes(scenario['transcript_cost_per_turn'])} "
            f"| {_bytes(scenario['event_cost_per_turn'])} | {_bytes(scenario['beyond_per_turn'])} "
            f"| {_bytes(_growth_per_turn(samples, 'traced', since))}, {_bytes(_growth_per_turn(samples, 'transcript_cost', since))} "
            f"| {_bytes(samples[-1]['rss'] - samples[0]['rss'])} |"
        )
    notes = (
        f"\n{results['turns']:,} turns per scenario, one after the other in one real ipykernel (each chat displayed, "
        f"a view connected), sampled every {results['every']} turns after `gc.collect()`. Memory is `tracemalloc`'s "
        f"current size (every live Python allocation of the kernel). The transcript's share is measured as a fresh "
        f'copy of it (`json.loads` of its JSON); the event log\'s as what emptying it frees. "The rest" is what the '
        f"chat keeps for runs that are over, beyond both (a few hundred bytes either way is measuring noise). The "
        f"event log keeps the newest 20,000 events and about 4 MB of their JSON at most: once full, memory grows "
        f"with the transcript alone (the last {tail:,} turns). RSS, less tracemalloc's own memory, also "
        f"moves with the allocator's arenas and the earlier scenarios' chats."
    )
    return "\n".join(rows) + "\n" + notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100, help="turns between two samples (default 100)")
    parser.add_argument("--scenario", action="append", choices=list(SCENARIOS), help="only these (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    results = asyncio.run(run(args.scenario or list(SCENARIOS), args.turns, args.every))
    results["seconds"] = time.perf_counter() - began
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
