"""A stop that cuts a graph's step short leaves the thread usable.

When one tool of a step has returned and another is still running, a stop leaves the finished
tool's result as a pending write on the checkpoint: ``aget_state`` shows it, but LangGraph applies
new input to the committed values and drops that write. The next run must be built against what
the graph really holds, so it neither loses the result nor tries to remove a message the graph
does not have (``ValueError: Attempting to delete a message with an ID that doesn't exist``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from ag_ui.core import BaseEvent, EventType
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.types import interrupt

from agui_widget import AgentChat

from .langchain_fakes import FakeChatModel, StreamChecks, ai, call, model, until

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


@tool
async def quick_lookup(city: str) -> str:
    """A lookup that answers at once."""
    return f"{city}: sunny"


@tool
async def slow_lookup(city: str) -> str:
    """A lookup that is still running when the chat is stopped."""
    await asyncio.Event().wait()
    return "never"


@tool
def ask_first(city: str) -> str:
    """A lookup that asks the user before it runs."""
    decision = interrupt({"message": f"Look up {city}?"})
    return f"{city}: {decision}"


def stop_on(chat_holder: dict[str, AgentChat], is_the_moment: Callable[[BaseEvent], bool]) -> Callable[[BaseEvent], None]:
    """An ``on_event`` hook that stops the chat once, right as the chosen event is delivered."""

    def on_event(event: BaseEvent) -> None:
        chat = chat_holder.pop("chat", None)
        if chat is None:
            return
        if is_the_moment(event):
            chat.stop()
        else:
            chat_holder["chat"] = chat

    return on_event


def quick_result(event: BaseEvent) -> bool:
    return event.type == EventType.TOOL_CALL_RESULT and event.tool_call_id == "quick"  # type: ignore[attr-defined]


def stopped_after_a_tool_returned(fake: FakeChatModel) -> AgentChat:
    """A chat whose first run calls a quick and a slow tool together and stops at the quick one's result."""
    holder: dict[str, AgentChat] = {}
    chat = AgentChat(create_agent(fake, [quick_lookup, slow_lookup]), on_event=stop_on(holder, quick_result))
    holder["chat"] = chat
    return chat


def two_lookups() -> AIMessage:
    return ai("Looking both up.", call("quick_lookup", {"city": "Oslo"}, "quick"), call("slow_lookup", {"city": "Rome"}, "slow"))


async def committed_and_pending(chat: AgentChat) -> tuple[list[str], list[str]]:
    """The message ids of the thread's latest checkpoint, and the channels of its pending task writes."""
    saved = await chat.agent.graph.checkpointer.aget_tuple({"configurable": {"thread_id": chat.thread_id}})
    messages = saved.checkpoint["channel_values"].get("messages", [])
    return [m.id for m in messages], [channel for _task, channel, _value in saved.pending_writes or ()]


async def stored(chat: AgentChat) -> list:
    snapshot = await chat.agent.graph.aget_state({"configurable": {"thread_id": chat.thread_id}})
    return snapshot.values["messages"]


async def first_run_stopped(chat: AgentChat) -> Any:
    run = await chat.send("weather in Oslo and Rome?")
    assert run.status == "cancelled"
    assert any(m.get("role") == "tool" and m.get("toolCallId") == "quick" for m in chat.messages)
    committed, pending = await committed_and_pending(chat)
    assert len(committed) == 2 and "messages" in pending  # the quick result is only a pending write
    return run


def assert_finished(run: Any, chat: AgentChat) -> None:
    assert run.status == "finished", run.error
    assert not run.error and chat.status == "idle" and not chat.error


async def test_the_next_runs_after_a_stop_just_after_a_tool_returned_finish():
    fake = model(two_lookups(), "Oslo is sunny; Rome I could not check.", "Still sunny.", "Yes.")
    chat = stopped_after_a_tool_returned(fake)
    first = await first_run_stopped(chat)
    second = await chat.send("and now?")
    assert_finished(second, chat)
    seen = fake.calls[-1]
    assert [type(m) for m in seen] == [HumanMessage, AIMessage, ToolMessage, ToolMessage, HumanMessage]
    assert seen[2].tool_call_id == "quick" and seen[2].content == "Oslo: sunny"  # the result was not lost
    assert seen[3].tool_call_id == "slow" and "Cancelled" in seen[3].content
    third = await chat.send("sure?")
    assert_finished(third, chat)
    assert [type(m) for m in fake.calls[-1]] == [
        HumanMessage,
        AIMessage,
        ToolMessage,
        ToolMessage,
        HumanMessage,
        AIMessage,
        HumanMessage,
    ]
    checks(first.events, second.events, third.events)


async def test_a_clear_after_such_a_stop_starts_over_and_every_run_finishes():
    fake = model(two_lookups(), "Hello again.", "Still here.")
    chat = stopped_after_a_tool_returned(fake)
    await first_run_stopped(chat)
    chat.clear()
    second = await chat.send("hello")
    assert_finished(second, chat)
    assert [(type(m), m.content) for m in fake.calls[-1]] == [(HumanMessage, "hello")]
    third = await chat.send("still there?")
    assert_finished(third, chat)
    assert [m.id for m in await stored(chat)] == [m["id"] for m in chat.messages]
    checks(second.events, third.events)


async def test_a_regenerate_after_such_a_stop_runs_the_question_again():
    fake = model(two_lookups(), "Oslo is sunny, Rome is cloudy.", "Anything else?")
    chat = stopped_after_a_tool_returned(fake)
    await first_run_stopped(chat)
    again = await chat.regenerate()
    assert_finished(again, chat)
    assert [(type(m), m.content) for m in fake.calls[-1]] == [(HumanMessage, "weather in Oslo and Rome?")]
    assert_finished(await chat.send("thanks"), chat)


async def test_an_edit_after_such_a_stop_runs_the_edited_question():
    fake = model(two_lookups(), "Oslo is sunny.", "Bye.")
    chat = stopped_after_a_tool_returned(fake)
    await first_run_stopped(chat)
    question = next(m for m in chat.messages if m["role"] == "user")
    edited = await chat.edit(question["id"], "weather in Oslo?")
    assert_finished(edited, chat)
    assert [(type(m), m.content) for m in fake.calls[-1]] == [(HumanMessage, "weather in Oslo?")]
    assert_finished(await chat.send("bye"), chat)


async def test_a_thread_already_left_with_a_pending_tool_result_recovers():
    """A checkpoint an earlier stop left behind works too: new input drops the stale pending write."""
    fake = model(two_lookups(), "Fresh start.", "Again.")
    chat = stopped_after_a_tool_returned(fake)
    await first_run_stopped(chat)
    chat.clear()
    for text in ("first", "second"):
        assert_finished(await chat.send(text), chat)
    committed, pending = await committed_and_pending(chat)
    assert committed == [m["id"] for m in chat.messages] and "messages" not in pending


async def test_a_stop_while_an_interrupt_waits_next_to_a_finished_tool_leaves_the_thread_usable():
    fake = model(
        ai("Asking first.", call("quick_lookup", {"city": "Oslo"}, "quick"), call("ask_first", {"city": "Rome"}, "ask")),
        "Starting over.",
        "Done.",
    )
    chat = AgentChat(create_agent(fake, [quick_lookup, ask_first]))
    run = chat.send("weather in Oslo and Rome?")
    await until(lambda: chat.interrupts or run.done)
    assert chat.interrupts
    chat.stop()
    await run
    assert run.status == "cancelled"
    chat.clear()
    second = await chat.send("never mind, hello")
    assert_finished(second, chat)
    assert [(type(m), m.content) for m in fake.calls[-1]] == [(HumanMessage, "never mind, hello")]
    assert_finished(await chat.send("ok"), chat)


async def test_a_stop_in_the_model_after_a_tool_step_keeps_the_history_whole():
    """The tool step was committed; the stop lands while the model streams its answer."""
    fake = model(
        ai("", call("quick_lookup", {"city": "Oslo"}, "quick")),
        "Oslo is sunny and warm today " * 5,
        "Short.",
        "Hello.",
        delay=0.005,
    )
    chat = AgentChat(create_agent(fake, [quick_lookup]))
    run = chat.send("weather in Oslo?")
    await until(lambda: chat.messages[-1].get("role") == "assistant" and chat.messages[-1].get("content"))
    chat.stop()
    await run
    again = await chat.send("shorter")
    assert_finished(again, chat)
    assert [type(m) for m in fake.calls[-1]] == [HumanMessage, AIMessage, ToolMessage, AIMessage, HumanMessage]
    chat.clear()
    assert_finished(await chat.send("hello"), chat)
