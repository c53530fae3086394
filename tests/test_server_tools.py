"""create_app(..., tools=[...]): tools the server runs itself, inside the one run the client sees.

The server offers its tools after the client's own; when the agent's run ends with calls to them,
it runs them, streams a TOOL_CALL_RESULT for each and runs the agent again, and the client sees a
single run (one RUN_STARTED, one RUN_FINISHED). Calls to the client's own tools stay pending for it.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import BaseEvent, EventType, ResumeEntry, RunAgentInput, Tool

from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream
from agui_widget.adapters._remote import RemoteAgent
from agui_widget.adapters.langchain import LangChainAgent
from agui_widget.inputs._tools import ask_tool, confirm_tool, js_tool, python_tool
from agui_widget.pipeline._consumer import EventConsumer
from agui_widget.server import create_app
from agui_widget.server._cli import app_from_spec
from agui_widget.server._tools import MOVED_ON
from agui_widget.session._session import Session

from .agui_check import assert_valid_streams
from .langchain_fakes import PICK_COLOR, ai, call, model
from .live_server import live_server
from .support import make_input, text_of, types, until, user
from .test_legacy_clients import CLIENTS, chat_with
from .test_outside_clients import chat_with_httpagent
from .test_server import body, post_run


def add(x: int, y: int = 2) -> int:
    """Add two numbers."""
    return x + y


def divide(x: float, y: float) -> float:
    """Divide x by y."""
    return x / y


def one_run(events: list[BaseEvent]) -> None:
    """The client saw exactly one run, framed as AG-UI frames one."""
    kinds = types(events)
    assert kinds.count("RUN_STARTED") == 1 and kinds[0] == "RUN_STARTED", kinds
    assert kinds.count("RUN_FINISHED") + kinds.count("RUN_ERROR") == 1, kinds
    assert kinds[-1] in ("RUN_FINISHED", "RUN_ERROR"), kinds


def results(events: list[BaseEvent]) -> list[Any]:
    return [e for e in events if e.type == EventType.TOOL_CALL_RESULT]


class Recorder(AgentAdapter):
    """Says which tools each run offered; calls ``calls`` (a tool name each run) every time."""

    def __init__(self, calls: str | None = None, args: dict[str, Any] | None = None) -> None:
        self.calls = calls
        self.args = args
        self.inputs: list[RunAgentInput] = []

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator:
        self.inputs.append(input)
        yield stream.text(", ".join(tool.name for tool in input.tools))
        if self.calls is not None:
            yield stream.tool_call(self.calls, self.args or {"x": len(self.inputs)})


# -- the server runs its tools, inside one run -------------------------------------------------------


async def test_a_python_function_the_server_runs_answers_the_call_in_the_same_run() -> None:
    app = create_app(DemoAgent(delay=0), tools=[add])
    run_input = make_input("call add x=1")
    response, events = await post_run(app, run_input)
    assert response.status_code == 200
    one_run(events)
    [result] = results(events)
    assert result.content == "3"
    assert "The tool answered: `3`" in text_of(events), "the agent ran again and read the result"
    finished = events[-1]
    assert finished.run_id == run_input.run_id and finished.thread_id == run_input.thread_id
    assert finished.outcome is None or not finished.outcome.pending_tool_call_ids, "nothing is left for the client"
    assert_valid_streams([events])


async def test_the_servers_tools_come_after_the_clients_own_and_follow_ups_are_runs_of_their_own() -> None:
    agent = Recorder()
    client_tool = Tool(name="pick_color", description="Pick a colour.", parameters={"type": "object", "properties": {}})
    _, events = await post_run(create_app(agent, tools=[add, divide]), make_input("hi", tools=[client_tool]))
    assert text_of(events) == "pick_color, add, divide"
    assert agent.inputs[0].tools[1].description == "Add two numbers."

    agent = Recorder(calls="add")
    run_input = make_input("go")
    _, events = await post_run(create_app(agent, tools=[add], max_tool_rounds=1), run_input)
    first, second = agent.inputs[:2]
    assert second.parent_run_id == run_input.run_id and second.run_id != run_input.run_id
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"], "the follow-up holds the call and its result"
    assert second.messages[-1].content == "3"


async def test_a_client_tool_under_a_server_tools_name_is_refused_before_the_run() -> None:
    app = create_app(DemoAgent(delay=0), tools=[add])
    clashing = Tool(name="add", description="the page's own add", parameters={"type": "object", "properties": {}})
    response, _ = await post_run(app, make_input("call add x=1", tools=[clashing]))
    assert response.status_code == 422
    assert "'add'" in response.json()["detail"] and "Rename the client's tool" in response.json()["detail"]


async def test_a_tool_that_raises_or_times_out_is_an_answer_the_model_reads() -> None:
    async def slow() -> str:
        """Never done in time."""
        await asyncio.sleep(60)
        return "late"

    app = create_app(DemoAgent(delay=0), tools=[divide, python_tool(slow, timeout=0.05)])
    _, raised = await post_run(app, make_input("call divide x=1 y=0"))
    one_run(raised)
    assert results(raised)[0].content == "Error: ZeroDivisionError: float division by zero"
    assert raised[-1].type == EventType.RUN_FINISHED, "the run goes on: the agent read the error"
    _, late = await post_run(app, make_input("call slow"))
    assert results(late)[0].content == "Error: slow did not finish within 0.05 s"
    _, invalid = await post_run(app, make_input('call divide {"x": "one"}'))
    assert results(invalid)[0].content.startswith("Error: invalid arguments for divide")
    assert_valid_streams([raised, late, invalid])


async def test_a_reply_calling_a_server_tool_and_a_client_tool_leaves_the_clients_pending() -> None:
    fake = model(ai("", call("add", {"x": 40}, id="c-add"), call("pick_color", {"color": "teal"}, id="c-pick")), "Teal, and 42.")
    app = create_app(LangChainAgent(fake), tools=[add])
    first_input = make_input("add and pick", tools=[PICK_COLOR]).model_copy(update={"protocol_version": "1.0"})
    _, first = await post_run(app, first_input)
    one_run(first)
    assert [(r.tool_call_id, r.content) for r in results(first)] == [("c-add", "42")]
    assert first[-1].outcome.pending_tool_call_ids == ["c-pick"], "the client answers its own call"
    assert len(fake.calls) == 1, "the agent waits for the client's answer before it runs again"

    transcript = [
        *[m.model_dump(mode="json", by_alias=True) for m in first_input.messages],
        {"id": "a1", "role": "assistant", "content": "", "toolCalls": [
            {"id": "c-add", "type": "function", "function": {"name": "add", "arguments": '{"x": 40}'}},
            {"id": "c-pick", "type": "function", "function": {"name": "pick_color", "arguments": '{"color": "teal"}'}},
        ]},
        {"id": "t1", "role": "tool", "toolCallId": "c-add", "content": "42"},
        {"id": "t2", "role": "tool", "toolCallId": "c-pick", "content": '{"ok": true}'},
    ]  # fmt: skip
    _, second = await post_run(app, make_input(transcript, tools=[PICK_COLOR]))
    assert text_of(second) == "Teal, and 42."
    assert results(second) == [], "nothing left for the server: the client's request carried both results"
    assert_valid_streams([first, second])


async def test_an_agent_that_keeps_calling_the_servers_tools_is_stopped_with_a_readable_error() -> None:
    agent = Recorder(calls="add")
    _, events = await post_run(create_app(agent, tools=[add], max_tool_rounds=2), make_input("loop"))
    one_run(events)
    assert len(agent.inputs) == 3, "two rounds of tools, then the third call is not run"
    assert [r.content for r in results(events)][:2] == ["3", "4"]
    assert "not run: this request reached the server's limit of 2 rounds" in results(events)[2].content
    error = events[-1]
    assert error.type == EventType.RUN_ERROR and error.code == "tool_rounds"
    assert "called the server's tools 2 times in a row" in error.message
    assert_valid_streams([events])


async def test_the_stored_thread_holds_the_calls_and_their_results(tmp_path: Path) -> None:
    app = create_app(DemoAgent(delay=0), tools=[add], store=tmp_path / "threads.db")
    await post_run(app, make_input("call add x=5"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test") as client:
        thread = (await client.get("/threads/thread-test")).json()
    roles = [m["role"] for m in thread["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"], roles
    call_message, tool_message = thread["messages"][1], thread["messages"][2]
    assert call_message["toolCalls"][0]["function"]["name"] == "add"
    assert tool_message == {**tool_message, "toolCallId": call_message["toolCalls"][0]["id"], "content": "7"}


async def test_the_run_end_hook_sees_one_finished_run_with_every_rounds_text() -> None:
    ended: list[Any] = []
    app = create_app(DemoAgent(delay=0), tools=[add], on_run_end=ended.append)
    await post_run(app, make_input("call add x=1"))
    [run] = ended
    assert run.status == "finished"
    assert "Calling `add`." in run.reply and "The tool answered: `3`" in run.reply


# -- approval, through AG-UI interrupts ---------------------------------------------------------------


def transcript_after(run_input: RunAgentInput, events: list[BaseEvent]) -> list[dict[str, Any]]:
    """The transcript a client holds after a run: the request's, with the run's events applied."""
    consumer = EventConsumer([m.model_dump(mode="json", by_alias=True) for m in run_input.messages])
    for event in events:
        consumer.consume(event)
    return consumer.messages


def answering(run_input: RunAgentInput, events: list[BaseEvent], payload: Any, status: str = "resolved") -> RunAgentInput:
    """The client's next request: its transcript, and ``payload`` answering the run's interrupt."""
    [interrupt] = events[-1].outcome.interrupts
    entry = ResumeEntry(interrupt_id=interrupt.id, status=status, payload=payload)  # type: ignore[arg-type]
    return make_input(transcript_after(run_input, events), resume=[entry]).model_copy(update={"protocol_version": "1.0"})


async def test_a_tool_that_asks_first_ends_the_run_with_an_interrupt_and_runs_once_approved() -> None:
    ran: list[int] = []

    def delete_rows(count: int) -> str:
        """Delete rows."""
        ran.append(count)
        return f"deleted {count}"

    app = create_app(DemoAgent(delay=0), tools=[python_tool(delete_rows, approve=True)])
    asked_input = make_input("call delete_rows count=3").model_copy(update={"protocol_version": "1.0"})
    _, asked = await post_run(app, asked_input)
    one_run(asked)
    assert results(asked) == [] and ran == [], "nothing runs before the user says so"
    outcome = asked[-1].outcome
    [call_start] = [e for e in asked if e.type == EventType.TOOL_CALL_START]
    [interrupt] = outcome.interrupts
    assert outcome.type == "interrupt" and interrupt.reason == "approval"
    assert interrupt.tool_call_id == call_start.tool_call_id and interrupt.message == 'Run delete_rows with {"count": 3}?'

    _, approved = await post_run(app, answering(asked_input, asked, {"approved": True}))
    one_run(approved)
    assert [r.content for r in results(approved)] == ["deleted 3"] and ran == [3]
    assert "The tool answered: `deleted 3`" in text_of(approved), "then the agent ran with the result"

    _, denied = await post_run(app, answering(asked_input, asked, {"approved": False}))
    assert json.loads(results(denied)[0].content)["approved"] is False and ran == [3]
    assert "You said no, so it did not run." in text_of(denied)
    _, cancelled = await post_run(app, answering(asked_input, asked, None, status="cancelled"))
    assert json.loads(results(cancelled)[0].content)["approved"] is False and ran == [3]

    moved_on = make_input([*transcript_after(asked_input, asked), user("never mind, hello")])
    _, events = await post_run(app, moved_on)
    assert json.loads(results(events)[0].content) == {"approved": False, "reason": MOVED_ON}
    assert "scripted demo agent" in text_of(events), "the agent answers the new message"
    assert_valid_streams([asked, approved, denied, cancelled, events])


async def test_a_reply_calling_a_tool_that_asks_first_and_a_client_tool_asks_once_the_client_answered() -> None:
    fake = model(ai("", call("add", {"x": 1}, id="c-add"), call("pick_color", {"color": "red"}, id="c-pick")), "Red, and 3.")
    app = create_app(LangChainAgent(fake), tools=[python_tool(add, approve=True)])
    first_input = make_input("add and pick", tools=[PICK_COLOR]).model_copy(update={"protocol_version": "1.0"})
    _, first = await post_run(app, first_input)
    assert first[-1].outcome.pending_tool_call_ids == ["c-pick"], "the client's call first: one outcome per run"
    picked = [*transcript_after(first_input, first), {"id": "t-pick", "role": "tool", "toolCallId": "c-pick", "content": "ok"}]
    picked_input = make_input(picked, tools=[PICK_COLOR]).model_copy(update={"protocol_version": "1.0"})
    _, asked = await post_run(app, picked_input)
    assert types(asked) == ["RUN_STARTED", "RUN_FINISHED"] and len(fake.calls) == 1, "asked before the agent runs again"
    assert asked[-1].outcome.interrupts[0].tool_call_id == "c-add"
    _, approved = await post_run(app, answering(picked_input, asked, True))
    assert [r.content for r in results(approved)] == ["3"] and text_of(approved) == "Red, and 3."
    assert_valid_streams([first, asked, approved])


async def test_a_notebook_session_approves_a_server_tool_through_its_interrupt() -> None:
    with live_server(create_app(DemoAgent(delay=0), tools=[python_tool(add, approve=True)])) as url:
        session = Session(RemoteAgent(url + "/"))
        turn = session.send("call add x=4")
        await until(lambda: session.status == "waiting", timeout=20)
        [pending] = session.pending
        assert pending.kind == "interrupt" and pending.name == "add"
        session.respond(pending.id, {"approved": True})
        run = await asyncio.wait_for(turn, 20)
    assert run.status == "finished" and "The tool answered: `6`" in run.reply
    assert [m["role"] for m in session.messages] == ["user", "assistant", "tool", "assistant"]


# -- what create_app refuses --------------------------------------------------------------------------


def test_tools_a_server_cannot_answer_are_refused_when_the_app_is_made() -> None:
    for page_tool in (confirm_tool(), ask_tool(), js_tool("shout", "Shout.", {"type": "object"}, "return 1")):
        with pytest.raises(TypeError, match="a server has no page to answer it"):
            create_app(DemoAgent(), tools=[page_tool])
    with pytest.raises(TypeError, match="no page to answer it"):
        create_app(DemoAgent(), tools=[{"name": "manual", "description": "Answered by hand."}])
    with pytest.raises(ValueError, match="max_tool_rounds must be a positive number"):
        create_app(DemoAgent(), tools=[add], max_tool_rounds=0)
    with pytest.raises(TypeError, match="takes a list"):
        create_app(DemoAgent(), tools=add)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unique"):
        create_app(DemoAgent(), tools=[add, python_tool(divide, name="add")])


# -- clients ----------------------------------------------------------------------------------------


async def test_a_notebook_session_sees_one_finished_turn_of_one_run() -> None:
    with live_server(create_app(DemoAgent(delay=0), tools=[add])) as url:
        session = Session(RemoteAgent(url + "/"))
        run = await asyncio.wait_for(session.send("call add x=2"), 20)
    assert run.status == "finished"
    assert types(run.events).count("RUN_STARTED") == 1
    assert [m["role"] for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.messages[2]["content"] == "4"


def test_the_official_http_agent_reads_a_run_with_server_tools_as_one_valid_run() -> None:
    with live_server(create_app(DemoAgent(delay=0), tools=[add])) as url:
        result = chat_with_httpagent(url + "/", [{"user": "call add x=3"}])
    [run] = result["runs"]
    assert run["error"] is None, run
    assert run["events"].count("RUN_STARTED") == 1 and run["events"][-1] == "RUN_FINISHED"
    tool_messages = [m for m in result["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["5"]


@pytest.mark.parametrize("client", list(CLIENTS))
def test_each_official_client_version_applies_a_run_with_server_tools_and_its_replay(client: str) -> None:
    app = create_app(DemoAgent(delay=0), tools=[add, divide, python_tool(divide, name="divide_carefully", approve=True)])
    turns: list[dict[str, Any]] = [{"user": "call add x=3"}, {"user": "call divide x=1 y=0"}]
    if client != "0.0.59":  # interrupts and their resume came with 1.0
        turns.append({"user": "call divide_carefully x=6 y=3", "resume": {"approved": True}})
    with live_server(app) as url:
        result = chat_with(client, url + "/", turns)
    runs = result["runs"]
    assert [run["error"] for run in runs] == [None] * len(runs), runs
    assert [len(run["events"]) for run in runs] == [len(run["wire"]) for run in runs], "every event was applied"
    assert all([e["type"] for e in run["events"]].count("RUN_STARTED") == 1 for run in runs)
    tool_messages = [m["content"] for m in result["messages"] if m["role"] == "tool"]
    expected = ["5", "Error: ZeroDivisionError: float division by zero"] + (["2.0"] if client != "0.0.59" else [])
    assert tool_messages == expected
    assert result["replay"]["error"] is None and len(result["replay"]["messages"]) == len(result["messages"]) - len(turns)


async def test_a_client_that_leaves_while_a_server_tool_runs_cancels_it() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def wait_forever() -> str:
        """Runs until cancelled."""
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    app = create_app(DemoAgent(delay=0), tools=[wait_forever])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test") as client:
        request = asyncio.ensure_future(client.post("/", json=body(make_input("call wait_forever"))))
        await asyncio.wait_for(started.wait(), 10)
        request.cancel()
        with pytest.raises(asyncio.CancelledError):
            await request
    await asyncio.wait_for(cancelled.wait(), 10)


# -- MCP tools on the server side -------------------------------------------------------------------


async def test_an_mcp_servers_tools_run_on_the_server_side() -> None:
    from agui_widget.inputs._mcp_tools import mcp_tools
    from agui_widget.teaching.mcp_demo import COMMAND

    demo = mcp_tools(COMMAND, include=["add", "fail"])
    app = create_app(DemoAgent(delay=0), tools=demo)
    async with app.router.lifespan_context(app):
        _, added = await post_run(app, make_input("call add a=2 b=3"))
        _, failed = await post_run(app, make_input("call fail message=boom"))
        assert "running" in repr(demo.server) and "not running" not in repr(demo.server)
    await until(lambda: "not running" in repr(demo.server), timeout=10, what="the MCP server stopping with the app")
    one_run(added)
    assert [r.content for r in results(added)] == ["5.0"]
    assert "The tool answered: `5.0`" in text_of(added)
    one_run(failed)
    [result] = results(failed)
    assert result.content == "Error executing tool fail: boom", "the server's error, said once"
    assert failed[-1].type == EventType.RUN_FINISHED, "the agent read the server's error and answered"
    assert_valid_streams([added, failed])


async def test_an_mcp_servers_resources_are_context_and_its_approval_policy_asks_first() -> None:
    from agui_widget.inputs._mcp_tools import mcp_tools
    from agui_widget.teaching.mcp_demo import COMMAND

    agent = Recorder(calls="add", args={"a": 2, "b": 2})
    demo = mcp_tools(COMMAND, include=["add"], approve=["add"], resources=True)
    app = create_app(agent, tools=demo)
    asked_input = make_input("go").model_copy(update={"protocol_version": "1.0"})
    _, asked = await post_run(app, asked_input)
    context = {entry.description: entry.value for entry in agent.inputs[0].context}
    readme = next(value for description, value in context.items() if "demo://readme" in description)
    assert readme.startswith("# The agui-widget demo MCP server"), "read from the MCP server at the run's start"
    assert asked[-1].outcome.type == "interrupt" and results(asked) == []
    assert asked[-1].outcome.interrupts[0].message == 'Run add with {"a": 2, "b": 2}?'
    _, approved = await post_run(app, answering(asked_input, asked, {"approved": True}))
    assert results(approved)[0].content == "4.0", "run by the MCP server once approved"
    assert_valid_streams([asked, approved])


# -- agui-widget serve ------------------------------------------------------------------------------


async def test_the_serve_commands_options_name_functions_and_mcp_servers_for_the_server_to_run() -> None:
    from agui_widget.teaching.mcp_demo import COMMAND

    spec = {"targets": [], "tools": ["tests.test_server_tools:divide"], "mcp": [shlex.join(COMMAND)], "max_tool_rounds": 3}
    app = app_from_spec(spec)
    _, offered = await post_run(app, make_input("tools"))
    assert "`divide`" in text_of(offered) and "`roll_dice`" in text_of(offered)
    _, events = await post_run(app, make_input("call roll_dice sides=6 count=2 seed=1"))
    one_run(events)
    assert len(results(events)[0].content.split()) == 2, "two dice, one per line"
    with pytest.raises(SystemExit, match="--max-tool-rounds is a number of rounds"):
        app_from_spec({**spec, "mcp": [], "max_tool_rounds": 0})
    with pytest.raises(SystemExit, match="--mcp 'no-such-mcp-server-command'"):
        app_from_spec({**spec, "mcp": ["no-such-mcp-server-command"]})


def test_the_serve_command_line_takes_tools_mcp_servers_and_a_round_limit() -> None:
    import argparse

    from agui_widget.__main__ import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(
        ["m:agent", "--tools", "m:one", "--tools", "m:two", "--mcp", "python -m server", "--max-tool-rounds", "3"]
    )
    assert (args.tools, args.mcp, args.max_tool_rounds) == (["m:one", "m:two"], ["python -m server"], 3)
    defaults = parser.parse_args(["m:agent"])
    assert (defaults.tools, defaults.mcp, defaults.max_tool_rounds) == ([], [], None)
