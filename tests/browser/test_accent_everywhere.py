"""What a browser tool changes in how the chat looks is the kernel's, so every view shows it.

The demo's ``set_accent_color`` ("make it teal") runs its handler in one page only (the kernel gives
the call to the first page that claims it), and the handler's ``ctx.setAccent`` asks the kernel to
keep the colour (``set_accent``, docs/wire.md): the same notebook open in a second tab takes the
colour too, and so does a page reloaded afterwards. A cell assigning ``chat.accent`` reaches every
tab the same way.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import kernel_json
from tests.browser.test_lab_views import COUNTED_ACCENT, QUICKSTART

pytestmark = pytest.mark.browser

ANSWER_TIMEOUT = 30_000  # ms: the run, the handler in one tab, and the follow-up run
COMPUTED_ACCENT = "el => getComputedStyle(el).getPropertyValue('--agui-accent').trim()"


def expect_accent(chat: ChatView, colour: str, where: str, timeout: float = ANSWER_TIMEOUT) -> None:
    """Waits until the chat's root computes ``--agui-accent`` as ``colour`` ("" for none)."""
    root = chat.root.element_handle()
    try:
        chat.notebook.page.wait_for_function(
            f"([el, want]) => ({COMPUTED_ACCENT})(el) === want", arg=[root, colour], timeout=timeout
        )
    except Exception as error:
        raise AssertionError(
            f"the {where} computes --agui-accent as {root.evaluate(COMPUTED_ACCENT)!r}, not {colour!r}"
        ) from error


def runs_in(nb: NotebookPage) -> int:
    return int(nb.page.evaluate("() => window.__accentRuns || 0"))


def test_make_it_teal_in_a_second_tab_colours_both_tabs_and_a_reload_keeps_it(lab):
    first = lab.open([QUICKSTART, COUNTED_ACCENT])
    first.save()
    second = lab.open([], name=first.name, run=False)
    chats = {"first tab": first.chat(), "second tab": second.chat()}
    for where, chat in chats.items():
        expect_accent(chat, "", where)

    chats["second tab"].send("make it teal")

    for where, chat in chats.items():
        text = chat.wait_answer("accent is now", timeout=ANSWER_TIMEOUT)
        assert "teal" in text, f"the {where}'s follow-up answer should name the colour: {text!r}"
        expect_accent(chat, "teal", where)
    total = runs_in(first) + runs_in(second)
    assert total == 1, f"the handler of set_accent_color ran {total} times across the two tabs; once is right"
    kernel = kernel_json(first, "{'tools': [m['content'] for m in chat.messages if m['role'] == 'tool'], 'accent': chat.accent}")
    assert [json.loads(t) for t in kernel["tools"]] == [{"ok": True, "color": "teal"}], (
        f"the kernel should hold one answer from the handler: {kernel['tools']}"
    )
    assert kernel["accent"] == "teal", f"the kernel keeps the accent: chat.accent is {kernel['accent']!r}"

    first.save()
    first.reload()
    expect_accent(first.chat(), "teal", "first tab after a reload")

    # A cell sets it for every tab as well.
    first.run_cell('chat.accent = "#e91e63"')
    expect_accent(first.chat(), "#e91e63", "first tab, after chat.accent was assigned")
    expect_accent(chats["second tab"], "#e91e63", "second tab, after chat.accent was assigned")
