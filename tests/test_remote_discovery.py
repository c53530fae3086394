"""``AgentChat(url)`` on a server of several agents offers them in the picker.

The server lists its agents at ``{url}/agents`` (``agui-widget serve``, ``create_app``); with
several, each becomes a picker entry at its own endpoint. A server of one agent, any other AG-UI
endpoint, and a server that cannot be reached are one agent at that URL, as before.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import RunAgentInput

from agui_widget import AgentChat, RemoteAgent
from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream
from agui_widget.server import create_app

from .live_server import live_server


class Named(AgentAdapter):
    """Says its own name, so a test can tell which server-side agent answered."""

    def __init__(self, name: str) -> None:
        self.label = name

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator[Any]:
        yield stream.text(f"this is {self.label}")


async def test_a_server_of_several_agents_becomes_a_chat_with_a_picker() -> None:
    app = create_app({"planner": Named("planner"), "coder": Named("coder")}, descriptions={"coder": "Writes code."})
    with live_server(app) as url:
        chat = AgentChat(url + "/")
        assert chat.agent_names == ["planner", "coder"]
        await chat.send("who are you?")
        assert chat.messages[-1]["content"] == "this is planner"
        chat.agent = "coder"
        run = await chat.send("and you?")
        assert run.status == "finished", run.error
        assert chat.messages[-1]["content"] == "this is coder"


async def test_a_server_of_one_agent_is_one_agent() -> None:
    with live_server(create_app(DemoAgent(delay=0))) as url:
        chat = AgentChat(url + "/")
        assert chat.agent_names == []
        run = await chat.send("hello")
        assert run.status == "finished", run.error


def test_an_endpoint_without_an_agent_list_or_out_of_reach_is_one_agent_at_that_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once the socket closes
    chat = AgentChat(f"http://127.0.0.1:{port}/agui")
    assert chat.agent_names == []
    agent = chat._threads.start.agent
    assert isinstance(agent, RemoteAgent) and agent.url == f"http://127.0.0.1:{port}/agui"
