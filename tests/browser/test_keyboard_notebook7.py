"""The chat from the keyboard alone in Notebook 7, in Chromium, as in JupyterLab.

Notebook 7 runs its command-mode shortcuts (arrows, A, B, M, Z...) before a focused control in
a cell's output sees the key: their selectors match any focused element of the notebook that is
not a text box. In the chat the controls get their keys (js/src/view/keys.ts): a toolbar button
opens its panel with Enter and Space, an arrow moves the run settings' slider, Regenerate and
"Previous answer" work, and the notebook's cells stay as they were throughout. With the focus
outside the chat the notebook's shortcuts still work. JupyterLab ran the same shortcuts after the
control saw the key; there too the notebook is left alone.

Focus moves with Tab and Shift+Tab, keys are pressed as a person without a mouse does; waits are
on conditions and bounded.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import kernel_json, shift_tab_to, wait_in_kernel

pytestmark = pytest.mark.browser

CHAT = """\
from agui_widget import AgentChat, DemoAgent

chat = AgentChat(DemoAgent(delay=0.01), settings={"temperature": (0.0, 1.0, 0.5, 0.1)})
chat"""

# The notebook as its shortcuts would change it: each cell's type and source, the active cell.
NOTEBOOK = """(path) => {
  const notebook = window.__aguiTest.panel(path).content;
  const cells = [];
  for (let i = 0; i < notebook.model.cells.length; i++) {
    const cell = notebook.model.cells.get(i);
    cells.push([cell.type, cell.sharedModel.getSource()]);
  }
  return { cells, active: notebook.activeCellIndex };
}"""

# Command mode with the focus on one cell (outside any output), as after clicking its prompt.
SELECT_CELL = """([path, index]) => {
  const notebook = window.__aguiTest.panel(path).content;
  notebook.activeCellIndex = index;
  notebook.mode = "command";
  notebook.activeCell.node.focus();
}"""

FOCUSED = """(root) => {
  const el = document.activeElement;
  if (!el) return "nothing";
  const where = root.contains(el) ? "chat" : "page";
  return `${where}: ${el.tagName.toLowerCase()}${el.type ? "[" + el.type + "]" : ""} ${el.getAttribute("aria-label") || ""}`.trim();
}"""

# Keys Notebook 7 took from a focused chat control before the chat kept them.
COMMAND_MODE_KEYS = ["ArrowDown", "ArrowUp", "a", "b", "m", "z"]


def notebook_state(nb: NotebookPage) -> dict[str, Any]:
    return nb.page.evaluate(NOTEBOOK, nb.name)


def focused(chat: ChatView) -> str:
    return chat.root.evaluate(FOCUSED)


def tab_until(chat: ChatView, wanted: str, *, key: str = "Tab", max_presses: int = 40) -> None:
    """Presses ``key`` until the focused element, described as ``FOCUSED`` does, is ``wanted``."""
    seen = []
    for _ in range(max_presses):
        chat.root.page.keyboard.press(key)
        seen.append(focused(chat))
        if seen[-1] == wanted:
            return
    raise AssertionError(f"{key} never reached {wanted!r}; the focus went through {seen}")


def assert_unchanged(nb: NotebookPage, before: dict[str, Any], after_what: str) -> None:
    assert notebook_state(nb) == before, f"the notebook's cells or active cell changed after {after_what}"


def open_on_the_chats_cell(lab: Any, ui: str = "lab") -> tuple[Any, Any, Any]:
    """The chat's notebook with a cell after it, opened in ``ui``; ArrowUp from that cell (a
    notebook shortcut, the focus outside the chat) makes the chat's cell the active one. Returns
    the notebook, the chat, and the notebook's cells as they are then."""
    nb = lab.open([CHAT, "x = 1"], ui=ui)
    chat = nb.chat()
    nb.page.evaluate(SELECT_CELL, [nb.name, 1])
    nb.page.keyboard.press("ArrowUp")
    nb.page.wait_for_function("p => window.__aguiTest.panel(p).content.activeCellIndex === 0", arg=nb.name)
    return nb, chat, notebook_state(nb)


def test_the_chat_is_usable_from_the_keyboard_alone_in_notebook_7(lab):
    # Outside the chat the notebook's shortcuts are its own: ArrowUp selects the chat's cell.
    nb, chat, cells = open_on_the_chats_cell(lab, ui="notebook")
    page = nb.page

    # Tab into the chat, to the message box, and send a message.
    tab_until(chat, "chat: textarea[textarea] Message")
    page.keyboard.type("hello")
    page.keyboard.press("Enter")
    expect(chat.message_box, "the message box was emptied by sending").to_have_value("")
    chat.wait_answer("")
    expect(chat.assistant_texts).to_have_count(1)
    assert_unchanged(nb, cells, "typing and sending a message")

    # A toolbar button: Enter opens its panel, Space closes it; the notebook's keys do nothing.
    state_button = chat.button("Show state")
    shift_tab_to(chat, "Show state")
    page.keyboard.press("Enter")
    expect(state_button, "Enter on the focused button pressed it").to_have_attribute("aria-pressed", "true")
    expect(chat.root.get_by_role("region", name="Shared state", exact=True)).to_be_visible()
    expect(state_button).to_be_focused()
    for key in COMMAND_MODE_KEYS:
        page.keyboard.press(key)
    expect(state_button, "command-mode keys leave the focus on the button").to_be_focused()
    page.keyboard.press("Space")
    expect(state_button, "Space on the focused button pressed it again").to_have_attribute("aria-pressed", "false")
    assert_unchanged(nb, cells, "Enter, Space, arrows and letters on a toolbar button")

    # The run settings' slider moves with the arrow keys.
    chat.message_box.focus()
    tab_until(chat, "chat: input[range]", key="Shift+Tab")
    slider = chat.root.locator("input[type=range]")
    expect(slider).to_have_value("0.5")
    page.keyboard.press("ArrowRight")
    expect(slider, "ArrowRight moved the slider").to_have_value("0.6")
    expect(slider).to_be_focused()
    assert_unchanged(nb, cells, "ArrowRight on the settings slider")

    # Regenerate, then back to the first answer, by keyboard.
    first_answer = chat.root.locator(".agui-row-assistant").last.get_attribute("data-row")
    chat.message_box.focus()
    shift_tab_to(chat, "Regenerate")
    page.keyboard.press("Enter")
    expect(chat.message_box, "after Regenerate the keyboard is in the message box").to_be_focused()
    branch = chat.root.locator(".agui-branch")
    expect(branch, "a second answer was made").to_have_attribute("aria-label", "Answer 2 of 2")
    chat.wait_idle()
    shift_tab_to(chat, "Previous answer")
    page.keyboard.press("Enter")
    expect(branch, "Previous answer shows the first one again").to_have_attribute("aria-label", "Answer 1 of 2")
    assert_unchanged(nb, cells, "Regenerate and Previous answer")

    # Escape still takes the keyboard out of the message box, back to the notebook.
    chat.message_box.focus()
    page.keyboard.press("Escape")
    expect(chat.message_box, "Escape left the message box").not_to_be_focused()
    assert not focused(chat).startswith("chat:"), f"the focus stayed in the chat: {focused(chat)}"
    assert_unchanged(nb, cells, "Escape in the message box")

    # The kernel has what the keys did.
    wait_in_kernel(nb, "abs(chat.setting_values['temperature'] - 0.6) < 1e-9", show="chat.setting_values")
    shown = kernel_json(nb, "[m['id'] for m in chat.messages if m['role'] == 'assistant']")
    assert shown == [first_answer], f"the kernel's transcript shows {shown}, not the first answer {first_answer}"


def test_command_mode_keys_on_a_chat_button_leave_the_notebook_alone_in_jupyterlab_too(lab):
    # JupyterLab ran them after the button saw the key: ArrowDown moved to the next cell, A added one.
    nb, chat, cells = open_on_the_chats_cell(lab)
    page = nb.page
    tab_until(chat, "chat: textarea[textarea] Message")
    shift_tab_to(chat, "Show state")
    for key in COMMAND_MODE_KEYS:
        page.keyboard.press(key)
    expect(chat.button("Show state"), "command-mode keys leave the focus on the button").to_be_focused()
    page.keyboard.press("Enter")
    expect(chat.button("Show state")).to_have_attribute("aria-pressed", "true")
    assert_unchanged(nb, cells, "arrows, letters and Enter on a toolbar button")
