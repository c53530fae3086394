"""A chat in a panel that sets its height fills it, and Clear with the keyboard.

- In JupyterLab's output view ("Create New View for Cell Output") and in a sidecar, the panel
  sets the height: the chat fills it, so its message box is in sight without scrolling, and it
  follows the panel when the window is resized. The same chat in the notebook keeps its own
  height (the notebook's output takes the height of its content).
- Clear asks first, says the shared state is kept, and offers to reset it too: "Clear and reset
  state" (reached with Tab and Enter only) leaves the chat's starter suggestions and the state it
  started with, and the focus in the message box.

The built-in demo agent answers (agui_widget/adapters/_demo.py).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import show_panel
from tests.browser.test_lab_views import QUICKSTART, SIDECAR, open_output_view

pytestmark = pytest.mark.browser

FIT_WAIT = 10.0  # s: the chat follows a resized panel within a few frames

# Where the chat sits in its panel (JupyterLab's output view or the sidecar, both
# `.jp-LinkedOutputView`), and every element between them that would have to be scrolled.
FIT = r"""
(root) => {
  const panel = root.closest(".jp-LinkedOutputView");
  if (!panel) return null;
  const box = root.querySelector('textarea[aria-label="Message"]').getBoundingClientRect();
  const chat = root.querySelector(".agui-chat").getBoundingClientRect();
  const p = panel.getBoundingClientRect();
  const scrolls = [];
  for (let el = root; el && el !== panel.parentElement; el = el.parentElement) {
    const y = getComputedStyle(el).overflowY;
    if ((y === "auto" || y === "scroll") && el.scrollHeight > el.clientHeight + 1) scrolls.push(el.className);
  }
  return {
    boxTop: box.top, boxBottom: box.bottom, chatHeight: chat.height, chatBottom: chat.bottom,
    panelTop: p.top, panelBottom: p.bottom, panelHeight: p.height, scrolls,
  };
}
"""


def fit_problems(fit: dict[str, Any] | None) -> list[str]:
    """What keeps the chat from filling its panel with its message box in sight, if anything."""
    if fit is None:
        return ["the chat is not in a panel"]
    problems = []
    if not (fit["panelTop"] - 1 <= fit["boxTop"] and fit["boxBottom"] <= fit["panelBottom"] + 1):
        problems.append("the message box is outside the panel's visible box")
    if fit["scrolls"]:
        problems.append(f"the panel has to be scrolled ({fit['scrolls']})")
    if fit["panelBottom"] - fit["chatBottom"] > 24:
        problems.append("the chat does not fill the panel")
    return problems


def wait_fits(view: ChatView, when: str, resized_from: dict[str, Any] | None = None) -> dict[str, Any]:
    """Waits (bounded) until the chat fills its panel (one no longer as tall as in ``resized_from``);
    fails saying how it does not."""
    end = time.monotonic() + FIT_WAIT
    while True:
        fit = view.root.evaluate(FIT)
        problems = fit_problems(fit)
        if fit and resized_from and abs(fit["panelHeight"] - resized_from["panelHeight"]) < 1:
            problems.append("the panel was not resized")
        if not problems:
            return fit
        if time.monotonic() > end:
            raise AssertionError(f"{when}: {'; '.join(problems)}: {fit}")
        time.sleep(0.1)


def resize_window(nb: NotebookPage, height: int) -> None:
    nb.page.set_viewport_size({"width": 1280, "height": height})


def chat_height(view: ChatView) -> float:
    box = view.root.locator(".agui-chat").first.bounding_box()
    assert box is not None
    return box["height"]


# -- a panel that sets the height -----------------------------------------------------------------


def test_a_chat_in_an_output_view_fills_the_panel_and_follows_it_while_the_cells_chat_keeps_its_height(lab):
    nb = lab.open([QUICKSTART])
    cell = nb.chat()
    own = chat_height(cell)
    view = open_output_view(nb)

    first = wait_fits(view, "in a new output view")
    assert first["panelHeight"] < own, (
        "the output view should be shorter than the chat's own height for this test to mean anything"
    )
    expect(view.root.get_by_role("separator", name="Resize chat"), "the panel sets the height: no resize handle").to_have_count(0)

    resize_window(nb, 760)
    smaller = wait_fits(view, "after the window got shorter", first)
    assert smaller["panelHeight"] < first["panelHeight"], (first, smaller)
    resize_window(nb, 1200)
    larger = wait_fits(view, "after the window got taller", smaller)
    assert larger["chatHeight"] > smaller["chatHeight"] + 100, (smaller, larger)

    # The notebook's output takes its content's height: the chat there keeps its own.
    assert chat_height(cell) == pytest.approx(own, abs=1), "the chat in the cell changed its height"
    expect(cell.root.get_by_role("separator", name="Resize chat"), "the chat in the cell keeps its resize handle").to_have_count(
        1
    )
    cell.message_box.click()
    cell.send("help")
    cell.wait_idle()
    assert chat_height(cell) == pytest.approx(own, abs=1), "the chat in the cell grew with its transcript"


def test_a_chat_in_a_sidecar_fills_the_sidebar(lab):
    nb = lab.open([SIDECAR])
    resize_window(nb, 600)
    view = ChatView(nb, nb.page.locator(".jupyterlab-sidecar .agui-widget")).wait_ready()
    small = wait_fits(view, "in a sidecar in a 600 px window")
    resize_window(nb, 1000)
    wait_fits(view, "in a sidecar after the window got taller", small)


# -- Clear ----------------------------------------------------------------------------------------

START = (
    "from agui_widget import AgentChat\n\n"
    "chat = AgentChat(state={'plan': 'the first plan'}, suggestions=[{'title': 'Paris weather', 'message': 'weather in Paris'}])\n"
    "chat"
)


def test_clear_and_reset_state_with_the_keyboard_leaves_the_starters_the_first_state_and_the_focus_in_the_message_box(lab):
    nb = lab.open([START])
    chat = nb.chat()
    chat.send("suggest")
    chat.wait_idle()
    chips = chat.root.get_by_role("group", name="Suggestions")
    expect(chips.get_by_role("button", name="A chart"), "the agent's suggestions show below its answer").to_have_count(1)
    nb.run_cell("chat.update_state(plan='a later plan')")
    state = show_panel(chat, "state")
    expect(state).to_contain_text("a later plan")

    toggle = chat.button("Show state")
    toggle.focus()
    page = nb.page
    for _ in range(3):  # Show events, Show what the agent gets, Clear conversation
        page.keyboard.press("Tab")
    expect(chat.button("Clear conversation"), "Tab should reach Clear").to_be_focused()
    page.keyboard.press("Enter")
    confirm = chat.root.get_by_role("group", name="Clear the conversation?")
    expect(confirm).to_contain_text("The shared state is kept.")
    expect(confirm.get_by_role("button", name="Cancel"), "the confirmation starts on Cancel").to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(confirm.get_by_role("button", name="Clear and reset state")).to_be_focused()
    page.keyboard.press("Enter")

    expect(chat.user_bubbles, "the conversation should be cleared").to_have_count(0)
    expect(chips.get_by_role("button"), "only the chat's starters show after a clear").to_have_count(1)
    expect(chips.get_by_role("button", name="Paris weather")).to_have_count(1)
    expect(state, "the state panel shows the state the chat started with").to_contain_text("the first plan")
    expect(state).not_to_contain_text("a later plan")
    expect(chat.message_box, "the focus goes to the message box").to_be_focused()
    assert "the first plan" in nb.run_cell("print(chat.state)").text
