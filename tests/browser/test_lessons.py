"""The lessons (notebooks/01_*.ipynb … 15_*.ipynb) in a real JupyterLab, in Chromium.

Each test opens one lesson: the code cells up to the one tagged ``chat`` (the cell that shows the
lesson's chat) run first, then the test works the lesson's feature in the chat as a student would
(clicks, forms, the state panel), checks what the kernel holds, and finally runs the lesson's
remaining cells in the same kernel. Those cells answer from Python only what no view answered, so
they must pass after the browser has acted, and where a lesson prints that it answered from Python,
the test checks that the browser answered first. A cell tagged ``raises-exception`` (nbval's tag)
must raise, as under nbval.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from playwright.sync_api import JSHandle, expect

from agui_widget.notebook._errors import ASK
from tests.browser.conftest import CellResult, ChatView, NotebookPage
from tests.browser.helpers_ui import show_panel, wait_in_kernel

pytestmark = pytest.mark.browser

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
FOLLOW_UP_TIMEOUT = 15_000  # ms: the follow-up run after a frontend tool's answer or an approval


def lesson_cells(stem: str) -> tuple[list[str], list[tuple[str, bool]]]:
    """A lesson's code cells, split after the cell tagged ``chat`` (the one that shows the chat);
    each of the rest with whether it is tagged ``raises-exception``."""
    paths = sorted(NOTEBOOKS.glob(f"{stem}*.ipynb"))
    assert len(paths) == 1, f"expected one lesson notebook named {stem}*.ipynb in notebooks/, found {paths}"
    notebook = nbformat.read(paths[0], as_version=4)
    cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    tagged = [i for i, cell in enumerate(cells) if "chat" in cell.metadata.get("tags", ())]
    assert len(tagged) == 1, f"{paths[0].name}: one code cell must be tagged 'chat' (the cell showing the chat)"
    split = tagged[0] + 1
    rest = [(c.source, "raises-exception" in c.metadata.get("tags", ())) for c in cells[split:]]
    return [c.source for c in cells[:split]], rest


class Lesson:
    """One lesson open in JupyterLab: its chat, and its cells not run yet."""

    def __init__(self, lab: Any, stem: str) -> None:
        setup, self.rest = lesson_cells(stem)
        self.notebook: NotebookPage = lab.open(setup)
        self.chat: ChatView = self.notebook.chat()

    def cell(self, code: str) -> str:
        """Runs code in the lesson's kernel; what it printed."""
        return self.notebook.run_cell(code).text

    def kernel(self, expression: str) -> Any:
        """The value of a Python expression in the lesson's kernel, through JSON."""
        out = self.cell(f"import json as _json\nprint(_json.dumps({expression}))")
        return json.loads(out.strip().splitlines()[-1])

    def run_rest(self) -> list[CellResult]:
        """Runs the lesson's remaining cells, in order; fails on the first that raises, unless it is
        tagged ``raises-exception``: that one fails when it does not raise."""
        cells = []
        for code, raises in self.rest:
            cell = self.notebook.run_cell(code, timeout=90_000, check=not raises)
            assert not raises or cell.error is not None, f"a cell tagged raises-exception did not raise:\n{code}"
            cells.append(cell)
        return cells


# Records, on every DOM change in a chat view, a JSON summary of the elements a selector matches
# (their text, or the text of a part of them): enough to tell what a live rendering went through.
WATCHER = r"""
(root, [selector, part]) => {
  const rec = { samples: [] };
  const sample = () => {
    const found = Array.from(root.querySelectorAll(selector)).map((el) => {
      const target = part ? el.querySelector(part) : el;
      return target ? target.textContent : null;
    });
    const entry = JSON.stringify(found);
    if (rec.samples[rec.samples.length - 1] !== entry) rec.samples.push(entry);
  };
  rec.observer = new MutationObserver(sample);
  rec.observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
  sample();
  return rec;
}
"""


def watch(chat: ChatView, selector: str, part: str = "") -> JSHandle:
    return chat.root.evaluate_handle(WATCHER, [selector, part])


def samples(handle: JSHandle) -> list[list[str | None]]:
    return [json.loads(entry) for entry in handle.evaluate("r => { r.observer.disconnect(); return r.samples; }")]


# -- the lessons ----------------------------------------------------------------------------------


def test_01_quickstart_answers_and_the_inspector_lists_the_run(lab):
    lesson = Lesson(lab, "01_")
    chat = lesson.chat

    chat.send("weather in Paris")

    chat.wait_answer("in Paris (made-up numbers")
    panel = show_panel(chat, "events")
    types = panel.locator("li.agui-event")
    expect(types.first, "the inspector's first event").to_have_attribute("data-type", "RUN_STARTED")
    expect(panel.locator('li.agui-event[data-type="TOOL_CALL_RESULT"]'), "the tool's result event").to_have_count(1)
    expect(types.last, "the inspector's last event").to_have_attribute("data-type", "RUN_FINISHED")

    outputs = [cell.text for cell in lesson.run_rest()]
    table = next(text for text in outputs if text.startswith("event "))
    assert "TOOL_CALL_RESULT" in table and "RUN_FINISHED" in table, f"the lesson's event table:\n{table}"

    # The tuned chat: the picker shows the model a cell chose, the demo agent got it as forwardedProps,
    # and the cell's rating is on the answer in the view.
    tuned = lesson.notebook.chat(1)
    expect(tuned.root.locator(".agui-setting-select option:checked"), "the model picker").to_have_text("large-model")
    settings = next(text for text in outputs if "forwardedProps" in text)
    assert '"model": "large-model"' in settings and '"temperature": 0.2' in settings, settings
    assert "('up', 'Clear and short')" in "".join(outputs), outputs
    expect(tuned.root.get_by_role("button", name="Good answer"), "the rating a cell gave").to_have_attribute(
        "aria-pressed", "true"
    )


def test_02_frontend_tool_changes_the_background_in_the_browser(lab):
    lesson = Lesson(lab, "02_")
    chat = lesson.chat

    chat.send("change the background to lavender")

    text = chat.wait_answer("background is now", timeout=FOLLOW_UP_TIMEOUT)
    assert "lavender" in text, text
    background = chat.root.evaluate("el => el.querySelector('.agui-chat').style.background")
    assert "lavender" in background, f"the handler did not change the chat's background: {background!r}"
    result = lesson.kernel("json.loads([m for m in chat.messages if m['role'] == 'tool'][-1]['content'])")
    assert result == {"ok": True, "background": "lavender"}, f"the browser's answer in the kernel: {result!r}"

    cells = lesson.run_rest()
    fallback = cells[0].text
    assert "answered from Python" not in fallback, f"the browser should have answered the lesson's call:\n{fallback}"
    assert "background is now **lavender**" in fallback, fallback


def test_03_a_figure_and_a_table_returned_by_tools_show_in_the_chat(lab):
    lesson = Lesson(lab, "03_")
    chat = lesson.chat

    chat.send("chart for Lisbon")

    chat.wait_answer("week in Lisbon")
    image = chat.root.locator('.agui-bundle[data-mime="image/png"] img')
    expect(image, "the figure returned by temperature_chart should show as an image").to_have_count(1)
    expect(image).to_be_visible()
    width = image.evaluate("img => img.complete ? img.naturalWidth : 0")
    assert width > 100, f"the figure's PNG did not decode to an image (natural width {width})"

    chat.send("table for Oslo")

    chat.wait_answer("week in Oslo")
    table = chat.root.locator('.agui-bundle[data-mime="text/html"] table')
    expect(table, "the DataFrame returned by temperature_table should show as a table").to_have_count(1)
    expect(table.locator("th", has_text="high °C"), "the table's header").to_have_count(1)
    expect(table.locator("tbody tr"), "one row per day").to_have_count(7)
    kinds = lesson.kernel("[sorted(m['metadata']['agui_widget']['display']) for m in chat.messages if m['role'] == 'tool']")
    assert kinds == [["image/png", "text/plain"], ["text/html", "text/plain"]], kinds

    lesson.run_rest()
    expect(image, "the lesson's own chart and table show too").to_have_count(2)
    expect(table).to_have_count(2)


def test_04_approve_and_deny_in_the_chat_decide_the_booking(lab):
    lesson = Lesson(lab, "04_")
    chat = lesson.chat

    chat.send("book a table for 4 at 8 pm")

    card = chat.pending.locator(".agui-card[data-ui=confirm]")
    expect(card, "the approval card did not show").to_be_visible()
    expect(card, "the card should show what is asked").to_contain_text("Book a table for 4 at 8 pm?")
    expect(chat.status_line).to_have_attribute("data-status", "waiting")
    card.get_by_role("button", name="Approve", exact=True).click()
    chat.wait_answer("Booked: a table for 4 at 8 pm", timeout=FOLLOW_UP_TIMEOUT)
    expect(chat.pending, "the card should go once answered").to_have_count(0)

    chat.send("book a table for 2 at 9 pm")

    card = chat.pending.locator(".agui-card[data-ui=confirm]")
    expect(card).to_contain_text("Book a table for 2 at 9 pm?")
    card.get_by_role("button", name="Deny", exact=True).click()
    chat.wait_answer("did not book", timeout=FOLLOW_UP_TIMEOUT)
    answers = lesson.kernel("[m['content'] for m in chat.messages if m['role'] == 'tool']")
    assert answers == ['{"approved": true}', "a table for 4 at 8 pm, reference R-104.", '{"approved": false}'], answers

    lesson.run_rest()


def test_05_the_interrupt_form_answers_and_the_run_resumes(lab):
    lesson = Lesson(lab, "05_")
    chat = lesson.chat

    chat.send("book a flight to Oslo")

    card = chat.pending.locator(".agui-card[data-ui=interrupt]")
    expect(card.locator(".agui-card-title"), "the interrupt's message").to_have_text(
        "Book the flight to Oslo on 2026-05-04 for 180 €?"
    )
    expect(card, "the card should show the tool call's arguments").to_contain_text('"price_eur": 180')
    seat = card.get_by_label("Seat")
    expect(seat.locator("option:checked"), "the response schema's default seat").to_have_text("window")
    seat.select_option(label="aisle")
    card.get_by_role("button", name="Approve", exact=True).click()

    chat.wait_answer("aisle seat", timeout=FOLLOW_UP_TIMEOUT)
    expect(chat.pending).to_have_count(0)
    outcomes = lesson.kernel("[e.outcome.type for e in chat.events if e.type.value == 'RUN_FINISHED']")
    assert outcomes == ["interrupt", "success"], outcomes

    lesson.run_rest()


def test_06_the_checklist_follows_the_agents_steps(lab):
    lesson = Lesson(lab, "06_")
    chat = lesson.chat
    watcher = watch(chat, ".agui-state-render li.agui-step", ".agui-step-status")

    chat.send("plan a weekend in Porto")

    chat.wait_answer("all 4 steps")
    checklist = chat.root.locator(".agui-state-render li.agui-step")
    expect(checklist, "the checklist should list the plan's steps").to_have_count(4)
    expect(checklist.first).to_contain_text("Gather what is needed")
    expect(chat.root.locator(".agui-state-render li.agui-step-completed"), "every step ends completed").to_have_count(4)
    seen = [s for s in samples(watcher) if s]
    for index in range(4):
        assert any(s[index] == "running" and all(x == "completed" for x in s[:index]) for s in seen), (
            f"step {index + 1} was never shown running after the ones before it completed: {seen}"
        )

    lesson.run_rest()


def test_07_a_python_renderer_draws_the_tool_call(lab):
    lesson = Lesson(lab, "07_")
    chat = lesson.chat

    chat.send("what's the weather in Lisbon?")

    chat.wait_answer("Lisbon: 18 °C")
    rendered = chat.root.locator(".agui-tool-rendered[data-tool=get_weather]")
    expect(rendered, "the renderer's card should replace the default one").to_have_count(1)
    expect(rendered.locator("h4"), "the card's heading").to_have_text("Lisbon")
    expect(rendered).to_contain_text("18 °C, partly cloudy")
    expect(rendered).to_contain_text("wind 14 km/h")
    expect(chat.tool_card("get_weather"), "the default card is hidden behind 'details'").to_have_count(0)

    lesson.run_rest()


def test_08_state_edited_in_the_panel_reaches_cells_and_the_agent_and_back(lab):
    lesson = Lesson(lab, "08_")
    chat = lesson.chat
    panel = show_panel(chat, "state")
    budget = panel.get_by_role("button", name="Edit budget:")
    expect(budget, "the state given to AgentChat").to_have_text("50")

    chat.send("add bread for 3")
    chat.wait_answer("Added bread")
    expect(panel.get_by_role("button", name="Edit items/1/name:"), "the agent's change").to_have_text('"bread"')

    budget.click()
    box = panel.get_by_role("spinbutton", name="New value for budget", exact=True)
    box.press_sequentially("80")
    box.press("Enter")
    expect(budget).to_have_text("80")
    wait_in_kernel(lesson.notebook, "chat.state['budget'] == 80", show="chat.state")
    assert 80 in lesson.kernel("[value.get('budget') for value in seen]"), "the lesson's observer did not see the edit"

    chat.send("how much budget is left?")
    chat.wait_answer("left 69")

    lesson.cell("chat.update_state(budget=25)")
    expect(budget, "a cell's change should show in the panel").to_have_text("25")

    lesson.run_rest()


def test_09_the_state_follows_the_streamed_argument(lab):
    lesson = Lesson(lab, "09_")
    chat = lesson.chat
    watcher = watch(chat, ".agui-state-render")

    chat.send("write a document about tea")

    chat.wait_answer("Done: the document")
    render = chat.root.locator(".agui-state-render")
    expect(render, "the document renderer").to_contain_text("That is all there is to say about tea.")
    lengths = [len(s[0] or "") for s in samples(watcher) if s]
    growing = [n for i, n in enumerate(lengths) if i == 0 or n > lengths[i - 1]]
    assert len(growing) >= 4, f"the rendered document did not grow while the argument streamed: lengths {lengths}"
    document = lesson.kernel("chat.state['document']")
    assert document.startswith("# On tea") and document.endswith("about tea."), document

    lesson.run_rest()


def test_10_a_pydantic_ai_agent_answers_through_its_own_adapter(lab):
    lesson = Lesson(lab, "10_")
    chat = lesson.chat

    chat.send("what's the weather in Lisbon?")

    text = chat.wait_answer("It is sunny")
    assert "Lisbon" in text, text
    card = chat.tool_card("get_weather")
    expect(card.locator(".agui-badge"), "pydantic-ai ran the tool").to_have_text("done")
    expect(card).to_contain_text('"temperature_c": 23')

    lesson.run_rest()


def test_11_an_agent_served_by_another_process_answers_in_the_chat(lab):
    lesson = Lesson(lab, "11_")
    chat = lesson.chat
    assert lesson.kernel("server.poll() is None"), "the lesson's server process should be running"

    chat.send("weather in Oslo")

    chat.wait_answer("in Oslo (made-up numbers")
    expect(chat.tool_card("get_weather").locator(".agui-badge"), "the server's agent ran the tool").to_have_text("done")

    chat.send("make it teal")

    chat.wait_answer("the accent is now", timeout=FOLLOW_UP_TIMEOUT)
    result = lesson.kernel("json.loads([m for m in chat.messages if m['role'] == 'tool'][-1]['content'])")
    assert result == {"ok": True, "color": "teal"}, f"the browser's answer to the remote agent's call: {result!r}"
    posts = lesson.kernel(
        "[line.split(' - ', 1)[-1] for line in (workdir / 'server.log').read_text().splitlines() if '\"POST /agents/demo' in line]"
    )
    # the by-hand run, the weather turn, and the two runs of the frontend tool's turn
    assert posts == ['"POST /agents/demo HTTP/1.1" 200 OK'] * 4, f"the runs the server process logged: {posts}"

    cells = lesson.run_rest()
    assert "answered from Python" not in cells[2].text, f"the browser should have answered the lesson's call:\n{cells[2].text}"
    assert "accent is now **teal**" in cells[2].text, cells[2].text
    last = cells[-1].text
    assert "server stopped: True" in last and "error | Cannot reach the agent at http://127.0.0.1:" in last, last
    expect(chat.error_line, "the chat should say the server is gone").to_contain_text("Cannot reach the agent")
    assert lesson.kernel("server.poll() is not None"), "the lesson's last cell should have stopped the server"


def test_12_the_agent_picked_in_the_toolbar_answers_and_the_guard_refuses(lab):
    lesson = Lesson(lab, "12_")
    notebook = lesson.notebook
    restored = notebook.chat(1)
    expect(restored.user_bubbles, "the thread restored from the store").to_have_text(["plan a weekend in Porto"])
    expect(restored.assistant_texts).to_contain_text(["Plan for a weekend in Porto"])
    restored.button("Show threads").click()
    threads = restored.root.get_by_role("region", name="Threads", exact=True)
    expect(threads.locator('[aria-current="true"]'), "the thread shown is the current one").to_contain_text(
        "plan a weekend in Porto"
    )
    expect(threads.get_by_role("button", name="Switch to A day in Lisbon"), "the thread a cell renamed").to_be_visible()
    expect(threads.locator(".agui-thread"), "the deleted thread is gone; the empty one is not stored").to_have_count(2)
    team = ChatView(notebook, notebook.chat_roots.filter(has=notebook.page.get_by_role("combobox", name="Agent"))).wait_ready()
    picker = team.root.get_by_role("combobox", name="Agent")
    expect(picker, "the first agent starts active").to_have_value("planner")

    team.send("plan a picnic")
    team.wait_answer("Plan for a picnic")

    picker.focus()
    picker.select_option("coder")
    expect(picker).to_have_value("coder")
    expect(team.user_bubbles, "the coder's thread starts empty").to_have_count(0)
    team.send("write a picnic checklist")
    text = team.wait_answer("Code for a picnic checklist")
    assert "print('a picnic checklist')" in text, text

    team.send("my password is 1234")

    refused = team.root.locator(".agui-refused")
    expect(refused, "the guard's reason under the refused message").to_have_text(
        "Not sent: Please don't paste passwords into the chat."
    )
    team.wait_idle()
    kernel = lesson.kernel("[team.agent_name, [m['role'] for m in team.messages], turns]")
    assert kernel == ["coder", ["user", "assistant", "user"], ["finished", "finished", "refused"]], kernel
    assert lesson.kernel("event_counts['RUN_STARTED']") == 2, "the refused message must not start a run"

    picker.select_option("planner")
    expect(team.user_bubbles, "the planner's thread should come back").to_have_text(["plan a picnic"])

    cells = lesson.run_rest()
    exported = next(cell.text for cell in cells if cell.text.startswith("**User:**"))
    assert "plan a picnic" in exported and "Not sent: Please don't paste passwords" in exported, exported


def test_13_notebook_functions_answer_in_the_chat_and_the_risky_one_waits_for_approve(lab):
    lesson = Lesson(lab, "13_")
    chat = lesson.chat
    badges = watch(chat, ".agui-tool", ".agui-tool-head .agui-badge")

    chat.send("top 3 customers")

    chat.wait_answer("By revenue: Cedar (10,485 €), Oak (10,170 €), Hazel (9,939 €).", timeout=FOLLOW_UP_TIMEOUT)
    top = chat.tool_card("top_customers")
    expect(top.locator(".agui-tool-head .agui-badge"), "the kernel ran the function").to_have_text("done")
    expect(top.locator('.agui-bundle[data-mime="text/html"] table tbody tr'), "the DataFrame it returned").to_have_count(3)

    chat.send("plot the revenue by region")

    chat.wait_answer("Here it is, in the card above.", timeout=FOLLOW_UP_TIMEOUT)
    image = chat.tool_card("plot_revenue").locator('.agui-bundle[data-mime="image/png"] img')
    expect(image, "the figure it returned").to_be_visible()
    assert image.evaluate("img => img.complete ? img.naturalWidth : 0") > 100, "the figure's PNG did not decode"

    chat.send("how big is the table?")
    chat.wait_answer("The table has 48 rows")
    lesson.cell('sales = sales[sales["month"] != "2025-01"]')  # a cell changes the DataFrame; nobody tells the chat
    chat.send("how big is the table now?")
    chat.wait_answer("The table has 40 rows")

    chat.root.get_by_role("button", name="Show context").click()
    panel = chat.root.get_by_role("region", name="What the agent gets", exact=True)
    tools = panel.get_by_role("list", name="Tools", exact=True).get_by_role("listitem")
    expect(tools.locator("code"), "the notebook's three functions").to_have_text(["top_customers", "plot_revenue", "delete_rows"])
    expect(tools.nth(2)).to_contain_text("runs in the kernel once you approve")
    context = panel.get_by_role("list", name="Context", exact=True)
    expect(context).to_contain_text("read at each run")
    context.get_by_text("Show the text").click()
    expect(context.locator("pre"), "the summary the last run read").to_contain_text("`sales` has 40 rows")

    chat.send('delete the rows where region == "North"')

    card = chat.tool_card("delete_rows")
    asking = card.get_by_role("region", name="Waiting for you: delete_rows")
    expect(asking.locator(".agui-card-args"), "the query, shown before it runs").to_contain_text("North")
    expect(chat.status_line).to_have_attribute("data-status", "waiting")
    assert lesson.kernel("len(sales)") == 40, "the function ran before it was approved"
    asking.get_by_role("button", name="Approve", exact=True).click()
    chat.wait_answer("Deleted 10 rows; the table has 30 left.", timeout=FOLLOW_UP_TIMEOUT)
    expect(card.locator(".agui-tool-head .agui-badge")).to_have_text("done")
    assert lesson.kernel("[len(sales), int((sales['region'] == 'North').sum())]") == [30, 0]

    chat.send("delete the rows where revenue > 0")

    denied = chat.tool_card("delete_rows").nth(1)
    denied.get_by_role("region", name="Waiting for you: delete_rows").get_by_role("button", name="Deny", exact=True).click()
    chat.wait_answer("nothing was deleted", timeout=FOLLOW_UP_TIMEOUT)
    expect(denied.locator(".agui-tool-head .agui-badge"), "a denied call reads denied").to_have_text("denied")
    assert lesson.kernel("len(sales)") == 30, "a denied call must not run"
    seen = samples(badges)
    assert any(s[:2] == ["done", "running in the kernel"] for s in seen), (
        f"the figure's card never read 'running in the kernel': {seen}"
    )
    assert any(s[2:3] == ["running in the kernel"] for s in seen), (
        f"the approved call's card never read 'running in the kernel': {seen}"
    )

    cells = lesson.run_rest()
    approved = next(cell.text for cell in cells if "-> approve" in cell.text)
    assert "answered from Python: delete_rows" in approved and "Deleted" in approved, approved
    assert any("The table has **36 rows**" in cell.text for cell in cells), "the context of the lesson's own run should see July"
    attached = next(cell.text for cell in cells if "the user message's parts" in cell.text)
    assert "I received image (image/png" in attached and "('image', 'image/png')" in attached, attached
    expect(
        lesson.chat.root.locator(".agui-bubble-user").last.get_by_role("img"), "the attached figure, in the transcript"
    ).to_be_visible()


def cell_sources(notebook: NotebookPage) -> list[str]:
    """The sources of the notebook's cells, as its model holds them now."""
    return notebook.page.evaluate(
        "p => { const cells = window.__aguiTest.panel(p).content.model.cells; const out = [];"
        " for (let i = 0; i < cells.length; i++) out.push(cells.get(i).sharedModel.getSource()); return out; }",
        notebook.name,
    )


def test_14_the_agent_reads_the_kernel_runs_code_once_approved_and_answers_a_failing_cell(lab):
    lesson = Lesson(lab, "14_")
    notebook, chat = lesson.notebook, lesson.chat
    chat_cell = len(lesson_cells("14_")[0]) - 1

    chat.send("what data do I have?")

    listed = chat.wait_answer("harvest is a table of 12 rows × 3 columns", timeout=FOLLOW_UP_TIMEOUT)
    assert "ORCHARD_TOKEN looks like a secret" in listed and "made-up-token" not in listed, listed
    listing = chat.tool_card("list_variables")
    expect(listing.locator(".agui-tool-head .agui-badge"), "the kernel ran the tool").to_have_text("done")

    chat.send("look at harvest")
    chat.wait_answer("Its columns: day (object), fruit (object), kg (float64).", timeout=FOLLOW_UP_TIMEOUT)

    chat.send("what is the average kg per fruit?")

    card = chat.tool_card("run_python")
    asking = card.get_by_role("region", name="Waiting for you: run_python")
    expect(asking, "the code, shown before it runs").to_contain_text('harvest.groupby("fruit")["kg"].mean().round(2)')
    expect(chat.status_line).to_have_attribute("data-status", "waiting")
    assert lesson.kernel("[cell for cell in In[:-1] if cell.startswith('harvest.groupby')]") == [], "it ran before approval"
    asking.get_by_role("button", name="Approve", exact=True).click()
    averages = chat.wait_answer("I ran it as In [", timeout=FOLLOW_UP_TIMEOUT)
    assert "apple    31.19" in averages and "plum      8.81" in averages, averages
    expect(card.locator(".agui-tool-head .agui-badge")).to_have_text("done")
    assert lesson.kernel("[cell for cell in In if cell.startswith('harvest.groupby')]") == [
        'harvest.groupby("fruit")["kg"].mean().round(2)'
    ], "the approved code should be a cell of the kernel's history"

    box = chat.message_box
    box.click()
    box.press_sequentially("what is in @harv")
    variables = chat.root.get_by_role("listbox", name="Variables in the kernel")
    expect(variables.get_by_role("option").first, "typing @harv lists harvest").to_contain_text("@harvest")
    expect(variables.get_by_role("option").first).to_contain_text("DataFrame · (12, 3)")
    box.press("Enter")
    chip = chat.root.get_by_role("list", name="Attached to the next message").get_by_role("listitem")
    expect(chip, "its summary came from the kernel").to_have_attribute("data-state", "ready")
    box.press_sequentially("?")
    box.press("Enter")
    chat.wait_answer("From the summaries attached to your message: harvest is a DataFrame, 12 rows × 3 columns")
    expect(chat.tool_card("inspect_variable"), "a mention needs no tool call").to_have_count(1)

    lesson.cell("%load_ext agui_widget")
    failed = notebook.run_cell('harvest["weight"].sum()', check=False)
    assert failed.error is not None and failed.error.startswith("KeyError: 'weight'"), failed.outputs
    notebook.page.locator(f'[id="{notebook.panel_id}"] .jp-CodeCell').last.get_by_role("button", name=ASK, exact=True).click()

    explained = chat.wait_answer("harvest has no column weight", timeout=FOLLOW_UP_TIMEOUT)
    assert "its columns were day, fruit, kg" in explained, explained
    question = chat.user_bubbles.last
    expect(question, "the button's question").to_contain_text("What went wrong? My cell raised KeyError: 'weight'")
    expect(question.get_by_role("list", name="Attachments")).to_contain_text("error.txt")
    fix = chat.assistant_texts.last.locator(".agui-codeblock")
    expect(fix, "the fix, as a code block").to_contain_text('harvest["kg"].sum()')

    fix.get_by_role("button", name="Insert as a cell", exact=True).click()

    expect(fix, "the note under the block").to_contain_text("Added as a new cell below the chat")
    notebook.page.wait_for_function(
        "([p, i]) => { const cells = window.__aguiTest.panel(p).content.model.cells;"
        " return cells.length > i && cells.get(i).sharedModel.getSource() !== ''; }",
        arg=[notebook.name, chat_cell + 1],
    )
    sources = cell_sources(notebook)
    assert sources[chat_cell + 1] == 'harvest["kg"].sum()', f"the cell below the chat's: {sources}"

    fix.get_by_role("button", name="Run in kernel", exact=True).click()
    fix.get_by_role("group", name="Run this code in the kernel?").get_by_role("button", name="Run", exact=True).click()

    ran = chat.tool_card("run_python").last
    expect(ran.locator(".agui-tool-head .agui-badge"), "the code ran in the kernel").to_have_text("done")
    expect(ran, "its output in the card").to_contain_text("210.75")
    told = lesson.kernel("chat.messages[-1]['content']")
    assert "Out[" in told and "210.75" in told, f"what the agent reads next turn: {told!r}"

    cells = lesson.run_rest()
    approved = next(cell.text for cell in cells if "-> approve" in cell.text)
    assert "answered from Python: run_python" in approved and "I ran it as In [" in approved, approved
    denied = next(cell.text for cell in cells if "-> deny" in cell.text)
    assert "rows: 12 before, 12 now; the denied code in In: False" in denied, denied
    assert any('harvest["kg"].sum()' in cell.text for cell in cells), "the lesson's own error should be explained"
    assert any("valid nbformat" in cell.text for cell in cells), "the conversation written as a notebook"
    expect(notebook.chat_roots, "the lesson's two chats").to_have_count(2)


def test_15_an_mcp_tool_answers_the_counter_app_counts_and_the_a2ui_form_reaches_the_agent(lab):
    lesson = Lesson(lab, "15_")
    chat = lesson.chat

    chat.send("call add a=2 b=3")

    card = chat.tool_card("add")
    asking = card.get_by_role("region", name="Waiting for you: add")
    expect(asking, "approve= asks before the kernel calls the server").to_be_visible()
    asking.get_by_role("button", name="Approve", exact=True).click()
    chat.wait_answer("The tool answered: 5.0.", timeout=FOLLOW_UP_TIMEOUT)
    expect(card.locator(".agui-tool-head .agui-badge"), "the kernel answered through the MCP server").to_have_text("done")
    assert lesson.kernel("last_tool_message(chat)['metadata']['agui_widget']['mcp']['result']['structuredContent']") == {
        "result": 5.0
    }, "the server's own result, kept in the tool message"

    chat.send("call counter start=2")

    counter = chat.tool_card("counter")
    frame_box = counter.locator("iframe.agui-mcp-app-frame")
    expect(frame_box, "the counter's card shows its app").to_have_count(1, timeout=30_000)
    app = frame_box.content_frame
    expect(app.locator("#count"), "the app shows the count of the tool's result").to_have_text("2", timeout=30_000)
    chat.wait_idle()
    app.get_by_role("button", name="+1").click()
    counter.get_by_role("group", name="The app asks to run increment").get_by_role("button", name="Approve").click()
    expect(app.locator("#count"), "the server's new count, shown by the app").to_have_text("3")
    reading = "tools.read('demo://counter')"
    assert lesson.kernel(reading) == "The counter is at 3.", "the +1 reached the server through the kernel"

    chat.send("a2ui")

    chat.wait_answer("fill it in and press Submit")
    surface = chat.root.locator(".agui-a2ui[data-a2ui=drawn] .agui-a2ui-surface").last
    surface.get_by_role("textbox").fill("Ada")
    surface.get_by_role("button", name="Submit").click()
    answer = chat.wait_answer("You submitted", timeout=FOLLOW_UP_TIMEOUT)
    assert "name = Ada" in answer and "drink = tea" in answer, answer
    sent = lesson.kernel("run_inputs[-1].forwarded_props['a2uiAction']['userAction']['context']")
    assert sent == {"name": "Ada", "drink": ["tea"]}, f"the agent got the form's values as the middleware gives them: {sent}"

    cells = lesson.run_rest()
    approved = next(cell.text for cell in cells if "-> approve" in cell.text)
    assert "answered from Python: add" in approved and "The tool answered: `5.0`." in approved, approved
    assert any("Together that makes" in cell.text for cell in cells), "the scripted model added the dice"
    assert any("You submitted: name = Ada; drink = coffee" in cell.text for cell in cells), "the cell's own action"
    assert any("Booked a table for Grace Hopper." in cell.text for cell in cells), "the SDK's surface, answered"
    assert any("the HTTP server stopped: True" in cell.text for cell in cells), "the HTTP server started and stopped"
    assert "not running" in cells[-1].text, f"the MCP server stops with the last chat: {cells[-1].text}"
