"""Tools and context change while the chat lives.

``chat.tools`` and ``chat.context`` can be assigned at any time and the next run sees them. A
context entry may be a function, read when each run starts (a DataFrame's current summary, the
variables a user chose to share); a value too long is cut to a limit and a function that fails is
left out, each with a notice the user can read, never a crashed run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent, Context, RunAgentInput, RunFinishedEvent, RunStartedEvent

from agui_widget import AgentChat, DemoAgent, FrontendTool, LiveContext
from agui_widget.inputs._live_context import MAX_CONTEXT_CHARS
from agui_widget.wire._codec import CONTEXT_PREVIEW_CHARS

from .genui_support import Captured


class Recording:
    """An agent that answers nothing and keeps every RunAgentInput it gets."""

    def __init__(self) -> None:
        self.inputs: list[RunAgentInput] = []

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        self.inputs.append(input)
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


def context_of(run_input: RunAgentInput) -> dict[str, str]:
    return {entry.description: entry.value for entry in run_input.context}


# -- tools ------------------------------------------------------------------------------------------


async def test_assigned_tools_reach_the_next_run_and_the_views() -> None:
    agent = Recording()
    chat = Captured(agent)
    await chat.send("first")
    assert agent.inputs[-1].tools == []

    chat.tools = [FrontendTool("pick_color", "Ask the user for a colour", ui="ask")]
    await chat.send("second")
    assert [tool.name for tool in agent.inputs[-1].tools] == ["pick_color"]
    assert [spec["name"] for spec in chat.frontend_tools] == ["pick_color"], "the views are told"
    assert chat.get_state()["frontend_tools"][0]["ui"] == "ask"

    chat.tools = []
    await chat.send("third")
    assert agent.inputs[-1].tools == []


async def test_an_agents_own_tools_stay_when_the_chats_are_assigned() -> None:
    chat = Captured(DemoAgent(delay=0))
    own = [tool.name for tool in chat.tools]
    assert own, "the demo agent brings tools of its own"
    chat.tools = [{"name": "extra", "description": "one more", "ui": "manual"}]
    assert [tool.name for tool in chat.tools] == [*own, "extra"]


def test_assigning_tools_that_are_not_tools_is_refused_and_changes_nothing() -> None:
    chat = AgentChat(Recording(), tools=[FrontendTool("keep", "kept")])
    with pytest.raises(TypeError, match="tools"):
        chat.tools = [42]
    with pytest.raises(ValueError, match="unique"):
        chat.tools = [FrontendTool("same", "a"), FrontendTool("same", "b")]
    assert [tool.name for tool in chat.tools] == ["keep"]


# -- context ---------------------------------------------------------------------------------------


async def test_assigned_context_reaches_the_next_run() -> None:
    agent = Recording()
    chat = Captured(agent, context=[{"description": "the course", "value": "week 3"}])
    await chat.send("first")
    assert context_of(agent.inputs[-1]) == {"the course": "week 3"}

    chat.context = [Context(description="the course", value="week 4"), {"description": "limits", "value": {"max": 3}}]
    await chat.send("second")
    assert context_of(agent.inputs[-1]) == {"the course": "week 4", "limits": '{"max": 3}'}


async def test_a_function_in_the_context_is_read_when_each_run_starts() -> None:
    agent = Recording()
    rows = [1, 2]

    def table_summary() -> str:
        """The table the user is working on"""
        return f"{len(rows)} rows"

    chat = Captured(agent, context=[table_summary, {"description": "shared", "value": lambda: {"rows": rows[:]}}])
    assert isinstance(chat.context[0], LiveContext) and chat.context[0].description == "The table the user is working on"
    await chat.send("first")
    assert context_of(agent.inputs[-1]) == {"The table the user is working on": "2 rows", "shared": '{"rows": [1, 2]}'}
    rows.append(3)
    await chat.send("second")
    assert context_of(agent.inputs[-1]) == {"The table the user is working on": "3 rows", "shared": '{"rows": [1, 2, 3]}'}


async def test_a_context_function_that_fails_is_left_out_with_a_notice_and_the_run_goes_on() -> None:
    agent = Recording()

    def broken() -> str:
        raise RuntimeError("the DataFrame was deleted")

    chat = Captured(agent, context=[LiveContext("the data", broken), {"description": "kept", "value": "yes"}])
    run = await chat.send("hello")
    assert run.status == "finished" and chat.status == "idle"
    assert context_of(agent.inputs[-1]) == {"kept": "yes"}
    (notice,) = chat.of_kind("notice")
    assert notice["level"] == "warning"
    assert "the data" in notice["text"] and "the DataFrame was deleted" in notice["text"]


async def test_a_context_entry_too_long_is_cut_to_the_limit_with_a_notice() -> None:
    agent = Recording()
    chat = Captured(agent, context=[{"description": "the log", "value": lambda: "x" * (MAX_CONTEXT_CHARS + 500)}])
    await chat.send("hello")
    sent = context_of(agent.inputs[-1])["the log"]
    assert sent.startswith("x" * MAX_CONTEXT_CHARS) and "500 more characters not sent" in sent
    assert len(sent) < MAX_CONTEXT_CHARS + 100
    (notice,) = chat.of_kind("notice")
    assert "the log" in notice["text"] and f"{MAX_CONTEXT_CHARS:,}" in notice["text"]


@pytest.mark.parametrize(
    ("entries", "error"),
    [
        ("a string", TypeError),
        ({"description": "not a list"}, TypeError),
        ([{"description": "", "value": "x"}], ValueError),
        ([{"description": "d", "value": "x", "extra": 1}], TypeError),
        ([42], TypeError),
    ],
)
def test_context_that_cannot_be_sent_is_refused_when_assigned(entries: Any, error: type[Exception]) -> None:
    chat = AgentChat(Recording(), context=[{"description": "kept", "value": "yes"}])
    with pytest.raises(error):
        chat.context = entries
    assert [entry.description for entry in chat.context] == ["kept"]


# -- what the views are told -----------------------------------------------------------------------


async def test_the_views_are_told_what_context_the_agent_gets_and_a_live_entry_after_each_run() -> None:
    agent = Recording()
    rows = [1, 2]
    chat = Captured(agent, context=[{"description": "the course", "value": "week 4"}, LiveContext("rows", lambda: len(rows))])
    assert chat.get_state()["agent_context"] == [
        {"description": "the course", "preview": "week 4", "length": 6, "live": False},
        {"description": "rows", "preview": "", "length": 0, "live": True},
    ]
    await chat.send("hello")
    assert chat.agent_context[1] == {"description": "rows", "preview": "2", "length": 1, "live": True}
    rows.extend(range(98))
    await chat.send("again")
    assert chat.agent_context[1]["preview"] == "100"

    chat.context = [{"description": "long", "value": "y" * 1000}]
    (entry,) = chat.agent_context
    assert entry["length"] == 1000 and entry["preview"] == "y" * CONTEXT_PREVIEW_CHARS, "views get the start of it"


# -- forwarded props -------------------------------------------------------------------------------


async def test_forwarded_props_reach_each_run_and_a_sends_own_win() -> None:
    agent = Recording()
    chat = Captured(agent, forwarded_props={"model": "small", "temperature": 0.2})
    await chat.send("first")
    assert agent.inputs[-1].forwarded_props == {"model": "small", "temperature": 0.2}
    await chat.send("second", forwarded_props={"temperature": 0.9, "seed": 7})
    assert agent.inputs[-1].forwarded_props == {"model": "small", "temperature": 0.9, "seed": 7}
    chat.forwarded_props = {}
    await chat.send("third")
    assert agent.inputs[-1].forwarded_props is None, "nothing to forward: the field is left out"


async def test_a_queued_turn_keeps_its_own_forwarded_props() -> None:
    agent = Recording()
    chat = Captured(agent)
    first = chat.send("first", forwarded_props={"model": "a"})
    second = chat.send("second", forwarded_props={"model": "b"})
    await first
    await second
    assert [run_input.forwarded_props for run_input in agent.inputs] == [{"model": "a"}, {"model": "b"}]


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize("props", [["not", "a", "dict"], {"f": object()}, {"x": float("nan")}, {"k": "\ud800"}, nested(5000)])
async def test_forwarded_props_that_are_not_plain_json_are_refused_before_anything_is_queued(props: Any) -> None:
    chat = Captured(Recording())
    with pytest.raises((TypeError, ValueError)):
        chat.send("hello", forwarded_props=props)
    assert chat.messages == [] and chat.status == "idle"
    with pytest.raises((TypeError, ValueError)):
        chat.forwarded_props = props
    assert chat.forwarded_props == {}
