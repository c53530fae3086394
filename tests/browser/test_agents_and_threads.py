"""Several agents in a real JupyterLab: the user picks an agent in the toolbar and that agent answers;
each agent's conversation comes back when it is picked again."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TWO_AGENTS = (
    "from agui_widget import AgentChat\n\n"
    "async def planner(messages):\n"
    "    return 'planner says: ' + messages[-1]['content']\n\n"
    "async def coder(messages):\n"
    "    return 'coder says: ' + messages[-1]['content']\n\n"
    "chat = AgentChat({'planner': planner, 'coder': coder})\n"
    "chat"
)


def test_picking_an_agent_in_the_toolbar_makes_it_answer(lab):
    nb = lab.open([TWO_AGENTS])
    chat = nb.chat()
    picker = chat.root.get_by_role("combobox", name="Agent")
    expect(picker, "a chat of two agents should show an agent picker").to_have_value("planner")

    chat.send("first")
    chat.wait_answer("planner says: first")

    picker.focus()
    picker.select_option("coder")
    expect(picker, "the picker should show the agent the kernel switched to").to_have_value("coder")
    expect(chat.user_bubbles, "the coder's thread starts empty").to_have_count(0)
    chat.send("second")
    chat.wait_answer("coder says: second")
    kernel = json.loads(
        nb.run_cell("import json\nprint(json.dumps([chat.agent_name, [m['content'] for m in chat.messages]]))")
        .text.strip()
        .splitlines()[-1]
    )
    assert kernel == ["coder", ["second", "coder says: second"]]

    nb.run_cell("chat.agent = 'planner'")
    expect(picker, "assigning chat.agent in a cell should move the picker").to_have_value("planner")
    expect(chat.assistant_texts, "the planner's thread should come back").to_have_text(["planner says: first"])
