"""The Context panel in a real JupyterLab: what the agent gets beside the conversation (the
notebook's tools and ``chat.context``), a live entry as the last run read it, and both following
cells that assign ``chat.tools`` and ``chat.context`` while the chat lives."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

CHAT = """\
from agui_widget import AgentChat, ask_tool

rows = [1, 2, 3]
chat = AgentChat(tools=[ask_tool()], context=[
    {"description": "the course", "value": "week 4: agents and tools"},
    {"description": "rows in the table", "value": lambda: len(rows)},
])
chat"""


def test_the_context_panel_shows_what_the_agent_gets_and_follows_the_notebook(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()
    toggle = chat.root.get_by_role("button", name=re.compile(r"^Show context \d+$"))
    toggle.click()
    panel = chat.root.get_by_role("region", name="What the agent gets", exact=True)
    expect(panel).to_be_visible()
    tools = panel.get_by_role("list", name="Tools", exact=True)
    context = panel.get_by_role("list", name="Context", exact=True)
    ask = tools.get_by_role("listitem").filter(has=nb.page.locator("code", has_text=re.compile(r"^ask$")))
    expect(ask, "the notebook's ask tool is listed").to_have_count(1)
    expect(ask).to_contain_text("asks you")
    expect(context.get_by_role("listitem")).to_have_count(2)
    expect(context.get_by_role("listitem").nth(1)).to_contain_text("read when the next run starts")

    chat.send("hello")
    chat.wait_answer("Say help")
    expect(context.get_by_role("listitem").nth(1), "a run read the live entry").to_contain_text("1 characters, read at each run")

    nb.run_cell("rows.extend(range(97))\nchat.context = [{'description': 'rows now', 'value': str(len(rows))}]\nchat.tools = []")
    expect(context.get_by_role("listitem")).to_have_count(1)
    expect(context).to_contain_text("rows now")
    context.get_by_text("Show the text").click()
    expect(context.locator("pre")).to_have_text("100")
    expect(ask, "the tool the cell took away is gone").to_have_count(0)
