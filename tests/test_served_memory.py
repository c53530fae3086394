"""A served run leaves nothing behind: its memory is freed when it ends, not by the garbage collector.

Every run's request carries the whole transcript, and the server's pipeline (the consumer, its
reducer holding a copy of the transcript, two verifiers) lives as long as the run. Had any of them
been part of a reference cycle, each finished run would stay in memory until a full collection,
which the collector schedules by counting the objects it tracks: a transcript of strings in plain
dicts is invisible to that count, so a busy worker piled up hundreds of MB of finished runs
(benchmarks/serve_load.py). Here the collector is switched off while runs are served: whatever a
run still holds afterwards would be found alive.

When a worker has no run left, it collects what other code's reference cycles keep (asyncio's
transports, agents' frameworks) and gives glibc's free memory back: ``IdleRelease``.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
import tracemalloc
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from agui_widget.adapters._base import json_patch
from agui_widget.pipeline._consumer import EventConsumer
from agui_widget.pipeline._reducer import EventReducer
from agui_widget.pipeline._verify import EventVerifier
from agui_widget.server import _memory, create_app
from agui_widget.server._memory import IdleRelease

from .support import make_input, until

PIPELINE = (EventConsumer, EventReducer, EventVerifier)


class Streamer:
    """Text, a tool call and a state change (or a failure after the text)."""

    def __init__(self, tokens: int = 20, fail: bool = False) -> None:
        self.tokens = tokens
        self.fail = fail

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id="m-" + input.run_id, role="assistant")
        for index in range(self.tokens):
            await asyncio.sleep(0)
            yield TextMessageContentEvent(message_id="m-" + input.run_id, delta=f"word{index} ")
        yield TextMessageEndEvent(message_id="m-" + input.run_id)
        if self.fail:
            raise RuntimeError("the agent failed on purpose")
        yield ToolCallStartEvent(tool_call_id="c-" + input.run_id, tool_call_name="lookup", parent_message_id="m-" + input.run_id)
        yield ToolCallArgsEvent(tool_call_id="c-" + input.run_id, delta='{"q": 1}')
        yield ToolCallEndEvent(tool_call_id="c-" + input.run_id)
        yield StateDeltaEvent(delta=json_patch([{"op": "add", "path": "/count", "value": 1}]))
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


def transcript(kilobytes: int) -> list[dict[str, Any]]:
    """Earlier turns of 2,000 characters each, ending with the question."""
    text = ("The fox ran through the forest. " * 70)[:2000]
    messages = [
        {"id": f"h{index}", "role": "user" if index % 2 == 0 else "assistant", "content": text} for index in range(kilobytes // 2)
    ]
    return [*messages, {"id": "q", "role": "user", "content": "And then?"}]


async def post(app: Any, body: bytes, leave_after: int | None = None) -> bytes:
    """One POST straight through the ASGI app (no HTTP client: a client's own reference cycles
    would hold the request bodies this file looks for). ``leave_after``: the client disconnects
    once it has that many chunks of the stream."""
    headers = [(b"host", b"agents.test"), (b"content-type", b"application/json"), (b"accept", b"text/event-stream")]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/", "raw_path": b"/", "query_string": b"", "root_path": "", "client": ("127.0.0.1", 50000),
        "server": ("agents.test", 80), "headers": [*headers, (b"content-length", str(len(body)).encode())],
    }  # fmt: skip
    chunks: list[bytes] = []
    requested = False
    leaving = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": body, "more_body": False}
        await leaving.wait()  # the client stays until the response is over, or until it leaves
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if leave_after is not None and len(chunks) >= leave_after:
                leaving.set()

    await app(scope, receive, send)
    return b"".join(chunks)


async def serve_runs(app: Any, count: int, history_kb: int = 0) -> list[str]:
    """``count`` runs, one after another; the last event type of each."""
    endings = []
    for _ in range(count):
        run_input = make_input(transcript(history_kb), state={"count": 0})
        text = (await post(app, run_input.model_dump_json(by_alias=True, exclude_none=True).encode())).decode()
        lines = [line for line in text.splitlines() if line.startswith("data:")]
        endings.append(lines[-1].split('"type":"', 1)[1].split('"', 1)[0])
        del run_input, text, lines
    return endings


def alive(classes: tuple[type, ...]) -> dict[str, int]:
    return {cls.__name__: sum(1 for obj in gc.get_objects() if type(obj) is cls) for cls in classes}


@contextmanager
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture(autouse=True)
def no_idle_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's idle release collects garbage: it would hide what these tests look for."""
    monkeypatch.setattr(_memory.IDLE_RELEASE, "idle_delay", 3600.0)


@pytest.mark.parametrize("fail", [False, True], ids=["finished", "failed"])
async def test_a_served_run_leaves_no_part_of_its_pipeline_alive(fail: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest keeps every log record of a test, the failure's traceback (and its frames) with it
    monkeypatch.setattr(logging.getLogger("agui_widget"), "disabled", True)
    app = create_app(Streamer(fail=fail))
    await serve_runs(app, 2)  # warm: first-request caches
    with collector_off():
        before = alive(PIPELINE)
        endings = await serve_runs(app, 10)
        after = alive(PIPELINE)
    assert endings == ["RUN_ERROR" if fail else "RUN_FINISHED"] * 10
    assert after == before


class Slow(Streamer):
    """Streams while the client is still there: a pause before every event."""

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        async for event in super().run(input):
            await asyncio.sleep(0.005)
            yield event


async def test_a_run_whose_client_left_leaves_no_part_of_its_pipeline_alive() -> None:
    app = create_app(Slow(tokens=50))
    body = make_input("hi").model_dump_json(by_alias=True).encode()
    await post(app, body, leave_after=3)
    with collector_off():
        before = alive(PIPELINE)
        for _ in range(5):
            streamed = await post(app, body, leave_after=3)
            assert b"RUN_FINISHED" not in streamed  # the client left mid-run
        after = alive(PIPELINE)
    assert after == before


async def test_the_transcripts_of_finished_runs_are_freed_at_once() -> None:
    app = create_app(Streamer())
    await serve_runs(app, 2, history_kb=200)
    with collector_off():
        tracemalloc.start()
        try:
            start, _ = tracemalloc.get_traced_memory()
            await serve_runs(app, 10, history_kb=200)  # 10 runs of a 200 KB transcript
            end, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak - start > 200_000  # a run did hold its transcript while it streamed
    assert end - start < 200_000  # and no run holds it once over (26 KB; in reference cycles, 2.7 MB)


def test_a_consumer_is_freed_as_soon_as_it_is_dropped() -> None:
    warnings: list[str] = []
    with collector_off():
        consumer = EventConsumer([{"id": "u", "role": "user", "content": "hi"}], {}, on_warning=warnings.append)
        stream: list[BaseEvent | dict[str, Any]] = [
            RunStartedEvent(thread_id="t", run_id="r"),
            {"type": "THINKING_START"},  # retired: converted, with a warning
            {"type": "THINKING_END"},
            TextMessageStartEvent(message_id="m", role="assistant"),
            TextMessageContentEvent(message_id="m", delta="hello"),
            TextMessageEndEvent(message_id="m"),
            RunFinishedEvent(thread_id="t", run_id="r"),
        ]
        for event in stream:
            consumer.consume(event)
        consumer.reset_stream()
        parts: list[weakref.ref[Any]] = [weakref.ref(consumer), weakref.ref(consumer._reducer), weakref.ref(consumer._verifier)]
        del consumer
        assert [part() for part in parts] == [None, None, None]
    assert warnings and "THINKING_START" in warnings[0]


# -- the idle release ------------------------------------------------------------------------


class Trims:
    def __init__(self) -> None:
        self.count = 0
        self.times: list[float] = []

    def __call__(self) -> None:
        self.count += 1
        self.times.append(time.monotonic())


def quick(trims: Trims, idle_delay: float, min_interval: float) -> IdleRelease:
    """An idle release whose collection costs nothing (a real one may take 100 ms under pytest)."""
    return IdleRelease(trims, collect=lambda: 0, idle_delay=idle_delay, min_interval=min_interval)


def due(release: IdleRelease) -> bool:
    """Is a release scheduled (the idle delay, or the rest of the interval, still running)?"""
    return release._timer is not None


async def test_memory_is_given_back_once_the_last_run_is_over() -> None:
    trims = Trims()
    release = quick(trims, idle_delay=0.02, min_interval=0.0)
    release.run_started()
    release.run_started()
    release.run_ended()
    assert not due(release) and trims.count == 0  # a run is still streaming: nothing is scheduled
    release.run_ended()
    await until(lambda: trims.count > 0, what="the release once the last run ended")
    assert (trims.count, release.releases) == (1, 1)
    assert not due(release)


async def test_a_run_that_starts_before_the_delay_postpones_the_release() -> None:
    trims = Trims()
    release = quick(trims, idle_delay=0.05, min_interval=0.0)
    release.run_started()
    release.run_ended()
    assert due(release)
    release.run_started()  # before the delay is over
    await until(lambda: not due(release), what="the idle delay to end")
    assert trims.count == 0
    release.run_ended()
    await until(lambda: trims.count > 0, what="the release once that run ended")
    assert trims.count == 1


async def test_releases_are_spaced_but_the_last_idle_moment_still_gets_one() -> None:
    trims = Trims()
    release = quick(trims, idle_delay=0.01, min_interval=1.0)
    release.run_started()
    release.run_ended()
    await until(lambda: trims.count > 0, what="the first release")
    assert trims.count == 1
    for _ in range(3):  # runs end again soon after: one release, once the interval is over
        release.run_started()
        release.run_ended()
        await asyncio.sleep(0.02)  # runs 20 ms apart, each idle delay over before the next one starts
    assert trims.count == 1 and due(release)
    await until(lambda: trims.count > 1, what="the release once the interval was over")
    assert trims.count == 2 and not due(release)
    assert trims.times[1] - trims.times[0] >= release.min_interval - 0.01, "the releases are an interval apart"


async def test_a_served_app_releases_memory_when_its_runs_are_over(monkeypatch: pytest.MonkeyPatch) -> None:
    trims = Trims()
    monkeypatch.setattr(_memory.IDLE_RELEASE, "trim", trims)
    monkeypatch.setattr(_memory.IDLE_RELEASE, "idle_delay", 0.02)
    monkeypatch.setattr(_memory.IDLE_RELEASE, "min_interval", 0.0)
    await serve_runs(create_app(Streamer()), 3)
    assert _memory.IDLE_RELEASE.active == 0
    await until(lambda: trims.count >= 1, what="the idle release once the served runs were over")


def test_glibc_trim_is_found_on_glibc_and_runs() -> None:
    trim = _memory.glibc_trim()
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert trim is not None
    trim()
