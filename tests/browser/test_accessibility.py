"""WCAG 2.2 AA for the chat in a real JupyterLab, in Chromium, held by axe-core.

One notebook page per theme goes through six states of the demo agent's chat (empty; after
"help" and a tool card; an approval pending; the State and Events panels open; an error; an accent
set by a browser tool), and axe-core checks the chat's own element in each: every WCAG 2.0, 2.1
and 2.2 A/AA rule it knows must pass, colour contrast included (the test fails if axe did not
measure contrast at all). Axe does not look at focus: Send and Approve, focused from the keyboard,
must show a ring outside them that stands out from what surrounds them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import ChatView
from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, colours, contrast, set_lab_theme, show_panel

pytestmark = pytest.mark.browser

AXE_SCRIPT = Path(__file__).resolve().parents[2] / "js" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
MIN_RING_CONTRAST = 3.0  # WCAG 1.4.11: a focus ring against what surrounds it

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"

# JupyterLab's <body> is 0 px tall (its shell is positioned absolutely): axe would then treat
# every element as outside the page and skip the colour contrast it cannot sample.
MEASURABLE_PAGE = "html, body { min-height: 100vh !important; }"

# Colours are measured as they end, not halfway through a CSS transition (a new accent, a focus
# ring): the CSS transitions under way end first (they always end, unlike the spinners' animations).
TRANSITIONS_ENDED = """
(el, subtree) => Promise.all(
  el.getAnimations({ subtree }).filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => null)),
)
"""

RUN_AXE = """
async ([root, tags]) => {
  const result = await window.axe.run(root, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
  const found = result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary, html: n.html.slice(0, 160) })),
  }));
  // an element's contrast passed or failed: axe could sample the page's colours
  const measured = [...result.passes, ...result.violations].some((r) => r.id === "color-contrast");
  return { found, measured };
}
"""


def prepare_axe(page: Page) -> None:
    if not AXE_SCRIPT.exists():
        pytest.fail(f"no {AXE_SCRIPT}: install the JS dev dependencies (`cd js && npm ci`)", pytrace=False)
    page.add_script_tag(path=str(AXE_SCRIPT))
    page.add_style_tag(content=MEASURABLE_PAGE)
    expect(page.locator("body")).not_to_have_css("height", "0px")


def violations(chat: ChatView) -> list[dict[str, Any]]:
    """What axe-core finds wrong in the chat's element against WCAG 2.2 A and AA."""
    chat.root.evaluate(TRANSITIONS_ENDED, True)
    result = chat.root.page.evaluate(RUN_AXE, [chat.root.element_handle(), WCAG_TAGS])
    assert result["measured"], "axe measured no colour contrast in the chat: the page gives it nothing to sample"
    return result["found"]


def readable(state: str, found: list[dict[str, Any]]) -> str:
    counts = ", ".join(f"{v['id']} {len(v['nodes'])}" for v in found)
    lines = [f"{state}: {sum(len(v['nodes']) for v in found)} node(s) ({counts})"]
    for violation in found:
        lines.append(f"  {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            summary = re.sub(r"\s+", " ", node["summary"] or "").strip()
            lines.append(f"    {node['target']}\n      {summary}\n      {node['html']}")
    return "\n".join(lines)


# The focus ring of an element as painted: whether the browser shows focus there, the outline's
# style, width and offset, and its colour as RGB (a canvas resolves any colour syntax).
RING_JS = r"""
(el) => {
  const style = getComputedStyle(el);
  const ctx = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
  ctx.fillStyle = style.outlineColor;
  ctx.fillRect(0, 0, 1, 1);
  const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
  return {
    focusVisible: el.matches(":focus-visible"),
    style: style.outlineStyle,
    width: parseFloat(style.outlineWidth),
    offset: parseFloat(style.outlineOffset),
    color: [r, g, b],
    css: style.outlineColor,
  };
}
"""


def ring_problems(name: str, control: Locator) -> list[str]:
    """2.4.7: a control focused from the keyboard shows a ring, outside it, that stands out (3:1)
    from the background around it."""
    control.page.keyboard.press("Shift")  # the last input is the keyboard: focus shows as it would after Tab
    control.focus()
    control.evaluate(TRANSITIONS_ENDED, False)
    ring = control.evaluate(RING_JS)
    around = colours(control.locator("xpath=.."))["background"]
    problems = []
    if not ring["focusVisible"]:
        problems.append(f"{name}: the browser does not treat its focus as visible")
    if ring["style"] in ("none", "hidden") or ring["width"] < 2 or ring["offset"] < 0:
        problems.append(f"{name}: no ring outside the control ({ring})")
    if contrast(ring["color"], around) < MIN_RING_CONTRAST:
        ratio = contrast(ring["color"], around)
        problems.append(f"{name}: its ring {ring['css']} ({ring['color']}) is {ratio:.2f}:1 against {around}")
    control.blur()
    return problems


# -- the six states, reached in sequence -----------------------------------------------------------


def empty(chat: ChatView) -> None:
    expect(chat.root.locator(".agui-empty")).to_be_visible()


def help_and_tool_card(chat: ChatView) -> None:
    chat.send("help")
    chat.wait_answer("demo agent")
    chat.send("weather in Paris")
    chat.wait_answer("in Paris (made-up numbers")
    card = chat.tool_card("get_weather")
    card.locator("summary, [aria-expanded]").first.click()
    expect(card.get_by_text("Result", exact=True).first).to_be_visible()


def approval_pending(chat: ChatView) -> None:
    chat.send("add buy milk")
    chat.wait_answer("buy milk")
    chat.send("delete my list")
    expect(chat.button("Approve")).to_be_visible()


def panels_open(chat: ChatView) -> None:
    chat.button("Approve").click()
    chat.wait_answer("Approved")
    chat.notebook.run_cell('chat.state = {"todos": [{"text": "buy milk", "done": False}], "theme": {"dark": True, "size": 3}}')
    state = show_panel(chat, "state")
    expect(state.get_by_role("switch").first).to_be_visible()
    show_panel(chat, "events")


def error(chat: ChatView) -> None:
    chat.send("fail")
    expect(chat.error_line).to_contain_text("the demo agent failed on purpose")
    chat.wait_idle()


def accent_by_browser_tool(chat: ChatView) -> None:
    chat.send("make it orange")
    chat.wait_answer("the accent is now")
    expect(chat.root).to_have_attribute("style", re.compile(r"--agui-accent"))


STATES: list[tuple[str, Callable[[ChatView], None]]] = [
    ("empty", empty),
    ("help and a tool card", help_and_tool_card),
    ("an approval pending", approval_pending),
    ("the State and Events panels open", panels_open),
    ("an error", error),
    ("an accent set by a browser tool", accent_by_browser_tool),
]


# The controls whose focus ring is checked in a state (axe does not look at focus).
FOCUSED = {"empty": "Send", "an approval pending": "Approve"}


@pytest.mark.parametrize("theme", [LIGHT_THEME, DARK_THEME])
def test_the_chat_meets_wcag_22_aa_in_each_state(lab, theme: str):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    set_lab_theme(nb.page, theme)
    try:
        prepare_axe(nb.page)
        report = []
        for state, reach in STATES:
            reach(chat)
            found = violations(chat)
            if found:
                report.append(readable(state, found))
            focused = FOCUSED.get(state)
            if focused:
                report += ring_problems(focused, chat.button(focused))
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)
    assert not report, f"the chat is below WCAG 2.2 AA ({theme}):\n" + "\n".join(report)
