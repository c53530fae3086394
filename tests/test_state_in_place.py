"""``chat.state`` changed in place is taken in as an assignment would be.

A cell that writes ``chat.state["budget"] = 999`` changes the chat's private copy of the state.
The change reaches the session, the views and the agent when the next run starts and when a view
asks for a snapshot, so ``chat.state``, the State panel and the agent never give three answers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from typing import Any

from ag_ui.core import RunAgentInput

from agui_widget.adapters import AgentAdapter, EventStream
from agui_widget.adapters._base import Emitted

from .genui_support import Captured
from .support import until


class ReadsTheBudget(AgentAdapter):
    """Answers with the budget it was given; keeps every input's state."""

    def __init__(self) -> None:
        self.states: list[Any] = []

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Emitted, None]:
        self.states.append(input.state)
        yield stream.text(f"Budget {(input.state or {}).get('budget')}")


async def test_an_in_place_change_reaches_the_next_run_and_the_views():
    agent = ReadsTheBudget()
    chat = Captured(agent, state={"budget": 5, "plan": {"days": 3}})
    chat.state["budget"] = 999
    chat.state["plan"]["days"] = 4
    run = await chat.send("what is my budget?")
    assert run.reply == "Budget 999"
    assert agent.states == [{"budget": 999, "plan": {"days": 4}}]
    assert chat._session.state == chat.state == {"budget": 999, "plan": {"days": 4}}
    [patch_message] = chat.of_kind("state_patch")
    assert sorted(op["path"] for op in patch_message["patch"]) == ["/budget", "/plan/days"]


async def test_a_view_that_connects_gets_the_in_place_change_in_its_snapshot():
    chat = Captured(ReadsTheBudget(), state={"budget": 5})
    chat.state["budget"] = 999
    chat.view_says({"kind": "hello", "viewId": "view-1"})
    [snapshot] = chat.of_kind("snapshot")
    assert snapshot["state"] == {"budget": 999}
    assert chat._session.state == {"budget": 999}


async def test_an_object_assigned_then_changed_in_place_is_taken_in_too():
    agent = ReadsTheBudget()
    mine = {"budget": 5}
    chat = Captured(agent)
    chat.state = mine  # the trait holds the caller's object itself
    mine["budget"] = 7
    await chat.send("budget?")
    assert agent.states == [{"budget": 7}]


async def test_the_caller_still_cannot_reach_the_sessions_copy():
    chat = Captured(ReadsTheBudget(), state={"plan": {"days": 3}})
    chat.state["plan"]["days"] = 4
    await chat.send("go")
    chat.state["plan"]["days"] = 5  # after the take-in: again only the chat's copy changes
    assert chat._session.state == {"plan": {"days": 4}}


async def test_nothing_is_sent_when_nothing_changed_in_place():
    chat = Captured(ReadsTheBudget(), state={"budget": 5})
    await chat.send("budget?")
    await chat.send("again?")
    assert chat.of_kind("state_patch") == []


class RemovesThePlanThenWaits(AgentAdapter):
    """Removes ``plan`` from the state, then streams until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Emitted, None]:
        yield stream.state_delta([{"op": "remove", "path": "/plan"}])
        await self.release.wait()
        yield stream.text("done")


async def test_in_place_changes_the_agent_made_moot_are_dropped_with_a_notice_and_the_rest_kept(caplog):
    agent = RemovesThePlanThenWaits()
    # A long batch window: the traits are not refreshed while the run streams.
    chat = Captured(agent, state={"budget": 5, "plan": {"days": 3}}, batch_window=60)
    run = chat.send("plan")
    await until(lambda: "plan" not in chat._session.state)
    assert chat.state["plan"] == {"days": 3}  # the chat's copy has not been refreshed yet
    chat.state["plan"]["days"] = 4  # a change under a key the agent removed
    chat.state["budget"] = 6
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.view_says({"kind": "hello", "viewId": "view-2"})
    assert "dropped: /plan/days" in caplog.text
    assert any("/plan/days" in notice["text"] for notice in chat.of_kind("notice"))
    assert chat.state == chat._session.state == {"budget": 6}  # what still applied is kept
    agent.release.set()
    await run
    assert chat.state == chat._session.state == {"budget": 6}
