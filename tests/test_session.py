"""The session: runs as tasks, the queue, stop, frontend tools, interrupts, errors and state."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from ag_ui.core import (
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
)

from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream, as_agent
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.inputs._tools import FrontendTool
from agui_widget.session._session import Session, SessionListener
from agui_widget.vocabulary._content import CANCELLED_TOOL_RESULT

from .agui_check import assert_valid_streams
from .support import split_runs


class Recorder(SessionListener):
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def session_messages(self, start):
        self.calls.append(("messages", start))

    def session_state(self, patch):
        self.calls.append(("state", patch))

    def session_run_ended(self, start):
        self.calls.append(("ended", start))


class Slow(AgentAdapter):
    """Streams numbered tokens with a pause, recording the inputs it was given."""

    def __init__(self, tokens: int = 200, pause: float = 0.01) -> None:
        self.tokens, self.pause = tokens, pause
        self.inputs: list[RunAgentInput] = []

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator:
        self.inputs.append(input)
        for i in range(self.tokens):
            await asyncio.sleep(self.pause)
            yield stream.text(f"t{i} ")


def demo_session(**kwargs) -> Session:
    return Session(DemoAgent(delay=0), tools=[ACCENT_TOOL], **kwargs)


async def until(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.005)


async def test_send_returns_at_once_and_the_run_is_awaitable():
    session = demo_session()
    run = session.send("weather in Oslo")
    assert not run.done and session.status == "running"
    assert session.messages[-1]["role"] == "user"
    await run
    assert run.done and run.status == "finished" and session.status == "idle"
    assert "Oslo" in run.reply
    roles = [m["role"] for m in session.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert_valid_streams([run.events])


async def test_the_loop_keeps_running_during_a_run():
    session = Session(Slow(tokens=50, pause=0.01))
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    task = asyncio.create_task(ticker())
    await session.send("go")
    task.cancel()
    assert ticks > 30


async def test_the_agent_gets_the_transcript_state_and_tools():
    agent = Slow(tokens=1, pause=0)
    session = Session(agent, tools=[ACCENT_TOOL], state={"k": 1}, thread_id="t-1")
    await session.send("one")
    await session.send("two")
    second = agent.inputs[1]
    assert second.thread_id == "t-1" and second.protocol_version == "1.0"
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert second.state == {"k": 1}
    assert [t.name for t in second.tools] == ["set_accent_color"]
    assert agent.inputs[0].run_id != second.run_id


async def test_messages_sent_during_a_run_are_queued_not_interleaved():
    session = Session(Slow(tokens=20, pause=0.005))
    first = session.send("first")
    second = session.send("second")
    assert [run.text for run in session.queue] == ["second"]
    assert second.status == "queued"
    await first
    await second
    assert [(m["role"], m["content"][:6]) for m in session.messages] == [
        ("user", "first"),
        ("assistant", "t0 t1 "),
        ("user", "second"),
        ("assistant", "t0 t1 "),
    ]


async def test_stop_mid_stream_keeps_the_partial_answer_marked_stopped():
    session = Session(Slow(tokens=1000, pause=0.005))
    run = session.send("long")
    await until(lambda: len(run.events) > 10)
    session.stop()
    await run
    streamed = [e for e in run.events if e.type == EventType.TEXT_MESSAGE_CONTENT]
    assert 0 < len(streamed) < 1000  # cut where it was, not played out
    assert run.status == "cancelled" and session.status == "idle"
    last = run.events[-1]
    assert last.type == EventType.RUN_FINISHED and last.outcome.type == "cancelled"
    answer = session.messages[-1]
    assert answer["role"] == "assistant" and answer["content"].startswith("t0 t1")
    assert answer["metadata"] == {"agui_widget": {"stopped": True}}
    assert_valid_streams([run.events])
    # the next run works
    session.agent.tokens = 2
    after = await session.send("again")
    assert after.status == "finished" and after.reply == "t0 t1 "


async def test_stop_before_the_first_token_works():
    agent = Slow(tokens=5, pause=1.0)
    session = Session(agent)
    run = session.send("x")
    await until(lambda: agent.inputs)  # the agent runs, paused before its first token
    session.stop()
    await run
    assert run.status == "cancelled"
    assert [m["role"] for m in session.messages] == ["user"]
    assert_valid_streams([run.events])


async def test_a_frontend_tool_waits_for_an_answer_then_the_run_continues():
    session = demo_session()
    run = session.send("make it navy")
    await until(lambda: session.status == "waiting")
    [pending] = session.pending
    assert pending.kind == "tool" and pending.name == "set_accent_color" and pending.args == {"color": "navy"}
    assert not run.done and run.status == "waiting"
    session.respond(pending.id, {"ok": True, "color": "navy"})
    await run
    assert run.status == "finished"
    assert "accent is now **navy**" in run.reply
    tool_message = next(m for m in session.messages if m["role"] == "tool")
    assert tool_message["toolCallId"] == pending.id and '"color": "navy"' in tool_message["content"]
    assert len(run.run_ids) == 2
    assert_valid_streams(split_runs(run.events))


async def test_answering_something_that_is_not_pending_is_a_clear_error():
    session = demo_session()
    with pytest.raises(KeyError, match="nothing pending"):
        session.respond("nope", 1)


async def test_an_interrupt_waits_for_a_decision_and_resumes():
    session = demo_session(state={"todos": [{"text": "a", "done": False}]})
    run = session.send("delete my list")
    await until(lambda: session.status == "waiting")
    [pending] = session.pending
    assert pending.kind == "interrupt" and pending.name == "delete_todos"
    assert pending.args == {"count": 1, "items": ["a"]}
    session.resume(pending.id, {"approved": True})
    await run
    assert session.state == {"todos": []}
    assert "Approved" in run.reply


async def test_respond_approves_an_interrupt_too():
    session = demo_session(state={"todos": [{"text": "a", "done": False}]})
    run = session.send("delete my list")
    await until(lambda: session.status == "waiting")
    session.respond(session.pending[0].id, {"approved": False})
    await run
    assert session.state == {"todos": [{"text": "a", "done": False}]}
    assert "Denied" in run.reply


async def test_stop_while_waiting_leaves_no_dangling_tool_call():
    session = demo_session()
    run = session.send("make it gold")
    await until(lambda: session.status == "waiting")
    session.stop()
    await run
    assert run.status == "cancelled" and session.status == "idle" and session.pending == []
    call_ids = [c["id"] for m in session.messages for c in m.get("toolCalls") or ()]
    results = {m["toolCallId"]: m for m in session.messages if m["role"] == "tool"}
    assert call_ids and all(results[c]["content"] == CANCELLED_TOOL_RESULT for c in call_ids)
    assert (await session.send("help")).status == "finished"


async def test_an_agent_exception_is_a_readable_error_and_the_next_run_works():
    session = demo_session()
    run = await session.send("fail")
    assert run.status == "error" and "failed on purpose" in run.error
    assert session.status == "error" and session.error == run.error
    assert run.events[-1].type == EventType.RUN_ERROR
    assert (await session.send("help")).status == "finished"
    assert session.status == "idle" and session.error == ""


async def test_an_agent_that_breaks_the_protocol_gets_a_run_error():
    async def broken(run_input):
        yield RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id)
        yield TextMessageContentEvent(message_id="never-started", delta="oops")

    class Broken:
        def run(self, run_input):
            return broken(run_input)

    session = Session(as_agent(Broken()))
    run = await session.send("x")
    assert run.status == "error" and "AG-UI protocol" in run.error
    assert run.events[-1].type == EventType.RUN_ERROR


async def test_a_stream_that_just_stops_is_not_reported_as_success():
    class Truncated:
        async def run(self, run_input):
            yield RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id)
            yield TextMessageStartEvent(message_id="m", role="assistant")
            yield TextMessageContentEvent(message_id="m", delta="cut")

    session = Session(Truncated())
    run = await session.send("x")
    assert run.status == "error" and "truncated" in run.error and "RUN_FINISHED" in run.error
    assert_valid_streams([run.events])


async def test_state_events_update_the_state_and_assignments_make_patches():
    recorder = Recorder()
    session = Session(DemoAgent(delay=0), listener=recorder, state={"todos": [], "big": "x" * 1000})
    await session.send("add tea")
    assert session.state["todos"] == [{"text": "tea", "done": False}]
    session.set_state({**session.state, "mood": "good"})
    patch = [call[1] for call in recorder.calls if call[0] == "state"][-1]
    assert patch == [{"op": "add", "path": "/mood", "value": "good"}]


async def test_clear_forgets_the_conversation_but_keeps_the_state():
    session = demo_session(state={"k": 1})
    await session.send("help")
    session.clear()
    assert session.messages == [] and session.state == {"k": 1}


async def test_the_event_log_is_bounded():
    session = Session(Slow(tokens=50, pause=0), max_events=30)
    await session.send("x")
    assert len(session.events) == 30
    assert session.events[-1].type == EventType.RUN_FINISHED


async def test_an_external_agent_finishing_without_outcome_is_success():
    class Plain:
        async def run(self, run_input):
            yield RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id)
            yield RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id)

    run = await Session(Plain()).send("x")
    assert run.status == "finished"


async def test_an_agent_that_yields_nothing_is_an_error():
    class Silent:
        async def run(self, run_input):
            return
            yield

    run = await Session(Silent()).send("x")
    assert run.status == "error" and "no RUN_STARTED" in run.error


def test_send_outside_an_event_loop_says_what_to_do():
    with pytest.raises(RuntimeError, match="running event loop"):
        demo_session().send("x")


def test_frontend_tool_validation():
    with pytest.raises(ValueError):
        FrontendTool("x", "d", ui="handler")


async def test_stop_right_after_send_before_the_task_starts():
    session = demo_session()
    run = session.send("help")
    session.stop()
    await run
    assert run.status == "cancelled" and session.status == "idle" and session.active is None
    assert (await session.send("help")).status == "finished"


async def test_clear_during_a_run_stops_it_and_then_clears():
    session = Session(Slow(tokens=1000, pause=0.005))
    run = session.send("long")
    await until(lambda: len(run.events) > 5)
    session.clear()
    await run
    assert run.status == "cancelled"
    assert session.messages == [] and session.status == "idle"
