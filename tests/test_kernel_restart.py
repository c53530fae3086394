"""A thread survives a real kernel restart: the same store and thread id bring the conversation back."""

from __future__ import annotations

import pytest

from .kernel_harness import FakeFrontEnd

pytestmark = pytest.mark.kernel

AGENT = "from agui_widget import AgentChat\nasync def echo(messages):\n    return 'echo: ' + messages[-1]['content']\n"


async def test_a_thread_survives_a_kernel_restart(tmp_path):
    path = tmp_path / "chats.db"
    async with FakeFrontEnd.running(cwd=tmp_path) as fe:
        first = await fe.create_widget(
            AGENT + f"chat = AgentChat(echo, thread_id='lesson-1', store={str(path)!r}, state={{'step': 1}})\n"
        )
        fe.send_custom(first, {"kind": "send", "text": "hello"})
        await fe.wait_for(
            lambda: any(u.get("status") == "running" for u in first.updates) and first.state.get("status") == "idle",
            what="the turn to end",
        )
        await fe.execute("chat.update_state(step=2)\nimport asyncio\nawait asyncio.sleep(0)")
        before = fe.kernel_pid

        await fe.restart()

        assert fe.kernel_pid != before
        assert await fe.evaluate("'chat' in globals()") is False
        second = await fe.create_widget(AGENT + f"chat = AgentChat(echo, thread_id='lesson-1', store={str(path)!r})\n")
        assert await fe.evaluate("[(m['role'], m['content']) for m in chat.messages]") == [
            ["user", "hello"],
            ["assistant", "echo: hello"],
        ]
        assert await fe.evaluate("chat.state") == {"step": 2}
        fe.send_custom(second, {"kind": "hello", "viewId": "after-restart"})
        await fe.wait_for(lambda: second.of_kind("snapshot"), what="the snapshot")
        snapshot = second.of_kind("snapshot")[-1]
        assert [m["content"] for m in snapshot["messages"]] == ["hello", "echo: hello"]
        assert snapshot["state"] == {"step": 2}
        listed = await fe.evaluate("[(t['thread_id'], t['title'], t['messages']) for t in chat.threads()]")
        assert listed == [["lesson-1", "hello", 2]]
