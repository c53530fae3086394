"""Generative UI in a real JupyterLab, in Chromium: rich tool results, tool and state renderers,
predictive state, sub-agents, activity and suggestion chips.

The demo agent (agui_widget/adapters/_demo.py) answers: `chart` and `table` call backend tools
that return a matplotlib figure and a pandas DataFrame, `plan` streams steps into the state,
`write a document` streams a tool's arguments into ``state["document"]``, `ask a sub-agent` and
`activity` show nested work, `suggest` offers chips.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers_ui import show_panel

pytestmark = pytest.mark.browser

RECORD_TEXT = """(root, selector) => {
  const seen = [];
  const note = () => {
    const el = root.querySelector(selector);
    const text = el ? el.textContent : "";
    if (seen[seen.length - 1] !== text) seen.push(text);
  };
  const observer = new MutationObserver(note);
  observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
  return { seen, stop: () => { observer.disconnect(); return seen; } };
}"""


def test_rich_tool_results_tool_renderers_sub_agents_and_activity_show_in_the_chat(lab):
    nb = lab.open(
        [
            "from agui_widget import AgentChat, HTML\n\n"
            "chat = AgentChat()\n\n"
            "@chat.render_tool('get_weather')\n"
            "def weather(args, result):\n"
            "    if result is None:\n"
            "        return f\"Looking up **{args['city']}**…\"\n"
            "    return HTML(f\"<p class='forecast'>{result['city']}: {result['temperature_c']} °C</p>\")\n\n"
            "chat"
        ]
    )
    chat = nb.chat()

    chat.send("chart")
    chat.wait_answer("you see the object")
    image = chat.tool_card("make_chart").locator("img.agui-bundle-img")
    expect(image, "a tool that returns a matplotlib figure should show it as an image").to_have_count(1)
    assert image.evaluate("img => img.complete && img.naturalWidth > 100"), "the figure's PNG did not load"

    chat.send("table")
    chat.wait_answer("you see the object")
    table = chat.tool_card("make_table").locator("table")
    expect(table, "a tool that returns a DataFrame should show it as a table").to_have_count(1)
    expect(table.locator("td", has_text="Lisbon")).to_have_count(1)

    chat.send("weather in Oslo")
    chat.wait_answer("Oslo")
    rendered = chat.root.locator(".agui-tool-rendered[data-tool=get_weather]")
    expect(rendered.locator("p"), "the render_tool output replaces the card").to_contain_text("Oslo:")
    expect(chat.tool_card("get_weather"), "the default card is hidden behind 'details'").to_have_count(0)
    rendered.get_by_role("button", name="details").click()
    expect(chat.tool_card("get_weather"), "'details' shows the default card").to_have_count(1)

    chat.send("ask a sub-agent")
    chat.wait_answer("open protocol")
    block = chat.root.locator(".agui-subagent")
    expect(block, "a sub-agent's work should be shown as one block").to_have_count(1)
    expect(block.locator(".agui-subagent-name")).to_have_text("researcher")
    expect(block, "the block should say the sub-agent finished").to_have_attribute("data-status", "finished")
    block.locator("summary").first.click()
    expect(block.locator(".agui-tool-name", has_text="search_library"), "its tool call sits inside").to_have_count(1)

    chat.send("activity")
    chat.wait_answer("Indexed 3 files")
    card = chat.root.locator(".agui-activity[data-activity-type=progress]")
    expect(card, "the activity card shows its latest content").to_contain_text("Indexing: 3 of 3 files")


def test_a_state_checklist_updates_live_and_predictive_state_follows_streamed_arguments(lab):
    nb = lab.open(
        [
            "from agui_widget import AgentChat, Markdown, steps_checklist\n\n"
            "chat = AgentChat()\n"
            "chat.render_state(lambda plan: steps_checklist(plan['steps']), key='plan')\n"
            "chat.render_state(lambda doc: Markdown(doc), key='document')\n"
            "chat"
        ]
    )
    chat = nb.chat()

    recorder = chat.root.evaluate_handle(RECORD_TEXT, ".agui-state-render .agui-steps")
    chat.send("plan a trip")
    checklist = chat.root.locator(".agui-state-render .agui-steps")
    expect(checklist.locator(".agui-step-running"), "while the plan runs, one step shows as running").to_have_count(1)
    chat.wait_answer("Planned")
    expect(checklist.locator(".agui-step-done"), "when the run ends every step is done").to_have_count(4)
    seen = recorder.evaluate("r => r.stop()")
    done_counts = sorted({text.count("done") for text in seen if text})
    assert len(done_counts) >= 3 and done_counts[-1] == 4, (
        f"the checklist did not update live: it showed {done_counts} steps done"
    )
    # The record of the run's steps (kept in the transcript once it ends) is not part of this order.
    order = chat.root.locator(".agui-transcript > .agui-row:not(.agui-run-steps)").evaluate_all(
        "rows => rows.map(r => r.classList.contains('agui-state-render') ? 'render' : r.classList.contains('agui-row-assistant') ? 'assistant' : 'other')"
    )
    assert order[-1] == "render" and order[-2] == "assistant", f"the checklist should follow the run's answer: {order}"

    panel = show_panel(chat, "state")
    recorder = chat.root.evaluate_handle(RECORD_TEXT, "section[aria-label='Shared state']")
    document = chat.root.locator(".agui-state-render[data-render='state:1']")
    chat.send("write a document about owls")
    chat.wait_answer("Done:")
    expect(document, "the document render shows the finished document").to_contain_text("the document is final")
    expect(panel, "the state panel shows the document (its first characters)").to_contain_text("Owls is a fine")
    seen = recorder.evaluate("r => r.stop()")
    growing = {len(text) for text in seen if "Owls is a fine" in text}
    assert len(growing) >= 3, f"the view's state did not follow the streamed arguments; the panel showed {seen[-4:]}"
    final = nb.run_cell("print(chat.state['document'].endswith('the document is final.'))").text.strip()
    assert final.endswith("True")


def test_suggestion_chips_send_and_the_agent_can_offer_new_ones(lab):
    nb = lab.open(
        [
            "from agui_widget import AgentChat\n\n"
            "chat = AgentChat(suggestions=[{'title': 'Paris weather', 'message': 'weather in Paris'}, 'suggest'])\n"
            "chat"
        ]
    )
    chat = nb.chat()
    chips = chat.root.get_by_role("group", name="Suggestions")
    expect(chips.get_by_role("button"), "an empty chat shows its starters").to_have_count(2)
    chips.get_by_role("button", name="Paris weather").click()
    chat.wait_answer("Paris")
    expect(chips, "the starters go once the conversation starts").to_have_count(0)

    chat.send("suggest")
    chat.wait_idle()
    expect(chips.get_by_role("button", name="A chart"), "the agent's suggestions show below its answer").to_have_count(1)
    chip = chips.get_by_role("button", name="Write a document")
    chip.focus()
    chip.press("Enter")
    chat.wait_answer("Done:")
    assert "Owls" not in nb.run_cell("print(chat.state['document'][:40])").text
    expect(chips, "the chips go once the user sent something").to_have_count(0)
