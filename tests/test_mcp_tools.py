"""MCP servers' tools in the chat: ``mcp_tools(server)`` against the project's demo server, over
stdio and over streamable HTTP.

Each tool the server offers becomes a tool the kernel answers through the MCP client: a chat's turn
calls it as it calls a Python tool (the demo agent's ``call NAME ...``), and its result, error or
timeout is the tool message. The server starts when ``mcp_tools`` lists its tools, is shared,
started again after it died, and stops with the last chat using it.
"""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput, RunFinishedEvent, RunStartedEvent
from hypothesis import given, settings
from hypothesis import strategies as st

from agui_widget import AgentChat, PythonTool, mcp_tools
from agui_widget.adapters import DemoAgent
from agui_widget.inputs._mcp_connection import McpServerError, stop_all
from agui_widget.inputs._mcp_results import NOTHING, result_message
from agui_widget.inputs._mcp_tools import McpTool, McpTools
from agui_widget.session._session import Session
from agui_widget.teaching.mcp_demo import COMMAND, COUNTER_APP
from agui_widget.vocabulary._marks import DISPLAY, MCP, mark_of

from .support import until
from .test_mcp_server_life import pid_gone

PROPERTIES = settings(deadline=None, derandomize=True, database=None, max_examples=60)


def separate(name: str) -> dict[str, str]:
    """``env=`` that makes a server of its own (a spec differs), for a test that crashes or stops it."""
    return {"AGUI_WIDGET_TEST_SERVER": name}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module", autouse=True)
def _no_server_left() -> Iterator[None]:
    yield
    stop_all()


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The demo server over streamable HTTP, in a process of its own."""
    port = free_port()
    process = subprocess.Popen([*COMMAND, "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    try:
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, (
                f"the HTTP demo server exited: {process.stderr.read().decode() if process.stderr else ''}"
            )
            assert time.monotonic() < deadline, "the HTTP demo server did not listen within 30 s"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Any:
    """The demo server as mcp_tools() names it: its command, or its URL."""
    return COMMAND if request.param == "stdio" else request.getfixturevalue("http_url")


def by_name(tools: list[McpTool]) -> dict[str, McpTool]:
    return {tool.name: tool for tool in tools}


def tool_messages(session: Session) -> list[dict[str, Any]]:
    return [m for m in session.messages if m["role"] == "tool"]


# -- what the model is offered --------------------------------------------------------------------


def test_each_tool_keeps_its_name_and_schema_and_app_only_tools_are_not_offered(server: Any) -> None:
    tools = mcp_tools(server)
    assert isinstance(tools, McpTools) and all(isinstance(tool, McpTool) and isinstance(tool, PythonTool) for tool in tools)
    named = by_name(tools)
    assert set(named) == {"counter", "add", "roll_dice", "fail", "slow", "sparkline", "stats", "server_info", "crash"}
    assert "increment" not in named, "the counter app's own tool (visibility ['app']) is not offered to the model"
    add = named["add"]
    assert (add.remote_name, add.description, add.ui, add.approve, add.app_uri) == (
        "add",
        "Add two numbers.",
        "kernel",
        False,
        None,
    )
    assert add.parameters["properties"] == {"a": {"title": "A", "type": "number"}, "b": {"title": "B", "type": "number"}}
    assert add.to_agui().parameters == add.parameters and add.spec()["ui"] == "kernel"
    assert named["counter"].app_uri == COUNTER_APP
    assert named["add"].server is named["counter"].server is tools.server
    assert mcp_tools(server).server is tools.server, "one server for one spec"


def test_include_exclude_and_prefix_pick_and_rename_tools() -> None:
    assert [tool.name for tool in mcp_tools(COMMAND, include=["add", "stats"])] == ["add", "stats"]
    assert "crash" not in by_name(mcp_tools(COMMAND, exclude=["crash"]))
    prefixed = by_name(mcp_tools(COMMAND, prefix="demo_", include=["add"]))
    assert list(prefixed) == ["demo_add"] and prefixed["demo_add"].remote_name == "add"
    with pytest.raises(ValueError, match=r"include=: the MCP server .* has no tool 'ad'; its tools: counter, increment, add"):
        mcp_tools(COMMAND, include=["ad"])
    with pytest.raises(ValueError, match=r"exclude=.*no tool 'nope'"):
        mcp_tools(COMMAND, exclude=["nope"])
    with pytest.raises(TypeError, match="list of tool names"):
        mcp_tools(COMMAND, include="add")


def test_two_servers_with_the_same_tool_names_need_a_prefix() -> None:
    first, second = mcp_tools(COMMAND, include=["add"]), mcp_tools(COMMAND, include=["add"], env=separate("second"))
    with pytest.raises(ValueError, match=r"repeated: \['add'\].*mcp_tools\(\.\.\., prefix="):
        AgentChat(DemoAgent(delay=0), tools=[*first, *second])
    chat = AgentChat(
        DemoAgent(delay=0), tools=[*first, *mcp_tools(COMMAND, include=["add"], env=separate("second"), prefix="b_")]
    )
    assert {"add", "b_add"} <= {tool.name for tool in chat.tools}
    chat.close()


def test_arguments_that_cannot_name_a_server_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="needs a command"):
        mcp_tools("  ")
    with pytest.raises(TypeError, match="a command"):
        mcp_tools(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="headers= is for an HTTP server"):
        mcp_tools(COMMAND, headers={"Authorization": "Bearer x"})
    with pytest.raises(ValueError, match="env= is for a server mcp_tools\\(\\) starts"):
        mcp_tools("http://127.0.0.1:9/mcp", env={"A": "b"})
    with pytest.raises(ValueError, match="timeout"):
        mcp_tools(COMMAND, timeout=0)


# -- answers --------------------------------------------------------------------------------------


async def test_a_turn_calls_a_tool_and_the_model_reads_its_text(server: Any) -> None:
    session = Session(DemoAgent(delay=0), tools=list(mcp_tools(server)))
    run = await session.send("call add a=1 b=2.5")
    assert run.status == "finished" and len(run.run_ids) == 2, "the follow-up run started by itself"
    [answer] = tool_messages(session)
    assert answer["content"] == "3.5" and "error" not in answer
    assert mark_of(answer, DISPLAY) is None, "the text shows it all"
    raw = mark_of(answer, MCP)
    assert raw["tool"] == "add" and raw["result"]["structuredContent"] == {"result": 3.5}
    assert raw["result"]["content"] == [{"type": "text", "text": "3.5"}] and raw["result"]["isError"] is False
    assert "The tool answered: `3.5`" in run.reply


async def test_an_image_shows_as_an_image_and_the_model_is_told_of_it(server: Any) -> None:
    session = Session(DemoAgent(delay=0), tools=list(mcp_tools(server)))
    await session.send('call sparkline {"values": [1, 4, 2, 8]}')
    [answer] = tool_messages(session)
    bundle = mark_of(answer, DISPLAY)
    assert set(bundle) == {"image/png", "text/plain"}
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert answer["content"] == "(image/png image shown to the user)" and "error" not in answer


async def test_structured_content_reaches_the_model_as_json_and_the_card_shows_text_beside_it(server: Any) -> None:
    session = Session(DemoAgent(delay=0), tools=list(mcp_tools(server)))
    await session.send('call stats {"values": [1, 2, 6]}')
    await session.send("call counter start=4")
    stats, counter = tool_messages(session)
    assert stats["content"].replace(" ", "").replace("\n", "") == '{"count":3,"mean":3.0,"minimum":1.0,"maximum":6.0}'
    assert mark_of(stats, MCP)["result"]["structuredContent"] == {"count": 3, "mean": 3.0, "minimum": 1.0, "maximum": 6.0}
    assert counter["content"] == "The counter is at 4."
    html = mark_of(counter, DISPLAY)["text/html"]
    assert "The counter is at 4." in html and "&quot;count&quot;: 4" in html
    assert mark_of(counter, MCP)["tool"] == "counter" and mark_of(counter, MCP)["result"]["structuredContent"] == {"count": 4}


async def test_a_tool_error_is_an_error_the_model_reads_and_the_run_goes_on(server: Any) -> None:
    session = Session(DemoAgent(delay=0), tools=list(mcp_tools(server)))
    run = await session.send("call fail message=no_such_file")
    [answer] = tool_messages(session)
    assert answer["error"] == "Error executing tool fail: no_such_file"
    assert answer["content"] == "Error executing tool fail: no_such_file", "said once, not after another Error:"
    assert mark_of(answer, MCP)["result"]["isError"] is True
    assert run.status == "finished" and "The tool failed" in run.reply
    after = await session.send("call add a=1 b=1")
    assert after.status == "finished" and tool_messages(session)[-1]["content"] == "2.0"


async def test_a_call_past_its_timeout_is_an_error_and_the_server_still_answers(server: Any) -> None:
    session = Session(DemoAgent(delay=0), tools=list(mcp_tools(server, timeout=0.3)))
    started = time.monotonic()
    run = await session.send("call slow seconds=30")
    assert time.monotonic() - started < 15
    [answer] = tool_messages(session)
    assert answer["error"] == "slow did not finish within 0.3 s" and run.status == "finished"
    await session.send("call add a=2 b=2")
    assert tool_messages(session)[-1]["content"] == "4.0"


async def test_a_stop_while_a_call_runs_ends_the_turn_at_once() -> None:
    session = Session(DemoAgent(delay=0), tools=list(mcp_tools(COMMAND)))
    run = session.send("call slow seconds=30")
    await until(lambda: session.pending and session.pending[0].kernel == "running", what="the call to start")
    session.stop()
    await run
    assert run.status == "cancelled" and tool_messages(session)[0]["error"] == "cancelled"
    after = await session.send("call add a=1 b=2")
    assert after.status == "finished" and tool_messages(session)[-1]["content"] == "3.0"


def test_a_tool_called_in_a_cell_returns_the_servers_result() -> None:
    named = by_name(mcp_tools(COMMAND))
    result = named["roll_dice"](sides=6, count=3, seed=7)
    again = named["roll_dice"](sides=6, count=3, seed=7)
    assert result.structured_content == again.structured_content and len(result.structured_content["result"]) == 3


def test_a_cell_can_call_any_tool_of_the_server_and_read_its_resources() -> None:
    tools = mcp_tools(COMMAND, include=["counter"])
    assert "increment" not in by_name(tools), "only the app calls increment"
    tools.call("counter", start=5)
    assert tools.call("increment", by=2).structured_content == {"count": 7}
    assert tools.read("demo://counter") == "The counter is at 7."
    assert tools.read("ui://agui-widget-demo/counter.html").lstrip().lower().startswith("<!doctype html")


# -- approval -------------------------------------------------------------------------------------


async def test_approve_true_asks_before_each_call_and_a_denied_call_never_runs() -> None:
    session = Session(DemoAgent(delay=0), tools=list(mcp_tools(COMMAND, approve=True, env=separate("approve"))))
    run = session.send("call counter start=9")
    await until(lambda: session.status == "waiting")
    [pending] = session.pending
    assert pending.kernel == "approve"
    session.respond(pending.id, False)
    await run
    assert '"approved": false' in tool_messages(session)[0]["content"]
    asked = session.send("call server_info")
    await until(lambda: session.status == "waiting")
    session.respond(session.pending[0].id, True)
    await asked
    assert '"calls": 1' in tool_messages(session)[-1]["content"], "only the approved call ran"


async def test_approve_names_the_tools_that_ask_app_only_ones_too() -> None:
    tools = by_name(mcp_tools(COMMAND, approve=["counter", "increment"], env=separate("approve-list")))
    assert tools["counter"].approve and not tools["add"].approve
    assert tools["add"].needs_approval("increment") and not tools["add"].needs_approval("add")
    session = Session(DemoAgent(delay=0), tools=list(tools.values()))
    assert (await session.send("call add a=1 b=1")).status == "finished", "add runs without asking"
    run = session.send("call counter start=3")
    await until(lambda: session.status == "waiting")
    session.respond(session.pending[0].id, False)
    await run
    counter = tools["counter"].server
    read = await counter.read_resource("demo://counter")
    assert read.contents[0].text == "The counter is at 0.", "the denied call never reached the server"
    with pytest.raises(ValueError, match=r"approve=.*no tool 'nope'"):
        mcp_tools(COMMAND, approve=["nope"])


# -- the server's life ----------------------------------------------------------------------------


async def test_a_server_that_died_is_reported_then_started_again_at_the_next_call() -> None:
    tools = mcp_tools(COMMAND, env=separate("crash"))
    session = Session(DemoAgent(delay=0), tools=list(tools))
    await session.send("call server_info")
    first_pid = mark_of(tool_messages(session)[-1], MCP)["result"]["structuredContent"]["pid"]
    run = await session.send("call crash")
    died = tool_messages(session)[-1]
    assert run.status == "finished"
    assert "stopped while calling crash" in died["error"] and "it will be started again at the next call" in died["error"]
    assert "crashing on purpose" in died["error"], "the server's last words on stderr are shown"
    await session.send("call server_info")
    info = mark_of(tool_messages(session)[-1], MCP)["result"]["structuredContent"]
    assert info["pid"] != first_pid and info["calls"] == 1 and tools.server.starts == 2
    await until(lambda: pid_gone(first_pid), what="the crashed process to be gone")


def test_a_server_that_never_starts_names_its_command_and_its_last_words() -> None:
    command = [sys.executable, "-c", "import sys; print('loading', file=sys.stderr); sys.exit('no config file: demo.toml')"]
    with pytest.raises(McpServerError) as failure:
        mcp_tools(command)
    message = str(failure.value)
    assert message.startswith(f"The MCP server `{command[0]} -c ") and "did not start" in message
    assert message.endswith("Its last lines on stderr:\nloading\nno config file: demo.toml")
    with pytest.raises(McpServerError, match="It wrote nothing on stderr"):
        mcp_tools([sys.executable, "-c", "pass"])


def test_an_http_server_that_is_not_there_is_a_clear_error() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(McpServerError, match=f"Could not connect to the MCP server at {url}"):
        mcp_tools(url)


async def test_the_last_chat_to_close_stops_the_server_and_a_later_call_starts_it_again() -> None:
    tools = mcp_tools(COMMAND, env=separate("chats"))
    one, two = AgentChat(DemoAgent(delay=0), tools=tools), AgentChat(DemoAgent(delay=0), tools=tools)
    await one.send("call server_info")
    pid = mark_of(one.messages[-2], MCP)["result"]["structuredContent"]["pid"]
    one.close()
    await two.send("call server_info")
    assert mark_of(two.messages[-2], MCP)["result"]["structuredContent"]["pid"] == pid, "still used by the other chat"
    two.close()
    await until(lambda: pid_gone(pid), timeout=20, what="the server to stop with the last chat")
    assert tools[0].server._client is None
    three = AgentChat(DemoAgent(delay=0), tools=tools)
    await three.send("call server_info")
    assert mark_of(three.messages[-2], MCP)["result"]["structuredContent"]["pid"] != pid
    three.close()


# -- resources as context -------------------------------------------------------------------------


class Recording:
    """An agent that answers nothing and keeps every RunAgentInput it gets."""

    def __init__(self) -> None:
        self.inputs: list[RunAgentInput] = []

    async def run(self, input: RunAgentInput) -> Any:
        self.inputs.append(input)
        events: list[BaseEvent] = [
            RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id),
            RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id),
        ]
        for event in events:
            yield event


async def test_resources_are_context_read_at_each_runs_start(server: Any) -> None:
    tools = mcp_tools(server, resources=True)
    assert [entry.description for entry in tools.context] == [
        "What this demo server offers (the MCP resource demo://readme)",
        "The counter's current value (the MCP resource demo://counter)",
    ], "the app's HTML is not context"
    agent = Recording()
    chat = AgentChat(agent, tools=tools)
    assert chat.context == tools.context, "a chat given the tools sends their server's resources"
    await chat.send("hello")
    sent = {entry.description: entry.value for entry in agent.inputs[-1].context}
    assert sent[tools.context[0].description].startswith("# The agui-widget demo MCP server")
    await by_name(tools)["counter"].server.call_tool("counter", {"start": 12})
    await chat.send("again")
    assert {entry.value for entry in agent.inputs[-1].context} >= {"The counter is at 12."}, "read afresh"
    chat.close()
    assert mcp_tools(server).context == [], "resources only when asked for"


# -- the tool message, for any result ------------------------------------------------------------

texts = st.lists(st.text(min_size=1, max_size=20), max_size=3)
images = st.lists(st.sampled_from(["image/png", "image/jpeg", "image/gif"]), max_size=2)
structured = st.none() | st.dictionaries(st.sampled_from(["a", "b", "result"]), st.integers(), min_size=1, max_size=2)


@PROPERTIES
@given(texts, images, structured, st.booleans())
def test_any_result_gives_the_model_text_and_keeps_the_result_whole(
    said: list[str], pictures: list[str], structure: dict[str, int] | None, is_error: bool
) -> None:
    from mcp.types import CallToolResult, ImageContent, TextContent

    content: list[Any] = [TextContent(type="text", text=text) for text in said]
    content += [ImageContent(type="image", data="iVBORw0KGgo=", mime_type=mime) for mime in pictures]
    result = CallToolResult(content=content, structured_content=structure, is_error=is_error)
    message = result_message(result, "tool")
    text = message["content"].removeprefix("Error: ") if is_error else message["content"]
    assert all(part in text for part in said) and all(f"({mime} image shown to the user)" in text for mime in pictures)
    if not said and not pictures:
        assert text == (NOTHING if structure is None else json.dumps(structure, ensure_ascii=False))
    assert ("error" in message) is is_error
    assert mark_of(message, MCP) == {"tool": "tool", "result": result.model_dump(by_alias=True, exclude_none=True, mode="json")}
    bundle = mark_of(message, DISPLAY)
    if not pictures and (not said or structure is None):
        assert bundle is None, "the text shows it all"
    if pictures:
        shown = bundle.get("text/html", "") + bundle.get("image/png", "") + bundle.get("image/jpeg", "")
        assert "iVBORw0KGgo=" in shown


def test_headers_travel_with_each_request_to_an_http_server() -> None:
    """A token for a server that wants one: a listener that is no MCP server keeps each request's head."""
    heads: list[bytes] = []
    done = threading.Event()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.05)

        def refuse_each() -> None:
            while not done.is_set():
                try:
                    connection, _ = listener.accept()
                except TimeoutError:
                    continue
                with connection:
                    heads.append(connection.recv(65536))
                    connection.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

        thread = threading.Thread(target=refuse_each, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        try:
            with pytest.raises(McpServerError, match="Could not connect to the MCP server"):
                mcp_tools(url, headers={"Authorization": "Bearer s3cret"})
        finally:
            done.set()
            thread.join(10)
    assert heads and all(
        head.startswith(b"POST /mcp ") and b"\r\nauthorization: bearer s3cret\r\n" in head.lower() for head in heads
    )
