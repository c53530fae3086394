"""The chat in JupyterLab's own places besides a cell's output: an output view and the sidebar.

An output view is what JupyterLab opens on right-click > "Create New View for Cell Output"
(``notebook:create-output-view``): a tab of its own below the notebook ("Output View") that shows
the cell's outputs again, so the chat has a second view of the same widget model in the same page.
Whatever the chat does in a cell it must do there too, with the cell's view kept in sync, a
frontend tool's handler run once for the page, and the conversation the chat keeps in the notebook
(the second output, ``data-agui-transcript``) hidden in both.

The sidebar is the ``sidecar`` package's output widget (``with Sidecar(title="Chat"):
display(chat)``), a prebuilt JupyterLab 4 extension: the chat is shown in JupyterLab's right
sidebar instead of the cell. It needs ``sidecar`` (>= 0.8, the dev extra) in this environment.

The built-in demo agent answers (agui_widget/adapters/_demo.py).
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import JSHandle, Locator, expect

from agui_widget.adapters._demo import HELP
from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import show_panel
from tests.browser.test_tool_cards import kernel_json

pytestmark = pytest.mark.browser

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"
# The demo's own set_accent_color, with a count of its runs in the page in front of its body.
COUNTED_ACCENT = """\
import dataclasses
from agui_widget.adapters._demo import ACCENT_TOOL

chat.tools = [dataclasses.replace(
    ACCENT_TOOL, handler="window.__accentRuns = (window.__accentRuns || 0) + 1;\\n" + ACCENT_TOOL.handler
)]"""
SIDECAR = (
    "from agui_widget import AgentChat\n"
    "from sidecar import Sidecar\n\n"
    "chat = AgentChat()\n"
    'with Sidecar(title="Chat"): display(chat)'
)
KEPT = "[data-agui-transcript]"
ACCENT_JS = "el => el.style.getPropertyValue('--agui-accent').trim()"

# Notes, on every DOM change of the page's chat views, anything that reads as trouble: a frontend
# tool "Handled in another tab", a notice, an alert. Each entry: "<where>: <its text>".
TROUBLE_RECORDER = r"""
() => {
  const rec = { seen: [] };
  const roots = [...document.querySelectorAll(".agui-widget")];
  const check = () => {
    for (const root of roots) {
      const where = root.closest(".jp-LinkedOutputView") ? "output view" : "cell";
      for (const el of root.querySelectorAll(".agui-elsewhere, .agui-notice, [role=alert]")) {
        const entry = where + ": " + el.textContent.trim();
        if (!rec.seen.includes(entry)) rec.seen.push(entry);
      }
    }
  };
  rec.observer = new MutationObserver(check);
  for (const root of roots) rec.observer.observe(root, { subtree: true, childList: true, characterData: true });
  check();
  rec.views = roots.length;
  return rec;
}
"""

# Notes, on every DOM change of the page, each kept conversation (or its output row) that is
# rendered visibly: the chat must keep every copy of it hidden while it is shown.
KEPT_RECORDER = r"""
(selector) => {
  const rec = { shown: [], checks: 0 };
  const check = () => {
    const kept = document.querySelectorAll(selector);
    if (kept.length) rec.checks += 1;
    for (const el of kept) {
      const row = el.closest(".jp-OutputArea-child");
      const where = el.closest(".jp-LinkedOutputView") ? "output view" : "cell";
      for (const [what, node] of [["block", el], ["row", row]]) {
        if (node && node.getClientRects().length > 0) {
          const entry = where + " " + what + ": " + el.textContent.trim().slice(0, 60);
          if (!rec.shown.includes(entry)) rec.shown.push(entry);
        }
      }
    }
  };
  rec.observer = new MutationObserver(check);
  rec.observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["style", "class"] });
  check();
  return rec;
}
"""


def plain(text: str) -> str:
    """Text as a reader sees it, whether the view shows the agent's Markdown as source or rendered."""
    text = re.sub(r"-{3,}|\|", " ", re.sub(r"[*`]", "", text))
    return " ".join(text.split())


def open_output_view(nb: NotebookPage) -> ChatView:
    """Right-click on the chat > "Create New View for Cell Output", as a user does; returns the chat
    in the new "Output View" tab, once it is connected."""
    page = nb.page
    nb.chat().root.click(button="right", position={"x": 5, "y": 5})
    item = page.locator(".lm-Menu-item", has_text="Create New View for Cell Output")
    expect(item, "the cell's context menu should offer 'Create New View for Cell Output'").to_be_visible()
    item.click()
    expect(page.locator(".lm-TabBar-tab", has_text="Output View"), "no 'Output View' tab opened").to_have_count(1)
    view = ChatView(nb, page.locator(".jp-LinkedOutputView .agui-widget")).wait_ready()
    expect(page.locator(".agui-widget"), "the page should show the chat twice: cell and output view").to_have_count(2)
    return view


def expect_kept_hidden(nb: NotebookPage, holder: Locator, where: str, contains: str) -> None:
    """The conversation the chat keeps is in ``holder``, current, and hidden with its output row."""
    kept = holder.locator(KEPT)
    expect(kept, f"the kept conversation should be in the {where}").to_have_count(1)
    expect(kept, f"the kept conversation in the {where} should be current").to_contain_text(contains)
    expect(kept, f"the kept conversation must be hidden in the {where}").to_be_hidden()
    row = holder.locator(".jp-OutputArea-child").filter(has=nb.page.locator(KEPT))
    expect(row, f"the kept conversation's output row (prompt, padding) must be hidden in the {where}").to_be_hidden()


def recorded(handle: JSHandle, key: str) -> list[str]:
    value = handle.evaluate(f"r => {{ r.observer.disconnect(); return r.{key}; }}")
    return list(value)


# -- an output view of the chat -------------------------------------------------------------------


def test_a_message_sent_in_the_output_view_streams_there_with_its_tool_card_and_the_cell_follows(lab):
    nb = lab.open([QUICKSTART])
    cell = nb.chat()
    view = open_output_view(nb)
    in_view, in_cell = view.record(), cell.record()

    view.send("weather in Paris")

    card = view.tool_card("get_weather")
    expect(card, "the output view showed no get_weather card").to_be_visible()
    answer = view.wait_answer("in Paris (made-up numbers")
    expect(card.locator(".agui-badge"), "the card in the output view should say 'done'").to_have_text("done")
    expect(card, "the card in the output view should show the arguments").to_contain_text("Paris")
    in_view.assert_streamed(2, where="the output view")

    # The cell's view got the same turn, streamed, with the same card.
    expect(cell.user_bubbles, "the message sent in the output view should show in the cell").to_have_text(["weather in Paris"])
    assert cell.wait_answer("in Paris (made-up numbers") == answer, "the cell and the output view show the answer differently"
    in_cell.assert_streamed(2, where="the cell's view")
    expect(cell.tool_card("get_weather").locator(".agui-badge"), "the cell's card should say 'done'").to_have_text("done")
    kernel = nb.run_cell('print(chat.messages[-1]["content"])').text
    assert plain(kernel) == plain(answer), f"the kernel holds {kernel!r}; the output view shows {answer!r}"

    # And the other way round: the output view follows a message sent in the cell.
    cell.send("hello")
    view.wait_answer("Say help")
    expect(view.user_bubbles, "the message sent in the cell should show in the output view").to_have_text(
        ["weather in Paris", "hello"]
    )
    expect(view.assistant_texts, "both views should show the same assistant messages").to_have_text(
        cell.assistant_texts.all_inner_texts(), use_inner_text=True
    )


def test_a_frontend_tool_called_from_the_output_view_runs_once_and_colours_both_views(lab):
    nb = lab.open([QUICKSTART, COUNTED_ACCENT])
    cell = nb.chat()
    view = open_output_view(nb)
    assert [cell.root.evaluate(ACCENT_JS), view.root.evaluate(ACCENT_JS)] == ["", ""], "an accent before the test"
    trouble = nb.page.evaluate_handle(TROUBLE_RECORDER)
    assert trouble.evaluate("r => r.views") == 2, "the recorder should watch both views"

    view.send("make it teal")

    text = view.wait_answer("accent is now", timeout=15_000)
    assert "teal" in text, f"the follow-up answer should name the colour: {text!r}"
    cell.wait_idle()
    runs = nb.page.evaluate("() => window.__accentRuns || 0")
    assert runs == 1, f"the handler of set_accent_color ran {runs} times in the page; once is right"
    for chat, where in ((view, "output view"), (cell, "cell")):
        card = chat.tool_card("set_accent_color")
        expect(card.locator(".agui-badge"), f"the set_accent_color card in the {where} should say 'done'").to_have_text("done")
        expect(chat.root.locator(".agui-notice"), f"no notice in the {where}").to_have_count(0)
        expect(chat.root.get_by_role("alert"), f"no alert in the {where}").to_have_count(0)
    kernel = kernel_json(
        nb,
        "{'tools': [m['content'] for m in chat.messages if m['role'] == 'tool'], 'pending': len(chat.pending), 'status': chat.status}",
    )
    assert kernel["status"] == "idle" and kernel["pending"] == 0, kernel
    assert [json.loads(t) for t in kernel["tools"]] == [{"ok": True, "color": "teal"}], (
        f"the kernel should hold one answer from the handler: {kernel['tools']}"
    )

    # Both views are in one tab: nothing there is "handled in another tab", and ctx.setAccent sets
    # the colour "in every view of this widget" (js/src/page/handlers.ts).
    problems = [f"a view showed: {entry}" for entry in recorded(trouble, "seen")]
    for chat, where in ((cell, "cell"), (view, "output view")):
        accent = chat.root.evaluate(ACCENT_JS)
        if accent != "teal":
            problems.append(f"the {where} has the accent {accent!r}, not 'teal'")
    assert not problems, "the handler ran once, but the page's two views disagree on it:\n" + "\n".join(problems)


def test_stop_in_the_output_view_stops_the_run_in_both_views(lab):
    nb = lab.open([QUICKSTART])
    cell = nb.chat()
    view = open_output_view(nb)

    view.send("help")
    expect(view.stop_button, "while the answer streams the output view should offer 'Stop'").to_be_visible()
    expect(cell.stop_button, "the cell's view should show the run too").to_be_visible()
    expect(view.assistant_texts.first, "no streamed text appeared in the output view").to_contain_text("demo agent")
    view.stop_button.click()

    for chat, where in ((view, "output view"), (cell, "cell")):
        chat.wait_idle()
        expect(chat.send_button, f"after Stop the {where} should offer 'Send' again").to_be_visible()
        expect(chat.root.locator(".agui-stopped"), f"the cut-short answer should be marked in the {where}").to_be_visible()
    shown = view.assistant_texts.first.inner_text()
    assert cell.assistant_texts.first.inner_text() == shown, "the two views show the stopped answer differently"
    kernel = kernel_json(
        nb, "{'content': chat.messages[-1].get('content'), 'metadata': chat.messages[-1].get('metadata'), 'status': chat.status}"
    )
    assert kernel["status"] == "idle", kernel
    assert (kernel["metadata"] or {}).get("agui_widget", {}).get("stopped") is True, kernel
    assert 0 < len(kernel["content"]) < len(HELP.rstrip()), f"the answer was not cut short: {kernel['content']!r}"
    assert plain(kernel["content"]) == plain(shown), f"view {shown!r} vs kernel {kernel['content']!r}"

    view.send("weather in Oslo")
    expect(view.tool_card("get_weather"), "the next run after Stop showed no card in the output view").to_be_visible()
    view.wait_answer("in Oslo (made-up numbers")
    cell.wait_answer("in Oslo (made-up numbers")


def test_the_state_panel_of_the_output_view_follows_the_shared_state(lab):
    nb = lab.open([QUICKSTART])
    cell = nb.chat()
    view = open_output_view(nb)
    panel = show_panel(view, "state")

    view.send("add buy milk")

    view.wait_answer("Added “buy milk”")
    expect(panel, "the output view's State panel should list the new to-do").to_contain_text("todos")
    expect(panel).to_contain_text('"buy milk"')
    expect(
        panel.get_by_role("switch", name="todos/0/done", exact=True), "the to-do's 'done' should read false"
    ).not_to_be_checked()
    out = nb.run_cell("print(chat.state)").text
    assert out.strip() == "{'todos': [{'text': 'buy milk', 'done': False}]}", out
    expect(show_panel(cell, "state"), "the cell's State panel should show the same to-do").to_contain_text('"buy milk"')

    # A change made in Python reaches the output view's panel.
    nb.run_cell('chat.state = {"todos": [{"text": "buy milk", "done": True}]}')
    expect(panel.get_by_role("switch", name="todos/0/done", exact=True), "the panel should follow chat.state").to_be_checked()


def test_an_approval_answered_in_the_output_view_resumes_the_run_in_both_views(lab):
    nb = lab.open([QUICKSTART])
    cell = nb.chat()
    view = open_output_view(nb)
    nb.run_cell('chat.state = {"todos": [{"text": "a", "done": False}]}')

    view.send("delete my list")

    cards = {
        where: chat.pending.locator(".agui-card[data-ui=interrupt]") for chat, where in ((view, "output view"), (cell, "cell"))
    }
    for where, card in cards.items():
        expect(card, f"the approval card did not show in the {where}").to_be_visible()
        expect(card.locator(".agui-card-title")).to_have_text("Delete the one item of your to-do list?")
    cards["output view"].get_by_role("button", name="Approve", exact=True).click()

    view.wait_answer("Approved", timeout=15_000)
    cell.wait_answer("Approved", timeout=15_000)
    for chat, where in ((view, "output view"), (cell, "cell")):
        expect(chat.pending, f"the approval card should go away in the {where} once answered").to_have_count(0)
        expect(chat.tool_card("delete_todos").locator(".agui-badge"), f"the {where}'s card").to_have_text("done")
    out = nb.run_cell('print(chat.state == {"todos": []}, chat.status)').text
    assert out.strip() == "True idle", f"the kernel after approving in the output view: {out!r}"


def test_the_kept_conversation_stays_hidden_in_the_cell_and_in_the_output_view(lab):
    nb = lab.open([QUICKSTART])
    cell = nb.chat()
    # Watched from before the output view opens: its copy must never show, not even at first.
    watch = nb.page.evaluate_handle(KEPT_RECORDER, KEPT)
    view = open_output_view(nb)
    notebook = nb.page.locator(f'[id="{nb.panel_id}"]')
    output_view = nb.page.locator(".jp-LinkedOutputView")

    view.send("add buy milk")
    view.wait_answer("Added “buy milk”")
    cell.wait_idle()

    for holder, where in ((notebook, "notebook"), (output_view, "output view")):
        expect_kept_hidden(nb, holder, where, "buy milk")
    visible_rows = output_view.locator(".jp-OutputArea-child:visible")
    expect(visible_rows, "the output view should show one output: the chat, never a second transcript").to_have_count(1)
    expect(visible_rows.locator(".agui-widget")).to_have_count(1)
    assert watch.evaluate("r => r.checks") > 0, "the recorder never saw the kept conversation"
    shown = recorded(watch, "shown")
    assert not shown, f"the kept conversation was shown while the chat was on the page: {shown}"

    # Closing the output view leaves the cell's chat working and its copy still hidden.
    tab = nb.page.locator(".lm-TabBar-tab", has_text="Output View")
    tab.locator(".lm-TabBar-tabCloseIcon").click()
    expect(output_view, "the output view did not close").to_have_count(0)
    expect(nb.page.locator(".agui-widget"), "the cell's chat should stay").to_have_count(1)
    cell.send("add call mom")
    cell.wait_answer("Added “call mom”")
    expect_kept_hidden(nb, notebook, "notebook", "call mom")


# -- the chat in the sidebar (sidecar) ------------------------------------------------------------


def test_the_chat_in_a_sidecar_streams_an_answer_in_the_right_sidebar(lab):
    nb = lab.open([SIDECAR])
    page = nb.page
    sidebar = page.locator("#jp-right-stack")
    expect(
        page.locator(".jp-SideBar.jp-mod-right .lm-TabBar-tab", has_text="Chat"), "no 'Chat' tab in the right sidebar"
    ).to_have_count(1)
    chat = ChatView(nb, sidebar.locator(".agui-widget")).wait_ready()
    expect(page.locator(".agui-widget"), "the chat should be shown in the sidebar only").to_have_count(1)
    expect(nb.chat_roots, "the cell itself should not show the chat").to_have_count(0)
    recording = chat.record()

    chat.send("weather in Paris")

    expect(chat.tool_card("get_weather"), "the sidebar's chat showed no get_weather card").to_be_visible()
    answer = chat.wait_answer("in Paris (made-up numbers")
    recording.assert_streamed(2, where="the sidebar")
    kernel = nb.run_cell('print(chat.messages[-1]["content"])').text
    assert plain(kernel) == plain(answer), f"the kernel holds {kernel!r}; the sidebar shows {answer!r}"
    kept = sidebar.locator(KEPT)
    expect(kept, "the sidecar holds the conversation the chat keeps, as its second output").to_have_count(1)
    expect(kept, "the kept conversation must stay hidden while the chat is shown").to_be_hidden()
