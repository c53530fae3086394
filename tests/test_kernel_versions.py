"""The chat on whichever ipykernel this interpreter has: a real kernel and a fake front end.

The main suite runs this module on ipykernel 7.x; ``make test`` runs it again in
``.venv-ipykernel6/`` on the oldest ipykernel the package allows (``make test-ipykernel6``), with
``AGUI_TEST_IPYKERNEL`` naming the version that job must be on.

Both must stream the demo agent's text, run a Python tool (sent from a view or awaited in a cell),
run the notebook tools' cell (``run_python``) with its output captured, and take a view's answer
to a frontend tool. A cell awaiting a run while the browser answers needs
ipykernel 7.4, which handles comm messages while a cell awaits; on an earlier one that cell gets an
error saying what to do, at once instead of a wait without end, and the run goes on.
"""

from __future__ import annotations

import os

import ipykernel
import pytest

from .kernel_harness import FakeFrontEnd, WidgetComm, transcript
from .test_kernel import assert_clean, connect_view, has_pending, help_text, open_chat, say

pytestmark = pytest.mark.kernel

VIEWS_REACH_AN_AWAITING_CELL = tuple(ipykernel.version_info[:2]) >= (7, 4)
"""What this interpreter's ipykernel can do (the test kernel runs on this interpreter)."""


@pytest.fixture
async def fe():
    async with FakeFrontEnd.running() as front:
        yield front


def answer_teal(fe: FakeFrontEnd, chat: WidgetComm, call_id: str) -> None:
    fe.send_custom(chat, {"kind": "tool_result", "toolCallId": call_id, "result": {"ok": True, "color": "teal"}})


async def test_the_kernel_runs_the_expected_ipykernel_and_the_chat_knows_what_it_can_do(fe):
    expected = os.environ.get("AGUI_TEST_IPYKERNEL")
    if expected:  # the ipykernel 6 job: it must really be on that version
        assert ipykernel.__version__ == expected
    assert await fe.evaluate("__import__('ipykernel').__version__") == ipykernel.__version__
    detected = await fe.evaluate("__import__('agui_widget.session._run', fromlist=['_']).views_reach_an_awaiting_cell()")
    assert detected is VIEWS_REACH_AN_AWAITING_CELL


async def test_a_demo_chat_streams_text_and_runs_a_python_tool(fe):
    chat = await fe.create_widget(
        "from agui_widget import AgentChat, DemoAgent\n"
        "def add(a: int, b: int) -> int:\n"
        "    '''Add two numbers.'''\n"
        "    return a + b\n"
        "chat = AgentChat(DemoAgent(delay=0.002), tools=[add])\n"
    )
    view = await connect_view(fe, chat, "v1")
    assert await say(fe, chat, "help") == "idle"
    assert await fe.evaluate("chat.messages[-1]['content']") == await help_text(fe)

    assert await say(fe, chat, "call add a=2 b=3") == "idle"
    messages = await fe.evaluate("chat.messages")
    assert [m["content"] for m in messages if m["role"] == "tool"] == ["5"]
    assert "The tool answered: `5`" in messages[-1]["content"]

    # A run whose only wait is on the kernel (a Python tool) can be awaited in a cell on any ipykernel.
    result = await fe.execute("run = await chat.send('call add a=20 b=22')\nprint(run.status, '|', run.reply)", timeout=30)
    assert result.stdout.startswith("finished |") and "`42`" in result.stdout
    assert view.feed(chat).transcript() == transcript(await fe.evaluate("chat.messages"))
    assert_clean(fe)


async def test_a_cell_awaiting_a_run_that_waits_on_the_browser(fe):
    chat = await open_chat(fe)
    cell = fe.submit(
        "import asyncio\n"
        "async def _in_the_background(run):\n"
        "    return (await run).status\n"
        "run = chat.send('make it teal')\n"
        "background = asyncio.ensure_future(_in_the_background(run))\n"
        "await run\n"
        "print(run.status)\n"
    )
    pending = await fe.wait_for_trait(chat, "pending", has_pending("tool"), 10)
    call_id = pending[0]["toolCallId"]
    mark = fe.mark()
    if VIEWS_REACH_AN_AWAITING_CELL:
        assert not fe.replied(cell), "the cell finished before the tool was answered"
        answer_teal(fe, chat, call_id)
        result = (await fe.finish(cell, timeout=15)).check()
        assert result.stdout == "finished\n"
    else:
        # The cell ends at once, with what to do; the run still waits for the browser.
        result = await fe.finish(cell, timeout=10)
        assert result.status == "error" and result.error is not None
        assert result.error["ename"] == "RuntimeError"
        message = result.error["evalue"]
        assert "the frontend tool set_accent_color" in message
        assert f"ipykernel {ipykernel.__version__}" in message
        assert 'pip install -U "ipykernel>=7.4"' in message and "do not await it" in message
        assert await fe.evaluate("(chat.status, run.status)") == ["waiting", "waiting"]
        # Awaiting it again while it waits says the same at once.
        again = await fe.execute("await run", timeout=10, check=False)
        assert again.status == "error" and again.error is not None and "set_accent_color" in again.error["evalue"]
        mark = fe.mark()  # the two errors above are the expected ones
        # The view's answer, handled once no cell runs, lets the run go on.
        answer_teal(fe, chat, call_id)
        await fe.wait_for_trait(chat, "status", lambda status: status == "idle", 10)
        assert (await fe.execute("print((await run).status)", timeout=10)).stdout == "finished\n"
    assert "accent is now" in await fe.evaluate("chat.messages[-1]['content']")
    # An awaiter outside a cell was never refused: the browser's answer reaches it on any ipykernel.
    assert await fe.evaluate("background.result()") == "finished"
    assert_clean(fe, mark)


async def test_the_notebook_tools_run_a_cell_and_read_its_error(fe):
    chat = await fe.create_widget(
        "from agui_widget import AgentChat, DemoAgent, notebook_tools\n"
        "chat = AgentChat(DemoAgent(delay=0), tools=notebook_tools(approve=False))\n"
    )
    assert await say(fe, chat, 'call run_python {"code": "print(\'hi\')\\nsix = 6\\nsix * 7"}') == "idle"
    answer = await fe.evaluate("[m for m in chat.messages if m['role'] == 'tool'][-1]")
    assert "hi" in answer["content"] and "Out[" in answer["content"] and ": 42" in answer["content"]
    assert await fe.evaluate("[six, Out[max(Out)]]") == [6, 42], "the cell ran in the user's namespace, kept in Out"

    assert await say(fe, chat, 'call run_python {"code": "{}[\'missing\']"}') == "idle"
    failed = await fe.evaluate("[m for m in chat.messages if m['role'] == 'tool'][-1]")
    assert failed["error"] == "KeyError: 'missing'"
    assert not fe.errors, "the agent's traceback went to its card, not under a cell"
