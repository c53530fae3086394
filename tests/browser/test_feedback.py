"""Feedback on an answer in a real JupyterLab, in Chromium, in the light and the dark theme: a
thumbs up by mouse with a comment, a thumbs down and a change of mind by keyboard alone; the
kernel's ``on_feedback`` hears each, the rating is in ``chat.messages``, and a reload of the page
shows it again (the kernel keeps it in the answer's metadata)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import ChatView
from tests.browser.helpers_ui import (
    DARK_THEME,
    LIGHT_THEME,
    kernel_json,
    readable,
    set_lab_theme,
    shift_tab_to,
    wait_in_kernel,
)

pytestmark = pytest.mark.browser

CHAT = """
from agui_widget import AgentChat, DemoAgent

heard = []

async def on_feedback(message, rating, comment):
    heard.append([message["id"], rating, comment])

chat = AgentChat(DemoAgent(delay=0.01), on_feedback=on_feedback)
chat"""

COMMENT = "Comment on this answer (optional)"


def last_answer(chat: ChatView) -> Locator:
    return chat.root.locator(".agui-row-assistant").last


def rate_button(row: Locator, name: str) -> Locator:
    return row.get_by_role("button", name=name, exact=True)


def ask(chat: ChatView, text: str) -> str:
    """Send ``text``; once answered, the answer's message id."""
    chat.send(text)
    chat.wait_answer("scripted demo agent")
    row_id = last_answer(chat).get_attribute("data-row")
    assert row_id, "the answer's row names its message"
    return row_id


def test_rating_by_mouse_with_a_comment_reaches_the_hook_and_survives_a_reload_in_light(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()
    answer = ask(chat, "hello")
    row = last_answer(chat)
    row.hover()
    good = rate_button(row, "Good answer")
    expect(good).to_have_attribute("aria-pressed", "false")
    good.click()
    expect(good, "the kernel kept the rating").to_have_attribute("aria-pressed", "true")
    expect(rate_button(row, "Bad answer")).to_have_attribute("aria-pressed", "false")
    box = row.get_by_role("textbox", name=COMMENT)
    expect(box, "the comment box opens with the keyboard in it").to_be_focused()
    box.fill("clear and short")
    box.press("Enter")
    expect(box, "Enter sends the comment and closes the box").to_have_count(0)
    expect(row.get_by_role("button", name="Change the comment: clear and short")).to_be_visible()
    heard = wait_in_kernel(nb, "len(heard) == 2", show="heard")
    assert json.loads(heard) == [[answer, "up", None], [answer, "up", "clear and short"]]
    kept = kernel_json(nb, f"[m.get('metadata') for m in chat.messages if m['id'] == {answer!r}]")
    assert kept == [{"agui_widget": {"feedback": {"rating": "up", "comment": "clear and short"}}}]
    readable(good, "a pressed rating in the light theme", 3)

    nb.save()  # a reload shows what the notebook file holds: the chat's output comes back, live
    nb.reload()
    chat = nb.chat()
    row = chat.root.locator(f'[data-row="{answer}"]')
    expect(rate_button(row, "Good answer"), "the rating is shown again after a reload").to_have_attribute("aria-pressed", "true")
    expect(row.get_by_role("button", name="Change the comment: clear and short")).to_be_visible()
    lab.assert_no_page_errors()


def test_rating_by_keyboard_alone_changes_and_withdraws_in_dark(lab):
    nb = lab.open([CHAT])
    set_lab_theme(nb.page, DARK_THEME)
    try:
        chat = nb.chat()
        answer = ask(chat, "hello")
        row = last_answer(chat)
        chat.message_box.focus()
        shift_tab_to(chat, "Bad answer", answer)
        nb.page.keyboard.press("Enter")
        bad = rate_button(row, "Bad answer")
        expect(bad).to_have_attribute("aria-pressed", "true")
        box = row.get_by_role("textbox", name=COMMENT)
        expect(box).to_be_focused()
        background = box.evaluate("el => getComputedStyle(el).backgroundColor")
        red, green, blue = (float(c) for c in background.strip("rgba()").split(",")[:3])
        assert max(red, green, blue) < 100, f"the comment box in a dark notebook is dark ({background})"
        nb.page.keyboard.type("the numbers are off")
        nb.page.keyboard.press("Escape")
        expect(box, "Escape closes the box without sending").to_have_count(0)
        expect(bad, "the focus is back on the rating").to_be_focused()
        readable(bad, "a pressed rating in the dark theme", 3)

        nb.page.keyboard.press("Shift+Tab")  # Bad answer -> Good answer
        expect(rate_button(row, "Good answer")).to_be_focused()
        nb.page.keyboard.press("Space")
        expect(rate_button(row, "Good answer"), "the rating changed").to_have_attribute("aria-pressed", "true")
        expect(bad).to_have_attribute("aria-pressed", "false")
        expect(row.get_by_role("textbox", name=COMMENT)).to_be_focused()
        nb.page.keyboard.press("Escape")
        expect(rate_button(row, "Good answer")).to_be_focused()
        nb.page.keyboard.press("Enter")  # pressing the pressed rating withdraws it
        expect(rate_button(row, "Good answer"), "the rating withdrawn").to_have_attribute("aria-pressed", "false")
        heard = wait_in_kernel(nb, "len(heard) == 3", show="heard")
        assert json.loads(heard) == [[answer, "down", None], [answer, "up", None], [answer, None, None]]
        kept = kernel_json(nb, f"[m.get('metadata') for m in chat.messages if m['id'] == {answer!r}]")
        assert kept == [None]
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)
    lab.assert_no_page_errors()
