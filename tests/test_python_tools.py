"""Python functions as tools: the schema a model sees, and the kernel running each call.

The agent calls them as it calls any frontend tool (they travel in ``RunAgentInput.tools``); the
session validates the arguments, runs the function (async on the loop, sync in a worker thread)
and answers the call with its return value, its error, or the user's denial.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from typing import Annotated, Literal

import pytest
from langchain_core.messages import ToolMessage
from pydantic import BaseModel, Field

from agui_widget import AgentChat, PythonTool, RemoteAgent, python_tool
from agui_widget.adapters import DemoAgent
from agui_widget.adapters.langchain import LangChainAgent
from agui_widget.server import create_app
from agui_widget.session._session import AlreadyAnswered, Session
from agui_widget.vocabulary._marks import DISPLAY, mark_of

from .agui_check import assert_valid_streams
from .langchain_fakes import ai, call, model
from .live_server import live_server
from .support import split_runs, until


def add(a: int, b: Annotated[int, Field(description="The second number.")] = 2) -> int:
    """Add two numbers.

    Use it for sums.

    Args:
        a: The first
            number.
        b: Not this text: the annotation describes b.
    """
    return a + b


def tool_messages(session: Session) -> list[dict]:
    return [m for m in session.messages if m["role"] == "tool"]


def call_tasks(name: str) -> list[asyncio.Task]:
    """The session's tasks running a call of the Python tool ``name`` now."""
    return [task for task in asyncio.all_tasks() if task.get_name() == f"agui-widget tool {name}"]


# -- the schema -----------------------------------------------------------------------------------


def test_the_schema_comes_from_the_signature_the_hints_and_the_docstring():
    tool = python_tool(add)
    assert isinstance(tool, PythonTool) and tool.name == "add" and tool.ui == "kernel"
    assert tool.description == "Add two numbers.\n\nUse it for sums."
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "The first number."},
            "b": {"type": "integer", "default": 2, "description": "The second number."},
        },
        "required": ["a"],
        "additionalProperties": False,
    }
    assert tool.to_agui().parameters == tool.parameters
    assert tool.spec()["ui"] == "kernel" and tool.spec()["approve"] is False
    assert tool(1, 2) == 3, "the tool object still calls the function"


class Point(BaseModel):
    x: float
    y: float


def test_richer_types_sphinx_docstrings_and_overrides():
    def place(where: Point, unit: Literal["cm", "in"] = "cm", tags: list[str] | None = None) -> str:
        """Place a point.

        :param where: Where it goes.
        :param unit: The unit.
        """
        return f"{where.x},{where.y} {unit}"

    tool = python_tool(place, name="put", description="Put a point down.", approve=True, timeout=5)
    assert (tool.name, tool.description, tool.approve, tool.timeout) == ("put", "Put a point down.", True, 5)
    props = tool.parameters["properties"]
    assert props["unit"] == {"enum": ["cm", "in"], "type": "string", "default": "cm", "description": "The unit."}
    assert props["where"]["description"] == "Where it goes." and "$defs" in tool.parameters
    assert tool.parameters["required"] == ["where"]

    @python_tool(approve=True)
    def shout(text: str) -> str:
        return text.upper()

    assert isinstance(shout, PythonTool) and shout.approve and shout("hi") == "HI"


def test_functions_a_model_cannot_call_are_refused_clearly():
    class Frame:
        pass

    def needs_an_object(frame: Frame) -> None: ...

    with pytest.raises(TypeError, match=r"'needs_an_object'.*JSON values"):
        python_tool(needs_an_object)
    with pytest.raises(ValueError, match="a lambda has no name of its own"):
        python_tool(lambda x: x)
    assert python_tool(lambda x: x, name="echo").name == "echo"
    with pytest.raises(ValueError, match="a partial has no name of its own"):
        python_tool(functools.partial(add, 1))
    assert list(python_tool(functools.partial(add, 1), name="add_one").parameters["properties"]) == ["b"]
    with pytest.raises(ValueError, match="timeout"):
        python_tool(add, timeout=0)
    with pytest.raises(TypeError, match="python_tool\\(\\) takes a function"):
        python_tool(42)  # type: ignore[arg-type]


def test_a_chat_takes_plain_functions_among_its_tools():
    async def lookup(city: str) -> dict:
        """The weather in a city."""
        return {"city": city}

    chat = AgentChat(DemoAgent(delay=0), tools=[add, lookup])
    specs = {spec["name"]: spec for spec in chat.frontend_tools}
    assert specs["add"]["ui"] == "kernel" and specs["lookup"]["description"] == "The weather in a city."
    assert all(isinstance(tool, PythonTool) for tool in chat.tools if tool.name in {"add", "lookup"})


# -- running a call -------------------------------------------------------------------------------


async def test_a_sync_function_runs_in_a_worker_thread_and_its_result_answers_the_call():
    ran_in: list[str] = []

    def slow_add(a: int, b: int) -> int:
        ran_in.append(threading.current_thread().name)
        time.sleep(0.3)  # the loop keeps serving meanwhile
        return a + b

    session = Session(DemoAgent(delay=0), tools=[python_tool(slow_add)])
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beat = asyncio.get_running_loop().create_task(ticker())
    run = await session.send("call slow_add a=2 b=3")
    beat.cancel()
    assert run.status == "finished"
    assert ran_in and ran_in[0] != threading.main_thread().name
    assert ticks >= 10, f"the loop stood still while the function ran ({ticks} ticks)"
    [answer] = tool_messages(session)
    assert answer["content"] == "5" and "error" not in answer
    assert "The tool answered: `5`" in run.reply
    assert len(run.run_ids) == 2, "the follow-up run started without anyone answering by hand"
    assert_valid_streams(split_runs(run.events))


async def test_an_async_function_runs_on_the_loop():
    seen: list[bool] = []

    async def loop_check() -> str:
        seen.append(threading.current_thread() is threading.main_thread())
        await asyncio.sleep(0)
        return "on the loop"

    session = Session(DemoAgent(delay=0), tools=[python_tool(loop_check)])
    run = await session.send("call loop_check")
    assert seen == [True]
    assert tool_messages(session)[0]["content"] == "on the loop" and run.status == "finished"


async def test_bad_arguments_and_exceptions_are_answers_the_model_reads():
    def divide(a: float, b: float) -> float:
        return a / b

    session = Session(DemoAgent(delay=0), tools=[python_tool(divide)])
    bad = await session.send("call divide a=1 b=zero c=3")
    failed = await session.send("call divide a=1 b=0")
    first, second = tool_messages(session)
    assert first["content"].startswith("Error: invalid arguments for divide: b: Input should be a valid number")
    assert "c: Extra inputs are not permitted" in first["error"]
    assert second["error"] == "ZeroDivisionError: float division by zero"
    assert second["content"] == "Error: ZeroDivisionError: float division by zero"
    assert bad.status == failed.status == "finished", "a failing tool does not fail the run"
    assert "The tool failed" in failed.reply


async def test_a_timeout_answers_the_call_and_the_run_goes_on():
    async def forever() -> None:
        await asyncio.sleep(60)

    session = Session(DemoAgent(delay=0), tools=[python_tool(forever, timeout=0.1)])
    run = await asyncio.wait_for(session.send("call forever"), 5)
    assert tool_messages(session)[0]["error"] == "forever did not finish within 0.1 s"
    assert run.status == "finished"


async def test_a_figure_is_shown_in_the_card_the_model_gets_its_text_and_pyplot_lets_it_go():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def plot() -> object:
        """A line."""
        figure, axes = plt.subplots()
        axes.plot([1, 2, 3])
        axes.set_title("A line")
        return figure

    session = Session(DemoAgent(delay=0), tools=[python_tool(plot)])
    await session.send("call plot")
    [answer] = tool_messages(session)
    bundle = mark_of(answer, DISPLAY)
    assert bundle and "image/png" in bundle
    assert "A line" in answer["content"] and "image/png" not in answer["content"]
    assert plt.get_fignums() == [], "the figure would show again under the next cell"


async def test_a_call_that_asks_for_approval_runs_only_once_approved():
    calls: list[int] = []

    def record(n: int) -> str:
        calls.append(n)
        return f"recorded {n}"

    session = Session(DemoAgent(delay=0), tools=[python_tool(record, approve=True)])
    run = session.send("call record n=1")
    await until(lambda: session.status == "waiting")
    [pending] = session.pending
    assert pending.kernel == "approve" and pending.to_wire()["kernel"] == "approve"
    # the session starts the calls it runs in the step that makes it "waiting": none was started
    assert call_tasks("record") == [] and calls == [], "nothing runs before the approval"
    with pytest.raises(ValueError, match="answer True"):
        session.respond(pending.id, "sure")
    session.respond(pending.id, {"approved": True})
    with pytest.raises(AlreadyAnswered):
        session.respond(pending.id, True)  # a second tab's click
    await run
    assert calls == [1] and tool_messages(session)[0]["content"] == "recorded 1"

    denied = session.send("call record n=2")
    await until(lambda: session.status == "waiting")
    session.respond(session.pending[0].id, False)
    await denied
    assert calls == [1], "a denied call never runs"
    assert '"approved": false' in tool_messages(session)[1]["content"]
    assert "You said no" in denied.reply


async def test_stop_while_a_function_runs_cancels_it_and_leaves_a_clean_history():
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def long_job() -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "too late"

    session = Session(DemoAgent(delay=0), tools=[python_tool(long_job)])
    run = session.send("call long_job")
    await asyncio.wait_for(started.wait(), 5)
    assert session.pending[0].kernel == "running"
    session.stop()
    await run
    await asyncio.wait_for(cancelled.wait(), 5)
    assert run.status == "cancelled"
    [answer] = tool_messages(session)
    assert answer["error"] == "cancelled", "the call is answered as cancelled, never left dangling"
    await until(lambda: not call_tasks("long_job"), what="the cancelled call's task to end")
    assert len(tool_messages(session)) == 1
    after = await session.send("help")
    assert after.status == "finished"


async def test_a_sync_function_still_running_after_a_stop_adds_nothing_later():
    release, returned = threading.Event(), threading.Event()

    def blocking() -> str:
        release.wait(5)
        returned.set()
        return "late result"

    session = Session(DemoAgent(delay=0), tools=[python_tool(blocking)])
    run = session.send("call blocking")
    await until(lambda: bool(session.pending))
    session.stop()
    await run
    release.set()
    await until(returned.is_set, what="the function to return")
    await until(lambda: not call_tasks("blocking"), what="the stopped call's task to end")
    assert [m["content"] for m in tool_messages(session) if "late result" in m["content"]] == []


# -- every agent kind -----------------------------------------------------------------------------


async def test_a_langchain_model_calls_a_python_tool_and_reads_its_result():
    fake = model(ai("", call("add", {"a": 20, "b": 22}, id="c1")), "The sum is 42.")
    session = Session(LangChainAgent(fake), tools=[python_tool(add)])
    run = await session.send("what is 20 + 22?")
    assert run.status == "finished" and "The sum is 42." in run.reply
    assert fake.bound_tools == ["add"], "the model was offered the function as a tool"
    [result] = [m for m in fake.calls[-1] if isinstance(m, ToolMessage)]
    assert result.content == "42" and result.tool_call_id == "c1" and result.name == "add"
    assert_valid_streams(split_runs(run.events))


async def test_a_langchain_model_reads_a_failure_as_an_error_tool_message():
    def broken() -> None:
        raise RuntimeError("disk full")

    fake = model(ai("", call("broken", {}, id="c1")), "It failed; sorry.")
    session = Session(LangChainAgent(fake), tools=[python_tool(broken)])
    await session.send("try it")
    [result] = [m for m in fake.calls[-1] if isinstance(m, ToolMessage)]
    assert result.status == "error" and "RuntimeError: disk full" in result.content


async def test_two_calls_in_one_reply_both_run():
    fake = model(ai("", call("add", {"a": 1}, id="c1"), call("add", {"a": 2, "b": 5}, id="c2")), "Done.")
    session = Session(LangChainAgent(fake), tools=[python_tool(add)])
    await session.send("two sums")
    assert sorted(m["content"] for m in tool_messages(session)) == ["3", "7"]


async def test_a_remote_agent_in_another_server_calls_the_kernels_function():
    served = LangChainAgent(model(ai("", call("add", {"a": 2, "b": 2}, id="c1")), "Two and two make 4."))
    with live_server(create_app(served)) as url:
        session = Session(RemoteAgent(url + "/"), tools=[python_tool(add)])
        run = await asyncio.wait_for(session.send("2+2?"), 20)
    assert run.status == "finished" and "make 4" in run.reply
    assert tool_messages(session)[0]["content"] == "4"


async def test_a_call_the_kernel_runs_is_not_among_the_calls_to_answer():
    release = asyncio.Event()

    async def slow() -> str:
        await release.wait()
        return "ok"

    chat = AgentChat(DemoAgent(delay=0), tools=[slow, python_tool(add, approve=True)])
    run = chat.send("call slow")
    await until(lambda: chat.status == "waiting")
    assert chat.pending_tool_calls == [], "nothing there for Python or a view to answer"
    assert [entry["kernel"] for entry in chat.pending] == ["running"], "the view still shows it at work"
    release.set()
    await run
    asked = chat.send("call add a=1")
    await until(lambda: bool(chat.pending_tool_calls))
    [call] = chat.pending_tool_calls
    assert call["kernel"] == "approve"
    chat.respond(call["toolCallId"], True)
    await asked
    assert chat.messages[-2]["content"] == "3"


async def test_the_run_goes_on_with_no_view_attached():
    chat = AgentChat(DemoAgent(delay=0), tools=[add])
    run = await asyncio.wait_for(chat.send("call add a=1 b=1"), 5)
    assert run.status == "finished" and chat.messages[2]["content"] == "2"
