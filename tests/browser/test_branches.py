"""Branches in a real JupyterLab, in Chromium, with the demo agent, in the light and the dark theme:
Regenerate keeps the first answer as another version (‹ 2 / 2 ›) and Previous answer shows it
again, by mouse (light) and by keyboard alone (dark); editing the first message of a two-turn chat
forks there (‹ 2 / 2 › under the edited message) and Previous version brings the two turns back.
``chat.messages`` in the kernel is the branch on screen each time."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import (
    DARK_THEME,
    LIGHT_THEME,
    kernel_json,
    readable,
    set_lab_theme,
    shift_tab_to,
)

pytestmark = pytest.mark.browser

CHAT = """
from agui_widget import AgentChat, DemoAgent

chat = AgentChat(DemoAgent(delay=0.01))
chat"""

DEMO = "scripted demo agent"


def shown_ids(nb: NotebookPage) -> list[str]:
    return kernel_json(nb, "[m['id'] for m in chat.messages]")


def last_answer(chat: ChatView) -> Locator:
    return chat.root.locator(".agui-row-assistant").last


def row(chat: ChatView, message_id: str) -> Locator:
    return chat.root.locator(f'[data-row="{message_id}"]')


def count_of(where: Locator) -> Locator:
    return where.locator(".agui-branch-count")


def ask(chat: ChatView, text: str) -> str:
    """Send ``text``; once answered, the answer's message id."""
    chat.send(text)
    chat.wait_answer(DEMO)
    answer = last_answer(chat).get_attribute("data-row")
    assert answer, "the answer's row names its message"
    return answer


def test_regenerate_keeps_the_first_answer_and_previous_answer_shows_it_again_in_light(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()
    first = ask(chat, "hello")
    question = kernel_json(nb, "chat.messages[0]['id']")
    last_answer(chat).hover()
    chat.button("Regenerate").click()
    # The count shows once the new answer's run is over (the status may still read idle right
    # after the click: the request has not reached the kernel yet).
    expect(count_of(last_answer(chat)), "the regenerated answer's count").to_have_text("2 / 2")
    chat.wait_idle()
    second = last_answer(chat).get_attribute("data-row")
    assert second and second != first
    expect(count_of(row(chat, second)), "the regenerated answer says it is the second of two").to_have_text("2 / 2")
    expect(chat.user_bubbles, "the question is asked once, not twice").to_have_count(1)
    assert shown_ids(nb) == [question, second]
    readable(count_of(row(chat, second)), "the version count in the light theme", 3)

    row(chat, second).get_by_role("button", name="Previous answer", exact=True).click()
    expect(count_of(row(chat, first)), "the first answer is back, as the first of two").to_have_text("1 / 2")
    expect(row(chat, second)).to_have_count(0)
    expect(row(chat, first).get_by_role("button", name="Previous answer", exact=True)).to_be_disabled()
    assert shown_ids(nb) == [question, first], "chat.messages is the branch on screen"

    row(chat, first).get_by_role("button", name="Next answer", exact=True).click()
    expect(count_of(row(chat, second))).to_have_text("2 / 2")
    assert shown_ids(nb) == [question, second]
    lab.assert_no_page_errors()


def test_editing_the_first_message_of_two_turns_forks_there_in_dark_by_keyboard(lab):
    nb = lab.open([CHAT])
    set_lab_theme(nb.page, DARK_THEME)
    try:
        chat = nb.chat()
        ask(chat, "hello")
        ask(chat, "and again")
        before = shown_ids(nb)
        first_question = before[0]

        # Edit the first message: by mouse to open the box, the text typed, Enter sends it.
        row(chat, first_question).hover()
        row(chat, first_question).get_by_role("button", name="Edit message", exact=True).click()
        box = chat.root.get_by_role("textbox", name="Edited message", exact=True)
        expect(box).to_be_focused()
        box.fill("hello there")
        box.press("Enter")
        chat.wait_answer(DEMO)
        expect(chat.user_bubbles, "the conversation forked at the first message").to_have_count(1)
        expect(chat.user_bubbles.first).to_contain_text("hello there")
        edited = kernel_json(nb, "chat.messages[0]['id']")
        expect(count_of(row(chat, edited)), "the edited message says it is the second version").to_have_text("2 / 2")
        assert len(shown_ids(nb)) == 2
        readable(count_of(row(chat, edited)), "the version count in the dark theme", 3)

        # Back to the first version by keyboard alone: the two turns come back.
        chat.message_box.focus()
        assert shift_tab_to(chat, "Previous version") == edited
        nb.page.keyboard.press("Enter")
        expect(count_of(row(chat, first_question)), "the first version, with both turns").to_have_text("1 / 2")
        expect(chat.user_bubbles).to_have_count(2)
        expect(chat.user_bubbles.first).to_contain_text("hello")
        next_version = row(chat, first_question).get_by_role("button", name="Next version", exact=True)
        expect(next_version, "the keyboard stays on the versions' controls").to_be_focused()
        assert shown_ids(nb) == before, "chat.messages is the branch on screen"

        # Regenerate the last answer by keyboard, then step between its answers.
        chat.message_box.focus()
        shift_tab_to(chat, "Regenerate")
        nb.page.keyboard.press("Enter")
        expect(count_of(last_answer(chat)), "the regenerated answer's count").to_have_text("2 / 2")
        chat.wait_idle()
        chat.message_box.focus()
        shift_tab_to(chat, "Previous answer")
        nb.page.keyboard.press("Enter")
        expect(count_of(row(chat, before[3])), "the earlier answer is back").to_have_text("1 / 2")
        expect(row(chat, before[3]).get_by_role("button", name="Next answer", exact=True)).to_be_focused()
        assert shown_ids(nb) == before
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)
    lab.assert_no_page_errors()
