"""A run's event stream is closed before the next run starts.

At ``RUN_FINISHED`` the session stops reading the agent's stream and closes it while the run's end
is shown. The next run (a queued message, or the follow-up run after a tool's answer, which starts
at once) waits for that close, bounded as the stop path's is: an agent that keeps per-run state on
its instance and resets it when its generator closes never sees two runs overlap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest
from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from agui_widget import python_tool
from agui_widget.session import _closing
from agui_widget.session._run import Run
from agui_widget.session._session import Session

from .support import until


class KeepsRunStateOnItself:
    """An agent with per-run state on its instance, reset when its generator closes (as
    ag-ui-langgraph's ``LangGraphAgent`` does). Its cleanup takes a while, or forever.

    The first run of each turn calls ``add`` when told to; every run then answers in text.
    """

    def __init__(self, *, cleanup_seconds: float | None = 0.2, call_tool: bool = False) -> None:
        self.cleanup_seconds = cleanup_seconds
        self.call_tool = call_tool
        self.current_run: str | None = None
        self.overlaps: list[tuple[str, str]] = []
        self.started: list[str] = []
        self.closed: list[str] = []

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        if self.current_run is not None:
            self.overlaps.append((self.current_run, input.run_id))
        self.current_run = input.run_id
        self.started.append(input.run_id)
        try:
            yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
            answered = any(m.role == "tool" for m in input.messages[-1:])
            if self.call_tool and not answered:
                for event in self._tool_call(input):
                    yield event
                yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)
            else:
                message_id = f"m-{input.run_id}"
                yield TextMessageStartEvent(message_id=message_id, role="assistant")
                yield TextMessageContentEvent(message_id=message_id, delta="done")
                yield TextMessageEndEvent(message_id=message_id)
                yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)
        finally:
            if self.cleanup_seconds is None:
                await asyncio.Event().wait()  # a cleanup that never ends
            else:
                await asyncio.sleep(self.cleanup_seconds)
            self.closed.append(input.run_id)
            self.current_run = None

    def _tool_call(self, input: RunAgentInput) -> list[BaseEvent]:
        call_id = f"call-{input.run_id}"
        return [
            ToolCallStartEvent(tool_call_id=call_id, tool_call_name="add"),
            ToolCallArgsEvent(tool_call_id=call_id, delta='{"a": 2, "b": 3}'),
            ToolCallEndEvent(tool_call_id=call_id),
        ]


async def _finished(run: Run) -> Run:
    return await run


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_a_queued_message_waits_for_the_last_runs_stream_to_close():
    agent = KeepsRunStateOnItself()
    session = Session(agent)
    first, second = session.send("one"), session.send("two")
    await until(lambda: first.done and second.done, 10)
    assert first.status == second.status == "finished"
    assert agent.overlaps == []
    assert agent.closed[0] == agent.started[0]  # the first run's cleanup ended before the second began
    await until(lambda: len(agent.closed) == 2)


async def test_the_follow_up_run_after_a_python_tool_waits_for_the_close():
    agent = KeepsRunStateOnItself(call_tool=True)
    session = Session(agent, tools=[python_tool(add)])
    run = session.send("add 2 and 3")
    await asyncio.wait_for(_finished(run), 10)
    assert run.status == "finished"
    assert len(run.run_ids) == 2
    assert agent.overlaps == []
    assert [m["content"] for m in session.messages if m["role"] == "tool"] == ["5"]
    assert session.messages[-1]["content"] == "done"


async def test_a_stream_that_never_closes_holds_the_next_run_up_only_for_the_grace(monkeypatch, caplog):
    monkeypatch.setattr(_closing, "STOP_GRACE", 0.1)
    agent = KeepsRunStateOnItself(cleanup_seconds=None)
    session = Session(agent)
    with caplog.at_level(logging.DEBUG, logger="agui_widget"):
        first, second = session.send("one"), session.send("two")
        await until(lambda: first.done and second.done, 10)
    assert first.status == second.status == "finished"
    assert len(agent.started) == 2
    assert [m["content"] for m in session.messages if m["role"] == "assistant"] == ["done", "done"]
    assert "did not close cleanly" in caplog.text


async def test_a_stop_while_waiting_for_the_close_leaves_the_close_alone():
    agent = KeepsRunStateOnItself(cleanup_seconds=0.5)
    session = Session(agent)
    first, second = session.send("one"), session.send("two")
    await asyncio.wait_for(_finished(first), 10)
    await until(lambda: session.active is second)
    session.stop()
    await asyncio.wait_for(_finished(second), 10)
    assert second.status == "cancelled"
    assert agent.started == first.run_ids  # the second turn's agent was never asked
    await until(lambda: agent.closed == first.run_ids)  # the first run's cleanup still ran to its end
    assert [m["content"] for m in session.messages] == ["one", "done", "two"]
    last = session.event_log.events()[-1]
    assert isinstance(last, RunFinishedEvent) and last.outcome is not None and last.outcome.type == "cancelled"


@pytest.mark.parametrize("call_tool", [False, True])
async def test_the_session_is_usable_after_each_close(call_tool: bool):
    agent = KeepsRunStateOnItself(cleanup_seconds=0.01, call_tool=call_tool)
    session = Session(agent, tools=[python_tool(add)])
    for text in ("one", "two", "three"):
        run = session.send(text)
        await asyncio.wait_for(_finished(run), 10)
        assert run.status == "finished"
    assert agent.overlaps == []
