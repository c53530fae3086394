"""`@` in the message box, in a real JupyterLab, in Chromium: a DataFrame defined in a cell is
listed when the user types `@d`, is picked with the keyboard alone, shows as a chip, and its
summary reaches the agent with the message.

The demo agent only says what an attachment is (its name, type and size), never what it holds, so
the agent here is a function that answers with the text of each document it received: what it
says is what the agent got.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_accessibility import prepare_axe, readable, violations

pytestmark = pytest.mark.browser

CELLS = [
    "import pandas as pd\n"
    'df = pd.DataFrame({"city": ["Oslo", "Lima", "Pune"], "temp": [3.5, 19.0, 31.25]})\n'
    'API_KEY = "sk-never-shown"',
    "import base64\n"
    "from agui_widget import AgentChat\n\n"
    "def read_context(messages):\n"
    '    content = messages[-1]["content"]\n'
    '    documents = [p for p in content if p.get("type") == "document"] if isinstance(content, list) else []\n'
    '    said = [p["metadata"]["filename"] + " reads: " + base64.b64decode(p["source"]["value"]).decode() for p in documents]\n'
    '    return "\\n\\n".join(said) or "no context came"\n\n'
    "chat = AgentChat(read_context, attachments=False)\n"
    "chat",
]


def test_a_dataframe_picked_with_at_goes_to_the_agent_as_its_summary(lab):
    nb = lab.open(CELLS)
    chat = nb.chat()
    box = chat.message_box
    box.click()
    box.press_sequentially("what is in @d")

    variables = chat.root.get_by_role("listbox", name="Variables in the kernel")
    expect(variables, "typing @d should list the kernel's variables").to_be_visible()
    expect(variables.get_by_role("option").first, "df starts with d: it comes first").to_contain_text("@df")
    expect(variables.get_by_role("option").first).to_contain_text("DataFrame · (3, 2)")
    expect(variables, "a secret is not listed under @d").not_to_contain_text("sk-never-shown")
    expect(box, "the box points at the active option").to_have_attribute(
        "aria-activedescendant", variables.get_by_role("option").first.get_attribute("id") or ""
    )
    prepare_axe(nb.page)
    found = violations(chat)
    assert not found, readable("the chat with the @ list open", found)

    box.press("ArrowDown")
    expect(variables.get_by_role("option").first, "↓ moves off df").to_have_attribute("aria-selected", "false")
    box.press("ArrowUp")
    expect(variables.get_by_role("option", selected=True), "↑ comes back to df").to_contain_text("@df")
    box.press("Enter")

    expect(variables, "picking closes the list").to_have_count(0)
    expect(box, "the text names the variable where @d was").to_have_value("what is in @df ")
    expect(box, "the focus stays in the message box").to_be_focused()
    chip = chat.root.get_by_role("list", name="Attached to the next message").get_by_role("listitem")
    expect(chip, "one chip for df").to_have_count(1)
    expect(chip).to_contain_text("@df")
    expect(chip, "its summary came from the kernel").to_have_attribute("data-state", "ready")
    expect(chip.get_by_role("button", name="Remove @df")).to_be_visible()

    box.press_sequentially("?")
    box.press("Enter")

    expect(box, "sent: the box is empty").to_have_value("")
    expect(chip, "the chip went with the message").to_have_count(0)
    bubble = chat.user_bubbles.last
    expect(bubble).to_contain_text("what is in @df ?")
    expect(bubble.get_by_role("list", name="Attachments"), "the message shows its chip").to_contain_text("@df")
    answer = chat.wait_answer("@df reads: df: DataFrame, 3 rows × 2 columns")
    for shown in ("city", "temp", "Pune", "31.25"):
        assert shown in answer, f"the summary the agent got should hold {shown!r}: {answer!r}"

    kept = nb.run_cell('print(chat.messages[0]["content"][1]["metadata"])').text
    assert "'context': 'variable'" in kept, f"the kernel took the summary as context in a chat with no files: {kept}"


def test_escape_closes_the_at_list_and_keeps_the_message_box(lab):
    nb = lab.open(CELLS)
    chat = nb.chat()
    box = chat.message_box
    box.click()
    box.press_sequentially("see @")
    variables = chat.root.get_by_role("listbox", name="Variables in the kernel")
    expect(variables.get_by_role("option", name="@df DataFrame · (3, 2)")).to_be_visible()
    box.press("Escape")
    expect(variables, "Escape closes the list").to_have_count(0)
    expect(box, "and leaves the focus in the message box").to_be_focused()
    expect(box).to_have_value("see @")
    box.press("Escape")
    expect(box, "a second Escape leaves the box, as it does without the list").not_to_be_focused()
