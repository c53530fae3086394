"""What starting a run costs the kernel as the transcript grows: 10, 100 and 1,000 turns.

Each turn of the transcript is a user message, an assistant message that calls a tool (every
other turn) and its tool result, and an assistant answer, about 300 characters each; the state is
a to-do list of 50 items. The agent answers at once (RUN_STARTED, one short text message,
RUN_FINISHED), so what is timed is the session's own work for a turn: building ``RunAgentInput``
(validating the transcript into AG-UI models, copying the state, the tools and the context),
the pipeline for a handful of events, and the end of the run. Kernel CPU (``process_time``), best
and median of several turns, after warm-up; and, apart, the part of it that building
``RunAgentInput`` takes.

Then assigning ``chat.messages`` with one message appended, at 1,000 and 10,000 messages: a real
``AgentChat`` outside a kernel (its comm sends nothing), timed as a cell's assignment is (the
validation, the session, the message to the views, the traits), against validating the whole list
afresh (``normalize_messages``, what every assignment did at least once: the baseline), the two
alternated in the same loop.

Usage::

    python benchmarks/run_start.py [--turns 10 100 1000] [--repeat 15] [--assigned 1000 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import RunAgentInput

from agui_widget import AgentChat
from agui_widget.adapters import AgentAdapter, EventStream
from agui_widget.session._session import Session, _input_messages, normalize_messages

TEXT = "word " * 60  # about 300 characters


class Instant(AgentAdapter):
    """Answers at once with one short message."""

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator[Any]:
        yield stream.text("ok")


def transcript(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for turn in range(turns):
        messages.append({"id": f"u{turn}", "role": "user", "content": TEXT})
        if turn % 2:
            call = {"id": f"c{turn}", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "' + TEXT + '"}'}}
            messages.append({"id": f"a{turn}", "role": "assistant", "content": "", "toolCalls": [call]})
            messages.append({"id": f"t{turn}", "role": "tool", "toolCallId": f"c{turn}", "content": TEXT})
        messages.append({"id": f"b{turn}", "role": "assistant", "content": TEXT})
    return messages


async def measure(turns: int, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Kernel CPU of each of ``repeat`` turns in a row (after warm-up), of building the turn's
    ``RunAgentInput.messages`` as the session does (each message validated once), and of
    validating the whole transcript afresh (what every run did before: the baseline)."""
    state = {"todos": [{"text": f"item {i} " + "x" * 40, "done": i % 3 == 0} for i in range(50)]}
    session = Session(Instant(), messages=transcript(turns), state=state)
    runs: list[float] = []
    inputs: list[float] = []
    afresh: list[float] = []
    for index in range(repeat + 3):
        start = time.process_time()
        await session.send("again")  # the transcript grows by two messages a turn
        spent = time.process_time() - start
        began = time.process_time()
        session._input_messages(session.messages)
        built = time.process_time() - began
        began = time.process_time()
        _input_messages(session.messages)
        whole = time.process_time() - began
        if index >= 3:  # warm-up
            runs.append(spent)
            inputs.append(built)
            afresh.append(whole)
    return runs, inputs, afresh


def measure_assignment(count: int, repeat: int) -> tuple[list[float], list[float]]:
    """Kernel CPU of ``chat.messages = [*chat.messages, one_more]`` at ``count`` messages, and of
    validating that whole list afresh (the baseline), each ``repeat`` times, alternated."""
    messages = transcript(count // 3 + 1)[:count]
    chat = AgentChat(Instant(), messages=messages)
    assigned: list[float] = []
    afresh: list[float] = []
    for index in range(repeat + 2):
        more = [*chat.messages, {"id": f"more{index}", "role": "user", "content": TEXT}]
        began = time.process_time()
        normalize_messages(more)
        whole = time.process_time() - began
        began = time.process_time()
        chat.messages = more
        spent = time.process_time() - began
        if index >= 2:  # warm-up, and the first assignment (which validates what it has not seen)
            assigned.append(spent)
            afresh.append(whole)
    chat.close()
    return assigned, afresh


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--assigned", type=int, nargs="*", default=[1000, 10000])
    args = parser.parse_args()
    print(
        "| turns | messages | a run, kernel CPU ms (best / median) | its `RunAgentInput.messages` ms (median) "
        "| validating the whole transcript afresh ms (median, the baseline) |"
    )
    print("|---:|---:|---:|---:|---:|")
    for turns in args.turns:
        runs, inputs, afresh = asyncio.run(measure(turns, args.repeat))
        messages = len(transcript(turns))
        print(
            f"| {turns:,} | {messages:,} | {min(runs) * 1000:.2f} / {statistics.median(runs) * 1000:.2f} "
            f"| {statistics.median(inputs) * 1000:.2f} | {statistics.median(afresh) * 1000:.2f} |"
        )

    if not args.assigned:
        return
    print()
    print(
        "| messages | assigning `chat.messages` one more, kernel CPU ms (best / median) "
        "| validating the whole list afresh ms (median, the baseline) |"
    )
    print("|---:|---:|---:|")
    for count in args.assigned:
        assigned, afresh = measure_assignment(count, args.repeat)
        print(
            f"| {count:,} | {min(assigned) * 1000:.2f} / {statistics.median(assigned) * 1000:.2f} "
            f"| {statistics.median(afresh) * 1000:.2f} |"
        )


if __name__ == "__main__":
    main()
