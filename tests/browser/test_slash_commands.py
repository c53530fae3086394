"""Slash commands in a real JupyterLab, in Chromium, in the light and the dark theme: `/` opens the
list of commands, the keyboard picks `/help` and runs it (its card lists the built-ins and the
notebook's own command), a command defined in a cell runs in the kernel with its arguments,
`/new` starts a thread, `/export` saves the conversation, and `/nope` says it is unknown, keeps
the text, and nothing reaches the agent."""

from __future__ import annotations

import json
import pathlib

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ChatView
from tests.browser.helpers_ui import (
    DARK_THEME,
    LIGHT_THEME,
    kernel_json,
    readable,
    set_lab_theme,
    wait_in_kernel,
)

pytestmark = pytest.mark.browser

CHAT = """
from agui_widget import AgentChat, DemoAgent

heard = []

def shout(chat, args):
    \"\"\"Say the words louder.\"\"\"
    heard.append(args)
    return f"**{args.upper()}**"

chat = AgentChat(DemoAgent(delay=0.01), commands={"shout": shout})
first_thread = chat.thread_id
chat"""


def run_help_by_keyboard(chat: ChatView) -> None:
    """Type `/`, move to `/help` with the arrows, pick it with Enter and run it with Enter."""
    box = chat.message_box
    box.click()
    box.page.keyboard.type("/")
    listbox = chat.root.get_by_role("listbox", name="Commands")
    expect(listbox, "`/` opens the command list").to_be_visible()
    expect(listbox.get_by_role("option")).to_have_count(7)
    expect(listbox.get_by_role("option").last).to_contain_text("Say the words louder.")
    for _ in range(5):  # clear, new, threads, switch, export, help
        box.press("ArrowDown")
    expect(listbox.get_by_role("option", selected=True)).to_contain_text("/help")
    box.press("Enter")
    expect(box, "Enter picks the command").to_have_value("/help ")
    expect(listbox).to_have_count(0)
    box.press("Enter")
    expect(box, "a command that ran leaves the box empty").to_have_value("")
    card = chat.root.get_by_role("region", name="/help")
    expect(card).to_contain_text("/threads")
    expect(card).to_contain_text("/shout Say the words louder.")


def test_help_a_notebook_command_new_export_and_an_unknown_command_in_light(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()
    run_help_by_keyboard(chat)

    chat.send("/shout hello there")
    expect(chat.root.get_by_role("region", name="/shout").locator("strong")).to_have_text("HELLO THERE")
    assert json.loads(wait_in_kernel(nb, "heard == ['hello there']", show="heard")) == ["hello there"]

    chat.send("hello")
    chat.wait_answer("scripted demo agent")
    with nb.page.expect_download() as saved:
        chat.send("/export")
    assert saved.value.suggested_filename.endswith(".md")
    assert "hello" in pathlib.Path(saved.value.path()).read_text(encoding="utf-8")

    chat.send("/new")
    expect(chat.root.get_by_role("region", name="/new")).to_contain_text("Started thread")
    wait_in_kernel(nb, "chat.thread_id != first_thread and chat.messages == []", show="chat.thread_id")
    expect(chat.user_bubbles, "a new thread starts empty").to_have_count(0)

    box = chat.message_box
    box.fill("/nope at all")
    box.press("Enter")
    expect(chat.root.locator(".agui-notice-text")).to_contain_text(["Unknown command /nope; /help lists them"])
    expect(box, "the text stays in the box").to_have_value("/nope at all")
    assert kernel_json(nb, "[chat.messages, chat.status]") == [[], "idle"], "nothing reached the agent"
    lab.assert_no_page_errors()


def test_the_list_and_the_card_read_in_dark(lab):
    nb = lab.open([CHAT])
    set_lab_theme(nb.page, DARK_THEME)
    try:
        chat = nb.chat()
        run_help_by_keyboard(chat)
        card = chat.root.get_by_role("region", name="/help")
        readable(card.locator("li").first, "the /help card in the dark theme")
        background = card.evaluate("el => getComputedStyle(el).backgroundColor")
        red, green, blue = (float(c) for c in background.strip("rgba()").split(",")[:3])
        assert max(red, green, blue) < 100, f"the card in a dark notebook is dark ({background})"
        chat.message_box.fill("/nope")
        chat.message_box.press("Enter")
        expect(chat.root.locator(".agui-notice-text")).to_contain_text(["Unknown command /nope; /help lists them"])
        assert kernel_json(nb, "chat.messages") == []
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)
    lab.assert_no_page_errors()
