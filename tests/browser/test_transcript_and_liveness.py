"""The transcript, the status line, the message box and the link to the kernel, in a real
JupyterLab: what a chat shows when its kernel restarts (idle, and in the middle of a run), a run
that neither flashes "Thinking" at its end nor moves the chat, a sub-agent's block that folds when
its sub-agent is done, "Waiting for you" only when the user is asked something, what earlier runs
leave in the transcript, and math set in a math font.

Flashes and jumps are recorded in the page (a MutationObserver samples the chat on every change of
its DOM) and the test asserts the bad state never occurred; nothing here measures time.
"""

from __future__ import annotations

import contextlib
import re

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import show_panel

pytestmark = pytest.mark.browser

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"
# The demo agent with shared state the State panel can edit (a number and a boolean).
STATEFUL = "from agui_widget import AgentChat\n\nchat = AgentChat(state={'visits': 3, 'dark': True})\nchat"
# Slow enough that a restart lands in the middle of the answer.
SLOW = "from agui_widget import AgentChat, DemoAgent\n\nchat = AgentChat(DemoAgent(delay=0.25))\nchat"
# A transcript taller than the chat, so a run adds nothing to the chat's own height.
FULL = """\
from agui_widget import AgentChat, DemoAgent

earlier = []
for i in range(30):
    earlier.append({"id": f"u{i}", "role": "user", "content": f"question {i}"})
    earlier.append({"id": f"a{i}", "role": "assistant", "content": f"answer {i}"})
chat = AgentChat(DemoAgent(delay=0.03), messages=earlier)
chat"""

KERNEL_GONE = re.compile(r"kernel (restarted|is no longer reachable)", re.IGNORECASE)


def restart_kernel(nb: NotebookPage) -> None:
    """Kernel > Restart Kernel… (JupyterLab's ``kernelmenu:restart``), confirming its dialog."""
    page = nb.page
    page.evaluate("id => window.jupyterapp.shell.activateById(id)", nb.panel_id)
    # Not awaited: the command resolves only once its dialog is answered.
    page.evaluate("() => { window.jupyterapp.commands.execute('kernelmenu:restart'); }")
    confirm = page.locator(".jp-Dialog .jp-Dialog-footer button.jp-mod-accept")
    with contextlib.suppress(PlaywrightError):  # restarting without asking is a user setting
        confirm.click(timeout=10_000)
    expect(page.locator(".jp-Dialog"), "the restart dialog stayed open").to_have_count(0)
    nb.wait_kernel_idle(what="the kernel to be back after the restart")


def kernel_banner(chat: ChatView):
    return chat.root.get_by_role("alert").filter(has_text=KERNEL_GONE)


# -- the kernel restarts under the chat -----------------------------------------------------------


def test_a_kernel_restart_while_idle_shows_one_banner_keeps_the_typed_text_and_disables_the_input(lab):
    nb = lab.open([STATEFUL])
    chat = nb.chat()
    chat.send("hello")
    chat.wait_answer("Say help")
    state = show_panel(chat, "state")
    expect(state.get_by_role("button", name="Edit visits:")).to_be_enabled()
    box = chat.message_box
    box.fill("typed before the restart")

    restart_kernel(nb)

    expect(kernel_banner(chat), "the chat should say its kernel restarted, once").to_have_count(1, timeout=10_000)
    expect(kernel_banner(chat)).to_contain_text("Run its cell again")
    expect(box, "the typed text should stay in the box").to_have_value("typed before the restart")
    expect(box, "the box should no longer take input").not_to_be_editable()
    expect(chat.send_button, "Send should be disabled").to_be_disabled()

    # Trying anyway sends nothing, keeps the text, and piles up nothing.
    box.press("Enter")
    box.press("Enter")
    expect(box, "Enter must not clear the text it could not send").to_have_value("typed before the restart")
    expect(chat.root.locator(".agui-notice"), "no notice per attempt").to_have_count(0)
    expect(kernel_banner(chat), "still one banner").to_have_count(1)
    expect(chat.status_line).to_have_attribute("data-status", "disconnected")

    # Nothing else offers an edit that could only be lost: the state stays readable, not editable.
    expect(state.get_by_role("button", name="Edit visits:")).to_be_disabled()
    expect(state.get_by_role("switch", name="dark", exact=True)).to_be_disabled()
    expect(chat.button("Clear conversation")).to_be_disabled()


def test_a_kernel_restart_mid_run_ends_running_and_shows_the_banner(lab):
    nb = lab.open([SLOW])
    chat = nb.chat()
    chat.send("help")
    expect(chat.stop_button, "the run should be under way").to_be_visible()
    expect(chat.assistant_texts.first, "the answer should be streaming").to_contain_text("demo agent")

    restart_kernel(nb)

    expect(kernel_banner(chat), "the chat should say its kernel restarted, once").to_have_count(1, timeout=10_000)
    expect(chat.status_line, "the chat must not stay 'running'").not_to_have_attribute("data-status", "running")
    expect(chat.stop_button, "Stop could only fail now").to_have_count(0)
    expect(chat.send_button, "Send should be disabled").to_be_disabled()
    expect(chat.message_box).not_to_be_editable()
    expect(chat.root.locator("[data-streaming=true]"), "nothing streams any more").to_have_count(0)
    expect(chat.status_line, "no 'Thinking' for a run that will never answer").not_to_contain_text("Thinking")
    expect(chat.assistant_texts.first, "what came before the restart stays").to_contain_text("demo agent")


# -- flicker: "Thinking" at the end of a run, the chat's height, sub-agents, "Waiting for you" ---

# Samples the chat on every change of its DOM: whether it shows "Thinking" (the status line, or a
# Thinking row), the assistant bubbles, and the sizes and places of its parts.
FLICKER_RECORDER = r"""
(root) => {
  const rec = { samples: [] };
  const chat = root.querySelector(".agui-chat");
  const sample = () => {
    const status = root.querySelector(".agui-status");
    const bubbles = root.querySelectorAll(".agui-bubble-assistant .agui-text");
    const last = bubbles[bubbles.length - 1];
    const box = chat.getBoundingClientRect();
    const scroll = root.querySelector(".agui-scroll").getBoundingClientRect();
    const composer = root.querySelector(".agui-composer").getBoundingClientRect();
    rec.samples.push({
      thinking: /Thinking/.test(status ? status.textContent : "") || !!root.querySelector(".agui-row-thinking"),
      status: status ? status.textContent : "",
      bubbles: bubbles.length,
      lastLength: last ? last.textContent.length : 0,
      sizes: [Math.round(box.height), Math.round(scroll.height), Math.round(composer.top - box.top)],
    });
  };
  rec.observer = new MutationObserver(sample);
  rec.observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
  sample();
  return rec;
}
"""


def recorded(handle) -> list[dict]:
    samples = handle.evaluate("r => r.samples")
    handle.evaluate("r => r.observer.disconnect()")
    return samples


def record_a_run(chat: ChatView, text: str, answer: str) -> tuple[list[dict], int]:
    """Sends ``text`` with the recorder on; returns the samples and how many answers came before."""
    before = chat.assistant_texts.count()
    recorder = chat.root.evaluate_handle(FLICKER_RECORDER)
    chat.send(text)
    chat.wait_answer(answer)
    chat.wait_idle()
    return recorded(recorder), before


def test_a_run_does_not_flash_thinking_at_its_end(lab):
    nb = lab.open([FULL])
    chat = nb.chat()
    expect(chat.assistant_texts.last).to_have_text("answer 29")

    samples, before = record_a_run(chat, "hello there", "Say help")

    answering = [i for i, s in enumerate(samples) if s["bubbles"] > before and s["lastLength"] > 0]
    assert answering, f"the recorder saw no answer: {samples[-3:]}"
    first = answering[0]
    assert any(s["thinking"] for s in samples[:first]), "the chat should say Thinking before the first token"
    flashes = [s for s in samples[first:] if s["thinking"]]
    assert not flashes, f"'Thinking' came back after the answer had started ({len(flashes)} samples), e.g. {flashes[-1]}"


def test_a_run_does_not_change_the_chats_height(lab):
    nb = lab.open([FULL])
    chat = nb.chat()
    expect(chat.assistant_texts.last).to_have_text("answer 29")

    samples, _ = record_a_run(chat, "hello there", "Say help")

    sizes = sorted({tuple(s["sizes"]) for s in samples})
    assert len(sizes) == 1, (
        "the chat's height, its transcript's height or its message box's place changed during the run "
        f"(chat height, transcript height, message box top): {sizes}"
    )


STATUS_RECORDER = r"""
(root) => {
  const rec = { texts: [] };
  const status = root.querySelector(".agui-status");
  const sample = () => {
    const text = status.textContent;
    if (rec.texts[rec.texts.length - 1] !== text) rec.texts.push(text);
  };
  rec.observer = new MutationObserver(sample);
  rec.observer.observe(status, { subtree: true, childList: true, characterData: true });
  sample();
  return rec;
}
"""


def test_a_sub_agent_block_folds_when_its_sub_agent_is_done(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()

    chat.send("ask a sub-agent")
    chat.wait_answer("open protocol")
    block = chat.root.locator(".agui-subagent")
    expect(block).to_have_attribute("data-status", "finished")
    expect(block, "the sub-agent's block should fold once its sub-agent is done").to_have_js_property("open", False)

    block.locator("summary").first.click()
    expect(block, "the user can open it again").to_have_js_property("open", True)
    chat.send("hello")
    chat.wait_answer("Say help")
    expect(block, "the block the user opened stays open").to_have_js_property("open", True)


def test_a_tool_the_view_runs_itself_never_says_waiting_for_you(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.wait_ready()

    # A frontend tool whose handler the view runs: the chat waits, but not for the user.
    recorder = chat.root.evaluate_handle(STATUS_RECORDER)
    chat.send("make it teal")
    chat.wait_answer("accent is now", timeout=15_000)
    chat.wait_idle()
    texts = recorder.evaluate("r => r.texts")
    recorder.evaluate("r => r.observer.disconnect()")
    assert "Waiting for you" not in texts, f"the status line asked the user to act for a tool the view runs itself: {texts}"


def test_a_tool_that_asks_the_user_says_waiting_for_you(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("add buy milk")
    chat.wait_answer("Your list has 1 item")
    chat.send("delete my list")
    expect(chat.status_line, "an approval asks the user").to_have_text("Waiting for you")


# -- what earlier runs leave in the transcript ----------------------------------------------------


def test_earlier_runs_keep_their_steps_and_a_failed_turn_keeps_a_marker(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("plan a trip")
    chat.wait_answer("Planned")
    chat.wait_idle()
    steps = chat.root.locator(".agui-run-steps")
    expect(steps, "the run's steps stay once it ends").to_have_count(1)
    expect(steps).to_contain_text("Write it up")

    chat.send("fail")
    expect(chat.error_line).to_contain_text("failed on purpose")
    chat.wait_idle()
    chat.send("hello")
    chat.wait_answer("Say help")
    chat.wait_idle()

    expect(steps, "the first run keeps its steps after later runs").to_have_count(1)
    # Placed after the plan's answer, before the next question.
    order = chat.root.evaluate(
        """root => [...root.querySelectorAll('.agui-transcript > *')].map(el =>
            el.matches('.agui-run-steps') ? 'steps' : el.matches('.agui-past-error') ? 'failed'
            : el.matches('.agui-row-user') ? 'user' : el.matches('.agui-row-assistant') ? 'assistant' : '')"""
    )
    shown = [k for k in order if k]
    assert shown == ["user", "assistant", "steps", "user", "assistant", "failed", "user", "assistant"], shown
    marker = chat.root.locator(".agui-past-error")
    expect(marker).to_contain_text("failed on purpose")
    expect(chat.error_line, "the error banner is for the latest run only").to_have_count(0)


# -- the look: who speaks, when, and where a turn begins ------------------------------------------


def test_turns_are_grouped_and_labelled_with_times_on_hover(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("hello")
    chat.wait_answer("Say help")
    chat.send("hello again")
    chat.wait_answer("Say help", bubble=2)

    rows = chat.root.locator(".agui-transcript > .agui-row")
    expect(rows).to_have_count(4)
    expect(rows.nth(0).locator(".agui-author"), "the user's row is labelled").to_have_text("You")
    expect(rows.nth(1).locator(".agui-author .agui-avatar"), "the agent's row has an avatar").to_have_count(1)

    # More room before a new question than between a question and its answer.
    tops = rows.evaluate_all("els => els.map(el => [el.getBoundingClientRect().top, el.getBoundingClientRect().bottom])")
    within = tops[1][0] - tops[0][1]
    between = tops[2][0] - tops[1][1]
    assert between > within, f"a new turn should stand apart: {between:.1f} px before it, {within:.1f} px inside a turn"

    # The time shows with the message's actions, on hover.
    bar = rows.nth(0).locator(".agui-actions-bar")
    expect(bar.locator("time"), "the message has a time").to_have_count(1)
    chat.root.locator(".agui-toolbar").hover()
    expect(bar).to_have_css("opacity", "0")
    rows.nth(0).hover()
    expect(bar, "hovering a message shows its time and actions").to_have_css("opacity", "1")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT.*Z", bar.locator("time").get_attribute("datetime") or "")


# -- the look: math ------------------------------------------------------------------------------


def test_display_math_is_set_in_a_math_font(lab):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("markdown")
    chat.wait_answer("mean of")
    display = chat.assistant_texts.last.locator("math[display=block]")
    expect(display).to_have_count(1)
    # In a math font (with an OpenType MATH table) a displayed sum is a large operator; in a text
    # font it stays the size of a letter, and the formula looks cramped.
    height, size = display.locator("mo", has_text="∑").evaluate(
        "mo => [mo.getBoundingClientRect().height, parseFloat(getComputedStyle(mo).fontSize)]"
    )
    assert height >= 1.4 * size, f"the displayed sum is {height:.1f} px tall at a font size of {size:.1f} px: no math font"
