"""Small things of the chat in a real JupyterLab, in Chromium: an attached image shows its file name
and opens full size in a modal dialog (Escape closes it, focus goes back to the thumbnail); a text
file's chip names its kind the same before and after sending; the Events panel's run picker names
runs by what the user asked; and at 700 px wide with the State panel open, an approval's card shows
its head, its question and its Approve button, none of them under the panel.

The demo agent answers (agui_widget/adapters/_demo.py).
"""

from __future__ import annotations

import contextlib
import re

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.helpers_ui import show_panel
from tests.browser.test_attachments import CHAT, GIVE_FILES, file_spec
from tests.browser.test_tool_cards import FOLLOW_UP_TIMEOUT
from tests.support import png

pytestmark = pytest.mark.browser

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"
UI_WAIT = 20_000  # ms


def test_an_attached_image_shows_its_name_and_opens_full_size(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()
    composer = chat.root.locator(".agui-composer")
    chat.message_box.evaluate(GIVE_FILES, ["paste", [file_spec("sunset.png", "image/png", png(300, 200, b"\xd0\x60\x30"))]])
    composer.evaluate(GIVE_FILES, ["drop", [file_spec("notes.txt", "text/plain", b"buy milk\n")]])
    held = chat.root.get_by_role("list", name="Attached to the next message")
    expect(held.locator(".agui-thumb-name"), "the image's name, before sending").to_have_text("sunset.png")
    expect(held.locator(".agui-file-kind"), "a text file's kind, before sending").to_have_text("text")

    chat.send("look at this")
    chat.wait_answer("You sent me 2 attachments", timeout=FOLLOW_UP_TIMEOUT)
    sent = chat.root.locator(".agui-bubble-user").get_by_role("list", name="Attachments")
    expect(sent.locator(".agui-thumb-name"), "the image's name, once sent").to_have_text("sunset.png")
    expect(sent.locator(".agui-file-kind"), "the text file's kind, once sent: the same").to_have_text("text")

    thumbnail = sent.get_by_role("button", name="sunset.png", exact=True)
    expect(thumbnail.get_by_role("img", name="sunset.png")).to_be_visible()
    thumbnail.click()
    viewer = chat.root.get_by_role("dialog", name="sunset.png")
    expect(viewer, "a click on the thumbnail opens the image").to_be_visible(timeout=UI_WAIT)
    expect(viewer).to_have_attribute("aria-modal", "true")
    big = viewer.get_by_role("img", name="sunset.png")
    expect(big).to_be_visible()
    assert big.evaluate("img => img.naturalWidth") == 300, "the dialog shows the image itself"
    box = big.bounding_box()
    assert box is not None and box["width"] >= 299, f"shown full size: {box}"
    expect(viewer.get_by_role("button", name="Close", exact=True), "focus goes to Close").to_be_focused()

    nb.page.keyboard.press("Escape")
    expect(viewer, "Escape closes it").to_have_count(0, timeout=UI_WAIT)
    expect(thumbnail, "focus is back on the thumbnail").to_be_focused()

    # From the keyboard: Enter on the focused thumbnail opens it again.
    nb.page.keyboard.press("Enter")
    expect(viewer).to_be_visible(timeout=UI_WAIT)
    viewer.get_by_role("button", name="Close", exact=True).click()
    expect(viewer).to_have_count(0, timeout=UI_WAIT)
    expect(thumbnail).to_be_focused()


def test_the_run_picker_names_runs_by_what_the_user_asked(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("weather in Paris")
    chat.wait_answer("in Paris (made-up numbers")
    chat.send("hello there")
    chat.wait_answer("“hello there”")

    panel = show_panel(chat, "events")
    picker = panel.get_by_role("combobox", name="Filter events by run")
    options = picker.locator("option")
    expect(options, "All runs, then one option per run").to_have_count(3, timeout=UI_WAIT)
    clock = r" · \d\d:\d\d:\d\d( [AP]M)?$"
    expect(options).to_have_text(["All runs", re.compile("^“weather in Paris”" + clock), re.compile("^“hello there”" + clock)])
    titles = options.evaluate_all("els => els.slice(1).map((o) => o.title)")
    assert all(re.fullmatch(r"run \S+", title) for title in titles), f"each option keeps its run's id: {titles}"


# Whether the centre of each element shows that element (not something over it), and what is there.
HIT_TEST = """
(els) => els.map((el) => {
  const r = el.getBoundingClientRect();
  const hit = el.ownerDocument.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  const where = hit ? (hit.closest("[aria-label]")?.getAttribute("aria-label") ?? hit.className) : "nothing";
  return { shown: !!hit && el.contains(hit), where, top: Math.round(r.top), height: Math.round(r.height) };
})
"""


def assert_uncovered(page: Page, parts: dict[str, Locator], timeout: float = UI_WAIT) -> None:
    """Waits until the centre of every part shows the part itself; fails saying what covers which."""
    handles = [part.element_handle() for part in parts.values()]
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(f"els => ({HIT_TEST})(els).every((seen) => seen.shown)", arg=handles, timeout=timeout, polling=100)
    seen = dict(zip(parts, page.evaluate(HIT_TEST, handles), strict=True))
    covered = {name: found for name, found in seen.items() if not found["shown"]}
    assert not covered, f"covered: {covered}"


def test_at_700_px_with_the_state_panel_open_an_approval_is_not_under_the_panel(lab):
    nb = lab.open([QUICKSTART])
    nb.page.set_viewport_size({"width": 700, "height": 768})
    chat = nb.chat()
    items = ", ".join(f'{{"text": "errand {i}", "done": False}}' for i in range(6))
    nb.run_cell(f'chat.state = {{"todos": [{items}]}}')
    expect(chat.root.locator(".agui-shell"), "a narrow chat").to_have_attribute("data-layout", "narrow", timeout=UI_WAIT)
    show_panel(chat, "state")

    chat.send("delete my list")
    card = chat.tool_card("delete_todos")
    region = card.get_by_role("region", name="Waiting for you: delete_todos")
    approve = region.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible(timeout=FOLLOW_UP_TIMEOUT)
    parts = {
        "the card's head": card.locator(".agui-tool-head"),
        "the question": region.locator(".agui-card-title"),
        "the Approve button": approve,
    }
    for name, part in parts.items():
        expect(part, f"{name} is in the viewport").to_be_in_viewport(timeout=UI_WAIT)
    assert_uncovered(nb.page, parts)

    approve.click()
    chat.wait_answer("Approved", timeout=FOLLOW_UP_TIMEOUT)
