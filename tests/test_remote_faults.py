"""What a remote chat does when the server or the network misbehaves.

Each fault ends the turn with one RUN_ERROR whose message says what to check, the stream stays
valid AG-UI, and the chat goes on working. Scripted faults use httpx's MockTransport; the ones
that need real sockets (nothing listening, a server that goes silent or drops the connection)
use a live uvicorn.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from ag_ui.core import EventType, RunErrorEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from agui_widget import RemoteAgent
from agui_widget.adapters import DemoAgent
from agui_widget.server import create_app
from agui_widget.session._session import Session

from .agui_check import assert_valid_streams
from .live_server import closed_port, live_server
from .support import collect, make_input, split_runs, text_of, types

URL = "http://agents.test/run"


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events)


def a_run(thread_id: str, run_id: str, text: str = "hello") -> list[dict[str, Any]]:
    return [
        {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": text},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id},
    ]


class Script:
    """A mock server: ``respond(request, attempt)`` answers each request; requests are counted."""

    def __init__(self, respond: Callable[[httpx.Request, int], httpx.Response]) -> None:
        self.respond = respond
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.respond(request, len(self.requests))

    def agent(self, **options: Any) -> RemoteAgent:
        options.setdefault("backoff", 0.001)
        return RemoteAgent(URL, transport=httpx.MockTransport(self), **options)


def ok(request: httpx.Request, text: str = "hello") -> httpx.Response:
    body = json.loads(request.content)
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=sse(*a_run(body["threadId"], body["runId"], text))
    )


def error_of(events: list) -> RunErrorEvent:
    assert events[-1].type == EventType.RUN_ERROR, types(events)
    assert_valid_streams([events])
    return events[-1]


async def test_connection_failures_are_retried_before_the_run_starts() -> None:
    def respond(request: httpx.Request, attempt: int) -> httpx.Response:
        if attempt <= 2:
            raise httpx.ConnectError("connection refused")
        return ok(request)

    script = Script(respond)
    events = await collect(script.agent(retries=3), make_input("hi"))
    assert types(events)[-1] == "RUN_FINISHED" and text_of(events) == "hello"
    assert len(script.requests) == 3


async def test_a_busy_load_balancer_is_retried_too() -> None:
    def respond(request: httpx.Request, attempt: int) -> httpx.Response:
        return httpx.Response(503, headers={"retry-after": "0"}, text="upstream busy") if attempt == 1 else ok(request)

    script = Script(respond)
    events = await collect(script.agent(), make_input("hi"))
    assert text_of(events) == "hello" and len(script.requests) == 2


async def test_retries_run_out_with_a_message_about_reaching_the_server() -> None:
    def respond(request: httpx.Request, attempt: int) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    script = Script(respond)
    error = error_of(await collect(script.agent(retries=2), make_input("hi")))
    assert len(script.requests) == 3
    assert "Cannot reach the agent at http://agents.test/run" in error.message
    assert "after 3 attempts" in error.message and "server is running" in error.message
    assert error.code == "network"


async def test_a_stream_that_breaks_after_events_is_never_sent_again() -> None:
    def respond(request: httpx.Request, attempt: int) -> httpx.Response:
        body = json.loads(request.content)

        async def breaking() -> AsyncIterator[bytes]:
            yield sse(*a_run(body["threadId"], body["runId"], "partial")[:3])
            raise httpx.ReadError("connection reset by peer")

        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=breaking())

    script = Script(respond)
    events = await collect(script.agent(retries=5), make_input("hi"))
    error = error_of(events)
    assert len(script.requests) == 1
    assert text_of(events) == "partial"  # what arrived stays
    assert "broke mid-run" in error.message and "ReadError" in error.message


async def test_a_server_that_takes_the_request_but_never_answers_is_not_asked_twice() -> None:
    def respond(request: httpx.Request, attempt: int) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    script = Script(respond)
    error = error_of(await collect(script.agent(timeout={"read": 7}), make_input("hi")))
    assert "sent nothing for 7 s (read timeout)" in error.message and error.code == "network"
    assert len(script.requests) == 1  # the agent may be working on it: no second run


@pytest.mark.parametrize(
    ("status", "body", "expected", "code"),
    [
        (500, "Traceback: KeyError 'model'", "check its logs", "agent_error"),
        (401, '{"detail": "bad token"}', "Check the credentials", "authentication"),
        (404, "Not Found", "Check the URL", "configuration"),
        (422, '{"detail": "messages: field required"}', "speaks AG-UI", "configuration"),
    ],
)
async def test_an_error_status_quotes_the_status_and_the_body(status: int, body: str, expected: str, code: str) -> None:
    script = Script(lambda request, attempt: httpx.Response(status, text=body))
    error = error_of(await collect(script.agent(), make_input("hi")))
    assert f"HTTP {status}" in error.message and body in error.message and expected in error.message
    assert error.code == code
    assert len(script.requests) == 1


async def test_a_long_error_body_is_cut_to_an_excerpt() -> None:
    script = Script(lambda request, attempt: httpx.Response(500, text="x" * 100_000))
    error = error_of(await collect(script.agent(), make_input("hi")))
    assert "x" * 500 + "…" in error.message and len(error.message) < 1_000


async def test_a_web_page_instead_of_an_event_stream() -> None:
    script = Script(lambda request, attempt: httpx.Response(200, html="<html><body>Welcome to nginx!</body></html>"))
    error = error_of(await collect(script.agent(), make_input("hi")))
    assert "text/html" in error.message and "Welcome to nginx!" in error.message
    assert "not an AG-UI event stream" in error.message and error.code == "configuration"


async def test_a_malformed_line_and_an_invalid_event_are_skipped_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    def respond(request: httpx.Request, attempt: int) -> httpx.Response:
        body = json.loads(request.content)
        run = a_run(body["threadId"], body["runId"])
        stream = (
            sse(*run[:2])
            + b"data: {not json\n\n"
            + sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": 42})
            + sse({"type": "NO_SUCH_EVENT", "x": 1})
            + b": a keep-alive comment\n\n"
            + b"event: ping\ndata: {}\n\n"
            + sse(*run[2:])
        )
        return httpx.Response(200, headers={"content-type": "text/event-stream; charset=utf-8"}, content=stream)

    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        events = await collect(Script(respond).agent(), make_input("hi"))
    assert types(events)[-1] == "RUN_FINISHED" and text_of(events) == "hello"
    assert_valid_streams([events])
    warnings = caplog.text
    assert "not JSON" in warnings and "{not json" in warnings
    assert "invalid TEXT_MESSAGE_CONTENT event" in warnings and "delta" in warnings
    assert "invalid NO_SUCH_EVENT event" in warnings


async def test_a_stream_that_ends_without_finishing_the_run() -> None:
    def respond(request: httpx.Request, attempt: int) -> httpx.Response:
        body = json.loads(request.content)
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=sse(*a_run(body["threadId"], body["runId"])[:3])
        )

    error = error_of(await collect(Script(respond).agent(), make_input("hi")))
    assert "before the run finished" in error.message


async def test_an_empty_stream() -> None:
    script = Script(lambda request, attempt: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=b""))
    events = await collect(script.agent(), make_input("hi"))
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert "without sending any event" in error_of(events).message


async def test_server_down_then_up_the_same_chat_goes_on() -> None:
    agent = RemoteAgent(f"http://127.0.0.1:{closed_port()}/", retries=1, backoff=0.01)
    session = Session(agent)
    failed = await session.send("add buy milk")
    assert failed.status == "error" and session.status == "error"
    assert "Cannot reach the agent" in failed.error
    assert_valid_streams(split_runs(failed.events))
    with live_server(create_app(DemoAgent(delay=0))) as url:
        agent.url = url + "/"
        again = await session.send("add buy milk")
    assert again.status == "finished" and session.status == "idle"
    assert session.state == {"todos": [{"text": "buy milk", "done": False}]}
    assert [m["role"] for m in session.messages] == ["user", "user", "assistant"]


def raw_app(endpoint: Callable[[Request], Any]) -> Starlette:
    return Starlette(routes=[Route("/", endpoint, methods=["POST"])])


async def test_a_slow_server_runs_into_the_read_timeout() -> None:
    async def endpoint(request: Request) -> StreamingResponse:
        body = await request.json()

        async def events() -> AsyncIterator[bytes]:
            yield sse(a_run(body["threadId"], body["runId"])[0])
            await asyncio.sleep(30)  # thinking, silently; the client's read timeout is far shorter
            yield sse(*a_run(body["threadId"], body["runId"])[1:])

        return StreamingResponse(events(), media_type="text/event-stream")

    with live_server(raw_app(endpoint)) as url:
        session = Session(RemoteAgent(url + "/", timeout={"read": 0.5}))
        turn = await session.send("hi")
    assert turn.status == "error"
    assert "sent nothing for 0.5 s (read timeout)" in turn.error and "raise RemoteAgent(timeout=" in turn.error
    assert_valid_streams(split_runs(turn.events))


async def test_a_server_that_drops_the_connection_mid_stream() -> None:
    calls: list[int] = []

    async def endpoint(request: Request) -> StreamingResponse:
        body = await request.json()
        calls.append(1)

        async def events() -> AsyncIterator[bytes]:
            if len(calls) > 1:
                yield sse(*a_run(body["threadId"], body["runId"], "all better"))
                return
            yield sse(*a_run(body["threadId"], body["runId"], "half an ans")[:3])
            await asyncio.sleep(0.05)
            raise RuntimeError("the worker died")  # uvicorn drops the connection mid-body

        return StreamingResponse(events(), media_type="text/event-stream")

    with live_server(raw_app(endpoint)) as url:
        session = Session(RemoteAgent(url + "/"))
        turn = await session.send("hi")
        assert turn.status == "error"
        assert "broke mid-run" in turn.error
        assert text_of(turn.events) == "half an ans"
        assert session.messages[-1]["content"] == "half an ans"  # what arrived is kept
        assert_valid_streams(split_runs(turn.events))
        again = await session.send("again")  # the chat goes on
        assert again.status == "finished" and again.reply == "all better"
        assert len(calls) == 2  # one request per turn: the broken one was not retried
