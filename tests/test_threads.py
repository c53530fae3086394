"""Threads that survive: a chat with a store saves each thread and a new chat continues it."""

from __future__ import annotations

import asyncio

import pytest

from agui_widget import AgentChat, MemoryThreadStore, SQLiteThreadStore

from .genui_support import Captured


async def echo(messages):
    return f"echo: {messages[-1]['content']}"


def texts(chat: AgentChat) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content")) for m in chat.messages]


async def test_a_new_chat_with_the_same_store_and_thread_continues_it(tmp_path):
    path = tmp_path / "chats.db"
    chat = AgentChat(echo, thread_id="lesson-1", store=path, state={"step": 1})
    await chat.send("hello")
    chat.update_state(step=2)
    await asyncio.sleep(0)  # changes outside runs are saved once the loop turns
    again = AgentChat(echo, thread_id="lesson-1", store=path)
    assert texts(again) == [("user", "hello"), ("assistant", "echo: hello")]
    assert again.state == {"step": 2}
    assert again.thread_id == "lesson-1"
    await again.send("more")
    assert [m["content"] for m in again.messages if m["role"] == "assistant"] == ["echo: hello", "echo: more"]


async def test_every_turn_is_saved_when_it_ends(tmp_path):
    store = SQLiteThreadStore(tmp_path / "chats.db")
    chat = AgentChat(echo, thread_id="t", store=store)
    await chat.send("one")
    record = store.load("t")
    assert [m["content"] for m in record.messages] == ["one", "echo: one"]
    assert record.title == "one" and record.agent is None


async def test_clear_and_assignments_outside_runs_are_saved(tmp_path):
    store = SQLiteThreadStore(tmp_path / "chats.db")
    chat = AgentChat(echo, thread_id="t", store=store)
    await chat.send("one")
    chat.messages = chat.messages[:1]
    await asyncio.sleep(0)
    assert len(store.load("t").messages) == 1
    chat.state = {"k": "v"}
    await asyncio.sleep(0)
    assert store.load("t").state == {"k": "v"}
    chat.clear()
    await asyncio.sleep(0)
    assert store.load("t").messages == []


def test_messages_given_replace_the_stored_ones_with_a_warning(tmp_path):
    store = MemoryThreadStore()
    first = AgentChat(echo, thread_id="t", store=store, messages=[{"id": "u", "role": "user", "content": "old"}])
    assert store.load("t").messages == first.messages
    with pytest.warns(UserWarning, match="stored messages; the messages= given replace them"):
        second = AgentChat(echo, thread_id="t", store=store, messages=[{"id": "v", "role": "user", "content": "new"}])
    assert texts(second) == [("user", "new")]
    assert [m["content"] for m in store.load("t").messages] == ["new"]
    third = AgentChat(echo, thread_id="t", store=store)
    assert texts(third) == [("user", "new")]


def test_state_given_replaces_the_stored_state_with_a_warning(tmp_path):
    store = MemoryThreadStore()
    AgentChat(echo, thread_id="t", store=store, state={"a": 1})
    with pytest.warns(UserWarning, match="stored state"):
        chat = AgentChat(echo, thread_id="t", store=store, state={"a": 2})
    assert chat.state == {"a": 2} and store.load("t").state == {"a": 2}


async def test_switch_saves_the_current_thread_and_loads_the_other(tmp_path):
    chat = Captured(echo, thread_id="first", store=tmp_path / "chats.db", state={"n": 0})
    await chat.send("in first")
    chat.switch("second")
    assert chat.thread_id == "second" and chat.messages == [] and chat.state == {"n": 0}
    assert chat.of_kind("messages")[-1] == {"kind": "messages", "start": 0, "messages": []}
    await chat.send("in second")
    chat.switch("first")
    assert texts(chat) == [("user", "in first"), ("assistant", "echo: in first")]
    listed = {t["thread_id"]: t for t in chat.threads()}
    assert set(listed) == {"first", "second"}
    assert listed["second"]["title"] == "in second" and listed["second"]["messages"] == 2


async def test_runs_go_to_the_thread_switched_to():
    seen: list[str] = []

    async def agent(messages):
        return "ok"

    chat = AgentChat(agent, thread_id="a", on_run_start=lambda run_input: seen.append(run_input.thread_id))
    await chat.send("x")
    chat.switch("b")
    await chat.send("y")
    assert seen == ["a", "b"]


async def test_switching_during_a_run_is_refused_and_changes_nothing():
    gate, started = asyncio.Event(), asyncio.Event()

    async def slow(messages):
        started.set()
        await gate.wait()
        return "done"

    chat = AgentChat(slow, thread_id="a")
    run = chat.send("wait for me")
    await asyncio.wait_for(started.wait(), 5)  # the run is under way, its agent waiting
    with pytest.raises(RuntimeError, match="a run is active"):
        chat.switch("b")
    with pytest.raises(RuntimeError, match="a run is active"):
        chat.new_thread()
    assert chat.thread_id == "a"
    gate.set()
    await run
    assert texts(chat)[-1] == ("assistant", "done")


async def test_without_a_store_threads_live_in_memory_for_this_chat():
    chat = AgentChat(echo, thread_id="a")
    await chat.send("kept")
    new = chat.new_thread()
    assert chat.thread_id == new and new.startswith("thread-") and chat.messages == []
    assert {t["thread_id"] for t in chat.threads()} == {"a", new}
    chat.switch("a")
    assert texts(chat)[0] == ("user", "kept")
    assert AgentChat(echo, thread_id="a").messages == []  # another chat does not see it


def test_a_bad_thread_id_is_refused():
    chat = AgentChat(echo)
    with pytest.raises(ValueError, match="thread id"):
        chat.switch("  ")


def test_a_store_that_is_not_one_is_a_clear_error():
    with pytest.raises(TypeError, match="store= takes a file path or a ThreadStore"):
        AgentChat(echo, store=3.5)


async def test_a_thread_the_store_cannot_save_is_told_to_the_views_and_the_chat_goes_on(tmp_path):
    chat = Captured(echo, thread_id="t", store=tmp_path / "chats.db")
    chat.state = {"bad": {1, 2}}  # a set is not JSON
    await asyncio.sleep(0)
    [notice] = chat.of_kind("notice")
    assert notice["level"] == "error" and "not saved" in notice["text"]
    chat.state = {"good": [1, 2]}
    await chat.send("still works")
    assert texts(chat)[-1] == ("assistant", "echo: still works")
