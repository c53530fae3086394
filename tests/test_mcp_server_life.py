"""An MCP server mcp_tools() started never outlives the kernel that started it.

In a real ipykernel, a cell lists the demo server's tools while the kernel's loop runs (the
sessions live on a thread of their own) and a chat's turn calls one; then the kernel shuts down,
asked politely (its ``atexit`` stops the server) or killed (the server sees its stdin close and
exits). Either way the server's process is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest

from .kernel_harness import FakeFrontEnd
from .support import until


def pid_gone(pid: int) -> bool:
    """Whether the process ``pid`` ended (a zombie waiting for its parent counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    with contextlib.suppress(OSError):
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    return False


SETUP = """
from agui_widget import AgentChat, mcp_tools
from agui_widget.adapters import DemoAgent
from agui_widget.teaching.mcp_demo import COMMAND
tools = mcp_tools(COMMAND)
chat = AgentChat(DemoAgent(delay=0), tools=tools)
run = await chat.send("call server_info")
info = chat.messages[-2]["metadata"]["agui_widget"]["mcp"]["result"]["structuredContent"]
"""


@pytest.mark.parametrize("how", ["shutdown", "kill"])
async def test_the_server_ends_with_the_kernel(how: str) -> None:
    async with FakeFrontEnd.running() as front:
        await front.execute(SETUP, timeout=90)
        assert await front.evaluate("run.status") == "finished"
        pid = await front.evaluate("info['pid']")
        assert isinstance(pid, int) and not pid_gone(pid)
        assert await front.evaluate("[t.name for t in tools][:2]") == ["counter", "add"]
        if how == "shutdown":
            assert front.km is not None
            await asyncio.wait_for(front.km.shutdown_kernel(now=False), 60)
    # "kill": the harness's shutdown kills the kernel (now=True); its atexit never runs
    await until(lambda: pid_gone(pid), timeout=30, what=f"the MCP server to end with the kernel ({how})")
