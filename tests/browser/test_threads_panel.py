"""The threads panel in a real JupyterLab, with a SQLite store, in the light and the dark theme:
opened by mouse from the toolbar, it lists two threads with their titles, last activity and
message counts; a thread is switched to by mouse, renamed by keyboard only (Enter saves, Escape
cancels), a new thread started and deleted after a confirmation in the panel; while a run is
active the controls are disabled and the panel says why. The kernel's store agrees each time."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, readable, set_lab_theme, wait_in_kernel
from tests.browser.test_accessibility import prepare_axe, violations

pytestmark = pytest.mark.browser

TWO_THREADS = """\
import asyncio, os, tempfile
from agui_widget import AgentChat

gate = asyncio.Event()
gate.set()

async def echo(messages):
    await gate.wait()
    return 'echo: ' + messages[-1]['content']

chat = AgentChat(echo, store=os.path.join(tempfile.mkdtemp(), 'threads.db'), thread_id='cats')
await chat.send('about cats')
chat.new_thread('dogs')
await chat.send('about dogs')
await chat.send('more about dogs')
chat
"""


def stored(nb: NotebookPage) -> dict[str, list[object]]:
    """The kernel's threads, by id: [title, named, messages]."""
    cell = nb.run_cell(
        "import json\nprint(json.dumps({t['thread_id']: [t['title'], t['named'], t['messages']] for t in chat.threads()}))"
    )
    return json.loads(cell.text.strip().splitlines()[-1])


def panel(chat: ChatView) -> Locator:
    return chat.root.get_by_role("region", name="Threads", exact=True)


def rows(chat: ChatView) -> Locator:
    return panel(chat).locator(".agui-thread")


def row(chat: ChatView, title: str) -> Locator:
    return rows(chat).filter(has=chat.root.page.locator(".agui-thread-title", has_text=title))


def check_readable(chat: ChatView, theme: str) -> None:
    current = panel(chat).locator(".agui-thread[data-current]")
    readable(current.locator(".agui-thread-title"), f"the current thread's title ({theme})")
    readable(current.locator(".agui-thread-badge"), f"the 'current' badge ({theme})", 3)
    readable(rows(chat).first.locator(".agui-thread-meta"), f"a thread's last activity and count ({theme})")


def test_list_switch_rename_new_and_delete_threads_in_the_panel(lab):
    nb = lab.open([TWO_THREADS])
    chat = nb.chat()
    expect(chat.user_bubbles).to_have_text(["about dogs", "more about dogs"])

    toggle = chat.button("Show threads")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(panel(chat), "the threads panel opens from the toolbar").to_be_visible()
    expect(rows(chat).locator(".agui-thread-title")).to_have_text(["about dogs", "about cats"])
    expect(rows(chat).locator(".agui-thread-meta")).to_have_text(["just now · 4 messages", "just now · 2 messages"])
    expect(row(chat, "about dogs").locator(".agui-thread-badge")).to_have_text("current")
    assert row(chat, "about cats").locator("time").get_attribute("title"), "the full date as a tooltip"
    check_readable(chat, "light")
    prepare_axe(nb.page)
    assert violations(chat) == [], "the panel meets WCAG 2.2 AA (light)"

    # switch by mouse
    chat.button("Switch to about cats").click()
    expect(chat.user_bubbles, "the switched-to thread's conversation").to_have_text(["about cats"])
    expect(chat.button("about cats current")).to_have_attribute("aria-current", "true")

    # rename by keyboard only: Tab from the thread's title to its Rename button, Enter, type, Enter
    chat.button("Switch to about dogs").focus()
    nb.page.keyboard.press("Tab")
    expect(chat.button("Rename about dogs")).to_be_focused()
    nb.page.keyboard.press("Enter")
    editor = chat.root.get_by_role("textbox", name="New title for about dogs")
    expect(editor).to_be_focused()
    nb.page.keyboard.type("Dog days")  # the old title is selected: typing replaces it
    nb.page.keyboard.press("Escape")
    expect(editor, "Escape cancels").to_have_count(0)
    expect(chat.button("Rename about dogs"), "the focus back on Rename").to_be_focused()
    nb.page.keyboard.press("Enter")
    expect(editor).to_be_focused()
    nb.page.keyboard.type("Dog days")
    nb.page.keyboard.press("Enter")
    expect(chat.button("Rename Dog days"), "the new title, and the focus back").to_be_focused()
    assert stored(nb)["dogs"] == ["Dog days", True, 4]

    # a new thread, which the list follows as soon as something is said in it
    chat.button("New thread").click()
    expect(chat.user_bubbles).to_have_count(0)
    expect(rows(chat)).to_have_count(3)
    chat.send("about birds")
    chat.wait_answer("echo: about birds")
    expect(rows(chat).locator(".agui-thread-title")).to_have_text(["about birds", "Dog days", "about cats"])

    # delete the current thread, after a confirmation in the panel
    chat.button("Delete about birds").click()
    confirm = panel(chat).get_by_role("group", name="Delete about birds?")
    expect(confirm).to_contain_text("The chat goes on in a new one.")
    confirm.get_by_role("button", name="Yes, delete").click()
    expect(chat.user_bubbles, "the chat goes on in a new, empty thread").to_have_count(0)
    expect(rows(chat).locator(".agui-thread-title")).to_have_text(["New thread", "Dog days", "about cats"])
    assert sorted(stored(nb)) == ["cats", "dogs"]


def test_the_panel_in_the_dark_theme_and_during_a_run(lab):
    nb = lab.open([TWO_THREADS])
    chat = nb.chat()
    chat.button("Show threads").click()
    expect(rows(chat)).to_have_count(2)
    set_lab_theme(nb.page, DARK_THEME)
    try:
        check_readable(chat, "dark")
        chat.button("Delete about cats").click()
        confirm = panel(chat).get_by_role("group", name="Delete about cats?")
        readable(confirm.locator(".agui-confirm-text"), "the confirmation (dark)")
        prepare_axe(nb.page)
        assert violations(chat) == [], "the panel, with a confirmation open, meets WCAG 2.2 AA (dark)"
        nb.page.keyboard.press("Escape")
        expect(confirm, "Escape keeps the thread").to_have_count(0)
        expect(chat.button("Delete about cats")).to_be_focused()

        nb.run_cell("gate.clear()")
        chat.send("wait for me")
        reason = panel(chat).get_by_role("status")
        expect(reason, "the panel says why nothing can change").to_contain_text("A run is active")
        for name in ("New thread", "Switch to about cats", "Rename about cats", "Delete about cats"):
            expect(chat.button(name), f"{name} during a run").to_be_disabled()
        readable(reason, "the reason (dark)")
        nb.run_cell("gate.set()")
        chat.wait_answer("echo: wait for me")
        expect(chat.button("Switch to about cats")).to_be_enabled()
        expect(row(chat, "about dogs").locator(".agui-thread-meta"), "the list follows the turn").to_have_text(
            "just now · 6 messages"
        )
        wait_in_kernel(nb, "len(chat.messages) == 6")
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)
