"""agui_middleware (frontend tools, pending calls) through AgentChat, and the callback handler."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import NotRequired

import pytest
from langchain.agents import AgentState, create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.types import Command

from agui_widget import AgentChat, FrontendTool
from agui_widget.adapters.langchain import (
    AGUICallbackHandler,
    AGUIMiddleware,
    LangChainAgent,
    agui_middleware,
    create_agui_agent,
    frontend_tools,
)

from .langchain_fakes import (
    StreamChecks,
    ai,
    call,
    get_weather,
    model,
    of_type,
    one,
    until,
)
from .support import split_runs, text_of, types

checks = StreamChecks()

PICK = FrontendTool(
    "pick_color",
    "Ask the user to pick a colour.",
    {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]},
)


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


async def answer_when_asked(chat: AgentChat, run, answers: dict) -> None:
    await until(lambda: chat.pending_tool_calls or run.done)
    for pending in chat.pending_tool_calls:
        chat.respond(pending["toolCallId"], answers[pending["name"]])
    await run


async def test_the_model_is_offered_frontend_tools_and_the_run_ends_with_the_call_pending():
    fake = model(ai("I'll ask you.", call("pick_color", {"color": "teal"}, "f1")), "Teal it is.")
    chat = AgentChat(create_agent(fake, [get_weather], middleware=[agui_middleware()]), tools=[PICK])
    run = chat.send("pick a colour")
    await until(lambda: chat.pending_tool_calls or run.done)
    assert fake.bound_tools == ["get_weather", "pick_color"]
    [pending] = chat.pending_tool_calls
    assert pending["toolCallId"] == "f1" and pending["args"] == {"color": "teal"}
    chat.respond("f1", {"ok": True, "color": "teal"})
    await run
    first, second = split_runs(run.events)
    assert first[-1].outcome.pending_tool_call_ids == ["f1"]
    assert "tools" not in [e.step_name for e in of_type(first, "STEP_STARTED")]  # ended right after the model
    assert "TOOL_CALL_RESULT" not in types(first)
    answer = fake.calls[1][-1]
    assert isinstance(answer, ToolMessage) and answer.tool_call_id == "f1" and json.loads(answer.content)["color"] == "teal"
    assert text_of(second) == "Teal it is."
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    checks(first, second)


async def test_backend_tools_run_and_frontend_ones_wait_when_the_model_calls_both():
    fake = model(ai("", call("get_weather", {"city": "Oslo"}, "b1"), call("pick_color", {"color": "red"}, "f1")), "Done.")
    chat = AgentChat(create_agent(fake, [get_weather], middleware=[agui_middleware()]), tools=[PICK])
    run = chat.send("weather and a colour")
    await until(lambda: chat.pending_tool_calls or run.done)
    assert [p["toolCallId"] for p in chat.pending_tool_calls] == ["f1"]
    assert len(fake.calls) == 1  # the model was not called again before the chat answered
    chat.respond("f1", {"ok": True})
    await run
    first, second = split_runs(run.events)
    assert [r.tool_call_id for r in of_type(first, "TOOL_CALL_RESULT")] == ["b1"]
    assert first[-1].outcome.pending_tool_call_ids == ["f1"]
    assert {m.tool_call_id for m in fake.calls[1] if isinstance(m, ToolMessage)} == {"b1", "f1"}
    checks(first, second)


async def test_create_agui_agent_adds_the_middleware_once_and_its_options_apply():
    fake = model(ai("", call("get_weather", {"city": "Oslo"}, "b1")), "ok")
    agent = LangChainAgent(create_agui_agent(fake, [get_weather], agui={"max_ui_payload": 100, "emit_state": "none"}))
    assert isinstance(agent.middleware, AGUIMiddleware)
    assert agent.options.max_ui_payload == 100 and agent.options.emit_state == "none"
    mine = agui_middleware(error_detail="code")
    assert LangChainAgent(create_agui_agent(model("x"), [], middleware=[mine])).middleware is mine
    assert LangChainAgent(create_agui_agent(model("x"), []), emit_state="final").options.emit_state == "final"


async def test_without_the_middleware_frontend_tools_are_not_offered_and_it_says_so(caplog):
    fake = model("I can only talk.")
    chat = AgentChat(create_agent(fake, [get_weather]), tools=[PICK])
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        run = await chat.send("pick a colour")
    assert run.reply == "I can only talk." and fake.bound_tools == ["get_weather"]
    assert "agui_middleware()" in caplog.text


async def test_the_applications_context_is_added_to_the_system_prompt():
    fake = model("ok")
    agent = create_agent(fake, [], system_prompt="Be brief.", middleware=[agui_middleware()])
    chat = AgentChat(agent, context=[{"description": "the user's name", "value": "Ada"}])
    await chat.send("hi")
    system = fake.calls[0][0]
    assert (
        isinstance(system, SystemMessage) and system.content.startswith("Be brief.") and "the user's name: Ada" in system.content
    )


async def test_a_graph_node_can_bind_the_runs_frontend_tools_itself():
    from langgraph.graph import END, START, MessagesState, StateGraph

    fake = model(ai("", call("pick_color", {"color": "blue"}, "f9")), "Blue.")

    async def agent(state: MessagesState, config):
        bound = fake.bind_tools([get_weather, *frontend_tools(config)])
        return {"messages": [await bound.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    chat = AgentChat(graph.compile(), tools=[PICK])
    run = chat.send("colour?")
    await answer_when_asked(chat, run, {"pick_color": {"ok": True}})
    assert fake.bound_tools == ["get_weather", "pick_color"] and run.reply == "Blue."
    checks(*split_runs(run.events))


# -- the callback handler, for code that runs the agent itself ----------------------------------------


async def test_the_handler_gets_tokens_tool_calls_and_results_under_ainvoke():
    handler = AGUICallbackHandler(thread_id="my-thread")
    fake = model(ai("Looking.", call("get_weather", {"city": "Rome"}, "c1")), "Sunny in Rome.")
    agent = create_agent(fake, [get_weather])
    result = await agent.ainvoke({"messages": [HumanMessage("weather in Rome?")]}, {"callbacks": [handler]})
    assert result["messages"][-1].content == "Sunny in Rome."
    events = handler.events
    assert events[0].type.value == "RUN_STARTED" and events[0].thread_id == "my-thread"
    assert events[-1].type.value == "RUN_FINISHED"
    assert len(of_type(events, "TEXT_MESSAGE_CONTENT")) == 4  # streamed, although ainvoke was used
    assert one(events, "TOOL_CALL_START").tool_call_id == "c1" and len(of_type(events, "TOOL_CALL_ARGS")) > 1
    assert one(events, "TOOL_CALL_RESULT").tool_call_id == "c1"
    assert [e.step_name for e in of_type(events, "STEP_STARTED")] == ["model", "tools", "model"]
    checks(events)


async def test_with_config_binds_the_handler_once_and_each_call_is_a_run():
    queue: asyncio.Queue = asyncio.Queue()
    handler = AGUICallbackHandler(queue)
    agent = create_agent(model("one", "two"), []).with_config(callbacks=[handler])
    await agent.ainvoke({"messages": [HumanMessage("a")]})
    await agent.ainvoke({"messages": [HumanMessage("b")]})
    events = [queue.get_nowait() for _ in range(queue.qsize())]
    runs = split_runs(events)
    assert [text_of(r) for r in runs] == ["one", "two"]
    checks(*runs)


def test_the_handler_works_under_sync_invoke_and_on_a_bare_model():
    handler = AGUICallbackHandler()
    fake = model("Plain model answer.")
    fake.invoke("hi", config={"callbacks": [handler]})
    [run] = handler.run_events
    assert text_of(run) == "Plain model answer." and len(of_type(run, "TEXT_MESSAGE_CONTENT")) == 3
    checks(run)


async def test_the_handler_closes_everything_when_the_agent_fails():
    @tool
    def broken() -> str:
        """Fails."""
        raise RuntimeError("kaput")

    handler = AGUICallbackHandler(error_detail="message")
    agent = create_agent(model(ai("Trying.", call("broken", {}, "x"))), [broken])
    with pytest.raises(RuntimeError):
        await agent.ainvoke({"messages": [HumanMessage("go")]}, {"callbacks": [handler]})
    events = handler.events
    assert events[-1].type.value == "RUN_ERROR" and "kaput" in events[-1].message
    checks(events)


async def test_a_failing_sink_never_breaks_the_agent(caplog):
    def sink(event):
        raise OSError("the client went away")

    agent = create_agent(model("still fine"), [])
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        result = await agent.ainvoke({"messages": [HumanMessage("hi")]}, {"callbacks": [AGUICallbackHandler(sink)]})
    assert result["messages"][-1].content == "still fine" and "sink failed" in caplog.text


class Todos(AgentState):
    todos: NotRequired[list[str]]


@tool
def add_todo(text: str, runtime: ToolRuntime) -> Command:
    """Add a to-do item."""
    todos = [*(runtime.state.get("todos") or []), text]
    return Command(update={"todos": todos, "messages": [ToolMessage(f"added {text}", tool_call_id=runtime.tool_call_id)]})


async def test_the_middleware_sends_the_agents_state_through_the_handler():
    handler = AGUICallbackHandler()
    fake = model(ai("", call("add_todo", {"text": "milk"}, "t1")), "Added.")
    agent = create_agent(fake, [add_todo], state_schema=Todos, middleware=[agui_middleware()])
    await agent.ainvoke({"messages": [HumanMessage("add milk")], "todos": ["bread"]}, {"callbacks": [handler]})
    events = handler.events
    assert one(events, "STATE_SNAPSHOT").snapshot == {"todos": ["bread"]}
    delta = one(events, "STATE_DELTA").model_dump(mode="json")["delta"]
    assert delta == [{"op": "add", "path": "/todos/1", "value": "milk"}]
    assert one(events, "TOOL_CALL_RESULT").content == "added milk"
    checks(events)


async def test_the_handler_reports_frontend_calls_as_pending():
    handler = AGUICallbackHandler(frontend_tools=[PICK])
    fake = model(ai("", call("pick_color", {"color": "red"}, "f1")))
    agent = create_agent(fake, [], middleware=[agui_middleware(frontend_tools=[PICK])])
    await agent.ainvoke({"messages": [HumanMessage("colour?")]}, {"callbacks": [handler]})
    assert fake.bound_tools == ["pick_color"]
    assert handler.events[-1].outcome.pending_tool_call_ids == ["f1"]
    checks(handler.events)


async def test_the_handler_reports_an_interrupt_as_the_runs_outcome():
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.types import interrupt

    def ask(state: MessagesState):
        interrupt("Proceed?")
        return {}

    graph = StateGraph(MessagesState)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    handler = AGUICallbackHandler()
    config = {"configurable": {"thread_id": "t1"}, "callbacks": [handler]}
    result = await graph.compile(checkpointer=InMemorySaver()).ainvoke({"messages": [HumanMessage("go")]}, config)
    outcome = handler.events[-1].outcome
    assert outcome.type == "interrupt" and outcome.interrupts[0].message == "Proceed?"
    assert outcome.interrupts[0].id == result["__interrupt__"][0].id
    checks(handler.events)


def test_the_middleware_works_under_sync_invoke_too():
    handler = AGUICallbackHandler(frontend_tools=[PICK])
    fake = model(ai("", call("get_weather", {"city": "Oslo"}, "b1"), call("pick_color", {"color": "red"}, "f1")))
    agent = create_agent(fake, [get_weather], middleware=[agui_middleware(frontend_tools=[PICK])])
    result = agent.invoke({"messages": [HumanMessage("weather and a colour")]}, {"callbacks": [handler]})
    assert [m.type for m in result["messages"]] == ["human", "ai", "tool"] and len(fake.calls) == 1
    assert handler.events[-1].outcome.pending_tool_call_ids == ["f1"]
    checks(handler.events)


async def test_create_agui_agent_with_a_sink_emits_on_every_call_with_nothing_passed():
    events: list = []
    agent = create_agui_agent(model("first", "second", "third"), [], sink=events)
    await agent.ainvoke({"messages": [HumanMessage("a")]})
    await agent.ainvoke({"messages": [HumanMessage("b")]})
    assert [text_of(run) for run in split_runs(events)] == ["first", "second"]
    chat = AgentChat(agent)  # the same object runs in the chat too
    assert isinstance(chat.agent.middleware, AGUIMiddleware)
    run = await chat.send("c")
    assert run.reply == "third"
    checks(*split_runs(events), run.events)
