"""MCP Apps in a real JupyterLab, in Chromium, with the demo MCP server over stdio.

The demo agent calls the server's `counter` tool; its card shows the counter app (built with the
official `App` class of `@modelcontextprotocol/ext-apps`) in a sandboxed iframe. Data goes in (the
app shows the count of the tool's result) and calls come back (its "+1" button calls the server's
app-only `increment` through the kernel, which asks the user first, as `approve=` says, and the app
shows the new count). The frame cannot reach the page nor the network, follows the height the app
asks for, and follows the notebook's theme.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Frame, Locator, expect

from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, set_lab_theme

pytestmark = pytest.mark.browser

CHAT = """
from agui_widget import AgentChat, DemoAgent, mcp_tools
from agui_widget.teaching.mcp_demo import COMMAND

chat = AgentChat(DemoAgent(), tools=mcp_tools(COMMAND, approve=["increment"]))
chat
"""

APP_TIMEOUT = 30_000  # ms: the server starts, the kernel reads the app, the app connects


def test_the_counter_app_shows_the_tools_count_and_its_button_calls_the_server_through_the_kernel(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()

    chat.send('call counter {"start": 2}')
    card = chat.tool_card("counter")
    frame_box = card.locator("iframe.agui-mcp-app-frame")
    expect(frame_box, "the counter's card shows its app").to_have_count(1, timeout=APP_TIMEOUT)
    expect(frame_box, "the app runs with scripts alone: an opaque origin").to_have_attribute("sandbox", "allow-scripts")
    app = frame_box.content_frame
    expect(app.locator("#count"), "data in: the app shows the count of the tool's result").to_have_text("2", timeout=APP_TIMEOUT)
    chat.wait_idle()

    # Calls back: +1 calls `increment`, which the server's approve policy asks about.
    app.get_by_role("button", name="+1").click()
    question = card.get_by_role("group", name="The app asks to run increment")
    expect(question, "the card asks before the kernel runs the app's call").to_be_visible()
    question.get_by_role("button", name="Deny").click()
    expect(app.locator("#status"), "a denied call fails in the app").to_contain_text("The user denied increment")
    expect(app.locator("#count")).to_have_text("2")

    app.get_by_role("button", name="+1").click()
    card.get_by_role("group", name="The app asks to run increment").get_by_role("button", name="Approve").click()
    expect(app.locator("#count"), "the server's new count, shown by the app").to_have_text("3")
    expect(question).to_have_count(0)

    frame = _frame_of(frame_box)
    _check_sandboxed(frame, nb.session.server.base_url)
    _check_sized(frame_box, frame)
    _check_themed(nb.page, frame)


def _frame_of(frame_box: Locator) -> Frame:
    handle = frame_box.element_handle()
    frame = handle.content_frame() if handle else None
    assert frame is not None, "the app's iframe has no document"
    return frame


def _check_sandboxed(frame: Frame, server: str) -> None:
    """The app cannot reach the page, and its CSP keeps it off the network (the Jupyter server too)."""
    assert frame.evaluate("() => window.origin") == "null", "the app's origin is opaque"
    parent = frame.evaluate(
        "() => { try { return String(window.parent.document.title); } catch (e) { return 'refused: ' + e.name; } }"
    )
    assert parent == "refused: SecurityError", f"the app read the page: {parent}"
    first = frame.evaluate("() => { const m = document.head.firstElementChild; return m && m.getAttribute('http-equiv'); }")
    assert first == "Content-Security-Policy", "the policy comes first in the app's head"
    fetched = frame.evaluate(
        """async (url) => {
            const violated = [];
            document.addEventListener("securitypolicyviolation", (e) => violated.push(e.effectiveDirective));
            try { await fetch(url); return "fetched"; } catch (e) {
                for (let i = 0; i < 100 && violated.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
                return "refused by " + violated.join(",");
            }
        }""",
        f"{server}/api",
    )
    assert fetched == "refused by connect-src", f"the app reached the network: {fetched}"


def _check_sized(frame_box: Locator, frame: Frame) -> None:
    """The card's frame takes the height the app asked for (size-changed), within 40..800 px."""
    measure = "() => { const r = document.documentElement; const h = r.style.height; r.style.height = 'max-content';"
    measure += " const px = Math.ceil(r.getBoundingClientRect().height); r.style.height = h; return px; }"
    wanted = frame.evaluate(measure)
    assert 40 <= wanted <= 800, f"the counter app asks for {wanted} px"
    frame_box.page.wait_for_function(
        "([el, px]) => Math.round(el.getBoundingClientRect().height) === px",
        arg=[frame_box.element_handle(), wanted],
        timeout=10_000,
    )


def _check_themed(page, frame: Frame) -> None:
    """The app is told the notebook's theme, at first and when it changes."""
    theme = "() => document.documentElement.getAttribute('data-theme')"
    assert frame.evaluate(theme) == "light"
    set_lab_theme(page, DARK_THEME)
    try:
        frame.wait_for_function(f"() => ({theme})() === 'dark'", timeout=10_000)
    finally:
        set_lab_theme(page, LIGHT_THEME)
    frame.wait_for_function(f"() => ({theme})() === 'light'", timeout=10_000)
