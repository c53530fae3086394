"""The chat from the keyboard alone, in a real JupyterLab, in Chromium: editing a message above a
long answer, Regenerate, Clear, and undo in the message box.

Focus moves with Tab and Shift+Tab and controls are pressed with Enter, as a person without a
mouse does; where the focus lands is checked after each step. Waits are on conditions and bounded.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import kernel_json, shift_tab_to

pytestmark = pytest.mark.browser

LONG_ANSWERS = '''\
from agui_widget import AgentChat

asked = []


def long_answers(messages):
    """Answers taller than the chat's box, numbered so a new answer is told from an old one."""
    asked.append(messages[-1]["content"])
    body = "".join(f"Paragraph {i}: " + "lorem ipsum dolor sit amet " * 8 + "\\n\\n" for i in range(14))
    return body + f"End of answer {len(asked)} to: {messages[-1]['content']}"


chat = AgentChat(long_answers)
chat'''


# The edit box lies within the transcript's scroll box, on screen.
IN_VIEW = """(root) => {
  const box = root.querySelector('textarea[aria-label="Edited message"]');
  const scroller = root.querySelector(".agui-scroll");
  if (!box || !scroller || document.activeElement !== box) return false;
  const b = box.getBoundingClientRect();
  const s = scroller.getBoundingClientRect();
  return b.height > 0 && b.top >= s.top - 1 && b.bottom <= s.bottom + 1;
}"""


def type_and_send(chat: ChatView, text: str) -> None:
    """Focus the message box, type, Enter: no mouse."""
    box = chat.message_box
    box.focus()
    box.press_sequentially(text)
    box.press("Enter")
    expect(box, f"the message box was not emptied after sending {text!r}").to_have_value("")


def message_ids(nb: NotebookPage) -> list[str]:
    return kernel_json(nb, "[m['id'] for m in chat.messages if m['role'] == 'user']")


def edit_box(chat: ChatView) -> Locator:
    return chat.root.get_by_role("textbox", name="Edited message", exact=True)


def test_editing_from_the_keyboard_shows_the_edit_box_and_runs_from_the_edited_message(lab):
    nb = lab.open([LONG_ANSWERS])
    chat = nb.chat()
    type_and_send(chat, "first")
    chat.wait_answer("End of answer 1 to: first")
    type_and_send(chat, "second")
    chat.wait_answer("End of answer 2 to: second")
    first, second = message_ids(nb)

    # The last user message, above its long answer: the edit box opens in view, focused.
    chat.message_box.focus()
    shift_tab_to(chat, "Edit message", second)
    nb.page.keyboard.press("Enter")
    nb.page.wait_for_function(IN_VIEW, arg=chat.root.element_handle(), timeout=10_000)
    nb.page.keyboard.press("Escape")
    expect(edit_box(chat), "Escape closes the edit box").to_have_count(0)

    # The earlier one: the same, and the transcript stays put while the user types.
    chat.message_box.focus()
    shift_tab_to(chat, "Edit message", first)
    nb.page.keyboard.press("Enter")
    nb.page.wait_for_function(IN_VIEW, arg=chat.root.element_handle(), timeout=10_000)
    expect(edit_box(chat)).to_have_value("first")
    nb.page.keyboard.press("ControlOrMeta+a")
    nb.page.keyboard.type("first, edited")
    expect(edit_box(chat)).to_have_value("first, edited")
    assert chat.root.evaluate(IN_VIEW), "the edit box left the view while the user typed"
    nb.page.keyboard.press("Enter")

    # The run starts from the edited message: what followed it is gone.
    chat.wait_answer("End of answer 3 to: first, edited")
    expect(chat.user_bubbles).to_have_text(["first, edited"])
    expect(chat.message_box, "after sending the edit the keyboard is in the message box").to_be_focused()
    kernel = kernel_json(nb, "{'roles': [m['role'] for m in chat.messages], 'asked': asked}")
    assert kernel == {"roles": ["user", "assistant"], "asked": ["first", "second", "first, edited"]}, kernel


def test_regenerate_and_clear_from_the_keyboard_leave_the_focus_in_the_message_box(lab):
    nb = lab.open([LONG_ANSWERS])
    chat = nb.chat()
    type_and_send(chat, "question")
    chat.wait_answer("End of answer 1 to: question")

    chat.message_box.focus()
    shift_tab_to(chat, "Regenerate")
    nb.page.keyboard.press("Enter")
    expect(chat.message_box, "after Regenerate the keyboard is in the message box").to_be_focused()
    chat.wait_answer("End of answer 2 to: question")
    expect(chat.message_box, "the new answer leaves the focus where it was").to_be_focused()

    clear = chat.button("Clear conversation")
    clear.focus()
    nb.page.keyboard.press("Enter")
    expect(chat.button("Yes, clear")).to_be_visible()
    shift_tab_to(chat, "Yes, clear")
    nb.page.keyboard.press("Enter")
    expect(chat.user_bubbles, "the conversation is cleared").to_have_count(0)
    expect(chat.message_box, "after 'Yes, clear' the keyboard is in the message box").to_be_focused()


NOTEBOOK_SOURCES = """(path) => {
  const cells = window.__aguiTest.panel(path).content.model.cells;
  const out = [];
  for (let i = 0; i < cells.length; i++) out.push(cells.get(i).sharedModel.getSource());
  return out;
}"""

# A change to the notebook's first cell that JupyterLab's Undo (Ctrl+Z on the notebook) takes back.
MARK_FIRST_CELL = """(path) => {
  const panel = window.__aguiTest.panel(path);
  panel.content.activeCellIndex = 0;
  const cell = panel.content.model.cells.get(0).sharedModel;
  cell.setSource(cell.getSource() + "\\n# marked");
}"""


def test_undo_and_redo_in_the_message_box_stay_in_the_box(lab):
    nb = lab.open([LONG_ANSWERS])
    chat = nb.chat()
    nb.page.evaluate(MARK_FIRST_CELL, nb.name)
    cells = nb.page.evaluate(NOTEBOOK_SOURCES, nb.name)
    assert cells[0].endswith("# marked"), cells

    box = chat.message_box
    box.focus()
    box.press_sequentially("abc")
    expect(box).to_have_value("abc")
    box.press("ControlOrMeta+z")
    expect(box, "Ctrl+Z undoes the typing in the message box").not_to_have_value("abc")
    box.press("ControlOrMeta+Shift+z")
    expect(box, "Ctrl+Shift+Z redoes it").to_have_value("abc")
    expect(box).to_be_focused()
    assert nb.page.evaluate(NOTEBOOK_SOURCES, nb.name) == cells, "the notebook undid a change of its own"
