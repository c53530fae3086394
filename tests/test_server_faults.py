"""agui_widget.server when the input or the agent is at fault: an event the wire cannot carry,
a request body over the size limit, a request holding a lone UTF-16 surrogate.

Each fault gets an answer the client can act on: a well-formed stream ending in RUN_ERROR once
the 200 has gone out, or a JSON 413/422 before any stream starts.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    EventType,
    RunAgentInput,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from agui_widget.server import create_app
from agui_widget.server._app import DEFAULT_MAX_BODY_BYTES
from agui_widget.server._cli import app_from_spec

from .agui_check import assert_valid_streams
from .live_server import live_server
from .support import make_input, text_of, types
from .test_server import RawAgent, body, parse_sse, post_run

BASE_URL = "http://agents.test"


class Unserialisable:
    """A value no JSON encoder can represent (an SDK object an agent forgot to convert)."""


class Watched:
    """Runs a script of events, recording whether the generator was closed and how far it got."""

    def __init__(self, script: Callable[[RunAgentInput], list[BaseEvent]]) -> None:
        self.script = script
        self.closed = False
        self.went_past_the_bad_event = False
        self.ran = False

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        self.ran = True
        try:
            for event in self.script(input):
                yield event
            self.went_past_the_bad_event = True
            yield TextMessageContentEvent(message_id="m1", delta="never sent")
        finally:
            self.closed = True


def run_started(input: RunAgentInput) -> RunStartedEvent:
    return RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)


def custom_value_mid_message(input: RunAgentInput) -> list[BaseEvent]:
    return [
        run_started(input),
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageContentEvent(message_id="m1", delta="Half"),
        CustomEvent(name="chart", value={"figure": Unserialisable()}),
    ]


def unencodable_message_start(input: RunAgentInput) -> list[BaseEvent]:
    return [run_started(input), TextMessageStartEvent(message_id="m1", role="assistant", raw_event=Unserialisable())]


def unencodable_tool_call_end(input: RunAgentInput) -> list[BaseEvent]:
    return [
        run_started(input),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="lookup"),
        ToolCallArgsEvent(tool_call_id="c1", delta="{}"),
        ToolCallEndEvent(tool_call_id="c1", raw_event=Unserialisable()),
    ]


def unencodable_state(input: RunAgentInput) -> list[BaseEvent]:
    return [run_started(input), StateSnapshotEvent(snapshot={"client": Unserialisable()})]


# A value in a field that holds any JSON (a CUSTOM value, a state) is refused by the pipeline
# itself, naming where it is; one elsewhere (a raw event) when the server encodes the event.
REFUSED_BY_THE_PIPELINE = ("STATE_SNAPSHOT at /snapshot/client: object of type Unserialisable", "protocol_error")


@pytest.mark.parametrize(
    ("script", "failed_type", "expected_types", "refusal"),
    [
        # What was open on the client is closed; what the client never saw is not.
        (
            custom_value_mid_message,
            "CUSTOM",
            ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_ERROR"],
            ("CUSTOM at /value/figure: object of type Unserialisable", "protocol_error"),
        ),
        (unencodable_message_start, "TEXT_MESSAGE_START", ["RUN_STARTED", "RUN_ERROR"], None),
        (
            unencodable_tool_call_end,
            "TOOL_CALL_END",
            ["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_ERROR"],
            None,
        ),
        (unencodable_state, "STATE_SNAPSHOT", ["RUN_STARTED", "RUN_ERROR"], REFUSED_BY_THE_PIPELINE),
    ],
)
async def test_an_event_that_cannot_be_encoded_ends_the_stream_with_a_run_error(
    script: Callable[[RunAgentInput], list[BaseEvent]],
    failed_type: str,
    expected_types: list[str],
    refusal: tuple[str, str] | None,
) -> None:
    agent = Watched(script)
    response, events = await post_run(create_app(agent), make_input("hi"))
    assert response.status_code == 200
    assert types(events) == expected_types
    error = events[-1]
    message, code = refusal or (f"could not encode the agent's {failed_type} event", "agent_error")
    assert message in error.message  # type: ignore[attr-defined]
    assert error.code == code  # type: ignore[attr-defined]
    assert_valid_streams([events])
    assert agent.closed and not agent.went_past_the_bad_event


async def test_an_unencodable_event_does_not_cut_a_real_connection() -> None:
    agent = Watched(custom_value_mid_message)
    with live_server(create_app(agent)) as url:
        async with httpx.AsyncClient(timeout=10) as client:
            response = await client.post(url + "/", json=body(make_input("hi")), headers={"accept": "text/event-stream"})
    events = parse_sse(response.text)
    assert response.status_code == 200 and events[-1].type == EventType.RUN_ERROR
    assert "CUSTOM" in events[-1].message  # type: ignore[attr-defined]
    assert_valid_streams([events])
    assert agent.closed


async def test_an_error_message_that_is_not_utf8_still_reaches_the_client() -> None:
    async def raises_with_a_lone_surrogate(input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield run_started(input)
        raise ValueError("the model sent \ud83d alone")

    _, events = await post_run(create_app(RawAgent(raises_with_a_lone_surrogate)), make_input("hi"))
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert "the model sent \\ud83d alone" in events[-1].message  # type: ignore[attr-defined]


# -- request size --------------------------------------------------------------------------------


def echo(messages: list[dict[str, Any]]) -> str:
    return "echo: " + messages[-1]["content"]


def run_body(text: str) -> bytes:
    return json.dumps(body(make_input(text))).encode()


async def raw_asgi_post(
    app: Any, path: str, chunks: list[bytes], headers: list[tuple[bytes, bytes]]
) -> tuple[int, dict[str, Any], int]:
    """POST through the bare ASGI interface; returns (status, JSON body, chunks the app read)."""
    incoming = [
        {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1} for index, chunk in enumerate(chunks)
    ]
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read < len(incoming):
            read += 1
            return incoming[read - 1]
        await asyncio.sleep(3600)  # the client waits for the answer
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"agents.test"), (b"content-type", b"application/json"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("agents.test", 80),
    }
    await asyncio.wait_for(app(scope, receive, send), timeout=10)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(content), read


@pytest.mark.parametrize("path", ["/", "/agents/echo"])
async def test_a_body_over_the_limit_is_refused_with_413_before_it_is_read(path: str) -> None:
    app = create_app(echo, max_body_bytes=2048)
    big = run_body("x" * 4096)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as client:
        declared = await client.post(path, content=big, headers={"content-type": "application/json"})
        small = await client.post(path, content=run_body("hi"), headers={"content-type": "application/json"})
    assert declared.status_code == 413
    assert declared.headers["content-type"] == "application/json"
    assert "2,048 bytes" in declared.json()["detail"]
    assert small.status_code == 200 and text_of(parse_sse(small.text)) == "echo: hi"
    status, answer, read = await raw_asgi_post(app, path, [big], [(b"content-length", str(len(big)).encode())])
    assert status == 413 and "2,048 bytes" in answer["detail"]
    assert read == 0, "the body was read although its declared length is over the limit"


@pytest.mark.parametrize("path", ["/", "/agents/echo"])
async def test_a_chunked_body_is_counted_while_it_is_read(path: str) -> None:
    app = create_app(echo, max_body_bytes=10_000)
    pieces = [b" " * 1000] * 100  # 100 kB of JSON whitespace, no Content-Length
    status, answer, read = await raw_asgi_post(app, path, pieces, [(b"transfer-encoding", b"chunked")])
    assert status == 413 and "10,000 bytes" in answer["detail"]
    assert read <= 11, f"{read} chunks read: reading went on past the limit"

    async def chunked() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as client:
        response = await client.post(path, content=chunked(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_a_real_server_refuses_both_kinds_of_large_body() -> None:
    app = create_app(echo, max_body_bytes=4096)

    def chunked() -> Any:
        yield b'{"threadId": "t", "runId": "r", "messages": ['
        for _ in range(50):
            yield json.dumps({"id": "u", "role": "user", "content": "y" * 200}).encode() + b", "
        yield b'{"id": "u", "role": "user", "content": "last"}], "state": {}, "tools": [], "context": []}'

    with live_server(app) as url:
        declared = httpx.post(url + "/", content=run_body("z" * 8000), headers={"content-type": "application/json"}, timeout=10)
        streamed = httpx.post(url + "/", content=chunked(), headers={"content-type": "application/json"}, timeout=10)
        fine = httpx.post(url + "/", content=run_body("ok"), headers={"content-type": "application/json"}, timeout=10)
    assert declared.status_code == 413 and "4,096 bytes" in declared.json()["detail"]
    assert streamed.request.headers.get("transfer-encoding") == "chunked"
    assert streamed.status_code == 413 and "4,096 bytes" in streamed.json()["detail"]
    assert fine.status_code == 200 and text_of(parse_sse(fine.text)) == "echo: ok"


async def test_the_default_limit_is_ten_mebibytes_and_none_lifts_it() -> None:
    assert DEFAULT_MAX_BODY_BYTES == 10 * 1024 * 1024
    claimed = [(b"content-length", str(DEFAULT_MAX_BODY_BYTES + 1).encode())]
    status, answer, read = await raw_asgi_post(create_app(echo), "/", [b"{}"], claimed)
    assert status == 413 and "10,485,760 bytes" in answer["detail"] and read == 0
    unlimited = create_app(echo, max_body_bytes=None)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=unlimited), base_url=BASE_URL) as client:
        response = await client.post("/", content=run_body("a" * 50_000), headers={"content-type": "application/json"})
    assert response.status_code == 200
    with pytest.raises(ValueError, match="max_body_bytes"):
        create_app(echo, max_body_bytes=0)


async def test_the_serve_command_passes_its_body_limit_on() -> None:
    limited = app_from_spec({"targets": [], "max_body_bytes": 1000})
    status, answer, _ = await raw_asgi_post(limited, "/", [b"{}"], [(b"content-length", b"5000")])
    assert status == 413 and "1,000 bytes" in answer["detail"]
    unlimited = app_from_spec({"targets": [], "max_body_bytes": 0})  # 0 on the command line: no limit
    status, _, _ = await raw_asgi_post(unlimited, "/", [b"{}"], [(b"content-length", str(DEFAULT_MAX_BODY_BYTES + 1).encode())])
    assert status == 422  # read and validated: "{}" is not a RunAgentInput


# -- lone surrogates -----------------------------------------------------------------------------


def escaped_body(run_input: dict[str, Any]) -> bytes:
    """JSON as a JavaScript client sends it: non-ASCII escaped, so a lone surrogate travels as \\udXXX."""
    return json.dumps(run_input, ensure_ascii=True).encode()


@pytest.mark.parametrize("path", ["/", "/agents/echo"])
async def test_a_lone_surrogate_in_the_request_gets_a_422_naming_where(path: str) -> None:
    agent_ran: list[str] = []

    def watched_echo(messages: list[dict[str, Any]]) -> str:
        agent_ran.append(messages[-1]["content"])
        return "echo"

    app = create_app({"echo": watched_echo}) if path != "/" else create_app(watched_echo)
    in_content = body(make_input("fine"))
    in_content["messages"].append({"id": "u2", "role": "user", "content": "smile \ud83d"})
    in_a_key = {**body(make_input("fine")), "state": {"notes": {"\udc00key": 1}}}
    paired = body(make_input("smile"))
    paired["messages"][0]["content"] = "smile \ud83d\ude00"  # both halves escaped: JSON joins them into one character
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as client:
        headers = {"content-type": "application/json"}
        content = await client.post(path, content=escaped_body(in_content), headers=headers)
        key = await client.post(path, content=escaped_body(in_a_key), headers=headers)
        assert not agent_ran, "the agent ran on a request holding a lone surrogate"
        whole = await client.post(path, content=escaped_body(paired), headers=headers)
    assert content.status_code == 422
    assert "lone UTF-16 surrogate" in content.json()["detail"] and "/messages/1/content" in content.json()["detail"]
    assert content.json()["errors"][0]["loc"] == ["body", "messages", "1", "content"]
    assert key.status_code == 422 and "/state/notes/\\udc00key" in key.json()["detail"]
    assert whole.status_code == 200 and agent_ran == ["smile 😀"]


async def test_an_invalid_run_input_keeps_its_422_on_every_run_route() -> None:
    app = create_app({"echo": echo})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as client:
        missing = await client.post("/agents/echo", json={"threadId": "t", "messages": []})
        not_json = await client.post("/agents/echo", content=b"{oops", headers={"content-type": "application/json"})
    assert missing.status_code == 422 and "runId: Field required" in missing.json()["detail"]
    assert {tuple(e["loc"]) for e in missing.json()["errors"]} >= {("body", "runId")}
    assert not_json.status_code == 422 and "not a valid AG-UI RunAgentInput" in not_json.json()["detail"]
