"""Our stream next to ag-ui-langgraph's LangGraphAgent on the same graph and the same model script.

The same create_agent graph (a state key, a tool that updates it with Command, reasoning, text)
runs under both adapters. After the differences listed below are accounted for, the two streams
are the same event for event: steps, text deltas, message ids, tool call ids and names,
reasoning deltas and tool results. Every difference is asserted, with the reason:

1. RUN_STARTED: ours carries ``protocolVersion`` (AG-UI 1.0); theirs does not.
2. RUN_FINISHED: ours carries the 1.0 ``outcome`` (``success``, with ``pendingToolCallIds`` when
   frontend calls wait); theirs has none for a run that was not interrupted.
3. RAW: theirs wraps every LangChain callback event in a RAW event by default (and copies it
   into ``rawEvent`` of the mapped events); ours sends none, keeping the wire small.
4. Tool call arguments: theirs drops the arguments carried by the chunk that starts a call (the
   model's first tool-call chunk here holds ``{"text":``), so its TOOL_CALL_ARGS do not join to
   valid JSON; ours streams every piece. (Providers whose first chunk has empty arguments hide
   this; the final MESSAGES_SNAPSHOT of theirs repairs the transcript afterwards.)
5. TOOL_CALL_RESULT ``messageId``: theirs uses the tool call id; ours the ToolMessage's own id, so
   the transcript's tool message and the checkpoint's have the same id (history round-trips).
6. State: theirs sends STATE_SNAPSHOT of the whole graph state, LangChain ``messages`` included,
   and without the keys only the client has (``theme`` here), so applying it drops them; ours
   shares the state schema's own keys and sends a JSON Patch STATE_DELTA when a step changes one.
7. MESSAGES_SNAPSHOT: theirs ends every run with the whole transcript; ours does not (the client
   already built it from the events; the session owns the conversation).
8. Reasoning ids: theirs uses one id for REASONING_START and REASONING_MESSAGE_START; ours two.
   Both are valid AG-UI.
"""

from __future__ import annotations

import json
import warnings
from typing import NotRequired

import ag_ui_langgraph
import pytest
from langchain.agents import AgentState, create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agui_widget.adapters.langchain import LangChainAgent

from .agui_check import wire
from .langchain_fakes import StreamChecks, ai, call, model
from .support import make_input, patch_of

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


class Todos(AgentState):
    todos: NotRequired[list[str]]


@tool
def add_todo(text: str, runtime: ToolRuntime) -> Command:
    """Add an item to the to-do list."""
    todos = [*(runtime.state.get("todos") or []), text]
    return Command(update={"todos": todos, "messages": [ToolMessage(f"Added {text}.", tool_call_id=runtime.tool_call_id)]})


def graph():
    fake = model(
        ai("Adding it.", call("add_todo", {"text": "milk"}, "call-1")), ai("Done: milk is on the list.", reasoning="Easy one.")
    )
    return create_agent(fake, [add_todo], state_schema=Todos, checkpointer=InMemorySaver())


def comparable(events) -> list[dict]:
    """The shared core: no RAW/state/snapshot events, no rawEvent, ids by order of appearance."""
    names: dict[str, str] = {}

    def name(value: str) -> str:
        return names.setdefault(value, f"id{len(names)}")

    core = []
    for event in wire(events):
        kind = event["type"]
        if kind in {"RAW", "STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT", "TOOL_CALL_ARGS"}:
            continue
        event.pop("rawEvent", None)
        if kind == "RUN_STARTED":
            event.pop("protocolVersion", None)
        if kind == "RUN_FINISHED":
            event.pop("outcome", None)
        if kind == "TOOL_CALL_RESULT":
            event.pop("messageId")
        if kind.startswith("STEP_"):
            event.pop("metadata", None)  # ours marks create_agent's own nodes as internal (not progress)
        if kind.startswith("REASONING"):
            event.pop("messageId")
        for key in ("messageId", "parentMessageId", "runId"):
            if key in event:
                event[key] = name(event[key])
        core.append(event)
    return core


async def test_the_same_graph_under_ag_ui_langgraph_and_under_ours():
    run_input = make_input("add milk", state={"todos": ["bread"], "theme": "dark"})
    theirs_agent = ag_ui_langgraph.LangGraphAgent(name="todo", graph=graph())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # theirs warns about its own pydantic serialisation
        theirs = [event async for event in theirs_agent.run(run_input)]
    ours_agent = LangChainAgent(graph())
    ours = [event async for event in ours_agent.run(run_input)]

    # After the listed differences, the same events in the same order.
    assert comparable(theirs) == comparable(ours)

    def of(events, kind):
        return [e for e in events if e.type.value == kind]

    # 1. protocolVersion
    assert of(ours, "RUN_STARTED")[0].protocol_version == "1.0" and of(theirs, "RUN_STARTED")[0].protocol_version is None
    # 2. outcome
    assert of(ours, "RUN_FINISHED")[0].outcome.type == "success" and of(theirs, "RUN_FINISHED")[0].outcome is None
    # 3. RAW
    assert of(theirs, "RAW") and not of(ours, "RAW")
    # 4. tool call arguments
    ours_args = "".join(e.delta for e in of(ours, "TOOL_CALL_ARGS"))
    theirs_args = "".join(e.delta for e in of(theirs, "TOOL_CALL_ARGS"))
    assert json.loads(ours_args) == {"text": "milk"}
    assert ours_args.endswith(theirs_args) and ours_args.startswith('{"text":') and not theirs_args.startswith("{")
    # 5. tool result message ids
    [ours_result], [theirs_result] = of(ours, "TOOL_CALL_RESULT"), of(theirs, "TOOL_CALL_RESULT")
    assert theirs_result.message_id == "call-1" and ours_result.message_id != "call-1"
    stored = await ours_agent.graph.aget_state({"configurable": {"thread_id": run_input.thread_id}})
    assert ours_result.message_id == stored.values["messages"][2].id
    # 6. state
    theirs_snapshot = of(theirs, "STATE_SNAPSHOT")[-1].snapshot
    assert "messages" in theirs_snapshot and "theme" not in theirs_snapshot and theirs_snapshot["todos"] == ["bread", "milk"]
    assert not of(ours, "STATE_SNAPSHOT")
    assert [patch_of(d) for d in of(ours, "STATE_DELTA")] == [[{"op": "add", "path": "/todos/1", "value": "milk"}]]
    # 7. messages snapshot
    assert of(theirs, "MESSAGES_SNAPSHOT") and not of(ours, "MESSAGES_SNAPSHOT")
    # 8. reasoning ids
    theirs_ids = {of(theirs, "REASONING_START")[0].message_id, of(theirs, "REASONING_MESSAGE_START")[0].message_id}
    ours_ids = {of(ours, "REASONING_START")[0].message_id, of(ours, "REASONING_MESSAGE_START")[0].message_id}
    assert len(theirs_ids) == 1 and len(ours_ids) == 2

    checks(ours, label="ours")
    checks(theirs, label="ag-ui-langgraph")
