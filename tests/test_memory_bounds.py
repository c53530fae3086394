"""Memory across many runs: what a chat keeps of runs that are over is bounded.

The transcript grows with the conversation, as it must; the event log is bounded by count and by
size; nothing else of a finished turn stays behind (benchmarks/memory.py measures the bytes).
"""

from __future__ import annotations

import gc
import weakref

from ag_ui.core import (
    AssistantMessage,
    EventType,
    MessagesSnapshotEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from agui_widget import AgentChat
from agui_widget.adapters import AgentAdapter
from agui_widget.pipeline._eventlog import MAX_EVENT_BYTES, MAX_EVENTS, EventLog
from agui_widget.session._session import Session

from .support import until


def logged_json_bytes(events) -> int:
    """The JSON the event log really holds, measured the slow way."""
    return sum(len(event.model_dump_json(by_alias=True, exclude_none=True)) for event in events)


class SnapshotAgent:
    """A short answer, then the whole transcript as MESSAGES_SNAPSHOT, as ag-ui-langgraph's agents
    end every run."""

    def __init__(self, padding: int = 0) -> None:
        self.text = "Here it is." + " " * padding

    async def run(self, input):
        message_id = f"m-{input.run_id}"
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id=message_id, role="assistant")
        yield TextMessageContentEvent(message_id=message_id, delta=self.text)
        yield TextMessageEndEvent(message_id=message_id)
        answer = AssistantMessage(id=message_id, content=self.text)
        yield MessagesSnapshotEvent(messages=[*input.messages, answer])
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


class RawCopyAgent:
    """Puts a copy of a large framework event on every token, as ag-ui-langgraph does by default."""

    def __init__(self, tokens: int, raw_bytes: int) -> None:
        self.tokens = tokens
        self.raw = {"event": "on_chat_model_stream", "data": {"state": "x" * raw_bytes}}

    async def run(self, input):
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id="m1", role="assistant")
        for _ in range(self.tokens):
            yield TextMessageContentEvent(message_id="m1", delta="tok ", raw_event=self.raw)
        yield TextMessageEndEvent(message_id="m1")
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


class BackendToolAgent(AgentAdapter):
    async def _events(self, input, stream):
        yield stream.text("Looking it up.")
        call = stream.tool_call("lookup", {"query": "paris"})
        yield call
        yield stream.tool_result(call[0].tool_call_id, {"answer": 42})
        yield stream.text("It is 42.")


async def test_snapshots_of_the_whole_transcript_do_not_pile_up_in_the_event_log():
    # Each run's snapshot holds the transcript so far: 300 runs of them are about 10 MB of JSON
    # (their square), held by a few hundred events, far below the count bound.
    session = Session(SnapshotAgent(padding=40))
    for _ in range(300):
        run = await session.send("Say something short, please.")
        assert run.status == "finished", run.error
    assert len(session.messages) == 600
    assert len(session.events) < MAX_EVENTS
    assert logged_json_bytes(session.events) <= MAX_EVENT_BYTES * 1.05
    assert session.events[-1].type == EventType.RUN_FINISHED
    snapshots = [e for e in session.events if e.type == EventType.MESSAGES_SNAPSHOT]
    assert len(snapshots[-1].messages) == 600  # the newest are the ones kept


async def test_raw_copies_on_every_token_are_counted_in_the_bound():
    session = Session(RawCopyAgent(tokens=120, raw_bytes=50_000))
    run = await session.send("go")
    assert run.status == "finished", run.error
    assert "".join(e.delta for e in run.events if e.type == EventType.TEXT_MESSAGE_CONTENT) == "tok " * 120
    assert logged_json_bytes(session.events) <= MAX_EVENT_BYTES * 1.05
    assert session.events[-1].type == EventType.RUN_FINISHED


async def test_the_size_bound_drops_the_oldest_and_keeps_the_newest_event():
    session = Session(SnapshotAgent(padding=2_000), max_event_bytes=1_000)
    await session.send("one")
    await session.send("two")
    assert [e.type for e in session.events] == [EventType.RUN_FINISHED]
    assert session.event_log.bytes == logged_json_bytes(session.events)


async def test_plain_token_streams_meet_the_count_bound_first():
    session = Session(RawCopyAgent(tokens=0, raw_bytes=0), max_events=50)
    for _ in range(20):
        await session.send("go")
    assert len(session.events) == 50
    assert abs(session.event_log.bytes - logged_json_bytes(session.events)) <= 0.2 * session.event_log.bytes


async def test_the_log_gives_back_the_events_it_was_given():
    session = Session(BackendToolAgent())
    seen: list = []
    session.hooks.on_event = seen.append
    run = await session.send("Look it up.")
    assert len(seen) > 5 and session.events == seen and run.events == seen
    assert abs(session.event_log.bytes - logged_json_bytes(seen)) <= 0.2 * logged_json_bytes(seen)


def test_plain_deltas_are_kept_where_the_garbage_collector_does_not_walk():
    log = EventLog()
    log.extend([TextMessageContentEvent(message_id="m1", delta=f"tok{i} ") for i in range(1_000)])
    log.extend([TextMessageContentEvent(message_id="m1", delta="raw", raw_event={"chunk": 1})])
    gc.collect()
    records = list(log._records)
    assert sum(gc.is_tracked(record) for record in records) == 1, "only the delta with more than an id and a delta"
    assert log.events()[0] == TextMessageContentEvent(message_id="m1", delta="tok0 ")
    assert log.events()[-1].raw_event == {"chunk": 1}


async def test_finished_turns_leave_nothing_behind_in_the_chat():
    ended: list[weakref.ref] = []
    chat = AgentChat(BackendToolAgent(), on_run_end=lambda run: ended.append(weakref.ref(run)))
    for _ in range(300):
        run = await chat.send("Look it up.")
        assert run.status == "finished", run.error
    del run

    def every_run_freed() -> bool:
        gc.collect()
        return all(ref() is None for ref in ended)

    assert len(ended) == 300
    await until(every_run_freed, what="every finished run freed (once the chat's timers and the last stream's close ran)")
    session = chat._session
    assert session.active is None and not session.queue and not session.pending
    assert session._consumer is None and session._task is None
    assert chat._link.transport._batch == [] and chat._link.transport._timer is None
    assert chat._link._refresh_handle is None
    assert chat._link.genui.renders == {}
