"""The conversation a displayed chat keeps in the notebook, in a real JupyterLab: hidden while the
chat is on the page, current in the saved file after each turn, shown by nbconvert (what nbviewer
runs) and by JupyterLab when the notebook is opened again without the chat's kernel."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ECHO = (
    "from agui_widget import AgentChat\n\n"
    "async def echo(messages):\n"
    "    return 'echo: ' + messages[-1]['content']\n\n"
    "chat = AgentChat(echo)\n"
    "chat"
)
KEPT = "[data-agui-transcript]"


def kept_markdown(path) -> list[str]:
    """The text/markdown of each output of the notebook's first cell, as saved."""
    cell = nbformat.read(path, as_version=4).cells[0]
    return [output.get("data", {}).get("text/markdown", "") for output in cell.outputs]


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_kept_conversation_is_hidden_while_the_chat_is_shown(lab, ui):
    nb = lab.open([ECHO], ui=ui)
    chat = nb.chat()
    chat.send("hello there")
    chat.wait_answer("echo: hello there")

    kept = nb.page.locator(f'[id="{nb.panel_id}"] {KEPT}')
    expect(kept, "the kept conversation should be in the page, updated after the turn").to_contain_text("echo: hello there")
    expect(kept, "the chat should hide the copy of its own conversation").to_be_hidden()
    row = nb.page.locator(f'[id="{nb.panel_id}"] .jp-OutputArea-child').filter(has=nb.page.locator(KEPT))
    expect(row, "the copy's output row (prompt and padding) should be hidden too").to_be_hidden()


def test_the_saved_notebook_holds_the_latest_conversation(lab):
    nb = lab.open([ECHO])
    chat = nb.chat()
    chat.send("first question")
    chat.wait_answer("echo: first question")
    chat.send("second question")
    chat.wait_answer("echo: second question")
    path = lab.server.root / nb.name
    expect(nb.page.locator(f'[id="{nb.panel_id}"] {KEPT}')).to_contain_text("echo: second question")
    nb.save()

    outputs = kept_markdown(path)
    assert len(outputs) == 2 and outputs[0] == "", f"expected the widget, then the conversation: {outputs!r}"
    assert "echo: first question" in outputs[1] and "echo: second question" in outputs[1], outputs[1]

    html = subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "html", "--stdout", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "echo: second question" in html, "nbconvert's HTML (what nbviewer shows) should hold the conversation"

    # Opened again once the chat's kernel is gone: no chat view, so the kept conversation shows.
    nb.context.close()
    lab.server.shutdown_kernels(nb.name)
    again = lab.open([], name=nb.name, run=False)
    kept = again.page.locator(f'[id="{again.panel_id}"] {KEPT}')
    expect(kept, "without the chat's kernel the saved conversation should be visible").to_be_visible()
    expect(kept).to_contain_text("echo: second question")
    expect(kept, "the copy says how to bring the chat back").to_contain_text("run this cell to reconnect it")
