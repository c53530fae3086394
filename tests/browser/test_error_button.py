"""``%load_ext agui_widget`` in a real JupyterLab, in Chromium: a cell that raises shows IPython's
traceback and, under it, "Ask the chat about this error"; clicking it puts the question in the chat
shown last, with the error and the cell as chips, and the demo agent answers."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from agui_widget.notebook._errors import ASK, SENT

pytestmark = pytest.mark.browser

CHAT = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"


def test_the_error_button_asks_the_chat_shown_last_and_the_agent_answers(lab):
    nb = lab.open([CHAT, "%load_ext agui_widget"])
    chat = nb.chat()

    failed = nb.run_cell("numbers = [3, 4]\nsum(numbers) / 0", check=False)
    assert failed.error is not None and failed.error.startswith("ZeroDivisionError: division by zero"), failed.outputs

    cell = nb.page.locator(f'[id="{nb.panel_id}"] .jp-CodeCell').last
    traceback = cell.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    expect(traceback, "IPython's own traceback").to_contain_text("ZeroDivisionError")
    button = cell.get_by_role("button", name=ASK, exact=True)
    expect(button, "the button under the traceback").to_be_visible()
    below = traceback.bounding_box(), button.bounding_box()
    assert below[0] and below[1] and below[1]["y"] >= below[0]["y"] + below[0]["height"], below

    button.click()

    expect(cell.get_by_role("button", name=SENT, exact=True), "the button says it was sent").to_be_disabled()
    question = chat.root.locator(".agui-row-user .agui-bubble-user").last
    expect(question).to_contain_text("What went wrong? My cell raised ZeroDivisionError: division by zero")
    chips = question.get_by_role("list", name="Attachments")
    expect(chips, "the error and the cell as chips").to_contain_text("error.txt")
    expect(chips).to_contain_text("cell.py")
    expect(chat.assistant_texts, "the demo agent's answer").to_have_count(1)
    chat.wait_idle()
    assert chat.assistant_texts.first.inner_text().strip(), "the answer has text"
