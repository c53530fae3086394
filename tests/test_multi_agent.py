"""Several agents in one chat: each keeps its own thread; Python and views pick the active one."""

from __future__ import annotations

import asyncio

import pytest

from agui_widget import AgentChat, DemoAgent, SQLiteThreadStore

from .genui_support import Captured
from .support import until


async def planner(messages):
    return f"plan for {messages[-1]['content']}"


async def coder(messages):
    return f"code for {messages[-1]['content']}"


def replies(chat: AgentChat) -> list[str]:
    return [m["content"] for m in chat.messages if m["role"] == "assistant"]


def test_the_first_agent_is_active_and_the_names_are_synced():
    chat = AgentChat({"planner": planner, "coder": coder})
    assert chat.agent_names == ["planner", "coder"] and chat.agent_name == "planner"
    assert list(chat.agents) == ["planner", "coder"]
    assert chat.agent is chat.agents["planner"]
    assert chat.agent.fn is planner


async def test_assigning_chat_agent_selects_and_each_agent_keeps_its_thread():
    chat = AgentChat({"planner": planner, "coder": coder}, thread_id="work")
    await chat.send("a trip")
    assert chat.thread_id == "work.planner"
    chat.agent = "coder"
    assert chat.agent_name == "coder" and chat.agent.fn is coder
    assert chat.messages == [] and chat.thread_id == "work.coder"
    await chat.send("a parser")
    assert replies(chat) == ["code for a parser"]
    chat.select_agent("planner")
    assert replies(chat) == ["plan for a trip"]


async def test_each_agent_has_its_own_state():
    chat = AgentChat({"planner": planner, "coder": coder}, state={"n": 0})
    chat.update_state(n=1)
    chat.agent = "coder"
    assert chat.state == {"n": 0}
    chat.agent = "planner"
    assert chat.state == {"n": 1}


async def test_a_view_picks_an_agent_and_the_other_agent_answers():
    chat = Captured({"planner": planner, "coder": coder})
    chat.view_says({"kind": "select_agent", "name": "coder"})
    assert chat.agent_name == "coder"
    chat.view_says({"kind": "send", "text": "hello"})
    await until(lambda: chat.status == "idle" and replies(chat))
    assert replies(chat) == ["code for hello"]


def test_an_unknown_agent_from_a_view_is_refused_with_a_notice():
    chat = Captured({"planner": planner, "coder": coder})
    chat.view_says({"kind": "select_agent", "name": "nobody"})
    assert chat.agent_name == "planner"
    [notice] = chat.of_kind("notice")
    assert "nobody" in notice["text"] and "planner, coder" in notice["text"]


def test_unknown_names_and_single_agent_chats_are_clear_errors():
    chat = AgentChat({"planner": planner})
    with pytest.raises(KeyError, match="no agent named 'coder'"):
        chat.agent = "coder"
    with pytest.raises(TypeError, match="one agent"):
        AgentChat(planner).agent = "planner"
    with pytest.raises(ValueError, match="at least one agent"):
        AgentChat({})
    with pytest.raises(TypeError, match="non-empty strings"):
        AgentChat({"": planner})


async def test_switching_agents_during_a_run_is_refused():
    gate = asyncio.Event()

    async def slow(messages):
        await gate.wait()
        return "done"

    chat = AgentChat({"slow": slow, "coder": coder})
    run = chat.send("go")
    await until(lambda: chat.status == "running")
    with pytest.raises(RuntimeError, match="a run is active"):
        chat.agent = "coder"
    assert chat.agent_name == "slow"
    gate.set()
    await run


async def test_with_a_store_each_agents_thread_is_persisted_and_restored(tmp_path):
    path = tmp_path / "chats.db"
    chat = AgentChat({"planner": planner, "coder": coder}, thread_id="work", store=path)
    await chat.send("a trip")
    chat.agent = "coder"
    await chat.send("a parser")
    store = SQLiteThreadStore(path)
    assert [r.thread_id for r in store.list_threads("coder")] == ["work.coder"]
    assert store.load("work.planner").agent == "planner"
    again = AgentChat({"planner": planner, "coder": coder}, thread_id="work", store=path)
    assert replies(again) == ["plan for a trip"]
    again.agent = "coder"
    assert replies(again) == ["code for a parser"]
    assert [t["thread_id"] for t in again.threads()] == ["work.coder"]


def test_demo_agents_among_several_bring_their_frontend_tool():
    chat = AgentChat({"demo": DemoAgent(), "coder": coder})
    assert [t["name"] for t in chat.frontend_tools] == ["set_accent_color"]
