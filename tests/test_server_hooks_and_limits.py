"""A served app calls the notebook's hooks and input guard the same way, and holds each user to a
number of runs at once (HTTP 429 with Retry-After beyond it)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
from ag_ui.core import BaseEvent, EventType, RunAgentInput, RunFinishedEvent, RunStartedEvent

from agui_widget import AgentChat, MemoryThreadStore
from agui_widget.adapters import DemoAgent
from agui_widget.server import ServedRun, create_app
from agui_widget.vocabulary._hooks import ErrorInfo

from .live_server import live_server
from .support import make_input, text_of, until
from .test_server import body, parse_sse
from .test_server_auth import TOKENS, bearer, client_of, fresh_input


class Gate:
    """An agent that holds each run open until the test lets it finish."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.started = 0

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        self.started += 1
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        await self.open.wait()
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


async def test_one_run_too_many_is_429_with_retry_after_and_the_slot_frees_when_a_run_ends() -> None:
    gate = Gate()
    app = create_app(gate, auth=TOKENS, max_runs_per_user=2)
    async with client_of(app) as client:
        alice = bearer(TOKENS["alice"])
        held = [asyncio.create_task(client.post("/", json=body(fresh_input(f"run {n}")), headers=alice)) for n in range(2)]
        await until(lambda: gate.started == 2)
        refused = await client.post("/", json=body(fresh_input("one more")), headers=alice)
        other = asyncio.create_task(client.post("/", json=body(fresh_input("bob's")), headers=bearer(TOKENS["bob"])))
        await until(lambda: gate.started == 3)  # another user is not held to alice's runs
        gate.open.set()
        finished = await asyncio.gather(*held, other)
        again = await client.post("/", json=body(fresh_input("after")), headers=alice)
    assert refused.status_code == 429 and refused.headers["content-type"] == "application/json"
    assert int(refused.headers["retry-after"]) >= 1
    assert "at most 2 per user" in refused.json()["detail"]
    assert [r.status_code for r in finished] == [200, 200, 200]
    assert again.status_code == 200
    assert app.state.limiter.running("alice") == 0 and app.state.limiter.running("bob") == 0


async def test_a_client_that_leaves_gives_its_slot_back() -> None:
    gate = Gate()
    app = create_app(gate, max_runs_per_user=1)  # without auth, the limit is per client address
    with live_server(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            async with client.stream("POST", "/", json=body(fresh_input("held"))) as response:
                assert response.status_code == 200
                assert (await client.post("/", json=body(fresh_input("second")))).status_code == 429
            # the stream is closed: the server notices and frees the slot
            await until(lambda: app.state.limiter.running("address:127.0.0.1") == 0)
            gate.open.set()
            assert (await client.post("/", json=body(fresh_input("third")))).status_code == 200


async def test_the_hooks_see_every_run_as_a_notebook_chats_do() -> None:
    started: list[RunAgentInput] = []
    seen: list[str] = []
    ended: list[ServedRun] = []
    errors: list[ErrorInfo] = []

    async def on_run_end(run: ServedRun) -> None:  # an async hook runs as a task of its own
        ended.append(run)

    app = create_app(
        DemoAgent(delay=0),
        auth=TOKENS,
        on_run_start=started.append,
        on_event=lambda event: seen.append(event.type.value),
        on_run_end=on_run_end,
        on_error=errors.append,
    )
    good, bad = fresh_input("weather in Rome"), fresh_input("fail")
    async with client_of(app) as client:
        answered = await client.post("/", json=body(good), headers=bearer(TOKENS["alice"]))
        failed = await client.post("/", json=body(bad), headers=bearer(TOKENS["bob"]))
    await until(lambda: len(ended) == 2)
    assert [run_input.run_id for run_input in started] == [good.run_id, bad.run_id]
    first_run = [e.type.value for e in parse_sse(answered.text)]
    assert seen[: len(first_run)] == first_run  # every event the client got, in order
    finished, broken = ended
    assert (finished.id, finished.user, finished.agent, finished.status) == (good.run_id, "alice", "agent", "finished")
    assert "Rome" in finished.reply and finished.events[0].type == EventType.RUN_STARTED
    assert (broken.status, broken.user) == ("error", "bob") and broken.error
    assert [(e.run, e.code) for e in errors] == [(broken, "agent_error")]
    assert errors[0].message == parse_sse(failed.text)[-1].message  # type: ignore[attr-defined]


async def test_a_failing_hook_never_breaks_the_served_run() -> None:
    def broken(*_: Any) -> None:
        raise RuntimeError("metrics are down")

    app = create_app(DemoAgent(delay=0), on_run_start=broken, on_event=broken, on_run_end=broken)
    async with client_of(app) as client:
        response = await client.post("/", json=body(make_input("weather in Oslo")))
    events = parse_sse(response.text)
    assert events[-1].type == EventType.RUN_FINISHED and "Oslo" in text_of(events)


async def test_the_guard_refuses_on_the_server_as_in_a_notebook() -> None:
    asked: list[Any] = []
    ended: list[ServedRun] = []
    started: list[RunAgentInput] = []
    store = MemoryThreadStore()

    def no_secrets(content: Any) -> str | None:
        asked.append(content)
        return "Please don't paste passwords into the chat." if "password" in str(content) else None

    class Watched(DemoAgent):
        runs = 0

        def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
            Watched.runs += 1
            return super().run(input)

    app = create_app(Watched(delay=0), guard=no_secrets, store=store, on_run_end=ended.append, on_run_start=started.append)
    refused_input = fresh_input("my password is hunter2")
    async with client_of(app) as client:
        refused = await client.post("/", json=body(refused_input))
        allowed = await client.post("/", json=body(fresh_input("weather in Rome")))
    events = parse_sse(refused.text)
    assert refused.status_code == 200  # a refusal of the content is a run that says so, for any AG-UI client
    assert [e.type for e in events] == [EventType.RUN_STARTED, EventType.RUN_ERROR]
    assert events[-1].code == "input_refused"  # type: ignore[attr-defined]
    assert events[-1].message == "Please don't paste passwords into the chat."  # type: ignore[attr-defined]
    assert "Rome" in text_of(parse_sse(allowed.text))
    assert Watched.runs == 1 and asked == ["my password is hunter2", "weather in Rome"]
    assert [r.status for r in ended] == ["refused", "finished"] and ended[0].refused == events[-1].message  # type: ignore[attr-defined]
    assert len(started) == 1  # as in a notebook: a refused turn never starts a run
    saved = store.load(refused_input.thread_id)
    assert saved is not None
    assert saved.messages[-1]["metadata"]["agui_widget"]["refused"] == "Please don't paste passwords into the chat."


async def test_a_follow_up_run_after_a_tool_result_is_not_asked_about_again() -> None:
    asked: list[Any] = []
    app = create_app(DemoAgent(delay=0), guard=lambda content: asked.append(content))
    messages = [
        {"id": "u1", "role": "user", "content": "make it teal"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "set_accent", "arguments": "{}"}}],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "done"},
    ]
    async with client_of(app) as client:
        await client.post("/", json=body(make_input(messages)))
    assert asked == []


async def test_a_notebook_chat_shows_a_served_refusal_as_refused() -> None:
    app = create_app(DemoAgent(delay=0), guard=lambda content: "Not here, please." if "secret" in content else None)
    with live_server(app) as url:
        chat = AgentChat(url)
        run = await asyncio.wait_for(chat.send("the secret is 42"), 30)
        assert run.status == "refused" and run.refused == "Not here, please."
        assert chat.status == "idle" and chat.error == ""
        assert chat.messages[-1]["metadata"]["agui_widget"]["refused"] == "Not here, please."
        ok = await asyncio.wait_for(chat.send("weather in Rome"), 30)
        assert ok.status == "finished" and "Rome" in ok.reply
