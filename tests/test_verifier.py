"""EventVerifier behaviour the session relies on that the conformance corpus does not pin."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    EventType,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallStartEvent,
)

from agui_widget.pipeline._consumer import EventConsumer
from agui_widget.pipeline._verify import EventVerifier, ProtocolError

RUN_STARTED = {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"}
RUN_FINISHED = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"}


def _verifier_after(*events: BaseEvent) -> EventVerifier:
    verifier = EventVerifier()
    for event in events:
        verifier.check(event)
    return verifier


def _everything_open() -> list[dict[str, Any]]:
    """A run with one of each closable thing left open, some of it a subagent's."""
    return [
        RUN_STARTED,
        {"type": "STEP_STARTED", "stepName": "outer"},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
        {"type": "STEP_STARTED", "stepName": "outer", "subagentRunId": "s1"},
        {"type": "REASONING_START", "messageId": "span-1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "think-1", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "think-1", "delta": "hm"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "partial"},
        {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "search", "parentMessageId": "m1"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"q":'},
    ]


def test_open_events_close_everything_in_a_valid_order() -> None:
    consumer = EventConsumer()
    for raw in _everything_open():
        consumer.consume(raw)
    closing = consumer.open_events()
    types = [event.type for event in closing]
    assert types == [
        EventType.TEXT_MESSAGE_END,
        EventType.TOOL_CALL_END,
        EventType.REASONING_MESSAGE_END,
        EventType.REASONING_END,
        EventType.STEP_FINISHED,
        EventType.STEP_FINISHED,
        EventType.SUBAGENT_ERROR,
    ]
    # The subagent's step closes before the parent's, each under its own owner.
    steps = [event for event in closing if event.type == EventType.STEP_FINISHED]
    assert [(s.step_name, s.subagent_run_id) for s in steps] == [("outer", "s1"), ("outer", None)]
    # Ends carry the recorded owner, so the attribution check accepts them.
    assert closing[0].subagent_run_id == "s1"
    assert closing[1].subagent_run_id == "s1"  # inherited from its parent message
    for event in closing:
        consumer.consume(event)
    consumer.consume(RUN_FINISHED)
    assert consumer.last_run_finished is not None
    by_id = {message["id"]: message for message in consumer.messages}
    assert by_id["m1"]["content"] == "partial"
    assert by_id["m1"]["toolCalls"][0]["function"]["arguments"] == '{"q":'


def test_open_events_close_chunk_built_messages_without_a_second_end() -> None:
    consumer = EventConsumer()
    consumer.consume(RUN_STARTED)
    consumer.consume({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "half"})
    consumer.consume({"type": "TOOL_CALL_CHUNK", "toolCallId": "tc1", "toolCallName": "f", "subagentRunId": "s1", "delta": "{}"})
    closing = consumer.open_events()
    assert [event.type for event in closing] == [EventType.TEXT_MESSAGE_END, EventType.TOOL_CALL_END]
    delivered = [event for event in closing for event in consumer.consume(event)]
    assert [event.type for event in delivered] == [EventType.TEXT_MESSAGE_END, EventType.TOOL_CALL_END]
    consumer.consume(RUN_FINISHED)
    assert consumer.messages[0]["content"] == "half"


def test_open_events_empty_when_no_run_is_active() -> None:
    assert EventVerifier().open_events() == []
    consumer = EventConsumer()
    consumer.consume(RUN_STARTED)
    consumer.consume({"type": "TEXT_MESSAGE_START", "messageId": "m1"})
    consumer.consume({"type": "RUN_ERROR", "message": "boom"})
    assert consumer.open_events() == []
    assert not consumer.run_active


def test_run_lifecycle_and_run_active() -> None:
    verifier = EventVerifier()
    assert not verifier.run_active
    verifier.check(RunStartedEvent(thread_id="t", run_id="r1"))
    assert verifier.run_active
    verifier.check(RunFinishedEvent(thread_id="t", run_id="r1"))
    assert not verifier.run_active
    verifier.check(RunErrorEvent(message="late"))  # a late failure is admitted
    with pytest.raises(ProtocolError, match="already errored"):
        verifier.check(TextMessageStartEvent(message_id="m"))
    verifier.check(RunStartedEvent(thread_id="t", run_id="r2"))  # and a new run may begin
    assert verifier.run_active and verifier.run_id == "r2"


def test_messages_name_the_rule_and_the_id() -> None:
    verifier = _verifier_after(RunStartedEvent(thread_id="t", run_id="r1"), TextMessageStartEvent(message_id="m1"))
    with pytest.raises(ProtocolError, match="already in progress") as info:
        verifier.check(TextMessageStartEvent(message_id="m1"))
    assert "'m1'" in str(info.value)
    with pytest.raises(ProtocolError, match="text messages are still active: m1"):
        verifier.check(RunFinishedEvent(thread_id="t", run_id="r1"))


def test_steps_are_keyed_by_owner() -> None:
    verifier = _verifier_after(
        RunStartedEvent(thread_id="t", run_id="r1"),
        SubagentStartedEvent(subagent_run_id="s1", name="sub"),
        StepStartedEvent(step_name="tools"),
        StepStartedEvent(step_name="tools", subagent_run_id="s1"),  # same name, different owner: fine
    )
    with pytest.raises(ProtocolError, match="attributed to subagent 's2': that step is open under"):
        verifier.check(StepFinishedEvent(step_name="tools", subagent_run_id="s2"))
    verifier.check(StepFinishedEvent(step_name="tools", subagent_run_id="s1"))
    verifier.check(StepFinishedEvent(step_name="tools"))


def test_reopening_under_another_owner_is_rejected() -> None:
    verifier = _verifier_after(
        RunStartedEvent(thread_id="t", run_id="r1"),
        TextMessageStartEvent(message_id="m1", subagent_run_id="s1"),
        TextMessageContentEvent(message_id="m1", delta="x"),  # untagged continuation agrees
    )
    with pytest.raises(ProtocolError, match="does not match"):
        verifier.check(TextMessageContentEvent(message_id="m1", delta="y", subagent_run_id="s2"))


def test_tool_call_tag_must_match_parent_message_owner() -> None:
    verifier = _verifier_after(
        RunStartedEvent(thread_id="t", run_id="r1"),
        TextMessageStartEvent(message_id="m1"),
    )
    with pytest.raises(ProtocolError, match="parent message 'm1'"):
        verifier.check(ToolCallStartEvent(tool_call_id="tc", tool_call_name="f", parent_message_id="m1", subagent_run_id="s1"))


def test_end_of_stream_reports_a_truncated_run() -> None:
    consumer = EventConsumer()
    consumer.consume(RUN_STARTED)
    consumer.consume({"type": "TEXT_MESSAGE_START", "messageId": "m1"})
    consumer.consume({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "kept"})
    with pytest.raises(ProtocolError, match="truncated"):
        consumer.end_of_stream()
    assert consumer.messages[0]["content"] == "kept"
    finished = EventConsumer()
    finished.consume(RUN_STARTED)
    finished.consume(RUN_FINISHED)
    finished.end_of_stream()  # nothing to report


def test_rejection_carries_what_was_already_delivered() -> None:
    consumer = EventConsumer()
    consumer.consume(RUN_STARTED)
    consumer.consume({"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "f"})
    consumer.consume({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "x"})
    with pytest.raises(ProtocolError, match="tool calls are still active") as info:
        consumer.consume(RUN_FINISHED)
    assert [event.type for event in info.value.delivered] == [EventType.TEXT_MESSAGE_END]


def test_reset_stream_keeps_the_transcript() -> None:
    consumer = EventConsumer()
    consumer.consume(RUN_STARTED)
    consumer.consume({"type": "TEXT_MESSAGE_START", "messageId": "m1"})
    consumer.reset_stream()  # the request died; a new one starts its own stream
    consumer.consume({"type": "RUN_STARTED", "threadId": "t", "runId": "r2"})
    consumer.consume({"type": "TEXT_MESSAGE_START", "messageId": "m2"})
    assert [m["id"] for m in consumer.messages] == ["m1", "m2"]
