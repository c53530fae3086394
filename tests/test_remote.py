"""RemoteAgent: a chat with an agent served over HTTP, in memory (ASGI) and over a real socket."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator

import httpx
import pytest
from ag_ui.core import EventType, RunAgentInput
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from agui_widget import AgentChat, RemoteAgent
from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream, as_agent
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.server import create_app
from agui_widget.session._session import Session

from .agui_check import assert_valid_streams
from .live_server import live_server
from .support import collect, make_input, split_runs, text_of, types, until


def in_memory(agent: object = None, **options: object) -> RemoteAgent:
    """A RemoteAgent talking to ``create_app(agent)`` without a socket."""
    app = create_app(agent if agent is not None else DemoAgent(delay=0))
    return RemoteAgent("http://agents.test/", transport=httpx.ASGITransport(app=app), **options)  # type: ignore[arg-type]


async def test_the_remote_run_carries_the_served_agents_events() -> None:
    local = await collect(DemoAgent(delay=0), make_input("weather in Oslo"))
    remote = await collect(in_memory(), make_input("weather in Oslo"))
    assert types(remote) == types(local)
    assert text_of(remote) == text_of(local)
    assert_valid_streams([remote])


def test_a_url_is_a_remote_agent_and_other_strings_are_refused() -> None:
    agent = as_agent("http://127.0.0.1:8000/agui")
    assert isinstance(agent, RemoteAgent) and agent.url == "http://127.0.0.1:8000/agui"
    with pytest.raises(TypeError, match="URL of an AG-UI endpoint"):
        as_agent("my agent")
    with pytest.raises(ValueError, match="http:// or https://"):
        RemoteAgent("ftp://example.org/agent")
    with pytest.raises(ValueError, match="unknown timeout phases"):
        RemoteAgent("http://127.0.0.1/", timeout={"reed": 3})


async def test_a_session_chats_through_it_with_backend_tools_and_state() -> None:
    session = Session(in_memory())
    weather = await session.send("weather in Lima")
    assert weather.status == "finished"
    assert "Lima" in weather.reply
    tool_messages = [m for m in session.messages if m["role"] == "tool"]
    assert tool_messages and "temperature_c" in tool_messages[0]["content"]

    await session.send("add buy milk")
    await session.send("add call mum")
    assert [t["text"] for t in session.state["todos"]] == ["buy milk", "call mum"]
    listing = await session.send("show my list")
    assert "call mum" in listing.reply  # read back from the state the request carried


async def test_frontend_tools_travel_in_the_request_and_the_follow_up_run_gets_the_answer() -> None:
    session = Session(in_memory(), tools=[ACCENT_TOOL])
    turn = session.send("make it teal")
    await until(lambda: session.status == "waiting", timeout=2.0)
    (pending,) = session.pending
    assert pending.name == ACCENT_TOOL.name and pending.args == {"color": "teal"}
    session.respond(pending.id, {"ok": True, "color": "teal"})
    await turn
    assert turn.status == "finished"
    assert "the accent is now **teal**" in turn.reply
    assert len(split_runs(turn.events)) == 2


async def test_the_request_is_camel_case_ag_ui_with_the_callers_headers() -> None:
    seen: list[tuple[dict[str, str], dict]] = []

    async def endpoint(request: Request) -> StreamingResponse:
        seen.append((dict(request.headers), await request.json()))
        body = await request.json()

        async def events() -> AsyncIterator[str]:
            for event in (
                {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
                {"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]},
            ):
                yield f"data: {json.dumps(event)}\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/run", endpoint, methods=["POST"])])
    agent = RemoteAgent(
        "http://agents.test/run", headers={"Authorization": "Bearer s3cret"}, transport=httpx.ASGITransport(app=app)
    )
    activity = {"id": "a1", "role": "activity", "activityType": "progress", "content": {"done": 1}}
    run_input = make_input(
        [{"id": "u1", "role": "user", "content": "hi"}, activity], tools=[ACCENT_TOOL.to_agui()], state={"k": 1}
    )
    events = await collect(agent, run_input)
    assert types(events) == ["RUN_STARTED", "RUN_FINISHED"]
    headers, body = seen[0]
    assert headers["accept"] == "text/event-stream"
    assert headers["authorization"] == "Bearer s3cret"
    assert body["threadId"] == run_input.thread_id and body["runId"] == run_input.run_id
    assert body["tools"][0]["name"] == ACCENT_TOOL.name
    assert body["state"] == {"k": 1}
    assert [m["role"] for m in body["messages"]] == ["user"]  # display-only activity is not sent
    assert "protocolVersion" in body


class Dripping(AgentAdapter):
    """Streams words slowly until it is stopped; notes when its generator is closed."""

    def __init__(self) -> None:
        self.closed = threading.Event()

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator:
        try:
            for index in range(10_000):
                yield stream.text(f"w{index} ")
                await asyncio.sleep(0.02)
        finally:
            self.closed.set()


async def test_agent_chat_with_a_url_over_a_real_socket() -> None:
    with live_server(create_app(DemoAgent(delay=0))) as url:
        chat = AgentChat(url + "/", tools=[ACCENT_TOOL])
        run = await chat.send("add water the plants")
        assert run.status == "finished", run.error
        assert chat.state == {"todos": [{"text": "water the plants", "done": False}]}
        assert chat.messages[-1]["role"] == "assistant"
        assert_valid_streams(split_runs(run.events))


async def test_stop_closes_the_http_response_and_the_server_cancels_the_run() -> None:
    agent = Dripping()
    with live_server(create_app(agent)) as url:
        session = Session(RemoteAgent(url + "/"))
        turn = session.send("go")
        await until(lambda: len(text_of(turn.events)) > 10, timeout=10.0)
        session.stop()
        await turn
        assert turn.status == "cancelled"
        await until(agent.closed.is_set, timeout=10.0)  # the served agent's generator was closed
        assert session.messages[-1]["metadata"]["agui_widget"]["stopped"] is True
        assert turn.events[-1].type == EventType.RUN_FINISHED
        async with httpx.AsyncClient() as client:
            assert (await client.get(url + "/health")).json()["status"] == "ok"  # the server goes on
