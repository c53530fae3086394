"""The threads in the chat: a view's threads panel lists the store's threads (the active agent's,
as ``chat.threads()`` does) and switches, starts, renames and deletes them through requests;
``chat.rename_thread`` and ``chat.delete_thread`` do the same from a cell. Every one of them is
refused while a run is active or waiting, a malformed request is logged and ignored, and once a
view has asked, every change of the threads sends it the list again."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from pydantic import TypeAdapter

from agui_widget import AgentChat, SQLiteThreadStore
from agui_widget.adapters import DemoAgent
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.wire import _payloads

from .genui_support import Captured
from .support import until

KERNEL_MESSAGE: TypeAdapter[Any] = TypeAdapter(_payloads.KernelMessage)


async def echo(messages: list[dict[str, Any]]) -> str:
    return f"echo: {messages[-1]['content']}"


async def two_threads(chat: AgentChat) -> tuple[str, str]:
    """A first thread and a second one (current), each with one turn."""
    first = chat.thread_id
    await chat.send("about cats")
    second = chat.new_thread()
    await chat.send("about dogs")
    return first, second


def listed(chat: Captured, request_id: str | None = "r1") -> dict[str, Any]:
    """The last ``threads`` message with this request id (checked against its declaration)."""
    found = [m for m in chat.of_kind("threads") if m["requestId"] == request_id]
    assert found, f"no threads message for {request_id!r}"
    KERNEL_MESSAGE.validate_python(found[-1])
    return found[-1]


def by_id(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["threadId"]: entry for entry in message["threads"]}


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Any) -> Any:
    return None if request.param == "memory" else SQLiteThreadStore(tmp_path / "threads.db")


async def test_a_view_asks_and_gets_the_threads_newest_first_with_title_activity_and_count(store: Any) -> None:
    chat = Captured(echo, store=store)
    first, second = await two_threads(chat)
    chat.view_says({"kind": "threads", "requestId": "r1"})
    message = listed(chat)
    assert message["current"] == second
    assert [t["threadId"] for t in message["threads"]] == [second, first]
    entries = by_id(message)
    assert entries[first]["title"] == "about cats" and entries[first]["messages"] == 2
    assert entries[second]["title"] == "about dogs" and not entries[second]["named"]
    assert entries[second]["updatedAt"] >= entries[first]["updatedAt"] > 0
    assert [t["thread_id"] for t in chat.threads()] == [second, first], "the same threads as chat.threads()"


async def test_the_current_thread_is_listed_even_before_anything_is_said_in_it(tmp_path: Any) -> None:
    chat = Captured(echo, store=tmp_path / "threads.db")
    first = chat.thread_id
    await chat.send("hello")
    fresh = chat.new_thread()
    chat.view_says({"kind": "threads", "requestId": "r1"})
    message = listed(chat)
    assert [(t["threadId"], t["title"], t["messages"]) for t in message["threads"]] == [(fresh, "", 0), (first, "hello", 2)]


async def test_with_several_agents_the_active_agents_threads_are_listed(tmp_path: Any) -> None:
    chat = Captured({"echo": echo, "other": echo}, store=tmp_path / "threads.db", thread_id="t")
    await chat.send("for echo")
    chat.select_agent("other")
    await chat.send("for other")
    chat.view_says({"kind": "threads", "requestId": "r1"})
    assert [t["title"] for t in listed(chat)["threads"]] == ["for other"]


async def test_switch_and_new_thread_requests_do_what_switch_and_new_thread_do(store: Any) -> None:
    chat = Captured(echo, store=store)
    first, second = await two_threads(chat)
    chat.view_says({"kind": "switch_thread", "threadId": first})
    assert chat.thread_id == first and chat.messages[0]["content"] == "about cats"
    chat.view_says({"kind": "new_thread"})
    assert chat.thread_id not in (first, second) and chat.messages == []
    assert chat.of_kind("notice") == []


async def test_rename_gives_a_title_that_a_turn_keeps_and_an_empty_one_takes_back(store: Any) -> None:
    chat = Captured(echo, store=store)
    first, second = await two_threads(chat)
    chat.rename_thread(first, "  Cats,\n  mostly ")
    chat.view_says({"kind": "rename_thread", "threadId": second, "title": "Dogs"})
    titles = {t["thread_id"]: (t["title"], t["named"]) for t in chat.threads()}
    assert titles == {first: ("Cats, mostly", True), second: ("Dogs", True)}
    await chat.send("more about dogs")
    assert {t["thread_id"]: t["title"] for t in chat.threads()}[second] == "Dogs", "a turn's save keeps the given title"
    chat.rename_thread(second, "")
    assert {t["thread_id"]: (t["title"], t["named"]) for t in chat.threads()}[second] == ("about dogs", False)


async def test_a_rename_keeps_the_threads_last_activity(tmp_path: Any) -> None:
    chat = AgentChat(echo, store=tmp_path / "threads.db")
    first, second = await two_threads(chat)
    before = {t["thread_id"]: t["updated"] for t in chat.threads()}
    chat.rename_thread(first, "Cats")
    after = {t["thread_id"]: t["updated"] for t in chat.threads()}
    assert after == before and [t["thread_id"] for t in chat.threads()] == [second, first]


async def test_a_rename_survives_a_new_chat_on_the_same_store(tmp_path: Any) -> None:
    path = tmp_path / "threads.db"
    chat = AgentChat(echo, store=path, thread_id="t1")
    await chat.send("hello")
    chat.rename_thread("t1", "Greetings")
    again = AgentChat(echo, store=path, thread_id="t1")
    assert [(t["title"], t["named"]) for t in again.threads()] == [("Greetings", True)]


@pytest.mark.parametrize(
    ("thread_id", "title", "error", "said"),
    [
        ("nope", "x", KeyError, "no thread 'nope'"),
        ("", "x", ValueError, "a thread id"),
        ("CURRENT", "x" * 201, ValueError, "at most 200"),
        ("CURRENT", 7, TypeError, "a string"),
    ],
)
async def test_a_bad_rename_is_a_clear_error_and_changes_nothing(thread_id: str, title: Any, error: type, said: str) -> None:
    chat = AgentChat(echo)
    await chat.send("hello")
    with pytest.raises(error, match=said):
        chat.rename_thread(chat.thread_id if thread_id == "CURRENT" else thread_id, title)
    assert [t["title"] for t in chat.threads()] == ["hello"]


async def test_deleting_another_thread_removes_it_and_the_chat_stays_put(store: Any) -> None:
    chat = Captured(echo, store=store)
    first, second = await two_threads(chat)
    chat.delete_thread(first)
    assert [t["thread_id"] for t in chat.threads()] == [second] and chat.thread_id == second
    assert chat.messages[0]["content"] == "about dogs"
    with pytest.raises(KeyError, match="no thread"):
        chat.delete_thread(first)


async def test_deleting_the_current_thread_goes_on_in_a_new_empty_one(store: Any) -> None:
    chat = Captured(echo, store=store)
    first, second = await two_threads(chat)
    chat.view_says({"kind": "delete_thread", "threadId": second})
    assert chat.thread_id not in (first, second) and chat.messages == []
    assert chat.store.load(second) is None
    assert {t["thread_id"] for t in chat.threads()} <= {first, chat.thread_id}
    chat.switch(first)
    assert chat.messages[0]["content"] == "about cats", "the other thread is untouched"


async def test_while_a_run_is_active_every_change_is_refused_with_a_notice_and_nothing_changes(tmp_path: Any) -> None:
    release = asyncio.Event()

    async def slow(messages: list[dict[str, Any]]) -> str:
        await release.wait()
        return "done"

    chat = Captured(slow, store=tmp_path / "threads.db")
    first = chat.thread_id
    release.set()
    await chat.send("first")
    release.clear()
    chat.new_thread()
    second = chat.thread_id
    run = chat.send("second")
    await until(lambda: chat.status == "running")
    for request in (
        {"kind": "switch_thread", "threadId": first},
        {"kind": "new_thread"},
        {"kind": "rename_thread", "threadId": first, "title": "x"},
        {"kind": "delete_thread", "threadId": first},
        {"kind": "delete_thread", "threadId": second},
    ):
        chat.view_says(request)
    notices = chat.of_kind("notice")
    assert len(notices) == 5 and all("a run is active" in n["text"] for n in notices)
    for call in (lambda: chat.rename_thread(first, "x"), lambda: chat.delete_thread(first)):
        with pytest.raises(RuntimeError, match="a run is active"):
            call()
    release.set()
    await asyncio.wait_for(run, 5)
    assert chat.thread_id == second
    assert {t["thread_id"]: (t["title"], t["named"]) for t in chat.threads()} == {
        first: ("first", False), second: ("second", False)
    }  # fmt: skip


async def test_while_the_chat_waits_for_a_tool_answer_the_threads_stay_as_they_are() -> None:
    chat = Captured(DemoAgent(delay=0), tools=[ACCENT_TOOL])
    await chat.send("hello")
    first = chat.thread_id
    run = chat.send("make it gold")
    await until(lambda: chat.status == "waiting")
    for request in ({"kind": "new_thread"}, {"kind": "delete_thread", "threadId": first}):
        chat.view_says(request)
    assert [n["text"].split(":")[0] for n in chat.of_kind("notice")] == ["new_thread", "delete_thread"]
    assert chat.thread_id == first
    chat.stop()
    await asyncio.wait_for(run, 5)


@pytest.mark.parametrize(
    "payload",
    [
        {"kind": "threads"},
        {"kind": "threads", "requestId": ""},
        {"kind": "switch_thread"},
        {"kind": "switch_thread", "threadId": 7},
        {"kind": "rename_thread", "threadId": "t"},
        {"kind": "rename_thread", "threadId": "t", "title": "x" * 201},
        {"kind": "delete_thread", "threadId": ""},
        {"kind": "delete_thread", "threadId": ["t"]},
    ],
)
async def test_a_malformed_request_is_logged_and_ignored(payload: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    chat = Captured(echo)
    await chat.send("hello")
    before = (chat.thread_id, chat.threads())
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.view_says(payload)
    assert f"ignored a malformed {payload['kind']} request" in caplog.text
    assert chat.of_kind("threads") == [] and (chat.thread_id, chat.threads()) == before


async def test_once_a_view_asked_every_change_sends_the_list_again_once_per_burst(tmp_path: Any) -> None:
    chat = Captured(echo, store=tmp_path / "threads.db")
    await chat.send("hello")
    assert chat.of_kind("threads") == [], "nothing is listed for views until one asks"
    chat.view_says({"kind": "threads", "requestId": "r1"})
    first = chat.thread_id

    def pushes() -> list[dict[str, Any]]:
        return [m for m in chat.of_kind("threads") if m["requestId"] is None]

    await chat.send("again")  # a turn ends: the thread was saved
    await until(lambda: len(pushes()) == 1)
    assert by_id(pushes()[-1])[first]["messages"] == 4
    chat.rename_thread(first, "Named")
    await until(lambda: len(pushes()) == 2)
    assert by_id(pushes()[-1])[first]["title"] == "Named"
    chat.new_thread()  # a save and a switch: one list
    await until(lambda: len(pushes()) == 3)
    await asyncio.sleep(0)
    assert len(pushes()) == 3 and pushes()[-1]["current"] == chat.thread_id
    chat.delete_thread(first)
    await until(lambda: len(pushes()) == 4)
    assert first not in by_id(pushes()[-1])
    for message in pushes():
        KERNEL_MESSAGE.validate_python(message)


# -- run settings are kept with each thread in its store ---------------------------------------------

SPEC = {"model": ["gpt-4o-mini", "llama3.2"], "temperature": (0.0, 2.0, 0.7)}


async def test_each_threads_settings_are_saved_with_it_and_come_back_on_switch_and_in_a_new_chat(tmp_path: Any) -> None:
    path = tmp_path / "threads.db"
    chat = AgentChat(echo, store=path, thread_id="a", settings=SPEC)
    chat.set_setting("model", "llama3.2")
    await chat.send("on a")
    chat.new_thread("b")
    chat.set_setting("temperature", 1.5)
    await chat.send("on b")
    assert SQLiteThreadStore(path).load("a").settings == {"model": "llama3.2", "temperature": 0.7}
    assert SQLiteThreadStore(path).load("b").settings == {"model": "gpt-4o-mini", "temperature": 1.5}

    again = AgentChat(echo, store=path, thread_id="a", settings=SPEC)
    assert again.setting_values == {"model": "llama3.2", "temperature": 0.7}, "a new chat on the same thread"
    again.switch("b")
    assert again.setting_values == {"model": "gpt-4o-mini", "temperature": 1.5}, "a switch to a stored thread"
    again.new_thread()
    assert again.setting_values == {"model": "gpt-4o-mini", "temperature": 0.7}, "a new thread: the defaults"


async def test_a_change_of_settings_outside_a_run_is_saved_and_a_switch_alone_writes_nothing(tmp_path: Any) -> None:
    path = tmp_path / "threads.db"
    chat = AgentChat(echo, store=path, thread_id="a", settings=SPEC)
    await chat.send("on a")
    chat.set_setting("model", "llama3.2")
    store = SQLiteThreadStore(path)
    await until(lambda: (store.load("a").settings or {}).get("model") == "llama3.2")
    updated = store.load("a").updated_at
    chat.new_thread("b")
    chat.switch("a")
    await asyncio.sleep(0)
    assert store.load("a").updated_at == updated, "bringing a thread's values back is not a change"


def test_stored_values_the_spec_no_longer_takes_fall_back_to_the_defaults(tmp_path: Any) -> None:
    path = tmp_path / "threads.db"
    chat = AgentChat(echo, store=path, thread_id="a", settings={"model": ["x", "gone"], "temperature": (0.0, 2.0, 0.7)})
    chat.setting_values = {"model": "gone", "temperature": 1.9}
    chat._threads.save()
    again = AgentChat(echo, store=path, thread_id="a", settings={"model": ["x", "y"], "temperature": (0.0, 1.0, 0.5)})
    assert again.setting_values == {"model": "x", "temperature": 0.5}
    assert AgentChat(echo, store=path, thread_id="a").setting_values == {}, "a chat without settings has none"


def test_the_current_thread_can_be_named_before_anything_is_said_in_it(tmp_path: Any) -> None:
    chat = AgentChat(echo, store=tmp_path / "threads.db")
    chat.rename_thread(chat.thread_id, "Plans")
    assert [(t["thread_id"], t["title"], t["named"]) for t in chat.threads()] == [(chat.thread_id, "Plans", True)]


# -- /switch <title or id> in the message box ------------------------------------------------------


async def test_switch_command_finds_a_thread_by_id_title_or_part_of_its_title() -> None:
    chat = Captured(echo)
    first, second = await two_threads(chat)

    def switch(args: str) -> dict[str, Any]:
        chat.view_says({"kind": "command", "requestId": f"r-{args}", "name": "switch", "args": args})
        return chat.of_kind("command")[-1]

    assert switch("ABOUT CATS")["text"] == "Switched to **about cats**." and chat.thread_id == first
    assert switch(second)["error"] is None and chat.thread_id == second
    assert switch("cat")["error"] is None and chat.thread_id == first
    chat.rename_thread(second, "Cats and dogs")
    assert "2 threads match 'cat'" in switch("cat")["error"] and chat.thread_id == first
    assert "no thread matches 'birds'" in switch("birds")["error"]
    assert "needs a thread's title or id" in switch("  ")["error"]
    assert chat.thread_id == first and chat.of_kind("notice") == []


def test_a_chat_made_with_messages_and_setting_values_saves_the_thread_with_its_settings(tmp_path: Any) -> None:
    path = tmp_path / "threads.db"
    given = [{"id": "u1", "role": "user", "content": "hi"}]
    chat = AgentChat(echo, store=path, thread_id="a", messages=given, settings=SPEC, setting_values={"model": "llama3.2"})
    assert chat.setting_values == {"model": "llama3.2", "temperature": 0.7}, "the values given win over the defaults"
    assert SQLiteThreadStore(path).load("a").settings == chat.setting_values
