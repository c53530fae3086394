"""Stopping, failing and awaiting turns: the chat never jams and never leaves a tool call unanswered.

A stop is closed by the session itself (consumer side), at once, whatever the agent does with the
cancellation; an awaiter that gives up (an interrupted cell, a ``wait_for`` timeout) leaves the
turn alone; every tool call a stopped or failed run leaves without a result is answered as
cancelled, right after the message that made it, in ``messages`` and in the next
``RunAgentInput``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import (
    EventType,
    RunAgentInput,
    RunErrorEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)

from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.session._session import Session
from agui_widget.vocabulary._content import CANCELLED_TOOL_RESULT

from .agui_check import assert_valid_streams
from .support import until


class Scripted(AgentAdapter):
    """Text, then a tool call whose arguments stream slowly, then (unless told) its result and text.

    ``fail_at``: raise when the stream reaches that point ("args", "after_end", "after_result").
    Every input is recorded, so a test can read the history the next run was given.
    """

    def __init__(self, *, fail_at: str | None = None, pause: float = 0.002, pieces: int = 200) -> None:
        self.fail_at = fail_at
        self.pause = pause
        self.pieces = pieces
        self.inputs: list[RunAgentInput] = []

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator:
        self.inputs.append(input)
        yield stream.text("Let me look. ")
        (start,) = stream.tool_call_start("lookup")
        yield start
        call_id = start.tool_call_id
        for index in range(self.pieces):
            if self.fail_at == "args" and index == 3:
                raise RuntimeError("the model's connection dropped")
            await asyncio.sleep(self.pause)
            yield stream.tool_call_args(call_id, '{"q": "' if index == 0 else "x")
        yield stream.tool_call_args(call_id, '"}')
        yield stream.tool_call_end(call_id)
        if self.fail_at == "after_end":
            raise RuntimeError("the tool crashed")
        yield stream.tool_result(call_id, {"found": 3})
        if self.fail_at == "after_result":
            raise RuntimeError("the model failed after the tool")
        yield stream.text("Found three.")


def tool_pairs(messages: list[dict[str, Any]]) -> dict[str, list[int]]:
    """tool call id -> indexes of the tool messages answering it."""
    answers: dict[str, list[int]] = {}
    for message in messages:
        for call in message.get("toolCalls") or ():
            answers.setdefault(call["id"], [])
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            answers.setdefault(message["toolCallId"], []).append(index)
    return answers


def assert_every_call_answered_once_right_after_its_message(messages: list[dict[str, Any]]) -> None:
    for call_id, answers in tool_pairs(messages).items():
        assert len(answers) == 1, f"tool call {call_id} has {len(answers)} answers: {messages}"
        owner = next(i for i, m in enumerate(messages) for c in m.get("toolCalls") or () if c["id"] == call_id)
        between = messages[owner + 1 : answers[0]]
        assert all(m["role"] == "tool" for m in between), f"the answer to {call_id} does not follow its call: {messages}"


def assert_input_has_no_dangling_call(run_input: RunAgentInput) -> None:
    messages = [m.model_dump(by_alias=True) for m in run_input.messages]
    assert_every_call_answered_once_right_after_its_message(messages)


# -- an awaiter's cancellation leaves the turn alone ----------------------------------------------


async def test_a_timed_out_await_leaves_the_run_going_and_stop_still_ends_it():
    session = Session(Scripted(pieces=2000))
    run = session.send("look it up")
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(run, 0.05)
    assert session.status == "running" and not run.done  # still going: the awaiter gave up, not the run
    session.stop()
    await asyncio.wait_for(run, 5)
    assert run.status == "cancelled" and session.status == "idle" and session.active is None
    session.agent.pieces = 2
    assert (await asyncio.wait_for(session.send("again"), 5)).status == "finished"


async def test_an_interrupted_awaiter_does_not_jam_the_chat():
    session = Session(Scripted(pieces=200))  # some 0.4 s: still streaming when the cell is interrupted
    run = session.send("look it up")

    async def cell() -> None:
        await run

    awaiter = asyncio.get_running_loop().create_task(cell())
    await until(lambda: run.events, what="the run to stream")  # the cell awaits it meanwhile
    awaiter.cancel()  # what a kernel interrupt does to the cell awaiting the run
    with pytest.raises(asyncio.CancelledError):
        await awaiter
    await asyncio.wait_for(run, 5)
    assert run.status == "finished" and session.status == "idle"
    queued = session.send("next")
    assert (await asyncio.wait_for(queued, 5)).status == "finished"


async def test_clear_works_after_an_awaiter_gave_up():
    session = Session(Scripted(pieces=2000))
    run = session.send("look it up")
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(run, 0.02)
    session.clear()
    assert session.messages == []
    await asyncio.wait_for(run, 5)
    assert run.status == "cancelled" and session.status == "idle"


# -- a stop or a failure never leaves a tool call unanswered --------------------------------------


async def test_a_stop_while_a_tool_calls_arguments_stream_answers_the_call():
    agent = Scripted(pieces=2000)
    session = Session(agent)
    run = session.send("look it up")
    await until(lambda: any(e.type == EventType.TOOL_CALL_ARGS for e in run.events))
    session.stop()
    await run
    assert run.status == "cancelled"
    calls = tool_pairs(session.messages)
    assert len(calls) == 1
    (answer,) = [m for m in session.messages if m["role"] == "tool"]
    assert answer["content"] == CANCELLED_TOOL_RESULT and answer.get("error") == "cancelled"
    assert_every_call_answered_once_right_after_its_message(session.messages)
    assert_valid_streams([run.events])
    agent.pieces = 2
    after = await session.send("again")
    assert after.status == "finished"
    assert_input_has_no_dangling_call(agent.inputs[-1])


@pytest.mark.parametrize("fail_at", ["args", "after_end"])
async def test_a_failure_while_a_tool_call_is_open_or_running_answers_the_call(fail_at: str):
    agent = Scripted(fail_at=fail_at, pieces=10, pause=0)
    session = Session(agent)
    run = await session.send("look it up")
    assert run.status == "error" and session.status == "error" and session.error
    assert_every_call_answered_once_right_after_its_message(session.messages)
    assert [m for m in session.messages if m["role"] == "tool"][0]["error"] == "cancelled"
    assert_valid_streams([run.events])
    agent.fail_at = None
    assert (await session.send("again")).status == "finished"
    assert_input_has_no_dangling_call(agent.inputs[-1])


async def test_a_failure_after_the_result_leaves_the_real_result_alone():
    session = Session(Scripted(fail_at="after_result", pieces=3, pause=0))
    run = await session.send("look it up")
    assert run.status == "error"
    (answer,) = [m for m in session.messages if m["role"] == "tool"]
    assert answer["content"] == '{"found": 3}'


class ReportsItsOwnError:
    """An AG-UI agent (not our base) that starts a tool call, then says RUN_ERROR."""

    async def run(self, input: RunAgentInput) -> AsyncIterator:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield ToolCallStartEvent(tool_call_id="call-1", tool_call_name="lookup")
        yield ToolCallArgsEvent(tool_call_id="call-1", delta="{}")
        yield RunErrorEvent(message="quota exceeded", code="rate_limit")


async def test_an_agents_own_run_error_with_a_call_open_answers_the_call():
    session = Session(ReportsItsOwnError())
    run = await session.send("look it up")
    assert run.status == "error" and session.error == "quota exceeded"
    assert_every_call_answered_once_right_after_its_message(session.messages)


async def test_the_cancelled_answer_goes_right_after_the_call_even_when_text_followed():
    session = Session(DemoAgent(delay=0), tools=[ACCENT_TOOL])
    session.messages = [
        {"id": "u1", "role": "user", "content": "hi"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"id": "a2", "role": "assistant", "content": "and some text after the call"},
    ]
    session._answer_dangling_tool_calls()
    assert [m["role"] for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.messages[2]["toolCallId"] == "c1"


# -- a stop is recorded, whenever it comes ----------------------------------------------------------


async def test_a_stop_right_after_send_is_recorded_as_a_cancelled_run():
    session = Session(DemoAgent(delay=0))
    run = session.send("help")
    session.stop()
    await asyncio.wait_for(run, 5)
    assert run.status == "cancelled"
    types = [e.type for e in run.events]
    assert types == [EventType.RUN_STARTED, EventType.RUN_FINISHED]
    assert run.events[-1].outcome.type == "cancelled"
    assert [e.type for e in session.events][-2:] == types
    assert_valid_streams([run.events])
    assert (await session.send("help")).status == "finished"


async def test_a_stop_while_the_guard_decides_is_recorded_as_a_cancelled_run():
    deciding = asyncio.Event()

    async def slow_guard(content: Any) -> None:
        deciding.set()
        await asyncio.sleep(10)

    session = Session(DemoAgent(delay=0), guard=slow_guard)
    run = session.send("help")
    await asyncio.wait_for(deciding.wait(), 5)
    session.stop()
    await run
    assert run.status == "cancelled" and session.status == "idle"
    assert [e.type for e in run.events] == [EventType.RUN_STARTED, EventType.RUN_FINISHED]


async def test_a_stop_from_inside_an_event_hook_ends_the_turn():
    from agui_widget.vocabulary._hooks import Hooks

    session: Session

    def on_event(event: Any) -> None:
        if event.type == EventType.TOOL_CALL_ARGS:
            session.stop()

    session = Session(Scripted(pieces=50), hooks=Hooks(on_event=on_event))
    run = session.send("look it up")
    await asyncio.wait_for(run, 5)
    assert run.status == "cancelled" and session.status == "idle"
    assert_every_call_answered_once_right_after_its_message(session.messages)
    assert_valid_streams([run.events])


# -- an agent that ignores the cancellation is stopped all the same -------------------------------


class IgnoresCancellation:
    """Swallows the cancellation, then keeps streaming ("yields"), or keeps its task busy for
    ``busy`` seconds before it returns ("sleeps")."""

    def __init__(self, after_cancel: str, busy: float = 0.3) -> None:
        self.after_cancel = after_cancel
        self.busy = busy
        self.ignored = asyncio.Event()

    async def run(self, input: RunAgentInput) -> AsyncIterator:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id="m1", role="assistant")
        for index in range(10_000):
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                self.ignored.set()
                if self.after_cancel == "sleeps":
                    await asyncio.sleep(self.busy)
                    return
            yield TextMessageContentEvent(message_id="m1", delta=f"{index} ")


@pytest.mark.parametrize(("after_cancel", "busy"), [("yields", 0), ("sleeps", 0.3), ("sleeps", 30)])
async def test_an_agent_that_swallows_the_cancellation_is_stopped(after_cancel: str, busy: float, caplog, monkeypatch):
    monkeypatch.setattr("agui_widget.session._closing.STOP_GRACE", 1.0)
    agent = IgnoresCancellation(after_cancel, busy)
    session = Session(agent)
    run = session.send("talk")
    await until(lambda: len(run.events) > 4)
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        session.stop()
        # the consumer side is closed at once, whatever the agent does with the cancellation
        assert run.events[-1].type == EventType.RUN_FINISHED and run.events[-1].outcome.type == "cancelled"
        stopped = session.messages[-1]
        assert stopped["metadata"] == {"agui_widget": {"stopped": True}}
        await asyncio.wait_for(run, 5)  # the turn ends when the agent unwinds, or after the grace
    assert run.status == "cancelled" and session.status == "idle"
    assert session.messages[-1] == stopped  # nothing it sent after the stop landed
    warnings = " ".join(r.getMessage() for r in caplog.records)
    if after_cancel == "yields":
        assert "ignored the cancellation" in warnings
    if busy > 1.0:
        assert "still running" in warnings
    assert_valid_streams([run.events])
    session.agent = DemoAgent(delay=0)
    assert (await session.send("help")).status == "finished"


# -- answers the kernel cannot take are refused whole -----------------------------------------------


async def test_an_answer_that_cannot_be_sent_is_refused_and_the_call_stays_pending():
    session = Session(DemoAgent(delay=0), tools=[ACCENT_TOOL])
    run = session.send("make it gold")
    await until(lambda: session.status == "waiting")
    (pending,) = session.pending
    circular: dict[str, Any] = {}
    circular["self"] = circular
    deep: Any = "bottom"
    for _ in range(5000):
        deep = [deep]
    for bad in (circular, deep, {"text": "\ud83d"}):
        with pytest.raises(ValueError, match="still pending"):
            session.respond(pending.id, bad)
        assert [p.id for p in session.pending] == [pending.id] and session.status == "waiting"
    session.respond(pending.id, {"ok": True, "color": "gold"})
    await run
    assert run.status == "finished"


async def test_text_with_a_lone_surrogate_is_refused_before_it_is_queued():
    session = Session(DemoAgent(delay=0))
    with pytest.raises(ValueError, match="surrogate"):
        session.send("half an emoji: \ud83d")
    with pytest.raises(ValueError, match="surrogate"):
        session.send([{"type": "text", "text": "\ude00"}])
    assert session.messages == [] and session.queue == type(session.queue)()
