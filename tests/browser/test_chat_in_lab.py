"""The chat in a real JupyterLab (and Notebook 7), in Chromium: what a user sees and clicks.

Each test writes a small notebook, opens it, runs its cells, talks to the chat through its
accessible names (the "Message" box, the "Send"/"Stop" button, "Approve") and checks what the
kernel holds with a cell run in the same kernel. The demo agent answers (agui_widget/adapters/_demo.py).
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from agui_widget.adapters._demo import HELP

pytestmark = pytest.mark.browser

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"
HELP_END = HELP.rstrip()[-40:]


def plain(text: str) -> str:
    """Text as a reader sees it, whether the view shows the agent's Markdown as source or rendered:
    without emphasis, code and table marks, whitespace collapsed."""
    text = re.sub(r"-{3,}|\|", " ", re.sub(r"[*`]", "", text))
    return " ".join(text.split())


def test_quickstart_help_streams_and_the_kernel_holds_the_same_answer(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    expect(chat.send_button, "the idle chat should offer 'Send'").to_be_visible()
    recording = chat.record()

    chat.send("help")

    expect(chat.user_bubbles.first, "the user's message should show in the transcript").to_have_text("help")
    text = chat.wait_answer("demo agent", bubble=1)
    assert plain(text).endswith(plain(HELP_END)), f"the help answer is incomplete in the view; it ends with {text[-80:]!r}"
    recording.assert_streamed(1)

    out = nb.run_cell('print(chat.messages[-1]["content"][:40])').text
    assert plain(out) and plain(text).startswith(plain(out)), (
        f"the kernel's last message starts {out!r}; the view shows {text[:60]!r}"
    )


def test_stop_mid_stream_keeps_the_partial_answer_and_the_next_message_works(lab):
    nb = lab.open(["from agui_widget import AgentChat, DemoAgent\n\nchat = AgentChat(DemoAgent(delay=0.05))\nchat"])
    chat = nb.chat()
    recording = chat.record()

    chat.send("help")
    expect(chat.stop_button, "while the answer streams the button should read 'Stop'").to_be_visible()
    expect(chat.assistant_texts.first, "no streamed text appeared").to_contain_text("demo agent")
    chat.stop_button.click()

    expect(chat.send_button, "after Stop the button should read 'Send' again").to_be_visible()
    chat.wait_idle()
    expect(chat.root.locator(".agui-stopped"), "the cut-short answer should be marked 'stopped'").to_be_visible()
    shown = chat.assistant_texts.first.inner_text()
    samples_at_stop = recording.samples()

    cell = nb.run_cell(
        "import json\n"
        "m = chat.messages[-1]\n"
        "print(json.dumps({'role': m['role'], 'metadata': m.get('metadata'), 'content': m.get('content'), 'status': chat.status}))"
    )
    kernel = json.loads(cell.text.strip().splitlines()[-1])
    assert kernel["role"] == "assistant", kernel
    assert (kernel["metadata"] or {}).get("agui_widget", {}).get("stopped") is True, (
        f"the stopped message is not marked in the kernel: metadata = {kernel['metadata']!r}"
    )
    assert kernel["status"] == "idle", f"chat.status after Stop is {kernel['status']!r}"
    assert 0 < len(kernel["content"]) < len(HELP.rstrip()), f"the answer was not cut short: {kernel['content']!r}"
    assert plain(kernel["content"]) == plain(shown), (
        f"the view and the kernel disagree on the stopped text:\nview:   {shown!r}\nkernel: {kernel['content']!r}"
    )
    # The kernel round trip above took many token intervals: nothing more arrived meanwhile.
    assert chat.assistant_texts.first.inner_text() == shown, "the text kept changing after Stop"
    later = recording.stop()[len(samples_at_stop) :]
    assert not later, f"the stopped answer changed after Stop (bubble count, text length): {samples_at_stop[-1:]} then {later}"

    chat.send("weather in Oslo")
    expect(chat.tool_card("get_weather"), "the next run after Stop showed no get_weather card").to_be_visible()
    chat.wait_answer("in Oslo (made-up numbers")


def test_backend_tool_call_shows_a_card_with_its_result(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()

    chat.send("weather in Paris")

    card = chat.tool_card("get_weather")
    expect(card, "no tool card for get_weather").to_be_visible()
    chat.wait_answer("in Paris (made-up numbers")
    expect(card.locator(".agui-badge"), "the get_weather card should say 'done'").to_have_text("done")
    expect(card.locator("summary", has_text="Arguments"), "the card should show the call's arguments").to_be_visible()
    expect(card, "the card should show the arguments").to_contain_text('"city": "Paris"')
    expect(card.locator("summary", has_text="Result"), "the card should show a result section").to_be_visible()
    result = card.locator(".agui-tool-section", has_text="Result").locator("pre")
    expect(result, "the card should show the tool's result").to_contain_text("temperature_c")
    report = json.loads(result.text_content() or "")
    assert report["city"] == "Paris" and isinstance(report["temperature_c"], int), report
    answer = chat.assistant_texts.last.inner_text()
    assert f"{report['temperature_c']} °C" in answer, f"the answer does not use the tool's result: {answer!r} vs {report}"


def test_frontend_tool_runs_its_handler_in_the_browser(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    accent_js = (
        "el => [el.style.getPropertyValue('--agui-accent').trim(), getComputedStyle(el).getPropertyValue('--agui-accent').trim()]"
    )
    assert chat.root.evaluate(accent_js) == ["", ""], "the chat has an accent before the test"

    chat.send("make it teal")

    text = chat.wait_answer("accent is now", timeout=15_000)
    assert "teal" in text, f"the follow-up answer should name the colour: {text!r}"
    inline, computed = chat.root.evaluate(accent_js)
    assert inline == "teal", f"the handler did not set --agui-accent on the widget root (it is {inline!r})"
    assert computed == "teal", f"the chat's computed --agui-accent is {computed!r}"
    card = chat.tool_card("set_accent_color")
    expect(card.locator(".agui-badge"), "the set_accent_color card should say 'done'").to_have_text("done")

    out = nb.run_cell(
        "import json\n"
        "tool = [m for m in chat.messages if m['role'] == 'tool'][-1]\n"
        "print(json.dumps(json.loads(tool['content'])))"
    ).text
    assert json.loads(out) == {"ok": True, "color": "teal"}, f"the handler's result in the kernel: {out!r}"


def test_approval_clicked_in_the_ui_resumes_the_run(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    nb.run_cell('chat.state = {"todos": [{"text": "a", "done": False}]}')

    chat.send("delete my list")

    card = chat.pending.locator(".agui-card[data-ui=interrupt]")
    expect(card, "the approval card did not show").to_be_visible()
    expect(card.locator(".agui-card-title")).to_have_text("Delete the one item of your to-do list?")
    args = card.locator(".agui-card-args pre")
    expect(args, "the approval should show the tool call's arguments").to_contain_text('"items"')
    assert json.loads(args.text_content() or "") == {"count": 1, "items": ["a"]}, args.text_content()
    expect(chat.status_line, "the chat should wait for the user").to_have_attribute("data-status", "waiting")

    card.get_by_role("button", name="Approve", exact=True).click()

    chat.wait_answer("Approved", timeout=15_000)
    expect(chat.pending, "the approval card should go away once answered").to_have_count(0)
    out = nb.run_cell('print(chat.state == {"todos": []})').text
    assert out.strip() == "True", f"chat.state after approving: {nb.run_cell('print(chat.state)').text!r}"


def test_reload_mid_conversation_brings_the_transcript_back(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("weather in Paris")
    answer = chat.wait_answer("in Paris (made-up numbers")
    # A reload shows what the notebook file holds; the widget output must be saved to come back.
    nb.save()

    nb.reload()

    chat = nb.chat()
    expect(chat.user_bubbles, "the user's message did not come back after the reload").to_have_text(["weather in Paris"])
    expect(chat.assistant_texts, "the assistant's answers did not come back after the reload").to_have_count(2)
    expect(chat.assistant_texts.last, "the answer came back different").to_have_text(answer, use_inner_text=True)
    expect(chat.tool_card("get_weather").locator(".agui-badge"), "the tool card did not come back").to_have_text("done")

    chat.send("add buy milk")
    chat.wait_answer("Added “buy milk”")
    expect(chat.user_bubbles).to_have_text(["weather in Paris", "add buy milk"])


def test_two_displays_of_one_chat_stay_in_sync(lab):
    nb = lab.open([QUICKSTART, "display(chat)"])
    first, second = nb.chat(0), nb.chat(1)
    expect(nb.chat_roots, "two displays of the chat should show two views").to_have_count(2)
    recording = second.record()

    first.send("help")

    text = second.wait_answer("demo agent", bubble=1)
    assert plain(text).endswith(plain(HELP_END)), f"the second view got an incomplete answer: {text[-80:]!r}"
    recording.assert_streamed(1, where="the second view")
    expect(second.user_bubbles, "the message sent in the first view should show in the second").to_have_text(["help"])
    assert first.wait_answer("demo agent", bubble=1) == text, "the two views show the answer differently"

    second.send("add buy milk")
    first.wait_answer("Added “buy milk”")
    expect(first.user_bubbles).to_have_text(["help", "add buy milk"])


def test_python_send_from_a_cell_shows_in_the_view(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()

    nb.run_cell('run = chat.send("add milk")')

    expect(chat.user_bubbles, "a message sent from Python should show in the view").to_have_text(["add milk"])
    chat.wait_answer("Added “milk”")
    out = nb.run_cell("print(run.status, chat.state)").text
    assert out.strip() == "finished {'todos': [{'text': 'milk', 'done': False}]}", out


def test_agent_error_is_shown(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()

    chat.send("fail")

    expect(chat.error_line, "the run's error should show in the chat").to_contain_text(
        "the demo agent failed on purpose", timeout=30_000
    )
    chat.wait_idle()
    expect(chat.assistant_texts.last, "the text before the error should stay").to_contain_text("About to fail on purpose")
    out = nb.run_cell("print(chat.status, '|', chat.error)").text
    assert out.startswith("error |") and "failed on purpose" in out, f"the kernel's view of the error: {out!r}"


def test_notebook7_renders_the_chat_and_one_exchange_works(lab):
    nb = lab.open([QUICKSTART], ui="notebook")
    chat = nb.chat()

    chat.send("add buy milk")

    chat.wait_answer("Added “buy milk”")
    expect(chat.user_bubbles).to_have_text(["add buy milk"])
    out = nb.run_cell('print(chat.state["todos"][0]["text"])').text
    assert out.strip() == "buy milk", out
