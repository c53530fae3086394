"""Slash commands: the built-ins (``/clear``, ``/new``, ``/threads``, ``/switch``, ``/export``, ``/help``) and
``AgentChat(commands={"name": fn})``. A view's ``command`` request runs one in the kernel; the
answer (Markdown to show, a file to save, or the error) goes back in a ``command`` message, and
nothing reaches the agent or the transcript but what the command itself does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agui_widget import AgentChat, DemoAgent

from .genui_support import Captured
from .support import until

TRANSCRIPT = [
    {"id": "u1", "role": "user", "content": "weather in Paris?"},
    {"id": "a1", "role": "assistant", "content": "Sunny, 21°C."},
]


def chat_with(**options: Any) -> Captured:
    return Captured(DemoAgent(delay=0), messages=TRANSCRIPT, **options)


def run(chat: Captured, name: str, args: str = "", request_id: str = "v:1") -> None:
    chat.view_says({"kind": "command", "requestId": request_id, "name": name, "args": args})


def answer(chat: Captured, request_id: str = "v:1") -> dict[str, Any]:
    (reply,) = [m for m in chat.of_kind("command") if m["requestId"] == request_id]
    return reply


def test_the_message_box_is_offered_the_built_ins_then_the_users_commands_with_their_descriptions() -> None:
    def summarize(chat: AgentChat, args: str) -> str:
        """Summarize the conversation.

        More text that is not the description."""
        return ""

    chat = chat_with(commands={"summarize": summarize, "no-doc_2": lambda chat, args: None})
    assert [c["name"] for c in chat.commands] == ["clear", "new", "threads", "switch", "export", "help", "summarize", "no-doc_2"]
    assert chat.commands[6] == {"name": "summarize", "description": "Summarize the conversation."}
    assert chat.commands[7]["description"] == ""
    assert [c["name"] for c in chat_with().commands] == ["clear", "new", "threads", "switch", "export", "help"]


def test_a_sync_command_gets_the_chat_and_the_text_after_its_name_and_its_result_is_shown() -> None:
    heard: list[tuple[Any, str]] = []

    def echo(chat: AgentChat, args: str) -> str:
        heard.append((chat, args))
        return f"**{args}**"

    chat = chat_with(commands={"echo": echo})
    run(chat, "echo", "hello there")
    assert heard == [(chat, "hello there")]
    assert answer(chat) == {
        "kind": "command",
        "requestId": "v:1",
        "name": "echo",
        "text": "**hello there**",
        "download": None,
        "error": None,
    }
    assert chat.messages == TRANSCRIPT and chat.status == "idle", "nothing reaches the agent or the transcript"


def test_a_command_returning_none_shows_nothing() -> None:
    chat = chat_with(commands={"quiet": lambda chat, args: None})
    run(chat, "quiet")
    assert answer(chat)["text"] is None and answer(chat)["error"] is None


async def test_an_async_command_is_awaited_on_the_kernels_loop() -> None:
    async def later(chat: AgentChat, args: str) -> str:
        await asyncio.sleep(0)
        return f"later: {args}"

    chat = chat_with(commands={"later": later})
    run(chat, "later", "x")
    await until(lambda: chat.of_kind("command"), what="the async command's answer")
    assert answer(chat)["text"] == "later: x"


async def test_a_raising_command_answers_with_its_error_sync_or_async() -> None:
    def broken(chat: AgentChat, args: str) -> None:
        raise ValueError("no such column")

    async def broken_later(chat: AgentChat, args: str) -> None:
        raise KeyError("gone")

    chat = chat_with(commands={"broken": broken, "broken-later": broken_later})
    run(chat, "broken")
    assert answer(chat) | {"text": None} == answer(chat)
    assert answer(chat)["error"] == "/broken failed: ValueError: no such column"
    run(chat, "broken-later", request_id="v:2")
    await until(lambda: len(chat.of_kind("command")) == 2, what="the async command's error")
    assert answer(chat, "v:2")["error"] == "/broken-later failed: KeyError: 'gone'"


def test_an_unknown_command_says_so_and_reaches_nobody() -> None:
    chat = chat_with()
    run(chat, "nope", "anything")
    assert answer(chat)["error"] == "Unknown command /nope; /help lists them"
    assert chat.messages == TRANSCRIPT and chat.status == "idle"


@pytest.mark.parametrize("name", ["clear", "new", "threads", "switch", "export", "help"])
def test_a_user_command_may_not_shadow_a_built_in(name: str) -> None:
    with pytest.raises(ValueError, match=f"/{name} is built in"):
        chat_with(commands={name: lambda chat, args: None})


@pytest.mark.parametrize("name", ["Summarize", "/sum", "two words", "", "é"])
def test_a_command_name_is_lowercase_letters_digits_dashes_and_underscores(name: str) -> None:
    with pytest.raises(ValueError, match="lowercase letters, digits, - and _"):
        chat_with(commands={name: lambda chat, args: None})


def test_commands_are_functions_in_a_dict() -> None:
    with pytest.raises(TypeError, match="must be a function"):
        chat_with(commands={"x": "not callable"})
    with pytest.raises(TypeError, match="dict of name to function"):
        chat_with(commands=["x"])


def test_clear_clears_the_conversation() -> None:
    chat = chat_with()
    run(chat, "clear")
    assert chat.messages == [] and answer(chat)["error"] is None


def test_new_starts_a_thread_and_says_which() -> None:
    chat = chat_with()
    before = chat.thread_id
    run(chat, "new")
    assert chat.thread_id != before and chat.messages == []
    assert answer(chat)["text"] == f"Started thread `{chat.thread_id}`."


def test_threads_lists_the_stores_threads_with_title_activity_and_size() -> None:
    chat = chat_with()
    first = chat.thread_id
    chat.new_thread()
    run(chat, "threads")
    text = answer(chat)["text"]
    assert "| Thread | Title | Last activity | Messages |" in text
    assert f"`{first}`" in text and "weather in Paris?" in text and "| 2 |" in text
    assert f"`{chat.thread_id}` (current)" in text


def test_export_hands_the_view_the_conversation_as_markdown() -> None:
    chat = chat_with()
    run(chat, "export")
    download = answer(chat)["download"]
    assert download["filename"] == f"chat-{chat.thread_id}.md" and download["mimeType"] == "text/markdown"
    assert download["text"] == chat.to_markdown() and "Sunny, 21°C." in download["text"]


def test_help_lists_every_command_with_its_description() -> None:
    def summarize(chat: AgentChat, args: str) -> None:
        """Summarize the conversation."""

    chat = chat_with(commands={"summarize": summarize})
    run(chat, "help")
    text = answer(chat)["text"]
    assert "- `/clear` Clear the conversation" in text and "- `/summarize` Summarize the conversation." in text
    assert text.index("/help") < text.index("/summarize")


def test_a_malformed_command_request_is_refused_with_a_notice() -> None:
    chat = chat_with()
    chat.view_says({"kind": "command", "requestId": "v:1", "name": "Bad Name"})
    assert chat.of_kind("command") == [] and chat.of_kind("notice")
