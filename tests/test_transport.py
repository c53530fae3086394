"""The transport batches events for the views: plain deltas of one message join into one wire
event per batch (joined once, when the batch goes), in order with everything else."""

from __future__ import annotations

import asyncio
from typing import Any

from agui_widget.wire._transport import BatchingTransport

from .support import until


async def batched(feed: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    transport = BatchingTransport(sent.append, window=10.0)
    transport.event({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})  # quiet until now: sent at once
    feed(transport)
    transport.flush()
    return sent


async def test_deltas_of_one_message_join_and_other_events_keep_their_place() -> None:
    def feed(transport: BatchingTransport) -> None:
        transport.event({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})
        for token in ("Hel", "lo", ", wor", "ld"):
            transport.delta("TEXT_MESSAGE_CONTENT", "m1", token)
        transport.delta("TOOL_CALL_ARGS", "c1", '{"a"')
        transport.delta("TOOL_CALL_ARGS", "c1", ": 1}")
        transport.delta("TEXT_MESSAGE_CONTENT", "m1", "!")
        transport.event({"type": "TEXT_MESSAGE_END", "messageId": "m1"})
        transport.delta("TEXT_MESSAGE_CONTENT", "m2", "a")
        transport.event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "b"})  # a wire dict joins too
        transport.delta("TEXT_MESSAGE_CONTENT", "m2", "c")

    sent = await batched(feed)
    assert [m["kind"] for m in sent] == ["events", "events"]
    assert sent[1]["events"] == [
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello, world"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"a": 1}'},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "!"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "abc"},
    ]
    assert len(sent[1]["times"]) == len(sent[1]["events"])


async def test_a_batch_sent_between_two_deltas_of_one_message_leaves_the_next_batch_whole() -> None:
    sent: list[dict[str, Any]] = []
    transport = BatchingTransport(sent.append, window=10.0)
    transport.event({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    transport.delta("TEXT_MESSAGE_CONTENT", "m1", "one ")
    transport.delta("TEXT_MESSAGE_CONTENT", "m1", "two ")
    transport.send({"kind": "notice", "level": "info", "text": "hi"})  # flushes first
    transport.delta("TEXT_MESSAGE_CONTENT", "m1", "three")
    transport.flush()
    assert [m["kind"] for m in sent] == ["events", "events", "notice", "events"]
    assert sent[1]["events"] == [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "one two "}]
    assert sent[3]["events"] == [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "three"}]


def test_without_a_loop_every_event_goes_at_once() -> None:
    sent: list[dict[str, Any]] = []
    transport = BatchingTransport(sent.append)
    transport.delta("TEXT_MESSAGE_CONTENT", "m1", "a")
    transport.delta("TEXT_MESSAGE_CONTENT", "m1", "b")
    assert [m["events"] for m in sent] == [
        [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "a"}],
        [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "b"}],
    ]


async def test_a_callback_after_the_waiting_batch_runs_on_the_batch_timer_after_it_is_sent() -> None:
    sent: list[dict[str, Any]] = []
    seen: list[int] = []
    transport = BatchingTransport(sent.append, window=0.02)
    assert not transport.after_flush(lambda: seen.append(len(sent)))  # nothing waits: no ride
    transport.event({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})  # sent at once
    assert not transport.after_flush(lambda: seen.append(len(sent)))
    transport.delta("TEXT_MESSAGE_CONTENT", "m1", "a")  # waits for the window
    assert transport.after_flush(lambda: seen.append(len(sent)))
    assert seen == []
    await until(lambda: seen, what="the callback after the batch's timer")
    assert seen == [2]  # after the batch went, once
    transport.delta("TEXT_MESSAGE_CONTENT", "m1", "b")
    transport.flush()
    await asyncio.sleep(0)  # a callback flush() hands on runs soon (call_soon): a turn would show it
    assert seen == [2]


async def test_a_batch_sent_early_runs_the_callback_soon_after_never_inside_the_caller() -> None:
    sent: list[dict[str, Any]] = []
    seen: list[str] = []
    transport = BatchingTransport(sent.append, window=10.0)
    transport.event({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    transport.delta("TEXT_MESSAGE_CONTENT", "m1", "a")
    assert transport.after_flush(lambda: seen.append("refreshed"))
    transport.send({"kind": "notice", "level": "info", "text": "hi"})  # flushes first
    assert [m["kind"] for m in sent] == ["events", "events", "notice"]
    assert seen == []  # not inside send()
    await asyncio.sleep(0)
    assert seen == ["refreshed"]
