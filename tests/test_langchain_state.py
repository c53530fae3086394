"""Shared state: the agent's state keys in from RunAgentInput.state, out as snapshots and deltas."""

from __future__ import annotations

from typing import NotRequired

import pytest
from langchain.agents import AgentState, create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command
from pydantic import BaseModel

from agui_widget import AgentChat
from agui_widget.adapters.langchain import LangChainAgent

from .langchain_fakes import StreamChecks, ai, call, model, of_type, one
from .support import collect, make_input, patch_of

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


class TodoState(AgentState):
    todos: NotRequired[list[dict]]
    owner: NotRequired[str]


seen_by_tool: list = []


@tool
def add_todo(text: str, runtime: ToolRuntime) -> Command:
    """Add an item to the user's to-do list."""
    todos = list(runtime.state.get("todos") or [])
    seen_by_tool.append(list(todos))
    todos.append({"text": text, "done": False})
    return Command(update={"todos": todos, "messages": [ToolMessage(f"Added {text}.", tool_call_id=runtime.tool_call_id)]})


def todo_agent(*replies):
    return create_agent(model(*replies), [add_todo], state_schema=TodoState)


async def test_state_comes_in_from_the_chat_and_a_tool_update_goes_out_as_a_delta():
    seen_by_tool.clear()
    chat = AgentChat(
        todo_agent(ai("", call("add_todo", {"text": "bread"}, "t1")), "Added bread."),
        state={"todos": [{"text": "milk", "done": False}], "theme": "dark"},
    )
    run = await chat.send("add bread")
    assert seen_by_tool == [[{"text": "milk", "done": False}]]  # the tool saw the chat's state
    assert chat.state == {"todos": [{"text": "milk", "done": False}, {"text": "bread", "done": False}], "theme": "dark"}
    assert not of_type(run.events, "STATE_SNAPSHOT")  # the agent started from the chat's own state
    [delta] = of_type(run.events, "STATE_DELTA")
    assert patch_of(delta) == [{"op": "add", "path": "/todos/1", "value": {"text": "bread", "done": False}}]
    checks(run.events)


async def test_a_cell_that_changes_the_state_is_what_the_next_run_sees():
    seen_by_tool.clear()
    chat = AgentChat(
        todo_agent(ai("", call("add_todo", {"text": "a"}, "t1")), "ok", ai("", call("add_todo", {"text": "b"}, "t2")), "ok"),
    )
    await chat.send("add a")
    chat.update_state(todos=[])  # the checkpoint still has [a]; the chat's state wins
    await chat.send("add b")
    assert seen_by_tool == [[], []]
    assert chat.state["todos"] == [{"text": "b", "done": False}]


async def test_state_the_chat_does_not_have_yet_arrives_as_a_snapshot():
    def seed(state: MessagesState):
        return {"counter": 41, "messages": [AIMessage("seeded", id="seed-1")]}

    class Counted(MessagesState):
        counter: int

    def bump(state: Counted):
        return {"counter": state["counter"] + 1}

    graph = StateGraph(Counted)
    graph.add_node("seed", seed)
    graph.add_node("bump", bump)
    graph.add_edge(START, "seed")
    graph.add_edge("seed", "bump")
    graph.add_edge("bump", END)
    events = await collect(LangChainAgent(graph.compile()), make_input("go", state={"ui": True}))
    deltas = [patch_of(d) for d in of_type(events, "STATE_DELTA")]
    assert deltas == [[{"op": "add", "path": "/counter", "value": 41}], [{"op": "replace", "path": "/counter", "value": 42}]]
    assert not of_type(events, "STATE_SNAPSHOT")
    # a second run on the same thread starts from the checkpoint's counter, which the chat lacks
    agent = LangChainAgent(graph.compile())
    await collect(agent, make_input("go", state={}))
    again = await collect(agent, make_input("go", state={"ui": True}))
    snapshot = one(again, "STATE_SNAPSHOT").snapshot
    assert snapshot == {"ui": True, "counter": 42}
    checks(events, again)


class Profile(BaseModel):
    name: str
    tags: set[str]


async def test_values_that_are_not_json_are_made_json():
    class WithProfile(MessagesState):
        profile: Profile

    def node(state: WithProfile):
        return {"profile": Profile(name="Ada", tags={"admin"})}

    graph = StateGraph(WithProfile)
    graph.add_node("node", node)
    graph.add_edge(START, "node")
    graph.add_edge("node", END)
    events = await collect(LangChainAgent(graph.compile()), make_input("hi"))
    [delta] = of_type(events, "STATE_DELTA")
    assert patch_of(delta) == [{"op": "add", "path": "/profile", "value": {"name": "Ada", "tags": ["admin"]}}]
    checks(events)


async def test_state_keys_limits_what_is_shared_in_both_directions():
    seen_by_tool.clear()
    agent = LangChainAgent(todo_agent(ai("", call("add_todo", {"text": "x"}, "t1")), "ok"), state_keys=["owner"])
    events = await collect(agent, make_input("add x", state={"todos": [{"text": "secret", "done": False}], "owner": "ada"}))
    assert seen_by_tool == [[]]  # todos is not shared: the chat's value did not go in
    assert not of_type(events, "STATE_DELTA") and not of_type(events, "STATE_SNAPSHOT")
    checks(events)


async def test_internal_keys_never_leave_the_agent():
    events = await collect(LangChainAgent(todo_agent("hello")), make_input("hi", state={"messages": "not for the agent"}))
    assert not of_type(events, "STATE_DELTA") and not of_type(events, "STATE_SNAPSHOT")
    checks(events)
