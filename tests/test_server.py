"""agui_widget.server: agents served over AG-UI (POST → SSE), its routes, CORS, validation,
disconnects, several agents, a thread store, and the ``agui-widget serve`` command."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    Event,
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
)
from pydantic import TypeAdapter

from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.server import create_app

from .agui_check import assert_valid_streams
from .langchain_fakes import model as fake_chat_model
from .live_server import live_server, serve_command
from .support import make_input, text_of, types, user

_events = TypeAdapter(Event)


def parse_sse(text: str) -> list[BaseEvent]:
    return [_events.validate_json(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")]


def body(run_input: RunAgentInput) -> dict[str, Any]:
    return run_input.model_dump(mode="json", by_alias=True, exclude_none=True)


async def post_run(app: Any, run_input: RunAgentInput, path: str = "/") -> tuple[httpx.Response, list[BaseEvent]]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test") as client:
        response = await client.post(path, json=body(run_input), headers={"accept": "text/event-stream"})
    return response, parse_sse(response.text) if response.status_code == 200 else []


async def test_the_demo_agent_is_served_by_default_and_every_scenario_is_valid_ag_ui() -> None:
    app = create_app()
    streams = []
    for text in ("help", "weather in Rome", "add buy milk", "plan a trip", "think about it", "delete my list", "fail"):
        response, events = await post_run(
            create_app(DemoAgent(delay=0)), make_input(text, state={"todos": [{"text": "a", "done": False}]})
        )
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        streams.append(events)
    frontend = make_input("make it teal", tools=[ACCENT_TOOL.to_agui()])
    streams.append((await post_run(create_app(DemoAgent(delay=0)), frontend))[1])
    assert_valid_streams(streams)
    assert any(e.type == EventType.TOOL_CALL_START and e.tool_call_name == ACCENT_TOOL.name for e in streams[-1])  # type: ignore[attr-defined]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test") as client:
        assert (await client.get("/agents")).json()["agents"][0]["name"] == "demo"
    _, by_name = await post_run(app, make_input("weather in Rome"), "/agents/demo")  # a single agent has its name too
    assert "Rome" in text_of(by_name)


async def test_a_plain_function_and_a_langchain_model_are_served_too() -> None:
    def shout(messages: list[dict[str, Any]]) -> str:
        return messages[-1]["content"].upper()

    _, events = await post_run(create_app(shout), make_input("hello there"))
    assert text_of(events) == "HELLO THERE"
    _, lc_events = await post_run(create_app(fake_chat_model("Bonjour tout le monde")), make_input("hi"))
    assert text_of(lc_events) == "Bonjour tout le monde"
    assert_valid_streams([events, lc_events])


class RawAgent:
    """An AG-UI producer that is not ours: whatever ``script`` yields goes out unframed."""

    def __init__(self, script: Any) -> None:
        self.script = script

    def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        return self.script(input)


async def content_without_start(input: RunAgentInput) -> AsyncIterator[BaseEvent]:
    yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
    yield TextMessageContentEvent(message_id="nowhere", delta="orphan")
    yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


async def raises_mid_message(input: RunAgentInput) -> AsyncIterator[BaseEvent]:
    yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
    yield TextMessageStartEvent(message_id="m1", role="assistant")
    yield TextMessageContentEvent(message_id="m1", delta="Half")
    raise ConnectionError("the model's server hung up")


async def stops_without_finishing(input: RunAgentInput) -> AsyncIterator[BaseEvent]:
    yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
    yield TextMessageStartEvent(message_id="m1", role="assistant")


async def yields_nothing(input: RunAgentInput) -> AsyncIterator[BaseEvent]:
    return
    yield  # pragma: no cover


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (content_without_start, "broke the AG-UI protocol"),
        (raises_mid_message, "Network error: the model's server hung up"),
        (stops_without_finishing, "still active"),
        (yields_nothing, "before any run started"),
    ],
)
async def test_a_broken_agent_gives_the_client_a_clean_run_error(script: Any, expected: str) -> None:
    response, events = await post_run(create_app(RawAgent(script)), make_input("hi"))
    assert response.status_code == 200
    assert events[0].type == EventType.RUN_STARTED
    assert events[-1].type == EventType.RUN_ERROR and expected in events[-1].message  # type: ignore[attr-defined]
    assert_valid_streams([events])


async def test_an_open_message_is_closed_before_the_error() -> None:
    _, events = await post_run(create_app(RawAgent(raises_mid_message)), make_input("hi"))
    assert types(events) == ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_ERROR"]


async def test_bad_input_gets_a_clear_422() -> None:
    app = create_app(DemoAgent(delay=0))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test") as client:
        missing = await client.post("/", json={"threadId": "t", "messages": [{"role": "user"}]})
        not_json = await client.post("/", content=b"{oops", headers={"content-type": "application/json"})
    assert missing.status_code == 422
    detail = missing.json()["detail"]
    assert detail.startswith("The request body is not a valid AG-UI RunAgentInput")
    assert "runId: Field required" in detail
    assert {tuple(e["loc"]) for e in missing.json()["errors"]} >= {("body", "runId")}
    assert not_json.status_code == 422 and "not a valid AG-UI RunAgentInput" in not_json.json()["detail"]


async def test_cors_is_closed_unless_origins_are_given() -> None:
    preflight = {
        "origin": "http://evil.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
    }
    closed = create_app(DemoAgent(delay=0))
    opened = create_app(DemoAgent(delay=0), cors_origins=["http://app.example"])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=closed), base_url="http://agents.test") as client:
        refused = await client.options("/", headers=preflight)
        plain = await client.get("/health", headers={"origin": "http://evil.example"})
    assert "access-control-allow-origin" not in refused.headers
    assert "access-control-allow-origin" not in plain.headers
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=opened), base_url="http://agents.test") as client:
        allowed = await client.options("/", headers={**preflight, "origin": "http://app.example"})
        other = await client.options("/", headers=preflight)
    assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == "http://app.example"
    assert other.headers.get("access-control-allow-origin") != "http://evil.example"


async def test_several_agents_are_served_by_name_and_listed() -> None:
    def planner(messages: list[dict[str, Any]]) -> str:
        return "plan: " + messages[-1]["content"]

    def coder(messages: list[dict[str, Any]]) -> str:
        return "code: " + messages[-1]["content"]

    app = create_app({"planner": planner, "coder": coder}, descriptions={"coder": "Writes the code."}, path="/agui")
    _, planned = await post_run(app, make_input("a trip"), "/agui/agents/planner")
    _, coded = await post_run(app, make_input("a loop"), "/agui/agents/coder")
    assert text_of(planned) == "plan: a trip" and text_of(coded) == "code: a loop"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test") as client:
        listing = (await client.get("/agui/agents")).json()["agents"]
        unknown = await client.post("/agui/agents/tester", json=body(make_input("x")))
        health = (await client.get("/agui/health")).json()
        bare = await client.post("/agui", json=body(make_input("x")))
    assert listing == [
        {"name": "planner", "description": "", "url": "/agui/agents/planner"},
        {"name": "coder", "description": "Writes the code.", "url": "/agui/agents/coder"},
    ]
    assert unknown.status_code == 404 and "planner, coder" in unknown.json()["detail"]
    assert health == {"status": "ok", "agents": ["planner", "coder"]}
    assert bare.status_code in (404, 405)  # with several agents, each has its own URL


def test_names_that_cannot_be_url_segments_are_refused() -> None:
    with pytest.raises(ValueError, match="URL segments"):
        create_app({"a/b": DemoAgent()})
    with pytest.raises(ValueError, match="no agent"):
        create_app({})


class Endless(AgentAdapter):
    """Streams until the client goes; records how its generator ended."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.closed = threading.Event()

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator:
        try:
            self.started.set()
            while True:
                yield stream.text("tick ")
                await asyncio.sleep(0.02)
        finally:
            self.closed.set()


class Silent(AgentAdapter):
    """Thinks forever without a word (a slow model): only a disconnect can end it."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.closed = threading.Event()

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator:
        try:
            self.started.set()
            await asyncio.sleep(3600)
            yield stream.text("never")
        finally:
            self.closed.set()


@pytest.mark.parametrize("agent_class", [Endless, Silent])
async def test_a_client_that_disconnects_cancels_the_run(agent_class: type) -> None:
    agent = agent_class()
    with live_server(create_app(agent)) as url:
        async with httpx.AsyncClient(timeout=10) as client:
            async with client.stream("POST", url + "/", json=body(make_input("go"))) as response:
                assert response.status_code == 200
                async for _ in response.aiter_lines():
                    break  # read the first line, then hang up
        assert await asyncio.to_thread(agent.closed.wait, 10), "the agent's generator was not closed"
    assert agent.started.is_set()


async def test_a_disconnect_is_noticed_while_the_agent_is_quiet_on_any_asgi_server() -> None:
    """ASGI 2.4 servers leave disconnect detection to the next write; the app still notices at once."""
    agent = Silent()
    app = create_app(agent)
    first_chunk = asyncio.Event()
    incoming = [{"type": "http.request", "body": json.dumps(body(make_input("go"))).encode(), "more_body": False}]

    async def receive() -> dict[str, Any]:
        if incoming:
            return incoming.pop(0)
        await first_chunk.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            first_chunk.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"host", b"agents.test")],
        "client": ("127.0.0.1", 50000),
        "server": ("agents.test", 80),
    }
    await asyncio.wait_for(app(scope, receive, send), timeout=10)
    assert agent.started.is_set() and agent.closed.is_set()


async def test_each_run_is_saved_in_the_thread_store(tmp_path: Path) -> None:
    app = create_app(DemoAgent(delay=0), store=tmp_path / "threads.db")
    first = make_input("add buy milk")
    _, events = await post_run(app, first)
    assert events[-1].type == EventType.RUN_FINISHED
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test") as client:
        listing = (await client.get("/threads")).json()["threads"]
        saved = (await client.get(f"/threads/{first.thread_id}")).json()
        missing = await client.get("/threads/nope")
    assert [(t["threadId"], t["agent"], t["title"]) for t in listing] == [(first.thread_id, "agent", "add buy milk")]
    assert saved["state"] == {"todos": [{"text": "buy milk", "done": False}]}
    assert [m["role"] for m in saved["messages"]] == ["user", "assistant"]
    assert missing.status_code == 404
    second = make_input([*saved["messages"], user("show my list")], state=saved["state"])
    await post_run(create_app(DemoAgent(delay=0), store=tmp_path / "threads.db"), second)  # another worker
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test") as client:
        assert len((await client.get(f"/threads/{first.thread_id}")).json()["messages"]) == 4


async def test_a_store_the_app_opened_from_a_path_is_closed_at_shutdown_and_a_given_one_is_not(tmp_path: Path) -> None:
    from agui_widget.stores._store import SQLiteThreadStore

    closed: list[str] = []

    class Watched(SQLiteThreadStore):
        def close(self) -> None:
            closed.append(self.path)
            super().close()

    given = Watched(str(tmp_path / "given.db"))
    for app in (create_app(DemoAgent(delay=0), store=tmp_path / "opened.db"), create_app(DemoAgent(delay=0), store=given)):
        opened = app.state.store
        if opened is not given:
            opened.__class__ = Watched  # observe the store the app opened itself
        async with app.router.lifespan_context(app):
            pass
    assert closed == [str(tmp_path / "opened.db")]


def test_the_serve_command_runs_a_module_attribute(tmp_path: Path) -> None:
    (tmp_path / "myagents.py").write_text(
        textwrap.dedent(
            """
            def echo(messages):
                return "echo: " + messages[-1]["content"]

            def reverse(messages):
                return messages[-1]["content"][::-1]
            """
        )
    )
    with serve_command(["echo=myagents:echo", "rev=myagents:reverse"], tmp_path) as url:
        assert httpx.get(url + "/health", timeout=10).json() == {"status": "ok", "agents": ["echo", "rev"]}
        response = httpx.post(url + "/agents/rev", json=body(make_input("stressed")), timeout=10)
        assert text_of(parse_sse(response.text)) == "desserts"


def test_the_serve_command_explains_a_bad_target(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "agui_widget", "serve", "nosuchmodule:agent"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "cannot import 'nosuchmodule'" in done.stderr


async def test_two_apps_sharing_one_postgres_database_serve_one_thread(postgres_dsn: str) -> None:
    from agui_widget.stores._postgres import PostgresThreadStore

    stores = [PostgresThreadStore(postgres_dsn), PostgresThreadStore(postgres_dsn)]
    apps = [create_app(DemoAgent(delay=0), store=store) for store in stores]  # two workers, one database
    first = make_input("add buy milk")
    await post_run(apps[0], first)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=apps[1]), base_url="http://agents.test") as client:
        listing = (await client.get("/threads")).json()["threads"]
        saved = (await client.get(f"/threads/{first.thread_id}")).json()
    assert [(t["threadId"], t["title"]) for t in listing] == [(first.thread_id, "add buy milk")]
    assert saved["state"] == {"todos": [{"text": "buy milk", "done": False}]}
    # two clients continue the thread at once, one through each worker: both turns are kept
    runs = [make_input([*saved["messages"], user(text)], state=saved["state"]) for text in ("show my list", "add eggs")]
    await asyncio.gather(post_run(apps[0], runs[0]), post_run(apps[1], runs[1]))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=apps[0]), base_url="http://agents.test") as client:
        messages = (await client.get(f"/threads/{first.thread_id}")).json()["messages"]
    contents = [m.get("content") for m in messages if m["role"] == "user"]
    assert len(messages) == 6 and sorted(contents) == ["add buy milk", "add eggs", "show my list"]
    for store in stores:
        store.close()


async def test_two_runs_of_one_thread_at_once_through_one_worker_keep_both_turns(postgres_dsn: str) -> None:
    from agui_widget.stores._postgres import PostgresThreadStore

    store, reader = PostgresThreadStore(postgres_dsn), PostgresThreadStore(postgres_dsn)
    app = create_app(DemoAgent(delay=0.01), store=store)
    first = make_input("add buy milk")
    await post_run(app, first)
    saved = reader.load(first.thread_id)
    assert saved is not None
    runs = [make_input([*saved.messages, user(text)], state=saved.state) for text in ("show my list", "add eggs")]
    await asyncio.gather(post_run(app, runs[0]), post_run(app, runs[1]))
    reloaded = reader.load(first.thread_id)
    assert reloaded is not None
    contents = sorted(m.get("content") for m in reloaded.messages if m["role"] == "user")
    assert contents == ["add buy milk", "add eggs", "show my list"] and len(reloaded.messages) == 6
    store.close()
    reader.close()


async def test_a_postgresql_url_opens_a_store_the_app_closes_at_shutdown(postgres_dsn: str) -> None:
    app = create_app(DemoAgent(delay=0), store=postgres_dsn)
    async with app.router.lifespan_context(app):
        await post_run(app, make_input("add buy milk"))
        assert [r.title for r in app.state.store.list_threads()] == ["add buy milk"]
    with pytest.raises(Exception, match="closed"):
        app.state.store.load("thread-test")


def test_two_serve_processes_share_one_postgresql_store(tmp_path: Path, postgres_dsn: str) -> None:
    with serve_command(["--store", postgres_dsn], tmp_path) as one, serve_command(["--store", postgres_dsn], tmp_path) as two:
        first = make_input("add buy milk")
        httpx.post(one, json=body(first), timeout=30)
        saved = httpx.get(f"{two}/threads/{first.thread_id}", timeout=10).json()
        assert [m["role"] for m in saved["messages"]] == ["user", "assistant"]
        httpx.post(two, json=body(make_input([*saved["messages"], user("show my list")], state=saved["state"])), timeout=30)
        listing = httpx.get(f"{one}/threads", timeout=10).json()["threads"]
        again = httpx.get(f"{one}/threads/{first.thread_id}", timeout=10).json()
        assert [t["threadId"] for t in listing] == [first.thread_id] and len(again["messages"]) == 4
