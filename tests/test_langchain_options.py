"""Options: validated at creation; emit_state, max_ui_payload, error_detail, id overrides, steps."""

from __future__ import annotations

import uuid
from typing import NotRequired

import pytest
from langchain.agents import AgentState, create_agent
from langchain.tools import ToolRuntime
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langgraph.types import Command
from pydantic import ValidationError

from agui_widget import AgentChat
from agui_widget.adapters.langchain import (
    AGUICallbackHandler,
    AGUIOptions,
    LangChainAgent,
    agui_middleware,
)

from .langchain_fakes import StreamChecks, ai, call, model, of_type, one
from .support import collect, make_input, patch_of, types

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


@pytest.mark.parametrize(
    "bad",
    [{"emit_state": "sometimes"}, {"max_ui_payload": 5}, {"error_detail": "loud"}, {"emit_stat": "all"}, {"state_keys": 3}],
)
def test_options_are_validated_when_the_adapter_middleware_or_handler_is_created(bad):
    with pytest.raises(ValidationError):
        LangChainAgent(model("x"), **bad)
    with pytest.raises(ValidationError):
        agui_middleware(**bad)
    with pytest.raises(ValidationError):
        AGUICallbackHandler(**bad)


def test_the_defaults_are_sensible_and_the_options_are_frozen():
    options = AGUIOptions()
    assert (options.emit_state, options.error_detail, options.max_ui_payload) == ("all", "message", 20_000)
    assert options.emit_steps and options.emit_custom and options.state_keys is None
    with pytest.raises(ValidationError):
        options.emit_state = "none"  # type: ignore[misc]
    assert LangChainAgent(model("x"), AGUIOptions(emit_state="final"), error_detail="code").options.emit_state == "final"


class Counter(AgentState):
    count: NotRequired[int]


@tool
def bump(runtime: ToolRuntime) -> Command:
    """Add one to the counter."""
    count = (runtime.state.get("count") or 0) + 1
    return Command(update={"count": count, "messages": [ToolMessage(str(count), tool_call_id=runtime.tool_call_id)]})


def counter_agent():
    return create_agent(
        model(ai("", call("bump", {}, "b1")), ai("", call("bump", {}, "b2")), "Bumped twice."), [bump], state_schema=Counter
    )


@pytest.mark.parametrize("mode", ["all", "initial", "final", "none"])
async def test_emit_state(mode):
    events = await collect(LangChainAgent(counter_agent(), emit_state=mode), make_input("bump twice", state={"count": 10}))
    snapshots = [e.snapshot for e in of_type(events, "STATE_SNAPSHOT")]
    deltas = [patch_of(e) for e in of_type(events, "STATE_DELTA")]
    if mode == "all":
        assert snapshots == [] and deltas == [[{"op": "replace", "path": "/count", "value": v}] for v in (11, 12)]
    elif mode == "initial":
        assert snapshots == [{"count": 10}] and deltas == []
        assert types(events).index("STATE_SNAPSHOT") < types(events).index("STEP_STARTED")
    elif mode == "final":
        assert snapshots == [{"count": 12}] and deltas == []
        assert types(events).index("STATE_SNAPSHOT") > types(events).index("TEXT_MESSAGE_END")
    else:
        assert snapshots == [] and deltas == []
    checks(events)


@tool
def read_log() -> str:
    """Read the server log."""
    return "".join(f"line {i:05d}\n" for i in range(500))  # 5,500 characters


async def test_a_long_tool_result_is_cut_for_the_ui_and_the_model_keeps_it_whole():
    fake = model(ai("", call("read_log", {}, "r1")), "The log is long.", "Still have it.")
    chat = AgentChat(LangChainAgent(create_agent(fake, [read_log]), max_ui_payload=1000))
    run = await chat.send("show the log")
    result = one(run.events, "TOOL_CALL_RESULT")
    assert result.content.startswith("line 00000\n") and "4,500 of 5,500 characters not shown" in result.content
    assert result.metadata == {"agui_widget": {"truncated": {"shown": 1000, "total": 5500, "cut": 4500}}}
    tool_message = next(m for m in chat.messages if m["role"] == "tool")
    assert tool_message["metadata"]["agui_widget"]["truncated"]["cut"] == 4500  # the card can say so
    whole = [m for m in fake.calls[1] if isinstance(m, ToolMessage)][0]
    assert len(whole.content) == 5500
    await chat.send("and now?")  # the checkpoint, not the cut transcript, feeds the model
    assert [len(m.content) for m in fake.calls[2] if isinstance(m, ToolMessage)] == [5500]
    checks(run.events)


@tool
def explode() -> str:
    """Fails loudly."""
    raise RuntimeError("the secret database password is hunter2")


@pytest.mark.parametrize("detail", ["full", "message", "code", "none"])
async def test_error_detail(detail):
    agent = LangChainAgent(create_agent(model(ai("", call("explode", {}, "e1"))), [explode]), error_detail=detail)
    events = await collect(agent, make_input("go"))
    error = events[-1]
    assert error.type.value == "RUN_ERROR"
    if detail == "full":
        assert "hunter2" in error.message and "Traceback" in error.message and error.code == "agent_error"
    elif detail == "message":
        assert error.message == "RuntimeError: the secret database password is hunter2" and error.code == "agent_error"
    elif detail == "code":
        assert "hunter2" not in error.message and error.code == "agent_error"
    else:
        assert error.message == "The agent failed." and error.code is None
    checks(events)


async def test_the_thread_id_override_pins_the_langgraph_thread():
    agent = LangChainAgent(create_agent(model("hi there"), []), thread_id=lambda run_input: f"user-42/{run_input.thread_id}")
    await collect(agent, make_input("hello"))
    stored = await agent.graph.aget_state({"configurable": {"thread_id": "user-42/thread-test"}})
    assert [m.content for m in stored.values["messages"]] == ["hello", "hi there"]


class RootRun(BaseCallbackHandler):
    def __init__(self):
        self.root = None

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
        if parent_run_id is None:
            self.root = run_id


async def test_the_run_id_override_names_the_langchain_run_for_traces():
    spy = RootRun()
    fixed = "9f3c2a8e-3c5b-4c27-9b43-2a2f5f7e8c11"
    agent = LangChainAgent(create_agent(model("ok"), []), run_id=fixed, config={"callbacks": [spy]})
    await collect(agent, make_input("hello"))
    assert spy.root == uuid.UUID(fixed)
    named = LangChainAgent(create_agent(model("ok"), []), run_id=lambda run_input: run_input.run_id, config={"callbacks": [spy]})
    run_input = make_input("hello")
    await collect(named, run_input)
    assert spy.root == uuid.uuid5(uuid.NAMESPACE_URL, run_input.run_id)  # AG-UI run ids need not be UUIDs


async def test_steps_and_custom_events_can_be_turned_off():
    events = await collect(LangChainAgent(counter_agent(), emit_steps=False), make_input("go"))
    assert not of_type(events, "STEP_STARTED") and not of_type(events, "STEP_FINISHED")
    checks(events)
