"""Replaying a recording: ``ReplayAgent`` plays a recorded chat back as an agent.

A chat driven by each offline agent kind is recorded, then replayed in a new chat as a user would
drive it (the same messages, the same answers to its tools and interrupts). The replayed events
equal the recorded ones but for their ids, the transcripts and state match, and both verifiers
(ours and @ag-ui/client's) accept the replayed stream.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from ag_ui.core import BaseEvent

from agui_widget import AgentChat, DemoAgent, ReplayAgent, confirm_tool
from agui_widget.adapters import _replay
from agui_widget.adapters._replay import MISMATCH
from agui_widget.pipeline._recording import event_json, read_recording
from agui_widget.teaching import example_recording

from .agui_check import assert_valid_streams
from .support import collect, make_input, split_runs, types, until, user

Drive = Callable[[AgentChat], Awaitable[None]]


async def answer_when_asked(chat: AgentChat, run: Any, answer: Any) -> Any:
    """What a user does: answer the run's tool call or interrupt once the chat asks."""
    await until(lambda: run.done or chat.pending_tool_calls or chat.interrupts)
    for call in chat.pending_tool_calls:
        chat.respond(call["toolCallId"], answer)
    for item in chat.interrupts:
        chat.resume(item["interruptId"], answer)
    return await run


def ids_aside(events: list[BaseEvent]) -> list[dict[str, Any]]:
    """The events as JSON, every id replaced by its order of first appearance (and no timestamps)."""
    seen: dict[str, str] = {}

    def canonical(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: canonical(v, k) for k, v in value.items() if k != "timestamp"}
        if isinstance(value, list):
            return [canonical(item, key) for item in value]
        if isinstance(value, str) and (key == "id" or key.endswith(("Id", "Ids"))):
            return seen.setdefault(value, f"id{len(seen)}")
        return value

    return [canonical(event_json(event)) for event in events]


def transcript(chat: AgentChat) -> list[tuple[Any, ...]]:
    """The transcript, ids aside."""
    rows = []
    for message in chat.messages:
        calls = [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("toolCalls") or ()]
        rows.append((message["role"], json.dumps(message.get("content")), calls))
    return rows


# -- the offline agent kinds, each with what a user does with it --------------------------------


async def demo_tour(chat: AgentChat) -> None:
    await chat.send("weather in Paris")
    await chat.send("add buy milk")
    await answer_when_asked(chat, chat.send("delete my list"), {"approved": True})
    await answer_when_asked(chat, chat.send("make it teal"), {"ok": True, "color": "teal"})


def demo_agent() -> tuple[Any, dict[str, Any]]:
    return DemoAgent(delay=0), {}


def generator_agent() -> tuple[Any, dict[str, Any]]:
    def shout(messages: list[dict[str, Any]]) -> Any:
        for word in str(messages[-1]["content"]).upper().split():
            yield word + " "

    return shout, {}


async def two_messages(chat: AgentChat) -> None:
    await chat.send("hello there")
    await chat.send("and once more")


def langchain_agent() -> tuple[Any, dict[str, Any]]:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from agui_widget.adapters.langchain import ScriptedChatModel, agui_middleware

    def script(messages: list[Any], tool_names: Any) -> Any:
        last = messages[-1]
        if last.type == "tool" and last.name == "book_table":
            return f"Booked: {last.content}"
        if last.type == "tool":
            call = {"id": f"call-{len(messages)}", "name": "book_table", "args": {"party": 4}}
            return AIMessage("", tool_calls=[call]) if json.loads(last.content)["approved"] else "Not booked."
        if "book" in last.text.lower():
            return AIMessage("I need your OK.", tool_calls=[{"id": "c1", "name": "confirm_booking", "args": {"message": "4?"}}])
        return "I book tables."

    @tool
    def book_table(party: int) -> str:
        """Book a table."""
        return f"a table for {party}"

    agent = create_agent(ScriptedChatModel(respond=script), tools=[book_table], middleware=[agui_middleware()])
    return agent, {"tools": [confirm_tool("confirm_booking")]}


async def booking(chat: AgentChat) -> None:
    await chat.send("hi")
    await answer_when_asked(chat, chat.send("book a table for 4"), {"approved": True})


def langroid_agent() -> tuple[Any, dict[str, Any]]:
    from .langroid_fakes import Reply, ToolCall, Weather, make_agent

    def script(turn: Any) -> Any:
        if turn.after_tool:
            return Reply(f"It is {turn.tool_result}.")
        return Reply("Let me look.", tool_calls=[ToolCall("get_weather", {"city": "Oslo"})])

    return make_agent(script, tools=[Weather]), {}


async def weather(chat: AgentChat) -> None:
    await chat.send("weather in Oslo?")
    await chat.send("and again?")


KINDS: dict[str, tuple[Callable[[], tuple[Any, dict[str, Any]]], Drive]] = {
    "demo": (demo_agent, demo_tour),
    "generator": (generator_agent, two_messages),
    "langchain": (langchain_agent, booking),
    "langroid": (langroid_agent, weather),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_a_recorded_chat_replays_to_the_same_events_and_transcript(kind, tmp_path):
    make, drive = KINDS[kind]
    agent, options = make()
    live = AgentChat(agent, **options)
    await drive(live)
    path = live.save_recording(tmp_path / f"{kind}.agui.jsonl", label="made offline in a test")

    replay = ReplayAgent(path, speed=None)
    again = AgentChat(replay, **options)
    await drive(again)

    assert ids_aside(again.events) == ids_aside(live.events)
    assert transcript(again) == transcript(live)
    assert again.state == live.state
    assert_valid_streams(split_runs(again.events))


async def test_a_remote_agents_chat_replays_too(tmp_path):
    from agui_widget.server import create_app

    from .live_server import live_server

    with live_server(create_app(DemoAgent(delay=0))) as url:
        live = AgentChat(url)
        await two_messages(live)
    path = live.save_recording(tmp_path / "remote.agui.jsonl")
    again = AgentChat(ReplayAgent(path, speed=None))
    await two_messages(again)
    assert ids_aside(again.events) == ids_aside(live.events) and transcript(again) == transcript(live)


async def test_ids_are_fresh_so_one_recording_replays_twice_in_one_chat(tmp_path):
    live = AgentChat(DemoAgent(delay=0))
    await live.send("weather in Paris")
    path = live.save_recording(tmp_path / "once.agui.jsonl")
    chat = AgentChat(ReplayAgent(path, speed=None, match="text"))
    await chat.send("weather in Paris")
    await chat.send("weather in Paris")
    ids = [m["id"] for m in chat.messages]
    assert len(ids) == len(set(ids)) and len(chat.messages) == 2 * len(live.messages)
    recorded = {event.run_id for event in live.events if hasattr(event, "run_id")}  # type: ignore[attr-defined]
    assert not recorded & {event.run_id for event in chat.events if hasattr(event, "run_id")}  # type: ignore[attr-defined]


# -- timing -------------------------------------------------------------------------------------


async def test_events_keep_their_recorded_timing_scaled_by_speed(tmp_path, monkeypatch):
    live = AgentChat(DemoAgent(delay=0.02))
    await live.send("weather in Paris")
    path = live.save_recording(tmp_path / "paced.agui.jsonl")
    (run,) = read_recording(path).runs
    assert run.duration > 0.2  # the demo agent paced it

    waits: list[float] = []  # what the replay asked to sleep, in seconds
    real_sleep = asyncio.sleep

    async def recorded_sleep(delay: float, *args: Any) -> Any:
        waits.append(delay)
        return await real_sleep(delay, *args)

    class AsyncioWithRecordedSleep:
        sleep = staticmethod(recorded_sleep)

        def __getattr__(self, name: str) -> Any:
            return getattr(asyncio, name)

    monkeypatch.setattr(_replay, "asyncio", AsyncioWithRecordedSleep())

    async def replayed_in(speed: float | None) -> float:
        waits.clear()
        chat = AgentChat(ReplayAgent(path, speed=speed))
        started = time.perf_counter()
        await chat.send("weather in Paris")
        return time.perf_counter() - started

    at_double = await replayed_in(2)
    assert at_double >= run.duration / 2  # never ahead of the scaled clock
    assert sum(w for w in waits if w > 0) > 0  # and it waited for it
    await replayed_in(None)
    assert waits and all(w == 0 for w in waits)  # at once: it only lets the loop turn between events


def test_speed_and_match_are_checked():
    path = example_recording("demo_tour")
    for speed in (0, -1, "fast", True):
        with pytest.raises(ValueError, match="speed"):
            ReplayAgent(path, speed=speed)
    with pytest.raises(ValueError, match="match"):
        ReplayAgent(path, match="fuzzy")  # type: ignore[arg-type]


# -- what waits for an answer -------------------------------------------------------------------


async def test_a_frontend_tool_and_an_interrupt_wait_for_their_answer_during_a_replay():
    chat = AgentChat(ReplayAgent(example_recording("demo_tour"), speed=None))
    await chat.send("weather in Paris")
    await chat.send("add buy milk")

    run = chat.send("delete my list")
    await until(lambda: chat.interrupts)
    assert chat.status == "waiting" and not run.done  # nothing goes on until someone answers
    chat.resume(chat.interrupts[0]["interruptId"], {"approved": True})
    await run
    assert chat.state == {"todos": []}

    run = chat.send("make it teal")
    await until(lambda: chat.pending_tool_calls)
    (call,) = chat.pending_tool_calls
    assert call["name"] == "set_accent_color" and not run.done
    chat.respond(call["toolCallId"], {"ok": True, "color": "teal"})
    await run
    assert run.status == "finished" and "teal" in run.reply


async def test_the_recorded_chats_tools_come_with_the_replay():
    replay = ReplayAgent(example_recording("langchain_booking"), speed=None)
    chat = AgentChat(replay)
    assert [(tool["name"], tool["ui"]) for tool in chat.frontend_tools] == [("confirm_booking", "confirm")]


async def test_a_python_tool_is_answered_with_its_recorded_result(tmp_path):
    calls = []

    def total(numbers: list[int]) -> int:
        """Add numbers up."""
        calls.append(numbers)
        return sum(numbers)

    live = AgentChat(DemoAgent(delay=0), tools=[total])
    await live.send("call total numbers=[1,2,3]")
    path = live.save_recording(tmp_path / "tool.agui.jsonl")
    assert calls == [[1, 2, 3]]

    again = AgentChat(ReplayAgent(path, speed=None))  # the function is not there: its result is recorded
    run = await again.send("call total numbers=[1,2,3]")
    assert calls == [[1, 2, 3]] and run.status == "finished"
    assert transcript(again) == transcript(live)


# -- a message the recording has no turn for --------------------------------------------------


async def test_a_message_past_the_recording_gets_a_clear_error(tmp_path):
    chat = AgentChat(ReplayAgent(example_recording("langchain_booking"), speed=None))
    await chat.send("hello")
    await answer_when_asked(chat, chat.send("book it"), {"approved": True})
    run = await chat.send("and a third thing")
    assert run.status == "error"
    assert run.error.startswith("The recording holds 2 turns and this is turn 3.")
    assert "1. 'Hello! What can you do?'; 2. 'Book a table for 4 at 8 pm'" in run.error
    assert chat.events[-1].code == MISMATCH  # type: ignore[attr-defined]


async def test_matching_by_text_finds_the_turn_and_names_the_recorded_ones_when_none_matches():
    chat = AgentChat(ReplayAgent(example_recording("demo_tour"), speed=None, match="text"))
    run = await chat.send("  ADD buy   milk ")
    assert run.status == "finished" and chat.state["todos"][0]["text"] == "buy milk"
    run = await chat.send("weather in Rome")
    assert run.status == "error"
    assert run.error.startswith("The recording has no turn for 'weather in Rome'. Its turns: 1. 'weather in Paris'")


async def test_a_run_after_an_answer_the_recording_never_waited_for_is_refused_clearly(tmp_path):
    live = AgentChat(DemoAgent(delay=0))
    await live.send("weather in Paris")
    replay = ReplayAgent(live.save_recording(tmp_path / "plain.agui.jsonl"), speed=None)
    call = {"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    after_an_answer = make_input(
        [
            user("weather in Paris"),
            {"id": "a", "role": "assistant", "toolCalls": [call]},
            {"id": "t", "role": "tool", "toolCallId": "c", "content": "done"},
        ]
    )
    events = await collect(replay, after_an_answer)
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert events[1].message.startswith("The recording does not go on here")  # type: ignore[attr-defined]


# -- the recordings that ship -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["demo_tour", "langchain_booking"])
def test_the_shipped_recordings_say_they_were_made_offline_and_replay(name):
    recording = read_recording(example_recording(name))
    assert recording.label is not None and "not a real model's output" in recording.label
    assert recording.runs and all(run.events[0][1].type.value == "RUN_STARTED" for run in recording.runs)
    assert_valid_streams([[event for _at, event in run.events] for run in recording.runs])


def test_an_unknown_example_recording_lists_the_shipped_ones():
    with pytest.raises(FileNotFoundError, match="demo_tour, langchain_booking"):
        example_recording("nope")
