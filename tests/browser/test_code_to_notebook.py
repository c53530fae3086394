"""Code from an answer back into the notebook, in JupyterLab and Notebook 7, and where a widget
cannot add cells (Voilà), in Chromium.

"Insert as a cell" on an answer's code block puts the code in a new cell right below the cell
whose output holds the chat (through agui-widget's JupyterLab extension, shipped in the wheel),
whichever cell is active, and at once even while the kernel is busy. "Run in kernel" asks under
the block, then the code runs in the kernel and its output shows in a run_python card, which the
kernel keeps. In Voilà nothing can add a cell: the code is copied and a note says so.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import SESSION_KEY, ChatView, NotebookPage
from tests.browser.helpers_ui import kernel_json
from tests.browser.test_voila import VoilaServer, VoilaSession

pytestmark = pytest.mark.browser

# A chat whose agent answers with a Python block (and a shell block, which gets only Copy).
CHAT = """\
from agui_widget import AgentChat


def agent(messages):
    return (
        "Run this:\\n\\n```python\\nanswer = 6 * 7\\nprint('the answer is', answer)\\n```\\n\\n"
        "and install with:\\n\\n```bash\\npip install agui-widget\\n```\\n"
    )


chat = AgentChat(agent)
chat"""
CODE = "answer = 6 * 7\nprint('the answer is', answer)"
AFTER = "after_the_chat = True"

# The sources of the notebook's cells, in order, as its model holds them.
SOURCES = """
(path) => {
  const panel = window.__aguiTest.panel(path);
  const cells = panel.content.model.cells;
  const sources = [];
  for (let i = 0; i < cells.length; i++) sources.push(cells.get(i).sharedModel.getSource());
  return sources;
}
"""
KERNEL_STATUS = "(path) => window.__aguiTest.panel(path).sessionContext.session.kernel.status"
# A cell of the test's own, sent to the kernel without a cell of the notebook: the kernel is busy.
BUSY = "(path) => { window.__aguiTest.panel(path).sessionContext.session.kernel.requestExecute({ code: 'import time\\ntime.sleep(60)' }); }"
INTERRUPT = "(path) => window.__aguiTest.panel(path).sessionContext.session.kernel.interrupt()"


def answered_chat(nb: NotebookPage) -> ChatView:
    chat = nb.chat()
    chat.send("some code, please")
    chat.wait_answer("install with")
    return chat


def python_block(chat: ChatView):
    return chat.assistant_texts.last.locator(".agui-codeblock").first


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_insert_as_a_cell_puts_the_code_below_the_chats_cell_even_while_the_kernel_is_busy(lab, ui):
    nb = lab.open([CHAT, AFTER], ui=ui)
    chat = answered_chat(nb)
    assert nb.page.evaluate(SOURCES, nb.name)[1] == AFTER, "run all leaves the last cell active"
    block = python_block(chat)
    shell = chat.assistant_texts.last.locator(".agui-codeblock").nth(1)
    expect(shell.get_by_role("button"), "a shell block gets only Copy").to_have_count(1)

    nb.page.evaluate(BUSY, nb.name)
    nb.page.wait_for_function(f"() => ({KERNEL_STATUS})({nb.name!r}) === 'busy'")
    block.hover()
    block.get_by_role("button", name="Insert as a cell", exact=True).click()

    expect(block.locator(".agui-code-note"), "the chat says where the code went").to_have_text(
        "Added as a new cell below the chat"
    )
    sources = nb.page.evaluate(SOURCES, nb.name)
    assert sources[:3] == [CHAT, CODE, AFTER], f"the new cell should sit right below the chat's: {sources}"
    assert nb.page.evaluate(KERNEL_STATUS, nb.name) == "busy", "the cell came while the kernel was still busy"
    nb.page.evaluate(INTERRUPT, nb.name)
    nb.wait_kernel_idle()


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_run_in_kernel_asks_then_shows_the_output_in_a_run_python_card(lab, ui):
    nb = lab.open([CHAT], ui=ui)
    chat = answered_chat(nb)
    block = python_block(chat)
    block.hover()
    block.get_by_role("button", name="Run in kernel", exact=True).click()
    confirm = block.get_by_role("group", name="Run this code in the kernel?")
    expect(confirm).to_be_visible()
    expect(confirm.get_by_role("button", name="Run", exact=True), "the focus is on Run").to_be_focused()
    nb.page.keyboard.press("Enter")

    card = chat.tool_card("run_python")
    expect(card.locator(".agui-tool-head .agui-badge"), "the card should end done").to_have_text("done")
    expect(card.locator(".agui-tool-code pre"), "the card shows the code, highlighted").to_contain_text("answer = 6 * 7")
    expect(card.locator(".agui-tool-code .hljs-string")).not_to_have_count(0)
    expect(card.locator(".agui-tool-result"), "and the output").to_contain_text("the answer is 42")
    expect(confirm).to_have_count(0)
    assert kernel_json(nb, "answer") == 42, "the code ran in the notebook's namespace"
    roles = kernel_json(nb, "[m['role'] for m in chat.messages]")
    assert roles == ["user", "assistant", "assistant", "tool"], f"the kernel keeps the run in the transcript: {roles}"


# -- Voilà: no cells to add -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def voila_chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VoilaServer]:
    path = Path(tmp_path_factory.mktemp("voila-code")) / "code_chat.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CHAT)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)
    server = VoilaServer(path)
    try:
        server.start()
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def voila_visitors(request: pytest.FixtureRequest, voila_chat: VoilaServer, browser: Browser) -> Iterator[VoilaSession]:
    session = VoilaSession(voila_chat, browser, request.node.name)
    request.node.stash[SESSION_KEY] = session
    try:
        yield session
    finally:
        with contextlib.suppress(Exception):
            session.close()


def test_where_no_cell_can_be_added_the_code_is_copied_and_a_note_says_so(voila_visitors):
    app = voila_visitors.visit()
    app.context.grant_permissions(["clipboard-read", "clipboard-write"])
    chat = app.chat()
    chat.send("some code, please")
    chat.wait_answer("install with")
    block = python_block(chat)
    block.hover()
    block.get_by_role("button", name="Insert as a cell", exact=True).click()
    expect(block.get_by_role("status"), "the note says the code was copied").to_have_text(
        "Copied: this front end cannot add cells"
    )
    assert app.page.evaluate("() => navigator.clipboard.readText()") == CODE
