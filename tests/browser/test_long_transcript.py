"""A 10,000-message transcript in a real JupyterLab, in Chromium: the view draws only the rows
near what is on screen (docs/architecture.md, "The transcript is windowed"), shows the right
messages at the top and in the middle, keeps the row under the view in place while rows above it
are drawn, still follows a reply streamed at the end, and Edit still finds the last message.

Waits are on conditions and bounded; nothing asserts how long anything took (that is
benchmarks/browser_latency.py, part c).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import ChatView
from tests.browser.test_layout_and_scrolling import jump, scroll_box, settle, settled_top, wheel_over

pytestmark = pytest.mark.browser

TURNS = 5000  # 10,000 messages

LONG = f'''\
import asyncio
from agui_widget import AgentChat


def transcript(turns):
    messages = []
    for i in range(turns):
        messages.append({{"id": f"u{{i}}", "role": "user", "content": f"Question {{i}}: what does step {{i}} do?"}})
        answer = f"Step **{{i}}** reads the `input` and passes it on."
        if i % 5 == 0:
            answer += "\\n\\n- reads the input\\n- checks it\\n- *emits* events"
        if i % 10 == 0:
            answer += f"\\n\\n```python\\nfor event in stream({{i}}):\\n    handle(event)\\n```"
        if i % 4 == 0:  # taller than its estimate: a displayed formula is a line of source
            answer += "\\n\\n$$\\\\sum_{{k=1}}^{{n}} \\\\frac{{k^2}}{{2^k}} = \\\\int_0^1 f(x)\\\\,dx$$"
        messages.append({{"id": f"a{{i}}", "role": "assistant", "content": answer}})
    return messages


async def reply(messages):
    """A reply streamed word by word."""
    words = f"You said {{messages[-1]['content']}}. This answer streams word by word and ends here.".split()
    for word in words:
        await asyncio.sleep(0.04)
        yield word + " "


chat = AgentChat(reply, messages=transcript({TURNS}))
chat'''

# The rows in the page, and those on screen (their keys and tops, relative to the box's top).
ROWS = r"""
(root) => {
  const box = root.querySelector(".agui-scroll");
  const b = box.getBoundingClientRect();
  const rows = [...root.querySelectorAll(".agui-transcript > [data-row]")];
  const visible = rows
    .map((r) => [r.dataset.row, r.getBoundingClientRect()])
    .filter(([, r]) => r.height > 0 && r.bottom > b.top + 1 && r.top < b.bottom - 1)
    .map(([key, r]) => [key, r.top - b.top, r.bottom - b.top]);
  return {
    drawn: rows.length,
    elements: root.querySelectorAll("*").length,
    visible,
    height: b.height,
    scrollTop: box.scrollTop,
    scrollHeight: box.scrollHeight,
  };
}
"""

# The rows drawn from the top of the transcript down to the first spacer (the rows kept further
# down, such as the last user message, are left out).
KEYS = r"""
(root) => {
  const keys = [];
  for (const el of root.querySelector(".agui-transcript").children) {
    if (el.classList.contains("agui-spacer")) break;
    if (el.dataset.row) keys.push(el.dataset.row);
  }
  return keys;
}
"""
FOCUSED_ROW = "() => document.activeElement?.closest('.agui-transcript > [data-row]')?.dataset.row ?? null"

# Notes every length the text of the newest answer went through.
STREAM = r"""
(root) => {
  const rec = { lengths: [] };
  const sample = () => {
    const rows = root.querySelectorAll(".agui-transcript > .agui-row-assistant");
    const text = rows[rows.length - 1]?.querySelector(".agui-text");
    const n = text ? text.textContent.length : 0;
    if (rec.lengths[rec.lengths.length - 1] !== n) rec.lengths.push(n);
  };
  rec.observer = new MutationObserver(sample);
  rec.observer.observe(root, { subtree: true, childList: true, characterData: true });
  return rec;
}
"""


def rows(chat: ChatView) -> dict[str, Any]:
    return chat.root.evaluate(ROWS)


def turn_of(key: str) -> int:
    match = re.fullmatch(r"[ua](\d+)", key)
    assert match, f"{key} is not a message of the transcript"
    return int(match.group(1))


def consecutive(keys: list[str]) -> bool:
    """The keys are messages of the transcript, one after the other (u3, a3, u4, ...)."""
    order = [2 * turn_of(k) + (k[0] == "a") for k in keys]
    return all(b == a + 1 for a, b in zip(order, order[1:]))


def covers(view: dict[str, Any]) -> bool:
    """The rows on screen fill the box from its top to its bottom, with no blank stretch (more
    than a row's gap, or the transcript's own padding at its ends)."""
    shown = view["visible"]
    if not shown:
        return False
    gaps = [b[1] - a[2] for a, b in zip(shown, shown[1:])]
    return shown[0][1] <= 16 and shown[-1][2] >= view["height"] - 16 and all(g < 30 for g in gaps)


def row(chat: ChatView, key: str) -> Locator:
    return chat.root.locator(f'.agui-transcript > [data-row="{key}"]')


def test_a_10000_message_transcript_draws_few_rows_scrolls_anywhere_and_still_follows_a_reply(lab):
    nb = lab.open([LONG])
    chat = nb.chat(timeout=60_000)
    page = nb.page
    box = scroll_box(chat)

    # At the end, the newest message on screen, and far fewer rows in the page than messages.
    expect(row(chat, f"a{TURNS - 1}"), "the newest message is drawn").to_be_visible(timeout=60_000)
    settle(page)
    view = rows(chat)
    assert view["drawn"] < 100, f"{view['drawn']} rows in the page for {2 * TURNS:,} messages"
    assert view["elements"] < 3000, f"{view['elements']} elements in the chat"
    assert view["visible"][-1][0] == f"a{TURNS - 1}", f"the last row on screen is {view['visible'][-1][0]}"
    assert covers(view), f"blank space in the view at the end: {view['visible']}"

    # Home in the focused transcript: the first messages, in order.
    chat.root.get_by_role("log", name="Conversation").focus()
    page.keyboard.press("Home")
    expect(jump(chat), "Home stops following the end").to_be_visible()
    expect(row(chat, "u0")).to_be_visible()
    settled_top(box)
    settle(page)
    view = rows(chat)
    assert view["scrollTop"] == 0, f"Home left the transcript {view['scrollTop']} px from its top"
    keys = [k for k, _, _ in view["visible"]]
    assert keys[:3] == ["u0", "a0", "u1"] and consecutive(keys), f"at the top the view shows {keys}"
    assert covers(view), f"blank space in the view at the top: {view['visible']}"
    assert rows(chat)["drawn"] < 100

    # Tab goes through the rows in order, on past the rows drawn at first.
    drawn_first = max(turn_of(k) for k in chat.root.evaluate(KEYS))
    focused = []
    for _ in range(80):
        page.keyboard.press("Tab")
        key = page.evaluate(FOCUSED_ROW)
        assert key is not None, f"Tab left the transcript after {focused[-3:]}"
        if not focused or focused[-1] != key:
            focused.append(key)
    order = [2 * turn_of(k) + (k[0] == "a") for k in focused]
    assert order == sorted(order), f"Tab went through the rows out of order: {focused}"
    assert turn_of(focused[-1]) > drawn_first + 5, (
        f"Tab stopped at {focused[-1]}; the rows first drawn went to turn {drawn_first}"
    )

    # The wheel to the middle: the messages there, one after the other, filling the view.
    wheel_over(page, box, rows(chat)["scrollHeight"] / 2)
    settled_top(box)
    settle(page)
    view = rows(chat)
    keys = [k for k, _, _ in view["visible"]]
    middle = turn_of(keys[0])
    assert 0.3 * TURNS < middle < 0.7 * TURNS, f"the middle of the transcript shows turn {middle} of {TURNS}"
    assert consecutive(keys), f"the middle shows {keys}"
    assert covers(view), f"blank space in the view in the middle: {view['visible']}"

    # Scrolling up draws rows above the view in place of their estimates: what is on screen
    # moves with the wheel and nothing else (the row at the top stays under the user's eyes).
    # (The offset itself may move a few pixels more: that is the anchoring.)
    for _ in range(3):
        first, top, _ = rows(chat)["visible"][0]
        wheel_over(page, box, -300)
        settled_top(box)
        settle(page)
        moved = next((t for k, t, _ in rows(chat)["visible"] if k == first), None)
        assert moved is not None, f"{first} left the view after a 300 px wheel turn"
        assert abs(moved - top - 300) <= 4, f"{first} moved {moved - top:.1f} px for a 300 px wheel turn"
        assert covers(rows(chat)), "blank space in the view while scrolling up"

    # Back to the end; a message sent there gets its reply streamed at the bottom.
    jump(chat).click()
    expect(jump(chat)).to_have_count(0)
    expect(row(chat, f"a{TURNS - 1}")).to_be_visible()
    streamed = chat.root.evaluate_handle(STREAM)
    chat.send("hello from the end")
    chat.wait_answer("ends here", timeout=60_000)
    lengths: list[int] = streamed.evaluate("r => { r.observer.disconnect(); return r.lengths; }")
    partial = {n for n in lengths[:-1] if 0 < n < lengths[-1]}
    assert len(partial) >= 2, f"the reply was not streamed: its text went through the lengths {lengths}"
    settle(page)
    view = rows(chat)
    keys = [k for k, _, _ in view["visible"]]
    last = chat.root.locator(".agui-transcript > [data-row]").last
    expect(last, "the reply is the last row").to_contain_text("ends here")
    assert last.get_attribute("data-row") == keys[-1], f"the reply is not at the bottom of the view: {keys}"
    assert view["scrollHeight"] - view["scrollTop"] - view["height"] <= 12, "the chat stopped following the end"
    assert view["drawn"] < 100, f"{view['drawn']} rows in the page after the reply"

    # Edit finds the last message even after a trip to the top, and its new answer is followed.
    chat.root.get_by_role("log", name="Conversation").focus()
    page.keyboard.press("Home")
    expect(row(chat, "u0")).to_be_visible()
    assert chat.user_bubbles.last.inner_text().strip() == "hello from the end", "the last user message left the page"
    jump(chat).click()
    expect(jump(chat)).to_have_count(0)
    chat.user_bubbles.last.hover()
    chat.root.locator(".agui-row-user[data-row]").last.get_by_role("button", name="Edit message", exact=True).click()
    editor = chat.root.get_by_role("textbox", name="Edited message", exact=True)
    editor.fill("hello again, edited")
    chat.root.get_by_role("button", name="Save and send", exact=True).click()
    chat.wait_answer("hello again, edited", timeout=60_000)
    settle(page)
    view = rows(chat)
    assert view["scrollHeight"] - view["scrollTop"] - view["height"] <= 12, "Save and send did not follow the new answer"
