"""AgentChat as the kernel end of the wire: what views are sent, and what they may ask."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

import pytest
import traitlets
from ag_ui.core import (
    RawEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from agui_widget import AgentChat, DemoAgent, FrontendTool, js_tool
from agui_widget.adapters import AgentAdapter, EventStream

from .genui_support import Captured


class Tokens(AgentAdapter):
    def __init__(self, n: int, pause: float = 0.0005) -> None:
        self.n, self.pause = n, pause

    async def _events(self, input, stream: EventStream):
        for _ in range(self.n):
            await asyncio.sleep(self.pause)
            yield stream.text("tok ")


async def until(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)


def test_the_demo_agent_and_its_frontend_tool_are_the_default():
    chat = AgentChat()
    assert isinstance(chat.agent, DemoAgent)
    assert [t["name"] for t in chat.frontend_tools] == ["set_accent_color"]
    assert chat.frontend_tools[0]["ui"] == "handler" and "setAccent" in chat.frontend_tools[0]["handler"]
    assert chat.status == "idle" and chat.thread_id.startswith("thread-")


def test_user_tools_are_added_and_a_user_tool_may_replace_the_demo_one():
    mine = js_tool("set_accent_color", "mine", {"type": "object"}, "return 1")
    chat = AgentChat(tools=[mine, {"name": "pick", "description": "choose", "ui": "ask"}])
    assert [t["description"] for t in chat.frontend_tools] == ["mine", "choose"]
    assert isinstance(chat.tools[1], FrontendTool)


def test_hello_gets_a_snapshot_addressed_to_that_view():
    chat = Captured(state={"a": 1}, messages=[{"id": "u", "role": "user", "content": "hi"}])
    chat.view_says({"kind": "hello", "viewId": "view-1"})
    [snapshot] = chat.of_kind("snapshot")
    assert snapshot["viewId"] == "view-1"
    assert snapshot["messages"] == [{"id": "u", "role": "user", "content": "hi"}]
    assert snapshot["state"] == {"a": 1}


async def test_streamed_tokens_travel_as_few_batched_messages():
    chat = Captured(Tokens(400))
    await chat.send("go")
    batches = chat.of_kind("events")
    events = [e for b in batches for e in b["events"]]
    contents = [e for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    streamed = "".join(e["delta"] for e in contents)
    assert streamed == "tok " * 400 == chat.messages[-1]["content"]
    assert len(batches) < 60, f"{len(batches)} messages for 400 tokens"
    assert len(contents) < 100, "consecutive deltas should be merged within a batch"
    wire_bytes = sum(len(json.dumps(m)) for m in chat.sent)
    assert wire_bytes < 1.5 * len(streamed) + 3000
    # the run ends with a check of the transcript, not a re-send of the answer
    [check] = chat.of_kind("check")[-1:]
    assert check["count"] == 2 and check["tail"][-1][2] == len(streamed)


async def test_user_message_is_spliced_in_and_status_follows_the_run():
    chat = Captured(DemoAgent(delay=0))
    statuses = []
    chat.observe(lambda change: statuses.append(change["new"]), "status")
    await chat.send("help")
    first_splice = chat.of_kind("messages")[0]
    assert first_splice["start"] == 0 and first_splice["messages"][0]["content"] == "help"
    assert statuses == ["running", "idle"]
    assert chat.messages[-1]["role"] == "assistant"


async def test_the_messages_trait_follows_a_run_and_observers_fire():
    chat = Captured(DemoAgent(delay=0))
    lengths = []
    chat.observe(lambda change: lengths.append(len(change["new"])), "messages")
    await chat.send("weather in Rome")
    assert lengths[-1] == len(chat.messages) == 4


def test_assigning_state_sends_only_the_difference():
    big = {f"key{i}": "v" * 1000 for i in range(1000)}  # about 1 MB
    chat = Captured(state=big)
    seen = []
    chat.observe(lambda change: seen.append(change["new"]), "state")
    chat.state = {**big, "key7": "changed"}
    [patch_message] = chat.of_kind("state_patch")
    assert patch_message["patch"] == [{"op": "replace", "path": "/key7", "value": "changed"}]
    assert len(json.dumps(patch_message)) < 1024
    assert seen and seen[-1]["key7"] == "changed"


def test_an_in_place_change_is_not_lost_by_the_next_assignment():
    chat = Captured(state={"a": 1})
    chat.state["b"] = 2  # in place: not noticed yet
    assert chat.of_kind("state_patch") == []
    chat.update_state(c=3)
    patch = chat.of_kind("state_patch")[-1]["patch"]
    assert sorted(op["path"] for op in patch) == ["/b", "/c"]
    assert chat._session.state == {"a": 1, "b": 2, "c": 3}


def test_the_caller_keeps_its_own_object():
    mine = {"a": 1}
    chat = Captured(state=mine)
    mine["a"] = 99
    assert chat.state == {"a": 1} and chat._session.state == {"a": 1}


def test_update_state_merges_top_level_keys():
    chat = Captured(state={"a": 1})
    chat.update_state(b=2)
    chat.update_state({"a": 3})
    assert chat.state == {"a": 3, "b": 2}


def test_a_view_edit_reaches_python():
    chat = Captured(state={"todos": [{"text": "x", "done": False}]})
    seen = []
    chat.observe(lambda change: seen.append(change["new"]), "state")
    chat.view_says({"kind": "state_edit", "patch": [{"op": "replace", "path": "/todos/0/done", "value": True}]})
    assert chat.state == {"todos": [{"text": "x", "done": True}]}
    assert seen[-1] == chat.state
    assert chat.of_kind("state_patch")[-1]["patch"][0]["path"] == "/todos/0/done"


def test_a_bad_view_edit_is_refused_with_a_notice_and_changes_nothing():
    chat = Captured(state={"a": 1})
    chat.view_says({"kind": "state_edit", "patch": [{"op": "remove", "path": "/missing"}]})
    assert chat.state == {"a": 1}
    assert chat.of_kind("notice")


@pytest.mark.parametrize(
    "payload",
    [
        {"kind": "nope"},
        {"kind": "send"},
        {"kind": "send", "text": ""},
        {"kind": "tool_result"},
        {"kind": "state_edit", "patch": "not a patch"},
        "a string",
        None,
        [1, 2],
        {"no": "kind"},
    ],
)
def test_malformed_requests_are_logged_and_ignored(payload, caplog):
    chat = Captured()
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.view_says(payload)
    assert "ignored a malformed" in caplog.text
    assert chat.messages == [] and chat.status == "idle"


async def test_answering_an_unknown_tool_call_from_a_view_is_refused_politely(caplog):
    chat = Captured()
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.view_says({"kind": "tool_result", "toolCallId": "nope", "result": 1})
    assert "refused" in caplog.text
    assert chat.of_kind("notice")


async def test_a_view_can_send_stop_and_answer_tools():
    chat = Captured(DemoAgent(delay=0))
    chat.view_says({"kind": "send", "text": "make it teal"})
    await until(lambda: chat.status == "waiting")
    [pending] = chat.pending
    assert pending["kind"] == "tool" and pending["args"] == {"color": "teal"}
    assert chat.pending_tool_calls == chat.pending
    chat.view_says({"kind": "tool_result", "toolCallId": pending["toolCallId"], "result": {"color": "teal"}})
    await until(lambda: chat.status == "idle")
    assert chat.pending == [] and "accent is now" in chat.messages[-1]["content"]

    slow = Captured(DemoAgent(delay=0.05))
    slow.view_says({"kind": "send", "text": "help"})
    await until(lambda: len(slow.events) > 3)
    slow.view_says({"kind": "stop"})
    await until(lambda: slow.status == "idle")
    assert slow.events[-1].outcome.type == "cancelled"


async def test_interrupts_are_listed_and_resumed_from_python():
    chat = Captured(DemoAgent(delay=0), state={"todos": [{"text": "a", "done": False}]})
    run = chat.send("delete my list")
    await until(lambda: chat.status == "waiting")
    [item] = chat.interrupts
    assert item["message"].startswith("Delete the one item") and item["args"]["items"] == ["a"]
    chat.resume(item["interruptId"], {"approved": True})
    await run
    assert chat.state == {"todos": []}


async def test_queued_messages_are_shown():
    chat = Captured(Tokens(50, pause=0.002))
    first = chat.send("one")
    chat.send("two")
    assert [q["text"] for q in chat.queued] == ["two"]
    await first
    await until(lambda: chat.status == "idle" and not chat.queued)


async def test_messages_cannot_be_assigned_during_a_run_but_can_be_after():
    chat = Captured(Tokens(100, pause=0.002))
    run = chat.send("x")
    with pytest.raises(traitlets.TraitError, match="while a run is active"):
        chat.messages = []
    await run
    chat.messages = [{"id": "u1", "role": "user", "content": "rewritten"}]
    assert chat.of_kind("messages")[-1] == {
        "kind": "messages",
        "start": 0,
        "messages": [{"id": "u1", "role": "user", "content": "rewritten"}],
    }
    with pytest.raises(traitlets.TraitError, match="AG-UI messages"):
        chat.messages = [{"role": "nobody"}]


async def test_clear_regenerate_and_edit():
    chat = Captured(DemoAgent(delay=0))
    await chat.send("weather in Oslo")
    await chat.regenerate()
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    user_id = chat.messages[0]["id"]
    await chat.edit(user_id, "weather in Rome")
    assert chat.messages[0]["content"] == "weather in Rome" and "Rome" in chat.messages[-1]["content"]
    chat.view_says({"kind": "clear"})
    assert chat.messages == [] and chat.of_kind("messages")[-1] == {"kind": "messages", "start": 0, "messages": []}


async def test_events_are_ag_ui_objects():
    chat = Captured(DemoAgent(delay=0))
    await chat.send("help")
    assert chat.events[0].type.value == "RUN_STARTED"
    assert chat.events[-1].type.value == "RUN_FINISHED"


def test_a_missing_agent_type_is_a_clear_error():
    with pytest.raises(TypeError, match="accepts"):
        AgentChat(42)


async def test_regenerate_resends_every_part_of_the_user_message():
    seen = []

    def agent(messages):
        seen.append(messages[-1]["content"])
        return "ok"

    chat = Captured(agent)
    parts = [
        {"type": "text", "text": "what is in this picture?"},
        {"type": "image", "source": {"type": "url", "value": "https://example.org/cat.png"}},
    ]
    await chat.send(parts)
    await chat.regenerate()
    assert seen[0] == seen[1] == parts
    assert [m["role"] for m in chat.messages] == ["user", "assistant"]
    assert chat.messages[0]["content"] == parts


class RawPayloadAgent:
    """Attaches its framework's payload to every event, and sends RAW events, as some AG-UI
    integrations do (a kilobyte and more per token)."""

    PAYLOAD = {"chunk": "x" * 2_000, "graph_state": {"messages": ["..."] * 50}}

    async def run(self, input):
        raw = self.PAYLOAD
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id, raw_event=raw)
        yield RawEvent(event=raw, source="framework")
        yield TextMessageStartEvent(message_id="m1", role="assistant", raw_event=raw)
        for word in ("one ", "two ", "three"):
            yield TextMessageContentEvent(message_id="m1", delta=word, raw_event=raw)
        yield TextMessageEndEvent(message_id="m1", raw_event=raw)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


async def test_raw_payloads_stay_in_the_kernel_and_deltas_still_merge():
    chat = Captured(RawPayloadAgent())
    await chat.send("go")
    wire = chat.wire_events()
    assert "rawEvent" not in json.dumps(wire) and "graph_state" not in json.dumps(wire)
    assert [e for e in wire if e["type"] == "RAW"] == [{"type": "RAW", "source": "framework"}]
    assert [e["delta"] for e in wire if e["type"] == "TEXT_MESSAGE_CONTENT"] == ["one two three"]
    kept = chat.events
    assert sum(e.raw_event == RawPayloadAgent.PAYLOAD for e in kept) == 6, "chat.events keeps every payload"
    assert chat.messages[-1]["content"] == "one two three"


class Paced(AgentAdapter):
    """Streams 40 tokens, 3 ms apart."""

    async def _events(self, input: RunAgentInput, stream: EventStream) -> Any:
        for index in range(40):
            await asyncio.sleep(0.003)
            yield stream.text(f"t{index} ")


async def test_while_streaming_the_traits_refresh_on_the_batch_timer_not_a_timer_of_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop = asyncio.get_running_loop()
    timers: list[str] = []
    real_call_later = loop.call_later

    def counting(delay: float, callback: Any, *args: Any, **kwargs: Any) -> asyncio.TimerHandle:
        timers.append(getattr(callback, "__name__", ""))
        return real_call_later(delay, callback, *args, **kwargs)

    monkeypatch.setattr(loop, "call_later", counting)
    chat = AgentChat(Paced(), batch_window=0.02)
    seen: list[str] = []

    async def watch() -> None:  # what a cell reading chat.messages during the stream gets
        while True:
            await asyncio.sleep(0.005)
            last = chat.messages[-1] if chat.messages else {}
            seen.append(last.get("content") or "" if last.get("role") == "assistant" else "")

    watcher = asyncio.ensure_future(watch())
    await chat.send("go")
    watcher.cancel()
    text = "".join(f"t{index} " for index in range(40))
    assert chat.messages[-1]["content"] == text
    partial = {content for content in seen if content and content != text and text.startswith(content)}
    assert len(partial) >= 2  # the trait followed the stream as it went
    assert timers.count("_refresh_traits") <= 1  # at most the first, before any batch waited
    assert timers.count("_flush_on_time") >= 2  # the batches' timer, which refreshed the traits
