"""Tool call cards, approvals and frontend tools in a real JupyterLab, in Chromium.

What a user sees of a tool call: a compact card whose state never passes through a wrong one
(a browser tool reads "running" until it is done; a call cut by Stop reads "stopped" with its
partial arguments; a denied approval reads "denied"), approvals asked inside the card of the call
they are about, keyboard focus kept in the chat after an answer, one run of a browser tool with
the notebook open in two tabs, and readable text whatever accent a tool sets, in both themes.
The demo agent answers (agui_widget/adapters/_demo.py), or small agents defined in the notebook.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import JSHandle, Locator, expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, colours, contrast, kernel_json, set_lab_theme, wait_in_kernel

pytestmark = pytest.mark.browser

FOLLOW_UP_TIMEOUT = 15_000
MIN_CONTRAST = 4.5

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"

# A browser tool that counts its runs in the page, and waits while the page holds it.
COUNTER = '''\
from agui_widget import AgentAdapter, AgentChat, js_tool

count_run = js_tool(
    "count_run",
    "Counts how often the browser ran it.",
    {"type": "object", "properties": {}},
    """
    window.__aguiRuns = (window.__aguiRuns || 0) + 1;
    while (window.__aguiHold) await new Promise((resolve) => setTimeout(resolve, 50));
    return { runs: window.__aguiRuns };
    """,
)


class Counter(AgentAdapter):
    async def _events(self, input, stream):
        if input.messages[-1].role == "tool":
            yield stream.text("Counted.")
            yield stream.end_text()
            return
        yield stream.text("Counting in your browser.")
        yield stream.tool_call("count_run", {})


chat = AgentChat(Counter(), tools=[count_run])
chat'''

# Asks for approval with a confirm tool: twice for "two", once otherwise.
ASKER = """\
from agui_widget import AgentAdapter, AgentChat, confirm_tool


class Asker(AgentAdapter):
    async def _events(self, input, stream):
        last = input.messages[-1]
        if last.role == "tool":
            answers = [m.content for m in input.messages if m.role == "tool"]
            yield stream.text(f"Answers: {answers}")
            yield stream.end_text()
            return
        yield stream.text("I need your OK first.")
        yield stream.tool_call("confirm", {"message": "Delete a.txt?"})
        if "two" in last.content:
            yield stream.tool_call("confirm", {"message": "Delete b.txt?", "path": "/tmp/b.txt"})


asker = AgentChat(Asker(), tools=[confirm_tool()])
asker"""

# Records, on every DOM change in a chat view, what a selector's first match reads, what the
# status line says, and whether the panel under the transcript is there: enough to tell every
# state a card went through.
WATCHER = r"""
(root, selector) => {
  const rec = { seen: [], statuses: [], panel: false };
  const sample = () => {
    const el = root.querySelector(selector);
    const text = el ? el.textContent : null;
    if (text !== null && rec.seen[rec.seen.length - 1] !== text) rec.seen.push(text);
    const status = root.querySelector(".agui-status");
    const said = status ? status.textContent : "";
    if (said && rec.statuses[rec.statuses.length - 1] !== said) rec.statuses.push(said);
    if (root.querySelector(".agui-pending")) rec.panel = true;
  };
  rec.observer = new MutationObserver(sample);
  rec.observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
  sample();
  return rec;
}
"""


def watch(chat: ChatView, selector: str) -> JSHandle:
    return chat.root.evaluate_handle(WATCHER, selector)


def watched(handle: JSHandle) -> dict:
    return handle.evaluate("r => { r.observer.disconnect(); return { seen: r.seen, statuses: r.statuses, panel: r.panel }; }")


def badge_of(chat: ChatView, name: str) -> Locator:
    return chat.tool_card(name).locator(".agui-tool-head .agui-badge")


def no_error_notices(chat: ChatView, where: str) -> None:
    notices = chat.root.locator(".agui-notice-error, .agui-notice-warning")
    expect(notices, f"{where}: the chat showed an error notice").to_have_count(0)
    text = chat.root.inner_text()
    assert "nothing pending" not in text, f"{where}: a refused answer was shown: {text[-300:]!r}"


# -- DEFECT: the same notebook in two tabs ---------------------------------------------------------


def runner_of(tabs: dict[str, tuple[NotebookPage, ChatView]], timeout: float = 10_000) -> str:
    """The tab whose page started the browser tool (the kernel gave the call to its claim)."""
    probe = "() => (window.__aguiRuns || 0) > 0"
    waited = 0.0
    while waited < timeout:
        for name, (nb, _chat) in tabs.items():
            if nb.page.evaluate(probe):
                return name
        tabs["first"][0].page.wait_for_timeout(100)
        waited += 100
    raise AssertionError(f"neither tab ran the browser tool within {timeout / 1000:.0f} s")


def counter_in_two_tabs(lab) -> dict[str, tuple[NotebookPage, ChatView]]:
    """The counter notebook open in two tabs of one JupyterLab, each holding its handler's answer
    until released (``window.__aguiHold``)."""
    first = lab.open([COUNTER])
    first.page.evaluate("() => { window.__aguiHold = true; }")
    first.save()
    second = lab.open([], name=first.name, run=False)
    second.page.evaluate("() => { window.__aguiHold = true; }")
    return {"first": (first, first.chat()), "second": (second, second.chat())}


def claimed(tabs: dict[str, tuple[NotebookPage, ChatView]]) -> tuple[str, str]:
    """Waits until one tab claimed the pending call; the names of that tab and of the other."""
    wait_in_kernel(tabs["first"][0], "chat.pending and chat.pending[0].get('claimedBy')", show="chat.pending")
    runner = runner_of(tabs)
    return runner, "second" if runner == "first" else "first"


def test_a_browser_tool_runs_once_with_the_notebook_open_in_two_tabs(lab):
    tabs = counter_in_two_tabs(lab)
    first = tabs["first"][0]

    tabs["first"][1].send("count")

    runner, other = claimed(tabs)
    runner_nb, runner_chat = tabs[runner]
    other_nb, other_chat = tabs[other]

    note = other_chat.root.get_by_text("Handled in another tab")
    expect(note, f"the {other} tab should say the call is handled in another tab").to_be_visible()
    expect(badge_of(other_chat, "count_run"), f"the {other} tab's card").to_have_text("in another tab")
    expect(other_chat.button("Run it here instead"), "a way to run it here instead").to_be_visible()
    expect(badge_of(runner_chat, "count_run"), f"the {runner} tab runs it").to_have_text("running")
    assert other_nb.page.evaluate("() => window.__aguiRuns || 0") == 0, f"the {other} tab ran the tool too"

    runner_nb.page.evaluate("() => { window.__aguiHold = false; }")

    for name, (_nb, chat) in tabs.items():
        chat.wait_answer("Counted.", timeout=FOLLOW_UP_TIMEOUT)
        expect(badge_of(chat, "count_run"), f"the {name} tab's card once answered").to_have_text("done")
        no_error_notices(chat, f"the {name} tab")
    expect(note, "the note goes once the call is answered").to_have_count(0)
    total = sum(nb.page.evaluate("() => window.__aguiRuns || 0") for nb, _chat in tabs.values())
    assert total == 1, f"the browser tool ran {total} times across the two tabs"
    results = kernel_json(first, "[m['content'] for m in chat.messages if m['role'] == 'tool']")
    assert results == ['{"runs": 1}'], f"the kernel's tool messages: {results}"


def test_a_call_left_to_a_closed_tab_can_be_run_in_this_one(lab):
    tabs = counter_in_two_tabs(lab)

    tabs["second"][1].send("count")

    runner, other = claimed(tabs)
    other_nb, other_chat = tabs[other]
    expect(other_chat.root.get_by_text("Handled in another tab")).to_be_visible()

    tabs[runner][0].context.close()  # the tab that runs it goes away before answering
    other_nb.page.evaluate("() => { window.__aguiHold = false; }")
    other_chat.button("Run it here instead").click()

    other_chat.wait_answer("Counted.", timeout=FOLLOW_UP_TIMEOUT)
    expect(badge_of(other_chat, "count_run")).to_have_text("done")
    no_error_notices(other_chat, f"the {other} tab")
    assert other_nb.page.evaluate("() => window.__aguiRuns || 0") == 1
    results = kernel_json(other_nb, "[m['content'] for m in chat.messages if m['role'] == 'tool']")
    assert results == ['{"runs": 1}'], f"the kernel's tool messages: {results}"


# -- DEFECT: focus after Approve / Deny -------------------------------------------------------------


def test_approve_and_deny_keep_the_keyboard_in_the_chat(lab):
    nb = lab.open([ASKER])
    chat = nb.chat()

    chat.send("delete two files")

    approve = chat.root.get_by_role("button", name="Approve", exact=True)
    expect(approve, "one Approve per confirm call").to_have_count(2)
    approve.first.click()

    # Wherever the questions sit, the keyboard stays on them: the next one's first control, ...
    focused = chat.root.locator(":focus")
    expect(focused, "focus moves on to the next question's first control").to_have_accessible_name("Approve")
    expect(focused, "not the answered one's").to_be_enabled()
    nb.page.keyboard.press("Tab")
    expect(focused).to_have_accessible_name("Deny")
    nb.page.keyboard.press("Enter")

    expect(chat.message_box, "after the last answer, focus returns to the message box").to_be_focused()
    nb.page.keyboard.type("ok")
    expect(chat.message_box, "the next keystrokes go to the chat, not to the notebook").to_have_value("ok")
    chat.wait_answer("Answers:", timeout=FOLLOW_UP_TIMEOUT)
    answers = kernel_json(nb, "[m['content'] for m in asker.messages if m['role'] == 'tool']")
    assert answers == ['{"approved": true}', '{"approved": false}'], answers


# -- DEFECT: a denied approval ----------------------------------------------------------------------


def test_a_denied_approval_reads_denied(lab):
    nb = lab.open([QUICKSTART, ASKER])
    demo, asker = nb.chat(0), nb.chat(1)
    nb.run_cell('chat.state = {"todos": [{"text": "a", "done": False}]}')

    # An interrupt about a call (the demo's delete_todos), denied.
    watcher = watch(demo, ".agui-tool .agui-tool-head .agui-badge")
    demo.send("delete my list")
    demo.root.get_by_role("button", name="Deny", exact=True).click()
    demo.wait_answer("Denied", timeout=FOLLOW_UP_TIMEOUT)
    expect(badge_of(demo, "delete_todos"), "a denied call reads 'denied'").to_have_text("denied")
    seen = watched(watcher)["seen"]
    assert "done" not in seen, f"the denied call's badge went through {seen}"

    # A confirm tool, denied.
    asker.send("delete one file")
    asker.root.get_by_role("button", name="Deny", exact=True).click()
    asker.wait_answer("Answers:", timeout=FOLLOW_UP_TIMEOUT)
    expect(badge_of(asker, "confirm"), "a denied confirm reads 'denied'").to_have_text("denied")

    # After a reload, the confirm's answer (its result) still says so.
    nb.save()
    nb.reload()
    asker = nb.chat(1)
    expect(badge_of(asker, "confirm"), "still denied after a reload").to_have_text("denied")


# -- POLISH: approvals asked inside the card of their call -----------------------------------------


def test_approvals_are_asked_once_inside_the_card_of_their_call(lab):
    nb = lab.open([QUICKSTART, ASKER])
    demo, asker = nb.chat(0), nb.chat(1)
    nb.run_cell('chat.state = {"todos": [{"text": "a", "done": False}]}')

    asker.send("delete two files")

    cards = asker.root.locator(".agui-tool", has=nb.page.locator(".agui-tool-name", has_text="confirm"))
    expect(cards, "one card per confirm call").to_have_count(2)
    first, second = cards.nth(0), cards.nth(1)
    expect(first.get_by_role("region", name="Waiting for you: confirm")).to_contain_text("Delete a.txt?")
    expect(second.get_by_role("region", name="Waiting for you: confirm")).to_contain_text("Delete b.txt?")
    expect(asker.root.locator(".agui-pending"), "no separate panel: each approval sits in its card").to_have_count(0)
    text = asker.root.inner_text()
    assert text.count("Delete a.txt?") == 1, f"the question should be asked once: {text!r}"
    assert "Ask the user to approve" not in text, "the tool's description is for the model, not the user"
    assert text.count("/tmp/b.txt") == 1, f"the arguments should appear once: {text!r}"
    expect(second.get_by_role("button", name="Deny", exact=True), "the buttons are on screen").to_be_in_viewport()

    demo.send("delete my list")

    card = demo.tool_card("delete_todos")
    region = card.get_by_role("region", name="Waiting for you: delete_todos")
    expect(region.locator(".agui-card-title"), "the interrupt's message, in the card").to_have_text(
        "Delete the one item of your to-do list?"
    )
    expect(region.locator(".agui-card-args pre"), "the call's arguments, once").to_contain_text('"items"')
    assert demo.root.inner_text().count('"items"') == 1
    expect(demo.root.locator(".agui-pending")).to_have_count(0)
    approve = region.get_by_role("button", name="Approve", exact=True)
    expect(approve, "the buttons are on screen").to_be_in_viewport()
    approve.click()
    demo.wait_answer("Approved", timeout=FOLLOW_UP_TIMEOUT)
    expect(badge_of(demo, "delete_todos")).to_have_text("done")
    expect(card.get_by_role("region"), "the question goes once answered").to_have_count(0)


# -- DEFECT: a browser tool's card flickers ---------------------------------------------------------


def test_a_browser_tool_card_reads_running_until_it_is_done(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    watcher = watch(chat, ".agui-tool .agui-tool-head .agui-badge")

    chat.send("make it teal")

    chat.wait_answer("accent is now", timeout=FOLLOW_UP_TIMEOUT)
    expect(badge_of(chat, "set_accent_color")).to_have_text("done")
    record = watched(watcher)
    problems = []
    if record["seen"] != ["running", "done"]:
        problems.append(f"the browser tool's card went through {record['seen']}")
    if record["panel"]:
        problems.append("nothing was asked of the user, yet a 'Waiting for you' panel showed")
    if "Waiting for you" in record["statuses"]:
        problems.append(f"nothing was asked of the user, yet the status line said {record['statuses']}")
    assert not problems, "\n".join(problems)


# -- DEFECT: Stop during a tool call -----------------------------------------------------------------


def test_stop_during_a_tool_call_reads_stopped_and_keeps_the_partial_arguments(lab):
    nb = lab.open(["from agui_widget import AgentChat, DemoAgent\n\nchat = AgentChat(DemoAgent(delay=0.05))\nchat"])
    chat = nb.chat()
    watcher = watch(chat, ".agui-tool .agui-tool-head .agui-badge")

    chat.send("write a document about tea")
    card = chat.tool_card("write_document")
    expect(card, "the arguments stream in").to_contain_text("fine subject")
    chat.stop_button.click()

    chat.wait_idle()
    expect(badge_of(chat, "write_document"), "a call cut short by Stop").to_have_text("stopped")
    seen = watched(watcher)["seen"]
    assert "no result" not in seen and "running" not in seen, f"the card went through {seen}"
    args = card.locator(".agui-tool-args")
    expect(args.locator("summary"), "the arguments are marked partial").to_contain_text("partial")
    args.locator("summary").click()
    shown = args.locator("pre").first
    expect(shown).to_be_visible()
    text = shown.inner_text()
    assert text.startswith("Tea\n"), f"the partial document should read as text: {text[:80]!r}"
    assert '{"document"' not in args.inner_text(), "the cut JSON text should not be shown"
    tool = kernel_json(nb, "[m for m in chat.messages if m['role'] == 'tool'][-1]")
    assert tool.get("error") == "cancelled", tool


# -- POLISH: compact cards, text, keyboard ----------------------------------------------------------


def test_tool_cards_are_compact_open_from_the_keyboard_and_show_text_as_text(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()

    chat.send("weather in Paris")
    chat.wait_answer("in Paris (made-up numbers")
    card = chat.tool_card("get_weather")
    expect(card.locator(".agui-tool-summary"), "the arguments on one line").to_have_text("city: Paris")
    sections = card.locator("details.agui-tool-section")
    expect(sections, "arguments and result, closed").to_have_count(2)
    assert sections.evaluate_all("ds => ds.map((d) => d.open)") == [False, False]
    summary = card.locator("summary", has_text="Arguments")
    summary.focus()
    nb.page.keyboard.press("Enter")
    expect(sections.first, "Enter opens the arguments").to_have_attribute("open", "")
    outline = summary.evaluate("el => [getComputedStyle(el).outlineStyle, getComputedStyle(el).outlineWidth]")
    assert outline[0] != "none" and outline[1] != "0px", f"the focused expander shows no focus ring: {outline}"
    nb.page.keyboard.press("Space")
    expect(sections.first, "Space closes them again").not_to_have_attribute("open", "")

    chat.send("write a document about tea")
    chat.wait_answer("words, in")
    card = chat.tool_card("write_document")
    card.locator("summary", has_text="Arguments").click()
    text = card.locator(".agui-tool-args pre").first.inner_text()
    assert text.startswith("Tea\n\nTea is a fine subject"), f"the document should be shown as text: {text[:80]!r}"
    assert "\\n" not in card.locator(".agui-tool-args").inner_text(), "no literal \\n in the arguments"


# -- POLISH: the accent keeps text readable ---------------------------------------------------------

ACCENTS = ["gold", "yellow", "white", "black"]

ACCENT_AGENT = '''\
from agui_widget import AgentAdapter, AgentChat, confirm_tool, js_tool

paint_and_hold = js_tool(
    "paint_and_hold",
    "Sets the accent and keeps running while the page holds it.",
    {"type": "object", "properties": {"color": {"type": "string"}}},
    """
    ctx.setAccent(args.color);
    while (window.__aguiHold) await new Promise((resolve) => setTimeout(resolve, 50));
    return { ok: true };
    """,
)


class Painter(AgentAdapter):
    async def _events(self, input, stream):
        if input.messages[-1].role == "tool":
            yield stream.text("Done.")
            yield stream.end_text()
            return
        yield stream.text("Painting.")
        yield stream.tool_call("paint_and_hold", {"color": "gold"})
        yield stream.tool_call("confirm", {"message": "Keep it?"})


chat = AgentChat(Painter(), tools=[paint_and_hold, confirm_tool()], suggestions=["Try me"])
chat'''


def _measure(chat: ChatView, parts: dict[str, Locator], themes: list[str]) -> list[str]:
    """Contrast of each part's text for every accent, in each theme (the theme is left as the last)."""
    problems = []
    for theme in themes:
        set_lab_theme(chat.notebook.page, theme)
        for accent in [*ACCENTS, "the theme's own"]:
            if accent in ACCENTS:
                chat.root.evaluate("(el, a) => el.style.setProperty('--agui-accent', a)", accent)
            else:
                chat.root.evaluate("el => el.style.removeProperty('--agui-accent')")
            for name, part in parts.items():
                seen = colours(part)
                ratio = contrast(seen["text"], seen["background"])
                if ratio < MIN_CONTRAST:
                    problems.append(
                        f"{name}, accent {accent}, {theme}: {ratio:.2f} ({seen['cssText']} on {seen['cssBackground']})"
                    )
    return problems


def test_any_accent_keeps_text_readable_in_light_and_dark_themes(lab):
    nb = lab.open([ACCENT_AGENT])
    nb.page.evaluate("() => { window.__aguiHold = true; }")
    chat = nb.chat()
    problems: list[str] = []
    try:
        # Idle and empty: the Send button (text on the accent) and a suggestion chip (accent text).
        idle = {"Send button": chat.send_button, "suggestion chip": chat.root.locator(".agui-chip").first}
        expect(idle["suggestion chip"]).to_be_visible()
        problems += _measure(chat, idle, [LIGHT_THEME, DARK_THEME])

        # A tool sets the accent; its card reads "running" in the accent, Approve sits on it.
        chat.root.evaluate("el => el.style.removeProperty('--agui-accent')")
        chat.send("paint")
        badge = badge_of(chat, "paint_and_hold")
        expect(badge).to_have_text("running")  # from the call's start; the page runs the handler next
        nb.page.wait_for_function(
            "el => getComputedStyle(el).getPropertyValue('--agui-accent').trim() === 'gold'", arg=chat.root.element_handle()
        )
        waiting = {"running badge": badge, "Approve button": chat.button("Approve")}
        problems += _measure(chat, waiting, [DARK_THEME, LIGHT_THEME])
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)
        nb.page.evaluate("() => { window.__aguiHold = false; }")
    assert not problems, "text below WCAG AA with these accents:\n" + "\n".join(problems)
    # The default accent too, in the light theme the tests end in.
    chat.root.evaluate("el => el.style.removeProperty('--agui-accent')")
    seen = colours(chat.button("Approve"))
    assert contrast(seen["text"], seen["background"]) >= MIN_CONTRAST, seen
    assert re.match(r"^(rgb|color)", seen["cssText"])
