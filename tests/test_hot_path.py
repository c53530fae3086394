"""The hot path of a streamed delta reads a stream exactly as the whole pipeline does.

Most of a stream is plain deltas (a TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS with only its id and
its delta) continuing what is already streaming; ``EventConsumer.consume_plain_delta`` checks and
folds those in one step, and hands everything else back to ``consume`` untouched. Whether it is
taken must never show: the same typed events, read both ways, end in the same messages, state,
warnings, delivered events and protocol errors, and a session keeps the same event logs and
recordings and calls its ``on_event`` hook with the same events.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    Event,
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from agui_widget.pipeline._consumer import EventConsumer
from agui_widget.pipeline._eventlog import revive
from agui_widget.pipeline._verify import ProtocolError
from agui_widget.session._session import Session
from agui_widget.vocabulary._hooks import Hooks

from .agui_streams import VIOLATIONS, Stream, streams

_EVENTS: TypeAdapter[Any] = TypeAdapter(Event)


def typed(raw: dict[str, Any]) -> BaseEvent | dict[str, Any]:
    """The event as a Python agent yields it (a model), or the raw dict when no model takes it."""
    try:
        return _EVENTS.validate_python(raw)
    except ValidationError:
        return raw


def read(stream: Stream, *, hot: bool) -> dict[str, Any]:
    """Every event through ``consume``, or first offered to the hot path when ``hot``."""
    warnings: list[str] = []
    consumer = EventConsumer(copy.deepcopy(stream.messages), copy.deepcopy(stream.state), on_warning=warnings.append)
    delivered: list[BaseEvent] = []
    taken = 0
    error = None
    try:
        for raw in stream.events:
            event = typed(raw)
            record = consumer.consume_plain_delta(event) if hot and isinstance(event, BaseEvent) else None
            if record is None:
                delivered += consumer.consume(event)
            else:
                taken += 1
                delivered.append(revive(record))
        consumer.end_of_stream()
    except ProtocolError as exc:
        delivered += exc.delivered
        error = str(exc)
    return {
        "messages": copy.deepcopy(consumer.messages),
        "state": copy.deepcopy(consumer.state),
        "warnings": warnings,
        "delivered": [event.model_dump(mode="json", by_alias=True, exclude_none=True) for event in delivered],
        "error": error,
        "taken": taken,
    }


def same_reading(stream: Stream) -> int:
    whole, hot = read(stream, hot=False), read(stream, hot=True)
    taken = hot.pop("taken")
    whole.pop("taken")
    assert hot == whole
    return taken


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_a_valid_stream_reads_the_same_with_and_without_the_hot_path(stream):
    same_reading(stream)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VIOLATIONS).flatmap(lambda violation: streams(violation=violation)))
def test_an_invalid_stream_fails_at_the_same_event_with_the_same_error(stream):
    same_reading(stream)


def test_the_hot_path_takes_the_deltas_that_continue_a_stream_and_leaves_the_rest():
    """Not a path never taken: the deltas after a message's or call's first are taken; the first
    (which starts the text), a delta with metadata and one holding half a surrogate pair are not."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m0", "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": f"w{i} "} for i in range(5)),
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": "tagged", "metadata": {"k": 1}},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": "half \ud83d"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": "\ude00 after"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": " é"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m0"},
        {"type": "TOOL_CALL_START", "toolCallId": "t0", "toolCallName": "f", "parentMessageId": "m0"},
        *({"type": "TOOL_CALL_ARGS", "toolCallId": "t0", "delta": piece} for piece in ('{"a"', ": ", "1}")),
        {"type": "TOOL_CALL_END", "toolCallId": "t0"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    stream = Stream([], {}, events)
    assert same_reading(stream) == 4 + 1 + 2  # w1..w4, " é", and the two argument pieces after the first
    reading = read(stream, hot=True)
    assert reading["messages"][0]["content"] == "w0 w1 w2 w3 w4 taggedhalf \U0001f600 after é"
    assert reading["messages"][0]["toolCalls"][0]["function"]["arguments"] == '{"a": 1}'


def script_events(script: str, n: int) -> list[BaseEvent]:
    """The events of run ``n`` of a script (ids of their own each run)."""
    message, call = f"m{n}", f"c{n}"
    if script == "text":
        return [
            TextMessageStartEvent(message_id=message, role="assistant"),
            *(TextMessageContentEvent(message_id=message, delta=f"token{i} ") for i in range(50)),
            TextMessageEndEvent(message_id=message),
        ]
    if script == "tool call":
        return [
            TextMessageStartEvent(message_id=message, role="assistant"),
            TextMessageContentEvent(message_id=message, delta="calling"),
            TextMessageEndEvent(message_id=message),
            ToolCallStartEvent(tool_call_id=call, tool_call_name="lookup", parent_message_id=message),
            *(ToolCallArgsEvent(tool_call_id=call, delta=piece) for piece in ('{"q', 'uery": ', '"oslo"', "}")),
            ToolCallEndEvent(tool_call_id=call),
            ToolCallResultEvent(message_id=f"r{n}", tool_call_id=call, content="sunny"),
        ]
    return [
        TextMessageStartEvent(message_id=message, role="assistant"),
        *(TextMessageContentEvent(message_id=message, delta="x") for _ in range(3000)),
        TextMessageEndEvent(message_id=message),
    ]


class Scripted:
    """An AG-UI agent that streams a script, run after run."""

    def __init__(self, script: str) -> None:
        self.script = script
        self.runs = 0

    async def run(self, input: RunAgentInput):
        self.runs += 1
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        for event in script_events(self.script, self.runs):
            await asyncio.sleep(0)
            yield event
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


def without_run_ids(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [
        event.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"thread_id", "run_id", "timestamp"})
        for event in events
    ]


def without_user_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if not (m["role"] == "user" and k == "id")} for m in messages]


@pytest.mark.parametrize("script", ["text", "tool call", "long"])
async def test_a_session_keeps_the_same_logs_recordings_and_hook_events_either_way(script, monkeypatch):
    """The same agent through a session with the hot path and one without it keeps equal
    transcripts, logs and recordings, and an ``on_event`` hook sees the same events."""
    seen: list[BaseEvent] = []
    seen_whole: list[BaseEvent] = []
    fast = Session(Scripted(script), max_events=1000, hooks=Hooks(on_event=seen.append))
    whole = Session(Scripted(script), max_events=1000, hooks=Hooks(on_event=seen_whole.append))
    for session in (fast, whole):
        with monkeypatch.context() as patch:
            if session is whole:
                patch.setattr(EventConsumer, "consume_plain_delta", lambda self, event: None)
            for text in ("one", "two"):
                run = await session.send(text)
                assert run.status == "finished", run.error
    assert without_run_ids(seen) == without_run_ids(seen_whole)
    assert len(seen) >= len(fast.events) > 0
    assert without_user_ids(fast.messages) == without_user_ids(whole.messages)
    assert len(fast.messages) == 4 + 2 * (script == "tool call")
    assert without_run_ids(fast.events) == without_run_ids(whole.events) == without_run_ids(seen)[-len(whole.events) :]
    assert fast.event_log.bytes == whole.event_log.bytes
    assert len(fast.events) <= 1000
    fast_runs, whole_runs = list(fast.recordings.runs), list(whole.recordings.runs)
    assert [without_run_ids(r.events()) for r in fast_runs] == [without_run_ids(r.events()) for r in whole_runs]
    assert all(len(r.times) == len(r.records) for r in fast_runs)
    assert all(list(r.times) == sorted(r.times) for r in fast_runs)
    lines = [json.loads(line) for line in fast_runs[-1].lines()]
    assert [line["event"]["type"] for line in lines[1:]] == [e.type.value for e in fast_runs[-1].events()]
    assert EventType.RUN_FINISHED.value == lines[-1]["event"]["type"]


class Eager:
    """Yields its deltas back to back, without giving the loop a turn between them."""

    async def run(self, input: RunAgentInput):
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id="m1", role="assistant")
        for i in range(50):
            yield TextMessageContentEvent(message_id="m1", delta=f"w{i} ")
        yield TextMessageEndEvent(message_id="m1")
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


async def test_a_hook_that_stops_the_turn_on_a_hot_path_delta_stops_it_there(caplog):
    """Stopped from inside ``on_event``, the turn takes nothing more from the agent: the text
    ends with the delta the hook saw, and no warning says the agent went on after the stop."""
    session: Session | None = None

    def stop_at_the_fifth(event: BaseEvent) -> None:
        if getattr(event, "delta", None) == "w4 ":
            assert session is not None
            session.stop()

    session = Session(Eager(), hooks=Hooks(on_event=stop_at_the_fifth))
    with caplog.at_level("WARNING", logger="agui_widget"):
        run = await session.send("go")
    assert run.status == "cancelled"
    assert session.messages[-1]["content"] == "w0 w1 w2 w3 w4 "
    assert not [r.message for r in caplog.records if "went on after it was stopped" in r.message]
