"""The chat's shell in a real JupyterLab, in Chromium: following the newest message, the event
inspector, the chat's height and resize handle, the State and Events panels beside the transcript,
wheel scrolling inside a notebook, the state panel's editors, the keyboard and the dark theme.

The scrolling tests slow the page's CPU down (Chrome DevTools' CPU throttling) because that is when
a reply that lands in large chunks races the chat's own scroll to the end. Waits are on conditions
and bounded; nothing asserts how long anything took.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, colours, contrast, set_lab_theme, show_panel, wait_in_kernel

pytestmark = pytest.mark.browser

# How far from its end (px) a scroll box may be and still count as at its end.
AT_END = 12
# Chromium keeps a mouse wheel's scrolling on the box it started on until the scroll the wheel
# started has ended (wheel latching); a test that changes direction, or expects the scroll to go to
# another box, waits for that end first (the page's scrollend after the last wheel event).
WATCH_WHEEL = r"""
() => {
  if (window.__aguiWheel) return;
  const seen = (window.__aguiWheel = { wheel: 0, ended: 0 });
  document.addEventListener("wheel", () => { seen.wheel = performance.now(); }, { capture: true, passive: true });
  document.addEventListener("scrollend", () => { seen.ended = performance.now(); }, { capture: true });
}
"""
LATCH_WAIT_MS = 10_000

CHUNKY = '''\
import asyncio
from agui_widget import AgentChat

replies = []


def paragraphs(turn, start, count):
    return "".join(
        f"Reply {turn}, paragraph {i}: " + "lorem ipsum dolor sit amet " * 8 + "\\n\\n"
        for i in range(start, start + count)
    )


async def chunky(messages):
    """Long replies that land in large chunks: odd ones whole, even ones in six big parts."""
    replies.append(messages[-1]["content"])
    turn = len(replies)
    if turn % 2:
        yield paragraphs(turn, 0, 14) + f"End of reply {turn}."
        return
    for part in range(6):
        await asyncio.sleep(0.04 * (1 + part % 3))
        yield paragraphs(turn, part * 3, 3)
    yield f"End of reply {turn}."
'''


def chunky_chat(options: str = "") -> str:
    return CHUNKY + f"\n\nchat = AgentChat(chunky{', ' + options if options else ''})\nchat"


# Counts the times a "Jump to latest" button came into the chat, from now on.
WATCH_JUMPS = r"""
(root) => {
  const seen = { count: 0, shown: false };
  const look = () => {
    const shown = [...root.querySelectorAll("button")].some((b) => /Jump to latest/.test(b.textContent || ""));
    if (shown && !seen.shown) seen.count++;
    seen.shown = shown;
  };
  new MutationObserver(look).observe(root, { childList: true, subtree: true });
  return seen;
}
"""

# Where the transcript is: its distance from its end, and the newest row against the box.
NEWEST = r"""
(root) => {
  const box = root.querySelector(".agui-scroll");
  const rows = root.querySelectorAll(".agui-transcript .agui-row");
  const last = rows[rows.length - 1];
  const b = box.getBoundingClientRect();
  const r = last ? last.getBoundingClientRect() : b;
  return {
    distance: box.scrollHeight - box.scrollTop - box.clientHeight,
    overflows: box.scrollHeight > box.clientHeight + 1,
    newestBottom: r.bottom, boxTop: b.top, boxBottom: b.bottom,
  };
}
"""

DISTANCE = "(box) => box.scrollHeight - box.scrollTop - box.clientHeight"

# The nearest ancestor of the chat that scrolls: the notebook's own scroller.
NOTEBOOK_SCROLLER = r"""
(root) => {
  for (let el = root.parentElement; el; el = el.parentElement) {
    const y = getComputedStyle(el).overflowY;
    if ((y === "auto" || y === "scroll") && el.scrollHeight > el.clientHeight) {
      el.setAttribute("data-test-notebook-scroller", "");
      return true;
    }
  }
  return false;
}
"""


def throttle(nb: NotebookPage, rate: float = 4) -> None:
    """Slows the page's CPU down `rate` times (Chrome DevTools' CPU throttling)."""
    nb.page.context.new_cdp_session(nb.page).send("Emulation.setCPUThrottlingRate", {"rate": rate})


def settle(page: Page) -> None:
    """Two frames painted, and the tasks queued meanwhile run (a scroll event is sent per frame)."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))))")


def scroll_box(chat: ChatView) -> Locator:
    return chat.root.locator(".agui-scroll")


def jump(chat: ChatView) -> Locator:
    return chat.root.get_by_role("button", name="Jump to latest")


def settled_top(box: Locator, timeout: float = 10.0) -> float:
    """The box's scrollTop once a smooth scroll has come to rest."""
    return box.evaluate(
        """(box, timeout) => new Promise((resolve) => {
            const end = performance.now() + timeout * 1000;
            let last = box.scrollTop;
            const check = () => {
              const top = box.scrollTop;
              if (top === last || performance.now() > end) resolve(top);
              else { last = top; setTimeout(check, 150); }
            };
            setTimeout(check, 150);
        })""",
        timeout,
    )


def watch_wheel(page: Page) -> None:
    """Notes, from now on, the page's last wheel event and the last end of a scroll (any box's)."""
    page.evaluate(WATCH_WHEEL)


def wheel_latch_over(page: Page) -> None:
    """Waits until the scroll the last wheel turn started has ended (none yet: at once), so the
    next wheel turn goes to the box under the pointer that can scroll that way."""
    page.wait_for_function(
        "() => { const s = window.__aguiWheel; return s.wheel === 0 || s.ended > s.wheel; }", timeout=LATCH_WAIT_MS
    )


def wheel_over(page: Page, target: Locator, dy: float) -> None:
    """A real mouse wheel turn over the middle of `target`."""
    box = target.bounding_box()
    assert box is not None, "the element to scroll is not on screen"
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, dy)


def assert_newest_in_view(chat: ChatView, when: str) -> None:
    view = chat.root.evaluate(NEWEST)
    assert view["overflows"], f"{when}: the transcript should be longer than its box for this test to mean anything"
    assert view["distance"] <= AT_END, f"{when}: the transcript stopped following: it is {view['distance']:.0f} px above its end"
    assert view["boxTop"] < view["newestBottom"] <= view["boxBottom"] + 1, f"{when}: the newest message is out of sight: {view}"


def height_of(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None
    return box["height"]


def chat_box(chat: ChatView) -> Locator:
    return chat.root.locator(".agui-chat").first


def wait_height(chat: ChatView, expected: float, tolerance: float = 2, what: str = "") -> None:
    try:
        chat_box(chat).evaluate(
            """(el, [expected, tolerance]) => new Promise((resolve, reject) => {
                const end = performance.now() + 10000;
                const check = () => {
                  const h = el.getBoundingClientRect().height;
                  if (Math.abs(h - expected) <= tolerance) resolve(h);
                  else if (performance.now() > end) reject(new Error("height " + h));
                  else requestAnimationFrame(check);
                };
                check();
            })""",
            [expected, tolerance],
        )
    except Exception as error:
        raise AssertionError(
            f"{what}: the chat should be {expected:.0f} px tall; it is {height_of(chat_box(chat)):.0f} px"
        ) from error


def inside(inner: dict[str, float] | None, outer: dict[str, float] | None, slack: float = 1) -> bool:
    assert inner is not None and outer is not None
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


# -- 1. following the newest message --------------------------------------------------------------


def test_transcript_keeps_following_replies_that_land_in_large_chunks_until_the_user_scrolls(lab):
    nb = lab.open([chunky_chat()])
    chat = nb.chat()
    jumps = chat.root.evaluate_handle(WATCH_JUMPS)
    throttle(nb)

    for turn in range(1, 7):
        chat.send(f"message {turn}")
        chat.wait_answer(f"End of reply {turn}")
        settle(nb.page)
        assert_newest_in_view(chat, f"after reply {turn}")
        shown: Any = jumps.evaluate("s => s.count")
        assert shown == 0, f"'Jump to latest' appeared {shown} time(s) by reply {turn}, though the user never scrolled"

    # The user's own wheel turn up stops the following and offers the way back.
    box = scroll_box(chat)
    wheel_over(nb.page, box, -400)
    expect(jump(chat), "a wheel turn up should stop following and show 'Jump to latest'").to_be_visible()
    top = settled_top(box)
    assert box.evaluate(DISTANCE) > AT_END, "the wheel turn should have scrolled the transcript up"

    # A reply started elsewhere (a cell) grows the transcript: the view stays where the user is.
    nb.run_cell("await chat.send('from a cell')")
    expect(chat.assistant_texts.last).to_contain_text("End of reply 7")
    settle(nb.page)
    assert abs(box.evaluate("b => b.scrollTop") - top) <= 2, "the transcript moved under a user who had scrolled up"
    expect(jump(chat), "'Jump to latest' stays while the user is away from the end").to_be_visible()

    jump(chat).click()
    expect(jump(chat), "'Jump to latest' goes once clicked").to_have_count(0)
    settle(nb.page)
    assert_newest_in_view(chat, "after 'Jump to latest'")

    # The keyboard is the user too: Home in the focused transcript stops the following.
    log = chat.root.get_by_role("log", name="Conversation")
    log.focus()
    nb.page.keyboard.press("Home")
    expect(jump(chat), "Home in the transcript should stop following").to_be_visible()


def test_edit_and_send_follows_the_new_answer_when_the_edited_message_sits_above_a_long_answer(lab):
    nb = lab.open([chunky_chat()])
    chat = nb.chat()
    chat.send("first")
    chat.wait_answer("End of reply 1")
    chat.send("second")
    chat.wait_answer("End of reply 2")

    # The user scrolls up to their last message, above its long answer.
    box = scroll_box(chat)
    edited = chat.user_bubbles.last
    for _ in range(40):
        top = edited.bounding_box()
        frame = box.bounding_box()
        assert top is not None and frame is not None
        if top["y"] >= frame["y"]:
            break
        wheel_over(nb.page, box, -250)
        settled_top(box)
    else:
        raise AssertionError("the wheel never brought the last user message into view")
    expect(jump(chat), "scrolled up, the chat offers 'Jump to latest'").to_be_visible()

    throttle(nb)
    edited.hover()
    chat.root.locator(".agui-row-user[data-row]").last.get_by_role("button", name="Edit message", exact=True).click()
    editor = chat.root.get_by_role("textbox", name="Edited message", exact=True)
    editor.fill("second, edited")
    chat.root.get_by_role("button", name="Save and send", exact=True).click()

    chat.wait_answer("End of reply 3")
    settle(nb.page)
    assert_newest_in_view(chat, "after Edit's 'Save and send'")
    expect(jump(chat), "after Save and send the chat follows the new answer").to_have_count(0)


# -- 2. the event inspector -----------------------------------------------------------------------

TICKER = '''\
import asyncio
from agui_widget import AgentChat


async def ticker(messages):
    """Many small deltas over a few seconds: many rows in the event inspector."""
    for i in range(70):
        await asyncio.sleep(0.03)
        yield f"tick {i} "


chat = AgentChat(ticker)
chat'''


def test_events_panel_follows_new_events_while_a_run_streams_until_the_user_scrolls(lab):
    nb = lab.open([TICKER])
    chat = nb.chat()
    panel = show_panel(chat, "events")
    body = panel.locator(".agui-panel-body")
    throttle(nb)

    chat.send("go")
    chat.wait_answer("tick 69")
    expect(panel.locator("li.agui-event").last).to_have_attribute("data-type", "RUN_FINISHED")
    settle(nb.page)
    view = body.evaluate(
        """(body) => { const last = body.querySelector("li.agui-event:last-child").getBoundingClientRect();
            const b = body.getBoundingClientRect();
            return { distance: body.scrollHeight - body.scrollTop - body.clientHeight,
                     overflows: body.scrollHeight > body.clientHeight + 1, last: last.bottom, top: b.top, bottom: b.bottom }; }"""
    )
    assert view["overflows"], f"the event list should be longer than its panel for this test to mean anything: {view}"
    assert view["distance"] <= AT_END, f"the Events panel stopped following: {view['distance']:.0f} px above its end"
    assert view["top"] < view["last"] <= view["bottom"] + 1, f"the newest event is out of sight: {view}"

    # The user's wheel turn up in the panel stops its following, as in the transcript.
    wheel_over(nb.page, body, -300)
    top = settled_top(body)
    assert body.evaluate(DISTANCE) > AT_END, "the wheel turn should have scrolled the event list up"
    nb.run_cell("await chat.send('again')")
    expect(panel.locator("li.agui-event").last).to_have_attribute("data-type", "RUN_FINISHED")
    settle(nb.page)
    assert abs(body.evaluate("b => b.scrollTop") - top) <= 2, "the event list moved under a user who had scrolled up"


FAILING = """\
from agui_widget import AgentChat


def sometimes(messages):
    if messages[-1]["content"] == "fail":
        raise RuntimeError("failed on purpose")
    return "fine"


chat = AgentChat(sometimes)
chat"""


def test_events_panel_shows_run_error_as_an_error_not_as_a_finished_run(lab):
    nb = lab.open([FAILING])
    chat = nb.chat()
    chat.send("hello")
    chat.wait_answer("fine")
    chat.send("fail")
    expect(chat.error_line, "the run's error should show").to_contain_text("failed on purpose")
    chat.wait_idle()

    panel = show_panel(chat, "events")
    expect(panel.locator("li.agui-event[data-type=RUN_ERROR]")).to_have_count(1)
    # The error's text in the transcript is in the theme's error colour (made readable on its
    # background, as every state colour is); RUN_ERROR in the panel must read the same.
    error_text = chat.error_line.locator(".agui-error-text")
    seen = panel.evaluate(
        """(panel, errorText) => {
            const colour = (type) => getComputedStyle(panel.querySelector(`li.agui-event[data-type=${type}] .agui-event-type`)).color;
            return { runError: colour("RUN_ERROR"), runFinished: colour("RUN_FINISHED"), error: getComputedStyle(errorText).color };
        }""",
        error_text.element_handle(),
    )
    assert seen["runError"] != seen["runFinished"], f"RUN_ERROR is coloured like RUN_FINISHED: {seen}"
    assert seen["runError"] == seen["error"], f"RUN_ERROR should have the theme's error colour: {seen}"


# -- 3. the chat's height, its panels, its resize handle ------------------------------------------


def _check_panels_share_the_height(chat: ChatView, where: str) -> None:
    shell = chat_box(chat)
    before = shell.bounding_box()
    composer_before = chat.message_box.bounding_box()
    assert before is not None and composer_before is not None
    state = show_panel(chat, "state")
    events = show_panel(chat, "events")
    after = shell.bounding_box()
    assert after is not None
    assert abs(after["height"] - before["height"]) <= 1, (
        f"{where}: opening the panels changed the chat's height from {before['height']:.0f} to {after['height']:.0f} px"
    )
    for name, part in (("the message box", chat.message_box), ("Send", chat.send_button), ("the State panel", state),
                       ("the Events panel", events), ("the transcript", scroll_box(chat))):  # fmt: skip
        assert inside(part.bounding_box(), after), f"{where}: {name} sticks out of the chat with the panels open"
    composer_after = chat.message_box.bounding_box()
    assert composer_after is not None
    # (relative to the chat: the notebook may scroll to show the toolbar's buttons)
    moved = (composer_after["y"] - after["y"]) - (composer_before["y"] - before["y"])
    assert abs(moved) <= 1, f"{where}: the message box moved {moved:.0f} px in the chat when the panels opened"
    assert height_of(scroll_box(chat)) >= 40, f"{where}: the transcript has no room left with the panels open"
    # Closed again, for the next layout.
    chat.button("Show state").click()
    chat.button("Show events").click()
    expect(state).to_have_count(0)
    expect(events).to_have_count(0)


def test_chat_fits_a_laptop_screen_and_its_panels_share_its_height(lab):
    nb = lab.open([chunky_chat("state={f'key{i}': i for i in range(80)}")])
    nb.page.set_viewport_size({"width": 1366, "height": 768})
    chat = nb.chat()
    chat.send("one")
    chat.wait_answer("End of reply 1")

    assert chat.root.evaluate(NOTEBOOK_SCROLLER), "no scrolling notebook around the chat"
    visible = nb.page.locator("[data-test-notebook-scroller]").evaluate("el => el.clientHeight")
    assert height_of(chat_box(chat)) <= visible, (
        f"the chat ({height_of(chat_box(chat)):.0f} px) is taller than the notebook's visible area ({visible} px)"
    )
    _check_panels_share_the_height(chat, "wide")
    expect(chat_box(chat), "a wide chat puts the panels beside the transcript").to_have_attribute("data-layout", "wide")

    nb.page.set_viewport_size({"width": 700, "height": 768})
    expect(chat_box(chat), "a narrow chat puts the panels above the transcript").to_have_attribute("data-layout", "narrow")
    _check_panels_share_the_height(chat, "narrow")


def test_height_trait_and_the_resize_handle_set_the_chat_height(lab):
    nb = lab.open([chunky_chat("height=420")])
    chat = nb.chat()
    wait_height(chat, 420, what="AgentChat(height=420)")

    nb.run_cell('chat.height = "50vh"')
    viewport = nb.page.viewport_size
    assert viewport is not None
    wait_height(chat, viewport["height"] / 2, what='chat.height = "50vh"')

    handle = chat.root.get_by_role("separator", name="Resize chat", exact=True)
    start = height_of(chat_box(chat))
    grip = handle.bounding_box()
    assert grip is not None
    x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
    nb.page.mouse.move(x, y)
    nb.page.mouse.down()
    nb.page.mouse.move(x, y + 60, steps=3)
    nb.page.mouse.move(x, y + 120, steps=3)
    nb.page.mouse.up()
    wait_height(chat, start + 120, tolerance=3, what="dragging the resize handle 120 px down")

    # The keyboard reaches the handle right after Send, shows where the focus is, and resizes.
    chat.send_button.focus()
    nb.page.keyboard.press("Tab")
    expect(handle, "Tab from Send should reach the resize handle").to_be_focused()
    outline = handle.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none", "the focused resize handle shows no focus outline"
    dragged = height_of(chat_box(chat))
    nb.page.keyboard.press("ArrowUp")
    wait_height(chat, dragged - 24, what="ArrowUp on the resize handle")
    # The ResizeObserver reports the new height a frame after the layout, so wait for it.
    expect(handle, "aria-valuenow should follow the height").to_have_attribute("aria-valuenow", str(round(dragged - 24)))

    # A new height from the kernel replaces the dragged one.
    nb.run_cell('chat.height = "380px"')
    wait_height(chat, 380, what='chat.height = "380px" after a drag')


# -- 4. wheel scrolling inside the notebook, and the floating "Jump to latest" --------------------

LINES = "print('\\n'.join(f'line {i}' for i in range(60)))"


def test_wheel_scrolls_the_notebook_at_the_transcripts_ends_and_the_transcript_in_between(lab):
    nb = lab.open([LINES, chunky_chat(), LINES])
    chat = nb.chat()
    chat.send("one")
    chat.wait_answer("End of reply 1")
    page = nb.page
    assert chat.root.evaluate(NOTEBOOK_SCROLLER), "no scrolling notebook around the chat"
    notebook = page.locator("[data-test-notebook-scroller]")
    chat.root.evaluate("el => el.scrollIntoView({block: 'center'})")
    box = scroll_box(chat)
    settled_top(notebook)
    frame_before = box.bounding_box()
    assert box.evaluate(DISTANCE) <= AT_END, "the transcript should start at its end"
    watch_wheel(page)

    # At its end, a wheel turn down scrolls the notebook, not the transcript.
    wheel_latch_over(page)
    transcript_top = box.evaluate("b => b.scrollTop")
    notebook_top = notebook.evaluate("el => el.scrollTop")
    wheel_over(page, box, 200)
    page.wait_for_function("([el, top]) => el.scrollTop > top", arg=[notebook.element_handle(), notebook_top], timeout=10_000)
    assert box.evaluate("b => b.scrollTop") == transcript_top, "the transcript scrolled past its end"

    # In between, a wheel turn up scrolls the transcript, not the notebook.
    wheel_latch_over(page)
    notebook_top = settled_top(notebook)
    wheel_over(page, box, -200)
    page.wait_for_function("([el, top]) => el.scrollTop < top - 20", arg=[box.element_handle(), transcript_top], timeout=10_000)
    settled_top(box)
    assert notebook.evaluate("el => el.scrollTop") == notebook_top, "the notebook scrolled while the transcript could"

    # "Jump to latest" floats over the transcript: the transcript keeps its size.
    expect(jump(chat)).to_be_visible()
    frame = box.bounding_box()
    assert frame is not None and frame_before is not None
    assert abs(frame["height"] - frame_before["height"]) <= 1, "showing 'Jump to latest' changed the transcript's height"
    assert inside(jump(chat).bounding_box(), frame), "'Jump to latest' should sit over the transcript"

    # At its top, a wheel turn up scrolls the notebook again.
    for _ in range(40):
        if box.evaluate("b => b.scrollTop") <= 0:
            break
        wheel_over(page, box, -600)
        settled_top(box)
    assert box.evaluate("b => b.scrollTop") <= 0, "the wheel never brought the transcript to its top"
    wheel_latch_over(page)
    notebook_top = settled_top(notebook)
    wheel_over(page, box, -200)
    page.wait_for_function("([el, top]) => el.scrollTop < top", arg=[notebook.element_handle(), notebook_top], timeout=10_000)


# -- 5. the state panel's editors -----------------------------------------------------------------


def test_state_panel_edits_a_boolean_with_a_switch_and_a_number_with_a_number_box(lab):
    nb = lab.open(
        ["from agui_widget import AgentChat\n\nchat = AgentChat(state={'done': True, 'count': 3, 'name': 'Ada'})\nchat"]
    )
    chat = nb.chat()
    panel = show_panel(chat, "state")

    switch = panel.get_by_role("switch", name="done", exact=True)
    expect(switch, "a boolean is a switch, on for true").to_be_checked()
    switch.click()
    wait_in_kernel(nb, "chat.state['done'] is False", show="chat.state")
    expect(switch).not_to_be_checked()
    switch.focus()
    nb.page.keyboard.press("Space")
    wait_in_kernel(nb, "chat.state['done'] is True", show="chat.state")
    expect(switch).to_be_checked()
    nb.run_cell("chat.state = {**chat.state, 'done': False}")
    expect(switch, "the switch shows a value a cell assigned").not_to_be_checked()

    panel.get_by_role("button", name="Edit count:").click()
    number = panel.get_by_role("spinbutton", name="New value for count", exact=True)
    expect(number, "a number is edited in a number box").to_be_focused()
    expect(number).to_have_value("3")
    number.fill("7.5")
    number.press("Enter")
    expect(panel.get_by_role("button", name="Edit count:")).to_have_text("7.5")
    wait_in_kernel(nb, "chat.state['count'] == 7.5 and isinstance(chat.state['count'], float)", show="chat.state")

    panel.get_by_role("button", name="Edit name:").click()
    text = panel.get_by_role("textbox", name="New value for name", exact=True)
    expect(text, "a string keeps its text box").to_have_value("Ada")
    text.fill("Grace")
    text.press("Enter")
    wait_in_kernel(nb, "chat.state == {'done': False, 'count': 7.5, 'name': 'Grace'}", show="chat.state")


# -- 6. the dark theme ----------------------------------------------------------------------------


def test_shell_follows_the_dark_theme(lab):
    nb = lab.open([chunky_chat()])
    chat = nb.chat()
    chat.send("one")
    chat.wait_answer("End of reply 1")
    panel = show_panel(chat, "events")
    wheel_over(nb.page, scroll_box(chat), -300)
    expect(jump(chat)).to_be_visible()
    handle = chat.root.get_by_role("separator", name="Resize chat", exact=True)
    grip = "el => getComputedStyle(el, '::after').backgroundColor"

    parts = {"Jump to latest": jump(chat), "the Events panel's title": panel.locator(".agui-panel-title")}
    light = {name: colours(part) for name, part in parts.items()}
    light_grip = handle.evaluate(grip)
    try:
        set_lab_theme(nb.page, DARK_THEME)
        expect(jump(chat)).not_to_have_css("background-color", str(light["Jump to latest"]["cssBackground"]))
        dark = {name: colours(part) for name, part in parts.items()}
        dark_grip = handle.evaluate(grip)
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)

    problems = []
    for name in parts:
        for theme, seen in (("light", light[name]), ("dark", dark[name])):
            ratio = contrast(seen["text"], seen["background"])  # type: ignore[arg-type]
            if ratio < 4.5:
                problems.append(f"{name} ({theme}): contrast {ratio:.2f}")
        if dark[name]["background"] == light[name]["background"]:
            problems.append(f"{name}: the background did not follow the theme ({json.dumps(dark[name]['background'])})")
    if dark_grip == light_grip:
        problems.append(f"the resize handle's grip did not follow the theme ({dark_grip})")
    assert not problems, "the shell does not follow the dark theme:\n" + "\n".join(problems)
