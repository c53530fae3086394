"""Hooks: called at the right moments with the right objects; a failing hook never breaks a run."""

from __future__ import annotations

import asyncio
import logging

import pytest
from ag_ui.core import EventType, RunAgentInput

from agui_widget import AgentChat, ErrorInfo
from agui_widget.adapters import AgentAdapter, EventStream
from agui_widget.vocabulary._hooks import Hooks

from .support import until


async def echo(messages):
    return f"echo: {messages[-1]['content']}"


async def test_each_hook_sees_its_moment():
    calls: list[tuple[str, object]] = []
    chat = AgentChat(
        echo,
        thread_id="t",
        on_run_start=lambda run_input: calls.append(("start", run_input)),
        on_event=lambda event: calls.append(("event", event)),
        on_run_end=lambda run: calls.append(("end", run)),
        on_error=lambda info: calls.append(("error", info)),
    )
    run = await chat.send("hi")
    kinds = [kind for kind, _ in calls]
    assert kinds[0] == "start" and kinds[-1] == "end" and "error" not in kinds
    run_input = calls[0][1]
    assert isinstance(run_input, RunAgentInput) and run_input.thread_id == "t"
    assert [m.content for m in run_input.messages] == ["hi"]
    assert [e for kind, e in calls if kind == "event"] == chat.events
    assert calls[-1][1] is run and run.status == "finished"


async def test_async_hooks_run_too():
    seen: list[str] = []

    async def on_run_end(run):
        await asyncio.sleep(0)
        seen.append(run.status)

    chat = AgentChat(echo, on_run_end=on_run_end)
    await chat.send("hi")
    await until(lambda: seen)
    assert seen == ["finished"]


async def test_a_failing_hook_is_logged_and_the_run_goes_on(caplog):
    def broken(*_):
        raise ValueError("hook bug")

    async def broken_async(*_):
        raise ValueError("async hook bug")

    chat = AgentChat(echo, on_run_start=broken, on_event=broken, on_run_end=broken_async)
    with caplog.at_level(logging.ERROR, logger="agui_widget"):
        run = await chat.send("hi")
        await until(lambda: "on_run_end hook failed" in caplog.text)
    assert run.status == "finished" and chat.messages[-1]["content"] == "echo: hi"
    assert "on_run_start hook failed" in caplog.text and "on_event hook failed" in caplog.text


class Refused(AgentAdapter):
    async def _events(self, input, stream: EventStream):
        raise PermissionError("401 Unauthorized: invalid api key")
        yield  # pragma: no cover


async def test_on_error_gets_the_class_the_user_sees():
    errors: list[ErrorInfo] = []
    chat = AgentChat(Refused(), on_error=errors.append)
    run = await chat.send("hi")
    [info] = errors
    assert info.code == "authentication" and info.run is run and "API key" in info.message
    [error_event] = [e for e in chat.events if e.type == EventType.RUN_ERROR]
    assert error_event.code == "authentication" and chat.error == error_event.message


async def test_on_error_gets_the_exception_when_the_agent_raises_outside_the_protocol():
    class Broken:
        async def run(self, run_input):
            raise ConnectionRefusedError("connection refused")
            yield  # pragma: no cover

    errors: list[ErrorInfo] = []
    chat = AgentChat(Broken(), on_error=errors.append)
    await chat.send("hi")
    [info] = errors
    assert info.code == "network" and isinstance(info.exception, ConnectionRefusedError)


async def test_without_on_event_no_event_goes_through_the_hook_path(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(Hooks, "events", lambda self, events: calls.append(len(events)))
    chat = AgentChat(echo, on_run_end=lambda run: None)
    await chat.send("hi")
    assert calls == []
    chat_with = AgentChat(echo, on_event=lambda event: None)
    await chat_with.send("hi")
    assert sum(calls) == len(chat_with.events)


def test_a_hook_that_is_not_a_function_is_a_clear_error():
    with pytest.raises(TypeError, match="on_event must be a function"):
        AgentChat(echo, on_event="print")
