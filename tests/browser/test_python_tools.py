"""Python functions as tools in a real JupyterLab, in Chromium.

The agent calls a function defined in a notebook cell; the kernel runs it and the card reads
"running in the kernel" (never "Waiting for you") until its result or its failure shows. A
function that asks for approval is approved and denied by clicking, as a user does. The agent is
LangChain's scripted fake model in the notebook's kernel, the demo agent, or a LangChain agent
served by ``agui-widget serve`` in a process of its own, which still calls the kernel's function.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ChatView
from tests.browser.helpers_ui import wait_in_kernel
from tests.browser.servers import free_port, serving
from tests.browser.test_tool_cards import FOLLOW_UP_TIMEOUT, badge_of, kernel_json, watch, watched

pytestmark = pytest.mark.browser

# A model that calls the notebook's `add` (or `divide`, when asked to divide) and reads its answer.
SCRIPTED_MODEL = """\
import uuid
from langchain_core.messages import AIMessage, ToolMessage
from agui_widget.adapters.langchain import LangChainAgent, ScriptedChatModel


def respond(messages, tool_names):
    last = messages[-1]
    if isinstance(last, ToolMessage):
        verdict = "failed" if last.status == "error" else "answered"
        return AIMessage(f"The kernel {verdict}: {last.content}")
    name = "divide" if "divide" in last.content else "add"
    if name not in tool_names:
        return AIMessage(f"I was given no {name} tool.")
    args = {"a": 1, "b": 0} if name == "divide" else {"a": 20, "b": 22}
    return AIMessage("", tool_calls=[{"id": f"call_{uuid.uuid4().hex[:8]}", "name": name, "args": args, "type": "tool_call"}])


agent = LangChainAgent(ScriptedChatModel(respond=respond, delay=0.01))
"""

FUNCTIONS = '''\
import time


def add(a: int, b: int) -> int:
    """Add two numbers."""
    time.sleep(1.0)  # long enough to see the card at work
    return a + b


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b
'''


def test_a_langchain_model_calls_a_notebook_function_that_the_kernel_runs(lab):
    nb = lab.open(
        [FUNCTIONS, SCRIPTED_MODEL, "from agui_widget import AgentChat\n\nchat = AgentChat(agent, tools=[add, divide])\nchat"]
    )
    chat = nb.chat()
    watcher = watch(chat, ".agui-tool .agui-tool-head .agui-badge")

    chat.send("what is 20 + 22?")

    chat.wait_answer("The kernel answered: 42", timeout=FOLLOW_UP_TIMEOUT)
    record = watched(watcher)
    assert "running in the kernel" in record["seen"], f"the card never said where the function runs: {record['seen']}"
    assert record["seen"][-1] == "done", record["seen"]
    assert "waiting for you" not in record["seen"], f"nothing was asked of the user: {record['seen']}"
    assert "Waiting for you" not in record["statuses"], f"the status line asked the user: {record['statuses']}"
    assert not record["panel"], "a 'Waiting for you' panel showed for a call the kernel answers"

    card = chat.tool_card("add")
    card.locator(".agui-tool-result summary").click()
    expect(card.locator(".agui-tool-result"), "the function's result, in its card").to_contain_text("42")

    chat.send("now divide by zero")
    chat.wait_answer("The kernel failed", timeout=FOLLOW_UP_TIMEOUT)
    expect(badge_of(chat, "divide")).to_have_text("failed")
    expect(chat.tool_card("divide").locator(".agui-tool-error")).to_have_text("ZeroDivisionError: float division by zero")
    assert chat.root.locator(".agui-notice-error").count() == 0


APPROVAL = '''\
from agui_widget import AgentChat, DemoAgent, python_tool

ran = []


def record(n: int, text: str = "") -> str:
    """Write n down."""
    ran.append(n)
    return f"recorded {n}"


chat = AgentChat(DemoAgent(delay=0.01), tools=[python_tool(record, approve=True)])
chat'''


def test_a_function_that_asks_for_approval_runs_when_approve_is_clicked_and_never_when_denied(lab):
    nb = lab.open([APPROVAL])
    chat = nb.chat()

    chat.send('call record n=1 text="Delete a.txt?"')
    card = chat.tool_card("record")
    region = card.get_by_role("region", name="Waiting for you: record")
    expect(region.locator(".agui-card-title"), "a function's argument is not taken for the question").to_have_text(
        "Run record in the kernel?"
    )
    expect(region.locator(".agui-card-args"), "every argument is shown before approving").to_contain_text("Delete a.txt?")
    assert kernel_json(nb, "ran") == []
    region.get_by_role("button", name="Approve", exact=True).click()
    chat.wait_answer("The tool answered: recorded 1", timeout=FOLLOW_UP_TIMEOUT)
    expect(badge_of(chat, "record")).to_have_text("done")

    chat.send("call record n=2")
    second = chat.tool_card("record").nth(1)
    second.get_by_role("button", name="Deny", exact=True).click()
    chat.wait_answer("You said no", timeout=FOLLOW_UP_TIMEOUT)
    expect(second.locator(".agui-tool-head .agui-badge"), "a denied call reads denied").to_have_text("denied")
    expect(chat.message_box, "the keyboard stays in the chat").to_be_focused()
    wait_in_kernel(nb, "ran == [1]", show="ran")


# -- a remote agent in another process ----------------------------------------------------------------


@contextlib.contextmanager
def served(tmp_path: Path, module: str) -> Iterator[str]:
    """``agui-widget serve toolbox:agent`` in a process of its own; yields its URL."""
    (tmp_path / "toolbox.py").write_text(module)
    port = free_port()
    command = [sys.executable, "-m", "agui_widget", "serve", "toolbox:agent", "--port", str(port)]
    with serving("agui-widget-serve", command, tmp_path, port, ready_path="/agents") as server:
        yield server.url


def test_an_agent_served_by_another_process_calls_the_kernels_function(lab, tmp_path):
    with served(tmp_path, SCRIPTED_MODEL) as url:
        nb = lab.open([FUNCTIONS, f"from agui_widget import AgentChat\n\nchat = AgentChat({url + '/'!r}, tools=[add])\nchat"])
        chat: ChatView = nb.chat()
        chat.send("what is 20 + 22?")
        chat.wait_answer("The kernel answered: 42", timeout=FOLLOW_UP_TIMEOUT)
        expect(badge_of(chat, "add")).to_have_text("done")
        roles = nb.run_cell("print([m['role'] for m in chat.messages])").text.strip()
        assert roles == "['user', 'assistant', 'tool', 'assistant']", roles
