"""The chat's features in a real JupyterLab, in Chromium: the state panel, the event inspector,
Markdown, message actions, the error banner, and JupyterLab's dark theme.

Each test opens a notebook, works the chat through its accessible names as a user does, and checks
what the kernel holds with cells run in the same kernel. The demo agent answers
(agui_widget/adapters/_demo.py) unless a test defines an agent of its own in the notebook.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers_ui import (
    DARK_THEME,
    LIGHT_THEME,
    colours,
    contrast,
    kernel_json,
    lab_theme,
    set_lab_theme,
    show_panel,
    wait_in_kernel,
)

pytestmark = pytest.mark.browser

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"


# -- (a) the state panel --------------------------------------------------------------------------


def test_state_panel_follows_cell_assignments_and_sends_edits_to_python(lab):
    nb = lab.open(
        [
            "from agui_widget import AgentChat\n\n"
            "chat = AgentChat()\n"
            "seen = []\n"
            "chat.observe(lambda change: seen.append(change['new']), 'state')\n"
            "chat"
        ]
    )
    chat = nb.chat()
    panel = show_panel(chat, "state")
    expect(panel, "a new chat's state panel should say the state is empty").to_contain_text("The state is empty.")

    nb.run_cell('chat.state = {"city": "Paris", "visits": 3, "trip": {"days": 2, "tags": ["a", "b"]}}')

    city = panel.get_by_role("button", name="Edit city:")
    visits = panel.get_by_role("button", name="Edit visits:")
    expect(city, "the state assigned in a cell should show in the open panel").to_have_text('"Paris"')
    expect(visits).to_have_text("3")
    expect(panel.get_by_role("button", name="Edit trip/days:")).to_have_text("2")
    expect(panel.get_by_role("button", name="Edit trip/tags/1:")).to_have_text('"b"')
    expect(panel.get_by_role("button", name="Collapse trip {")).to_contain_text("{2 keys}")

    # Click a leaf, type a new value (the box starts selected), press Enter.
    visits.click()
    box = panel.get_by_role("spinbutton", name="New value for visits", exact=True)
    expect(box, "clicking a value should open its edit box, focused").to_be_focused()
    expect(box).to_have_value("3")
    box.press_sequentially("42")
    box.press("Enter")
    expect(box, "Enter should close the edit box").to_have_count(0)
    expect(visits, "the edited value should show once the kernel has it").to_have_text("42")
    expect(visits, "after Enter the focus goes back to the value").to_be_focused()

    # With the keyboard: Enter on a focused value opens it; text that is not JSON is a string.
    city.focus()
    city.press("Enter")
    box = panel.get_by_role("textbox", name="New value for city", exact=True)
    expect(box, "Enter on a value should open its edit box").to_be_focused()
    expect(box).to_have_value("Paris")
    box.press_sequentially("Oslo")
    box.press("Enter")
    expect(city).to_have_text('"Oslo"')

    # Escape leaves the value as it was.
    visits.click()
    box = panel.get_by_role("spinbutton", name="New value for visits", exact=True)
    box.press_sequentially("7")
    box.press("Escape")
    expect(box).to_have_count(0)
    expect(visits).to_have_text("42")

    expected = {"city": "Oslo", "visits": 42, "trip": {"days": 2, "tags": ["a", "b"]}}
    wait_in_kernel(nb, f"chat.state == {expected!r}", show="chat.state")
    kernel = kernel_json(nb, "{'state': chat.state, 'seen': seen}")
    assert kernel["state"] == expected, f"chat.state after the panel's edits: {kernel['state']!r}"
    seen = kernel["seen"]
    assert seen and seen[-1] == expected, f"the state observer's last value: {seen[-1:]!r}"
    assert {"city": "Paris", "visits": 42, "trip": expected["trip"]} in seen, (
        f"the observer did not see the first edit on its own; it saw {seen!r}"
    )


# -- (b) the event inspector ----------------------------------------------------------------------


def _collapsed(types: list[str]) -> list[str]:
    """Consecutive events of one type as one: the wire merges consecutive deltas."""
    return [t for i, t in enumerate(types) if i == 0 or t != types[i - 1]]


def test_event_inspector_lists_the_exchange_and_filters_by_type(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("weather in Paris")
    chat.wait_answer("in Paris (made-up numbers")

    panel = show_panel(chat, "events")
    rows = panel.locator("li.agui-event")
    expect(rows.first, "the first event of the exchange").to_have_attribute("data-type", "RUN_STARTED")
    expect(rows.last, "the last event of the exchange").to_have_attribute("data-type", "RUN_FINISHED")
    shown = rows.evaluate_all("els => els.map((e) => e.dataset.type)")
    for kind in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS",
                 "TOOL_CALL_END", "TOOL_CALL_RESULT"):  # fmt: skip
        assert kind in shown, f"no {kind} row in the event inspector: {shown}"
    kernel = kernel_json(nb, "[e.type.value for e in chat.events]")
    assert _collapsed(shown) == _collapsed(kernel), (
        f"the inspector and chat.events disagree:\nview:   {_collapsed(shown)}\nkernel: {_collapsed(kernel)}"
    )
    expect(panel.locator(".agui-panel-note")).to_have_text(f"{len(shown)} events")

    # Opening a row shows the event's payload as JSON.
    started = rows.first
    started.locator("summary").click()
    payload = json.loads(started.locator("pre").text_content() or "")
    run_id = kernel_json(nb, "chat.events[0].run_id")
    assert payload["type"] == "RUN_STARTED" and payload["runId"] == run_id, payload

    # The type filter keeps the rows of one type.
    content_count = shown.count("TEXT_MESSAGE_CONTENT")
    select = panel.get_by_role("combobox", name="Filter events by type", exact=True)
    select.select_option("TEXT_MESSAGE_CONTENT")
    expect(rows, "the filter should keep every TEXT_MESSAGE_CONTENT row").to_have_count(content_count)
    expect(panel.locator("li.agui-event:not([data-type=TEXT_MESSAGE_CONTENT])"), "other types should be hidden").to_have_count(0)
    expect(panel.locator(".agui-panel-note")).to_have_text(f"{content_count} of {len(shown)} events")
    # Their deltas, opened one by one, spell the assistant's answers.
    deltas: dict[str, str] = {}
    for index in range(content_count):
        row = rows.nth(index)
        row.locator("summary").click()
        event = json.loads(row.locator("pre").text_content() or "")
        deltas[event["messageId"]] = deltas.get(event["messageId"], "") + event["delta"]
    answers = kernel_json(nb, "{m['id']: m['content'] for m in chat.messages if m['role'] == 'assistant' and m.get('content')}")
    assert deltas == answers, f"the TEXT_MESSAGE_CONTENT rows spell {deltas!r}; the kernel holds {answers!r}"

    select.select_option("TOOL_CALL_ARGS")
    expect(rows, "the filter by TOOL_CALL_ARGS").to_have_count(shown.count("TOOL_CALL_ARGS"))
    expect(panel.locator("li.agui-event:not([data-type=TOOL_CALL_ARGS])")).to_have_count(0)
    select.select_option("")
    expect(rows, "'All types' should bring every row back").to_have_count(len(shown))


# -- (c) Markdown ---------------------------------------------------------------------------------


def test_markdown_showcase_renders_a_table_highlighted_code_and_math(lab):
    nb = lab.open([QUICKSTART])
    nb.context.grant_permissions(["clipboard-read", "clipboard-write"])
    chat = nb.chat()
    chat.send("markdown")
    chat.wait_answer("mean of")
    answer = chat.assistant_texts.last

    table = answer.locator("table")
    expect(table, "the showcase's table should render as a table").to_have_count(1)
    expect(table.locator("thead th")).to_have_text(["protocol event", "what it does"])
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(table.locator("tbody tr").first.locator("td").first.locator("code")).to_have_text("TEXT_MESSAGE_CONTENT")

    block = answer.locator(".agui-codeblock")
    expect(block, "one fenced code block").to_have_count(1)
    code = block.locator("pre code")
    expect(code).to_contain_text("chat = AgentChat()")
    tokens = code.locator("span[class^='hljs-']")
    assert tokens.count() >= 3, f"the Python block is not highlighted: {code.inner_html()[:300]}"
    assert code.locator("span.hljs-comment").count() >= 1, "the block's comments should be highlighted as comments"
    copy = block.get_by_role("button", name="Copy code", exact=True)
    expect(copy, "the code block should have a 'Copy code' button").to_have_count(1)
    block.hover()
    expect(copy, "'Copy code' should show when the block is hovered").to_have_css("opacity", "1")
    copy.click()
    expect(copy, "clicking 'Copy code' should copy").to_have_attribute("data-copied", "true")
    copied = nb.page.evaluate("() => navigator.clipboard.readText()")
    assert copied.strip() == (code.text_content() or "").strip(), f"the clipboard holds {copied!r}"

    maths = answer.locator("math")
    expect(maths, "three formulas: two inline, one display").to_have_count(3)
    namespaces = maths.evaluate_all("els => els.map((e) => [e.namespaceURI, e.getAttribute('display')])")
    assert all(ns == "http://www.w3.org/1998/Math/MathML" for ns, _ in namespaces), namespaces
    assert [d for _, d in namespaces].count("block") == 1, f"one formula should be displayed as a block: {namespaces}"
    expect(maths.last.locator("mfrac"), "the display formula has a fraction").to_have_count(1)
    text = answer.inner_text()
    assert "$" not in text and "|---" not in text and "```" not in text, f"Markdown source shows as text: {text!r}"


# -- (d) regenerate and edit ----------------------------------------------------------------------

NUMBERED = '''\
from agui_widget import AgentChat

asked = []


def numbered(messages):
    """Numbers its answers, so a new answer is told from the old one."""
    asked.append(messages[-1]["content"])
    return f"Answer {len(asked)} to: {messages[-1]['content']}"


chat = AgentChat(numbered)
chat'''


def test_regenerate_replaces_the_last_answer_and_editing_the_last_message_reruns_it(lab):
    nb = lab.open([NUMBERED])
    chat = nb.chat()
    chat.send("first")
    chat.wait_answer("Answer 1 to: first")
    chat.send("second")
    chat.wait_answer("Answer 2 to: second")
    before = kernel_json(nb, "[[m['id'], m['role'], m.get('content')] for m in chat.messages]")

    expect(chat.button("Regenerate"), "only the last answer offers 'Regenerate'").to_have_count(1)
    chat.root.locator(".agui-row-assistant").last.hover()
    chat.button("Regenerate").click()

    chat.wait_answer("Answer 3 to: second")
    expect(chat.assistant_texts, "Regenerate replaces the answer").to_have_text(["Answer 1 to: first", "Answer 3 to: second"])
    expect(chat.user_bubbles).to_have_text(["first", "second"])
    after = kernel_json(nb, "[[m['id'], m['role'], m.get('content')] for m in chat.messages]")
    assert [m[1:] for m in after] == [
        ["user", "first"], ["assistant", "Answer 1 to: first"], ["user", "second"], ["assistant", "Answer 3 to: second"],
    ], f"the kernel's transcript after Regenerate: {after}"  # fmt: skip
    assert after[:2] == before[:2], f"the turn before is kept as it was: {before[:2]} became {after[:2]}"
    assert after[3][0] != before[3][0], "the answer is a new message"

    # Edit the last user message: it is replaced and the chat runs from it.
    expect(chat.button("Edit message"), "every user message offers 'Edit message'").to_have_count(2)
    chat.user_bubbles.last.hover()
    chat.root.locator(".agui-row-user[data-row]").last.get_by_role("button", name="Edit message", exact=True).click()
    box = chat.root.get_by_role("textbox", name="Edited message", exact=True)
    expect(box, "the edit box should open, focused, with the message").to_be_focused()
    expect(box).to_have_value("second")
    box.press("ControlOrMeta+a")
    box.press_sequentially("second, edited")
    box.press("Enter")

    chat.wait_answer("Answer 4 to: second, edited")
    expect(box).to_have_count(0)
    expect(chat.user_bubbles).to_have_text(["first", "second, edited"])
    expect(chat.assistant_texts).to_have_text(["Answer 1 to: first", "Answer 4 to: second, edited"])
    kernel = kernel_json(nb, "{'messages': [[m['role'], m.get('content')] for m in chat.messages], 'asked': asked}")
    assert kernel["messages"] == [
        ["user", "first"], ["assistant", "Answer 1 to: first"], ["user", "second, edited"], ["assistant", "Answer 4 to: second, edited"],
    ], kernel  # fmt: skip
    assert kernel["asked"] == ["first", "second", "second", "second, edited"], kernel


# -- (e) the error banner and Retry ---------------------------------------------------------------

FLAKY = '''\
attempts = []


def flaky(messages):
    """Fails the first time, answers the second."""
    attempts.append(messages[-1]["content"])
    if len(attempts) == 1:
        raise RuntimeError("the service is down (attempt 1)")
    return f"Recovered on attempt {len(attempts)}."


flaky_chat = AgentChat(flaky)
flaky_chat'''

RUNS = "sum(e.type.value == 'RUN_STARTED' for e in {chat}.events)"


def test_error_banner_shows_the_error_and_retry_runs_again(lab):
    nb = lab.open([QUICKSTART, FLAKY])
    chat, flaky = nb.chat(0), nb.chat(1)

    # The demo agent fails every time: Retry runs it again and the error comes back.
    chat.send("fail")
    expect(chat.error_line, "the run's error should show").to_contain_text("the demo agent failed on purpose")
    chat.wait_idle()
    retry = chat.error_line.get_by_role("button", name="Retry", exact=True)
    expect(retry, "the error banner should offer 'Retry'").to_be_visible()
    assert kernel_json(nb, RUNS.format(chat="chat")) == 1

    retry.click()

    wait_in_kernel(nb, f"{RUNS.format(chat='chat')} == 2 and chat.status == 'error'", show="[chat.status, chat.error]")
    chat.wait_idle()
    expect(chat.error_line, "the retried run failed again: its error shows").to_contain_text("the demo agent failed on purpose")
    expect(chat.error_line, "one error banner").to_have_count(1)
    expect(chat.user_bubbles, "Retry does not repeat the user's message").to_have_text(["fail"])
    expect(chat.assistant_texts, "the retried run's text replaces the first one").to_have_text(["About to fail on purpose"])
    assert kernel_json(nb, "[m['role'] for m in chat.messages]") == ["user", "assistant"]

    # An agent that fails once: Retry clears the banner and shows the answer.
    flaky.send("hello")
    expect(flaky.error_line, "the flaky agent's error should show").to_contain_text("the service is down (attempt 1)")
    flaky.wait_idle()
    flaky.error_line.get_by_role("button", name="Retry", exact=True).click()

    flaky.wait_answer("Recovered on attempt 2.")
    expect(flaky.error_line, "the banner goes once the retried run succeeds").to_have_count(0)
    expect(flaky.user_bubbles).to_have_text(["hello"])
    kernel = kernel_json(
        nb,
        "{'status': flaky_chat.status, 'error': flaky_chat.error, 'attempts': attempts, 'roles': [m['role'] for m in flaky_chat.messages]}",
    )
    assert kernel["status"] == "idle" and not kernel["error"], kernel
    assert kernel["attempts"] == ["hello", "hello"] and kernel["roles"] == ["user", "assistant"], kernel


# -- (f) JupyterLab's dark theme ------------------------------------------------------------------

MIN_CONTRAST = 4.5  # WCAG AA for body text


def _is_dark(rgb) -> bool:
    r, g, b = rgb[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 96


def test_chat_follows_jupyterlab_dark_theme_with_readable_text(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("add buy milk")
    chat.wait_answer("Added “buy milk”")
    page = nb.page
    assert lab_theme(page) == {"name": LIGHT_THEME, "light": "true"}, f"the tests start in the light theme: {lab_theme(page)}"

    parts = {
        "chat": chat.root.locator(".agui-chat").first,
        "answer": chat.assistant_texts.last,
        "user message": chat.user_bubbles.last,
        "message box": chat.message_box,
        "toolbar button": chat.button("Show state"),
    }
    light = {name: colours(part) for name, part in parts.items()}
    lab_background = page.evaluate(
        "() => { const d = document.createElement('div'); d.style.background = 'var(--jp-layout-color1)';"
        " document.body.appendChild(d); const c = getComputedStyle(d).backgroundColor; d.remove(); return c; }"
    )
    try:
        set_lab_theme(page, DARK_THEME)
        chat_el = parts["chat"].element_handle()
        page.wait_for_function(
            "([el, before]) => getComputedStyle(el).backgroundColor !== before",
            arg=[chat_el, light["chat"]["cssBackground"]],
            timeout=10_000,
        )
        dark = {name: colours(part) for name, part in parts.items()}
        dark_lab_background = page.evaluate(
            "() => { const d = document.createElement('div'); d.style.background = 'var(--jp-layout-color1)';"
            " document.body.appendChild(d); const c = getComputedStyle(d).backgroundColor; d.remove(); return c; }"
        )
    finally:
        set_lab_theme(page, LIGHT_THEME)

    assert light["chat"]["cssBackground"] == lab_background, "in the light theme the chat has JupyterLab's background"
    assert dark["chat"]["cssBackground"] == dark_lab_background, (
        f"in the dark theme the chat's background {dark['chat']['cssBackground']} is not JupyterLab's {dark_lab_background}"
    )
    problems = []
    for name in parts:
        before, after = light[name], dark[name]
        if after["text"] == before["text"]:
            problems.append(f"{name}: the text colour did not change ({after['cssText']})")
        if not _is_dark(after["background"]):
            problems.append(f"{name}: the background is not dark: {after['background']}")
        if _is_dark(after["text"]):
            problems.append(f"{name}: the text is dark on a dark background: {after['text']}")
        for theme, seen in (("light", before), ("dark", after)):
            ratio = contrast(seen["text"], seen["background"])
            if ratio < MIN_CONTRAST:
                problems.append(
                    f"{name} ({theme}): contrast {ratio:.2f} < {MIN_CONTRAST} ({seen['text']} on {seen['background']})"
                )
    assert not problems, "the chat does not follow the dark theme well:\n" + "\n".join(problems)
    # Back to light, the chat is light again (and later tests start from the light theme).
    expect(parts["chat"]).to_have_css("background-color", re.compile(re.escape(light["chat"]["cssBackground"])))
