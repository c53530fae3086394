"""Reducer and consumer behaviour the session relies on that the conformance corpus does not pin."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from ag_ui.core import Event
from pydantic import TypeAdapter

from agui_widget.pipeline._consumer import EventConsumer
from agui_widget.pipeline._verify import ProtocolError

RUN_STARTED = {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"}


def _finished(outcome: dict[str, Any] | None = None, run_id: str = "r1") -> dict[str, Any]:
    event: dict[str, Any] = {"type": "RUN_FINISHED", "threadId": "t", "runId": run_id}
    if outcome is not None:
        event["outcome"] = outcome
    return event


def _text(message_id: str, *deltas: str, role: str = "assistant") -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": role},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def _call(call_id: str, parent: str | None = None, args: str = "{}") -> list[dict[str, Any]]:
    start: dict[str, Any] = {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": "lookup"}
    if parent is not None:
        start["parentMessageId"] = parent
    return [
        start,
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": args},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]


def _result(call_id: str, message_id: str, content: Any = "ok") -> dict[str, Any]:
    return {"type": "TOOL_CALL_RESULT", "messageId": message_id, "toolCallId": call_id, "content": content}


def _feed(consumer: EventConsumer, events: list[dict[str, Any]]) -> list[Any]:
    return [event for raw in events for event in consumer.consume(raw)]


# -- pending tool calls and interrupts -------------------------------------------------------


def test_pending_tool_calls_derived_from_unanswered_calls_in_order() -> None:
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, *_call("c2", "a1"), *_call("c1", "a1"), *_call("c3", "a1"), _result("c1", "t1"), _finished()])
    assert consumer.pending_tool_call_ids() == ["c2", "c3"]


def test_pending_tool_calls_named_by_the_outcome_win() -> None:
    consumer = EventConsumer()
    outcome = {"type": "success", "pendingToolCallIds": ["c3"]}
    _feed(consumer, [RUN_STARTED, *_call("c2"), *_call("c3"), _finished(outcome)])
    assert consumer.pending_tool_call_ids() == ["c3"]
    # An empty list names nothing: the tally is used.
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, *_call("c2"), _finished({"type": "success", "pendingToolCallIds": []})])
    assert consumer.pending_tool_call_ids() == ["c2"]


def test_pending_tool_calls_are_per_run_and_empty_after_failure_or_interrupt() -> None:
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, *_call("c1"), _finished()])
    _feed(consumer, [{"type": "RUN_STARTED", "threadId": "t", "runId": "r2"}, _result("c1", "t1"), _finished(run_id="r2")])
    assert consumer.pending_tool_call_ids() == []

    failed = EventConsumer()
    _feed(failed, [RUN_STARTED, *_call("c1"), {"type": "RUN_ERROR", "message": "boom"}])
    assert failed.pending_tool_call_ids() == []
    assert failed.last_run_error is not None and failed.last_run_error.message == "boom"

    interrupted = EventConsumer()
    outcome = {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "approval", "toolCallId": "c1"}]}
    _feed(interrupted, [RUN_STARTED, *_call("c1"), _finished(outcome)])
    assert interrupted.pending_tool_call_ids() == []
    assert [(i.id, i.reason, i.tool_call_id) for i in interrupted.interrupts()] == [("i1", "approval", "c1")]
    assert EventConsumer().interrupts() == []


# -- changed_from ----------------------------------------------------------------------------


def test_changed_from_tracks_the_smallest_touched_index() -> None:
    history = [{"id": "u1", "role": "user", "content": "hi"}, {"id": "a0", "role": "assistant", "content": "old"}]
    consumer = EventConsumer(history)
    assert consumer.changed_from is None
    _feed(consumer, [RUN_STARTED, *_text("a1", "new")])
    assert consumer.changed_from == 2
    consumer.reset_changes()
    assert consumer.changed_from is None
    _feed(
        consumer,
        [{"type": "TEXT_MESSAGE_START", "messageId": "a0"}, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a0", "delta": "+"}],
    )
    assert consumer.changed_from == 1
    assert consumer.messages[1]["content"] == "old+"


def test_changed_from_after_a_tool_result_is_inserted_mid_transcript() -> None:
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, *_call("c1", "a1"), *_text("a2", "after the call")])
    consumer.reset_changes()
    _feed(consumer, [_result("c1", "t1")])
    assert [m["id"] for m in consumer.messages] == ["a1", "t1", "a2"]
    assert consumer.changed_from == 1
    # Positions stay right after the insert: content for a2 lands at its new index.
    consumer.reset_changes()
    _feed(
        consumer,
        [{"type": "TEXT_MESSAGE_START", "messageId": "a2"}, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a2", "delta": "!"}],
    )
    assert consumer.changed_from == 2
    assert consumer.messages[2]["content"] == "after the call!"


def test_tool_results_follow_their_call_and_earlier_results() -> None:
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, *_text("a1", "calling"), *_call("c1", "a1"), *_call("c2", "a1"), *_text("a2", "meanwhile")])
    _feed(consumer, [_result("c1", "t1"), _result("c2", "t2", [{"type": "text", "text": "parts"}])])
    assert [m["id"] for m in consumer.messages] == ["a1", "t1", "t2", "a2"]
    assert consumer.messages[2]["content"] == [{"type": "text", "text": "parts"}]
    assert consumer.messages[1] == {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "ok"}


def test_a_call_without_a_parent_gets_its_own_assistant_message() -> None:
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, *_call("c1"), *_call("c2", "a9")])
    assert [(m["id"], m["role"]) for m in consumer.messages] == [("c1", "assistant"), ("a9", "assistant")]


# -- MESSAGES_SNAPSHOT -----------------------------------------------------------------------


def test_messages_snapshot_reconciles_by_id_and_reports_the_first_change() -> None:
    history = [
        {"id": "u1", "role": "user", "content": "question"},
        {"id": "a1", "role": "assistant", "content": "draft"},
        {"id": "x1", "role": "assistant", "content": "to be dropped"},
    ]
    consumer = EventConsumer(history)
    _feed(consumer, [RUN_STARTED])
    consumer.reset_changes()
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "u1", "role": "user", "content": "question"},
            {"id": "a1", "role": "assistant", "content": "final"},
            {"id": "a2", "role": "assistant", "content": "more"},
        ],
    }
    _feed(consumer, [snapshot])
    assert [(m["id"], m["content"]) for m in consumer.messages] == [("u1", "question"), ("a1", "final"), ("a2", "more")]
    assert consumer.changed_from == 1
    # The same snapshot again changes nothing.
    consumer.reset_changes()
    _feed(consumer, [snapshot])
    assert consumer.changed_from is None


def test_messages_snapshot_keeps_local_reasoning_unless_it_carries_reasoning() -> None:
    consumer = EventConsumer()
    _feed(
        consumer,
        [
            RUN_STARTED,
            {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
            {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "thinking"},
            {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
            *_text("a1", "answer"),
            {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "a1", "role": "assistant", "content": "answer"}]},
        ],
    )
    assert [m["id"] for m in consumer.messages] == ["r1", "a1"]
    _feed(
        consumer,
        [
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "r-canonical", "role": "reasoning", "content": "thinking"},
                    {"id": "a1", "role": "assistant", "content": "answer"},
                ],
            }
        ],
    )
    assert [m["id"] for m in consumer.messages] == ["a1", "r-canonical"]


# -- streaming text --------------------------------------------------------------------------


def test_long_messages_read_correctly_with_buffered_fragments() -> None:
    consumer = EventConsumer()
    _feed(
        consumer,
        [RUN_STARTED, {"type": "TEXT_MESSAGE_START", "messageId": "a"}, {"type": "TEXT_MESSAGE_START", "messageId": "b"}],
    )
    expected_a: list[str] = []
    expected_b: list[str] = []
    for index in range(20_000):
        delta = f"{index},"
        target, expected = ("a", expected_a) if index % 3 else ("b", expected_b)
        consumer.consume({"type": "TEXT_MESSAGE_CONTENT", "messageId": target, "delta": delta})
        expected.append(delta)
        if index % 997 == 0:  # reads in the middle see everything so far
            assert consumer.messages[0]["content"] == "".join(expected_a)
            assert consumer.messages[1]["content"] == "".join(expected_b)
    held = consumer.messages[0]["content"]  # a reader holding the string must not see it change
    consumer.consume({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "tail"})
    assert held == "".join(expected_a)
    assert consumer.messages[0]["content"] == "".join(expected_a) + "tail"
    assert consumer.messages[1]["content"] == "".join(expected_b)
    for index in range(5_000):
        consumer.consume(
            {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "a"}
            if index == 0
            else {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "x"}
        )
    assert consumer.messages[0]["toolCalls"][0]["function"]["arguments"] == "x" * 4_999


def test_metadata_merge_is_last_write_wins_and_not_recursive() -> None:
    consumer = EventConsumer()
    _feed(
        consumer,
        [
            RUN_STARTED,
            {"type": "TEXT_MESSAGE_START", "messageId": "a", "metadata": {"k": {"x": 1, "y": 2}, "keep": True}},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "hi", "metadata": {"k": {"x": 3}}},
            {"type": "TEXT_MESSAGE_END", "messageId": "a", "metadata": {"usage": None}},
        ],
    )
    assert consumer.messages[0]["metadata"] == {"k": {"x": 3}, "keep": True, "usage": None}


# -- state -----------------------------------------------------------------------------------


def test_state_delta_copies_on_write_and_is_all_or_nothing() -> None:
    big = {f"key{i}": {"items": list(range(10))} for i in range(2_000)}
    consumer = EventConsumer(state=big)
    _feed(consumer, [RUN_STARTED, {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/key7/items/-", "value": 99}]}])
    new_state = consumer.state
    assert new_state["key7"]["items"][-1] == 99
    assert big["key7"]["items"] == list(range(10)), "the previous state object must not change"
    assert new_state["key8"] is big["key8"], "untouched branches are shared, not copied"
    before = consumer.state
    consumer.consume(
        {
            "type": "STATE_DELTA",
            "delta": [{"op": "replace", "path": "/key1/items/0", "value": -1}, {"op": "remove", "path": "/nope"}],
        }
    )
    assert consumer.state is before and before["key1"]["items"][0] == 0
    assert any("Failed to apply state patch" in warning for warning in consumer.warnings)
    consumer.consume(
        {
            "type": "STATE_DELTA",
            "delta": [{"op": "move", "from": "/key2", "path": "/moved"}, {"op": "test", "path": "/moved/items/0", "value": 0}],
        }
    )
    assert "key2" not in consumer.state and consumer.state["moved"] == {"items": list(range(10))}
    assert "key2" in before


def test_state_can_be_any_json_value() -> None:
    consumer = EventConsumer(state={"a": 1})
    _feed(
        consumer,
        [
            RUN_STARTED,
            {"type": "STATE_SNAPSHOT", "snapshot": [1, 2]},
            {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/-", "value": 3}]},
        ],
    )
    assert consumer.state == [1, 2, 3]


# -- typed events and raw dicts --------------------------------------------------------------

_RICH_STREAM: list[dict[str, Any]] = [
    RUN_STARTED,
    {"type": "STEP_STARTED", "stepName": "plan"},
    {"type": "REASONING_START", "messageId": "rs"},
    {"type": "REASONING_MESSAGE_CHUNK", "messageId": "rm", "delta": "let me "},
    {"type": "REASONING_MESSAGE_CHUNK", "delta": "think"},
    {"type": "REASONING_END", "messageId": "rs"},
    {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant", "metadata": {"model": "m"}},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Looking "},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "it up."},
    {"type": "TEXT_MESSAGE_END", "messageId": "a1"},
    {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "search", "parentMessageId": "a1", "delta": '{"q":'},
    {"type": "TOOL_CALL_CHUNK", "delta": '"x"}'},
    {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": [{"type": "text", "text": "found"}]},
    {"type": "STATE_SNAPSHOT", "snapshot": {"plan": ["a"]}},
    {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/plan/-", "value": "b"}]},
    {"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "search", "content": {"n": 0}},
    {
        "type": "ACTIVITY_DELTA",
        "messageId": "act",
        "activityType": "search",
        "patch": [{"op": "replace", "path": "/n", "value": 2}],
    },
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a2", "delta": "Done."},
    {"type": "CUSTOM", "name": "note", "value": {"x": 1}},
    {"type": "RAW", "event": {"anything": True}},
    {"type": "STEP_FINISHED", "stepName": "plan"},
    {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {
                "id": "a1",
                "role": "assistant",
                "content": "Looking it up.",
                "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q":"x"}'}}],
            },
            {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "found"},
            {"id": "a2", "role": "assistant", "content": "Done."},
        ],
    },
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1", "outcome": {"type": "success"}, "result": {"ok": True}},
]


def _replay(events: list[Any]) -> tuple[list[dict[str, Any]], Any, list[dict[str, Any]], list[str]]:
    consumer = EventConsumer(state={})
    delivered = [event.model_dump(mode="json", by_alias=True) for raw in events for event in consumer.consume(raw)]
    return consumer.messages, consumer.state, delivered, consumer.warnings


def test_typed_events_and_raw_dicts_give_the_same_result() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    typed = [adapter.validate_python(copy.deepcopy(raw)) for raw in _RICH_STREAM]
    from_raw = _replay(copy.deepcopy(_RICH_STREAM))
    from_typed = _replay(typed)
    assert json.dumps(from_raw, sort_keys=True) == json.dumps(from_typed, sort_keys=True)
    messages, state, delivered, warnings = from_raw
    assert warnings == []
    assert state == {"plan": ["a", "b"]}
    assert [m["id"] for m in messages] == ["rm", "a1", "t1", "act", "a2"]  # local reasoning/activity kept
    assert delivered[-1]["outcome"] == {"type": "success"}


def test_typed_events_with_undescribed_fields_are_stripped_like_raw_ones() -> None:
    from ag_ui.core import TextMessageContentEvent

    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, {"type": "TEXT_MESSAGE_START", "messageId": "a"}])
    (delivered,) = consumer.consume(TextMessageContentEvent(message_id="a", delta="x", future_prop=1))
    assert delivered.__pydantic_extra__ == {} and "/future_prop" in consumer.warnings[0]


def test_callers_history_is_never_mutated() -> None:
    history = [
        {
            "id": "a0",
            "role": "assistant",
            "content": "old",
            "metadata": {"k": 1},
            "toolCalls": [{"id": "c0", "type": "function", "function": {"name": "f", "arguments": ""}}],
        }
    ]
    original = copy.deepcopy(history)
    consumer = EventConsumer(history)
    _feed(
        consumer,
        [
            RUN_STARTED,
            {"type": "TEXT_MESSAGE_START", "messageId": "a0", "metadata": {"k": 2}},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a0", "delta": "+new"},
            {"type": "TOOL_CALL_START", "toolCallId": "c0", "toolCallName": "g", "parentMessageId": "a0"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c0", "delta": "{}"},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "h", "parentMessageId": "a0"},
        ],
    )
    assert consumer.messages[0]["content"] == "old+new"
    assert len(consumer.messages[0]["toolCalls"]) == 2
    assert history == original


def test_only_what_a_run_writes_to_is_copied_and_the_callers_dicts_never_change() -> None:
    """Copy on write: the messages a run touches become the reducer's own; the rest stay the very
    objects handed in (so a transcript of thousands costs a run nothing per untouched message)."""
    history = [
        {"id": "u0", "role": "user", "content": "hello"},
        {
            "id": "a0",
            "role": "assistant",
            "content": "",
            "toolCalls": [{"id": "c0", "type": "function", "function": {"name": "f", "arguments": ""}}],
        },
        {"id": "act", "role": "activity", "activityType": "plan", "content": {"steps": ["one"]}},
        {"id": "r0", "role": "reasoning", "content": "thinking"},
        {"id": "a1", "role": "assistant", "content": "done", "metadata": {"k": 1}},
        {"id": "u1", "role": "user", "content": "untouched"},
    ]
    original = copy.deepcopy(history)
    consumer = EventConsumer(history)
    _feed(
        consumer,
        [
            RUN_STARTED,
            {"type": "TOOL_CALL_START", "toolCallId": "c0", "toolCallName": "f", "parentMessageId": "a0"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c0", "delta": '{"x": 1}'},
            {"type": "TOOL_CALL_END", "toolCallId": "c0", "metadata": {"m": 1}},
            {
                "type": "ACTIVITY_DELTA",
                "messageId": "act",
                "activityType": "plan",
                "patch": [{"op": "add", "path": "/steps/-", "value": "two"}],
            },
            {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "r0", "encryptedValue": "zzz"},
            {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"},
            {"type": "TEXT_MESSAGE_END", "messageId": "a1", "metadata": {"k": 2}},
        ],
    )
    messages = consumer.messages
    assert history == original
    assert messages[1]["toolCalls"][0]["function"]["arguments"] == '{"x": 1}' and messages[1]["toolCalls"][0]["metadata"] == {
        "m": 1
    }
    assert messages[2]["content"] == {"steps": ["one", "two"]}
    assert messages[3]["encryptedValue"] == "zzz" and messages[4]["metadata"] == {"k": 2}
    assert [m is h for m, h in zip(messages, history, strict=True)] == [True, False, False, False, False, True]
    _feed(consumer, [{"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "g", "parentMessageId": "a0"}])
    assert [c["id"] for c in consumer.messages[1]["toolCalls"]] == ["c0", "c1"] and history == original


# -- the request direction -------------------------------------------------------------------


def test_outgoing_input_for_a_current_peer() -> None:
    consumer = EventConsumer()
    sent = consumer.outgoing_input(
        {
            "threadId": "t",
            "runId": "r",
            "messages": [
                {"id": "u1", "role": "user", "content": "hi"},
                {"id": "act", "role": "activity", "activityType": "x", "content": {}},
            ],
            "futureField": 1,
        }
    )
    dumped = sent.model_dump(mode="json", by_alias=True)
    assert dumped["protocolVersion"] == "1.0"
    assert [m["id"] for m in dumped["messages"]] == ["u1"]
    assert "futureField" not in dumped and "/futureField" in consumer.warnings[0]
    with pytest.raises(ProtocolError, match="/messages/0/content"):
        consumer.outgoing_input({"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user", "content": 5}]})


# -- agreeing with the official client where the corpus is silent --------------------------------


def test_a_tool_result_never_replaces_a_message_whose_id_it_reuses() -> None:
    consumer = EventConsumer([{"id": "a0", "role": "assistant", "content": "said before"}])
    _feed(consumer, [RUN_STARTED, *_call("c1", "a1"), _result("c1", "a0", "done"), _finished()])
    roles = [(m["id"], m["role"]) for m in consumer.messages]
    assert roles == [("a0", "assistant"), ("a1", "assistant"), ("a0", "tool")]
    assert consumer.messages[0]["content"] == "said before" and consumer.messages[1]["toolCalls"][0]["id"] == "c1"


def test_a_second_result_for_a_call_is_added_not_swapped_in() -> None:
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, *_call("c1", "a1"), _result("c1", "t1", "first"), _result("c1", "t1", "again"), _finished()])
    assert [m.get("content") for m in consumer.messages if m["role"] == "tool"] == ["first", "again"]


def test_when_a_created_message_takes_an_id_the_first_message_keeps_it() -> None:
    consumer = EventConsumer([{"id": "c1", "role": "assistant", "content": "text"}])
    _feed(consumer, [RUN_STARTED, *_call("c1"), _result("c1", "t1"), *_text("c1", " more"), _finished()])
    assert [m["id"] for m in consumer.messages] == ["c1", "c1", "t1"]
    assert consumer.messages[0]["content"] == "text more", "later events for the id reach the first message"
    assert consumer.messages[1]["toolCalls"][0]["id"] == "c1"


def test_an_item_built_from_chunks_and_closed_by_its_own_end_is_a_protocol_error() -> None:
    for chunk, end in (
        ({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "hi"}, {"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        (
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": "{}"},
            {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        ),
        (
            {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r1", "delta": "hm"},
            {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
        ),
    ):
        consumer = EventConsumer()
        _feed(consumer, [RUN_STARTED, chunk])
        with pytest.raises(ProtocolError, match="No active"):
            consumer.consume(end)


def test_a_stream_of_chunks_is_still_closed_cleanly_on_a_stop() -> None:
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "partial"}])
    closing = [event for end in consumer.open_events() for event in consumer.consume(end)]
    assert [e.type.value for e in closing] == ["TEXT_MESSAGE_END"]
    consumer.consume(_finished({"type": "cancelled"}))
    assert consumer.messages[-1]["content"] == "partial"


def test_reasoning_message_start_without_its_role_is_malformed() -> None:
    consumer = EventConsumer()
    consumer.consume(RUN_STARTED)
    with pytest.raises(ProtocolError, match=r'/role.*expected \\"reasoning\\"'):
        consumer.consume({"type": "REASONING_MESSAGE_START", "messageId": "r1"})
    consumer = EventConsumer()
    _feed(consumer, [RUN_STARTED, {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}])
    assert consumer.messages[-1]["role"] == "reasoning"


def test_text_streamed_into_a_message_of_parts_replaces_the_parts_as_the_official_client_does() -> None:
    parts = [{"type": "text", "text": "look"}]
    consumer = EventConsumer([{"id": "u1", "role": "user", "content": parts}])
    _feed(consumer, [RUN_STARTED, *_text("u1", "more"), _finished()])
    assert consumer.messages[0]["content"] == "more"
