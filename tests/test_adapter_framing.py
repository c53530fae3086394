"""The adapter base guarantees AG-UI framing, whatever the subclass does."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from ag_ui.core import EventType, RunAgentInput, TextMessageContentEvent, TextMessageStartEvent

from agui_widget.adapters import AgentAdapter, EventStream
from agui_widget.adapters._base import Emitted
from agui_widget.vocabulary._errors import describe_exception

from .agui_check import assert_valid_streams
from .support import collect, make_input, types


class Scripted(AgentAdapter):
    """Yields whatever the test scripts, then optionally raises."""

    def __init__(self, script, error: Exception | None = None) -> None:
        self.script = script
        self.error = error

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator[Emitted]:
        for step in self.script(stream):
            yield step
        if self.error:
            raise self.error


async def test_run_started_comes_first_and_declares_the_protocol_version():
    events = await collect(Scripted(lambda s: [s.text("hi")]), make_input("x"))
    assert events[0].type == EventType.RUN_STARTED
    assert events[0].protocol_version == "1.0"
    assert types(events) == ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]
    assert events[-1].outcome.type == "success"
    assert_valid_streams([events])


async def test_text_is_closed_before_a_tool_call_starts():
    events = await collect(Scripted(lambda s: [s.text("checking"), s.tool_call("lookup", {"q": 1})]), make_input("x"))
    order = types(events)
    assert order.index("TEXT_MESSAGE_END") < order.index("TOOL_CALL_START")
    start = next(e for e in events if e.type == EventType.TOOL_CALL_START)
    assert start.parent_message_id == events[1].message_id
    assert_valid_streams([events])


async def test_hand_built_events_get_the_same_rules():
    def script(s: EventStream):
        yield TextMessageStartEvent(message_id="m1", role="assistant")
        yield TextMessageContentEvent(message_id="m1", delta="hand made")
        yield s.tool_call("lookup", "{}")

    events = await collect(Scripted(script), make_input("x"))
    assert types(events)[:4] == ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]
    assert_valid_streams([events])


async def test_an_unanswered_tool_call_is_reported_pending():
    events = await collect(Scripted(lambda s: [s.tool_call("set_color", {"color": "red"})]), make_input("x"))
    call_id = next(e for e in events if e.type == EventType.TOOL_CALL_START).tool_call_id
    assert events[-1].outcome.pending_tool_call_ids == [call_id]


async def test_an_answered_tool_call_is_not_pending():
    def script(s: EventStream):
        call = s.tool_call("lookup", {})
        yield call
        yield s.tool_result(call[0].tool_call_id, {"ok": True})

    events = await collect(Scripted(script), make_input("x"))
    assert events[-1].outcome.pending_tool_call_ids is None
    result = next(e for e in events if e.type == EventType.TOOL_CALL_RESULT)
    assert result.content == '{"ok": true}'
    assert_valid_streams([events])


async def test_an_interrupt_ends_the_run_with_an_interrupt_outcome():
    def script(s: EventStream):
        yield s.text("may I?")
        s.interrupt("approval", message="Approve?")
        yield []

    events = await collect(Scripted(script), make_input("x"))
    outcome = events[-1].outcome
    assert outcome.type == "interrupt"
    assert outcome.interrupts[0].message == "Approve?"
    assert_valid_streams([events])


async def test_an_exception_closes_what_is_open_and_becomes_run_error():
    def script(s: EventStream):
        yield s.text("half a sent")
        yield s.reasoning("hmm")

    events = await collect(Scripted(script, error=ValueError("boom")), make_input("x"))
    assert events[-1].type == EventType.RUN_ERROR
    assert "boom" in events[-1].message
    assert "REASONING_END" in types(events)
    assert_valid_streams([events])


async def test_an_exception_inside_an_open_tool_call_closes_it():
    def script(s: EventStream):
        start = s.tool_call_start("slow")
        yield start
        yield s.tool_call_args(start[0].tool_call_id, '{"a":')

    events = await collect(Scripted(script, error=RuntimeError("cut")), make_input("x"))
    assert types(events)[-2:] == ["TOOL_CALL_END", "RUN_ERROR"]
    assert_valid_streams([events])


async def test_steps_left_open_are_finished():
    events = await collect(Scripted(lambda s: [s.step_started("plan"), s.text("x")]), make_input("x"))
    assert types(events)[-2:] == ["STEP_FINISHED", "RUN_FINISHED"]
    assert_valid_streams([events])


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (
            RuntimeError(
                "The api_key client option must be set either by passing api_key or by setting the OPENAI_API_KEY environment variable"
            ),
            "OPENAI_API_KEY",
        ),
        (type("AuthenticationError", (Exception,), {"__module__": "anthropic"})("invalid x-api-key"), "ANTHROPIC_API_KEY"),
        (ConnectionError("Connection refused"), "reachable"),
        (ZeroDivisionError("division by zero"), "ZeroDivisionError: division by zero"),
    ],
)
def test_errors_say_what_to_do(exc, expected, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    message, code = describe_exception(exc)
    assert expected in message
    assert code


async def test_tool_calls_after_a_result_do_not_attach_to_the_earlier_message():
    def script(s: EventStream):
        yield s.text("first turn")
        first = s.tool_call("lookup", {})
        yield first
        yield s.tool_result(first[0].tool_call_id, "found")
        yield s.tool_call("lookup", {"again": True})  # the model's next turn: no text before it

    events = await collect(Scripted(script), make_input("x"))
    starts = [e for e in events if e.type == EventType.TOOL_CALL_START]
    assert starts[0].parent_message_id == events[1].message_id
    assert starts[1].parent_message_id is None
    assert_valid_streams([events])
