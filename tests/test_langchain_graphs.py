"""LangGraph graphs and create_agent agents: tokens, tool calls and results, steps, custom events."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from agui_widget import AgentChat
from agui_widget.adapters.langchain import LangChainAgent

from .langchain_fakes import StreamChecks, ai, call, get_weather, model, of_type, one
from .support import collect, make_input, text_of, types

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


def steps(events):
    kinds = {"STEP_STARTED": "start", "STEP_FINISHED": "finish"}
    return [(kinds[e.type.value], e.step_name) for e in events if e.type.value in kinds]


async def test_a_create_agent_agent_streams_text_tool_calls_results_and_steps():
    fake = model(ai("Let me check.", call("get_weather", {"city": "Paris"}, "c1")), "It is sunny in Paris.")
    agent = LangChainAgent(create_agent(fake, [get_weather]))
    events = await collect(agent, make_input("weather in Paris?"))
    assert text_of(events) == "Let me check.It is sunny in Paris."
    assert len(of_type(events, "TEXT_MESSAGE_CONTENT")) == 8  # token by token
    first_text = of_type(events, "TEXT_MESSAGE_START")[0]
    start = one(events, "TOOL_CALL_START")
    assert (start.tool_call_id, start.tool_call_name, start.parent_message_id) == ("c1", "get_weather", first_text.message_id)
    args = of_type(events, "TOOL_CALL_ARGS")
    assert len(args) > 1 and json.loads("".join(a.delta for a in args)) == {"city": "Paris"}
    result = one(events, "TOOL_CALL_RESULT")
    assert result.tool_call_id == "c1" and json.loads(result.content)["conditions"] == "sunny"
    kinds = types(events)
    assert kinds.index("TOOL_CALL_END") < kinds.index("TOOL_CALL_RESULT")
    assert steps(events) == [
        ("start", "model"), ("finish", "model"), ("start", "tools"), ("finish", "tools"), ("start", "model"), ("finish", "model"),
    ]  # fmt: skip
    assert events[-1].outcome.type == "success" and not events[-1].outcome.pending_tool_call_ids
    checks(events)


def is_internal(event) -> bool:
    return (event.metadata or {}).get("agui_widget", {}).get("internal") is True


async def test_create_agents_own_nodes_are_internal_steps_and_a_graphs_own_nodes_are_not():
    fake = model(ai("", call("get_weather", {"city": "Paris"}, "c1")), "Sunny.")
    events = await collect(LangChainAgent(create_agent(fake, [get_weather])), make_input("weather in Paris?"))
    marked = [is_internal(e) for e in events if e.type.value.startswith("STEP_")]
    assert marked and all(marked), "'model' and 'tools' are create_agent's plumbing, not progress a person follows"
    fake = model(ai("", call("get_weather", {"city": "Kyiv"}, "k1")), "Warm in Kyiv.")
    events = await collect(LangChainAgent(weather_graph(fake)), make_input("weather in Kyiv?"))
    assert not any(is_internal(e) for e in events if e.type.value.startswith("STEP_")), "a graph's own node names are for people"


async def test_a_users_existing_create_agent_works_in_agentchat_unchanged():
    fake = model(ai("", call("get_weather", {"city": "Lima"}, "c1")), "Sunny in Lima.")
    agent = create_agent(fake, [get_weather], system_prompt="You are a weather bot.")  # the user's code
    chat = AgentChat(agent)
    assert isinstance(chat.agent, LangChainAgent) and chat.agent.kind == "graph"
    run = await chat.send("weather in Lima?")
    assert run.status == "finished" and run.reply == "Sunny in Lima."
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    assert chat.messages[1]["toolCalls"][0]["function"]["name"] == "get_weather"
    assert agent.checkpointer is None and chat.agent.graph is not agent  # the user's graph is untouched
    assert fake.calls[0][0].content == "You are a weather bot."
    checks(run.events)


async def test_parallel_tool_calls_share_one_tools_step_and_each_gets_its_result():
    fake = model(ai("", call("get_weather", {"city": "Oslo"}, "a"), call("get_weather", {"city": "Rome"}, "b")), "Both sunny.")
    events = await collect(LangChainAgent(create_agent(fake, [get_weather])), make_input("Oslo and Rome?"))
    assert [s for s in steps(events) if s[1] == "tools"] == [("start", "tools"), ("finish", "tools")]
    assert sorted(r.tool_call_id for r in of_type(events, "TOOL_CALL_RESULT")) == ["a", "b"]
    assert {s.parent_message_id for s in of_type(events, "TOOL_CALL_START")} == {
        of_type(events, "TOOL_CALL_START")[0].parent_message_id
    }
    checks(events)


@tool
async def long_job(steps: int) -> str:
    """A job that reports its progress."""
    write = get_stream_writer()
    for done in range(1, steps + 1):
        write({"name": "progress", "value": {"done": done, "of": steps}})
    write("almost there")
    return "finished"


async def test_custom_stream_writes_become_custom_events():
    fake = model(ai("", call("long_job", {"steps": 2}, "j1")), "Done.")
    events = await collect(LangChainAgent(create_agent(fake, [long_job])), make_input("go"))
    custom = [(e.name, e.value) for e in of_type(events, "CUSTOM")]
    assert custom == [("progress", {"done": 1, "of": 2}), ("progress", {"done": 2, "of": 2}), ("custom", "almost there")]
    checks(events)


def weather_graph(fake):
    """The classic hand-built agent: a model node, a ToolNode and tools_condition."""
    bound = fake.bind_tools([get_weather])

    async def agent(state: MessagesState):
        return {"messages": [await bound.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([get_weather]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


async def test_a_hand_built_graph_streams_like_create_agent():
    fake = model(ai("", call("get_weather", {"city": "Kyiv"}, "k1")), "Warm in Kyiv.")
    chat = AgentChat(weather_graph(fake))
    run = await chat.send("weather in Kyiv?")
    assert run.reply == "Warm in Kyiv." and [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    assert [s[1] for s in steps(run.events) if s[0] == "start"] == ["agent", "tools", "agent"]
    assert len(of_type(run.events, "TOOL_CALL_ARGS")) > 1
    checks(run.events)


async def test_a_node_that_returns_a_whole_message_is_shown_too():
    def greet(state: MessagesState):
        return {"messages": [AIMessage("Hello from a node.", id="node-msg-1")]}

    graph = StateGraph(MessagesState)
    graph.add_node("greet", greet)
    graph.add_edge(START, "greet")
    graph.add_edge("greet", END)
    events = await collect(LangChainAgent(graph.compile()), make_input("hi"))
    assert text_of(events) == "Hello from a node."
    assert one(events, "TEXT_MESSAGE_START").message_id == "node-msg-1"
    assert steps(events) == [("start", "greet"), ("finish", "greet")]
    checks(events)


async def test_an_agent_inside_a_bigger_graph_streams_its_tokens():
    inner = create_agent(model("Inner answer here."), [])

    graph = StateGraph(MessagesState)
    graph.add_node("helper", inner)
    graph.add_edge(START, "helper")
    graph.add_edge("helper", END)
    events = await collect(LangChainAgent(graph.compile()), make_input("hi"))
    assert text_of(events) == "Inner answer here."
    assert len(of_type(events, "TEXT_MESSAGE_CONTENT")) == 3
    assert steps(events) == [("start", "helper"), ("finish", "helper")]  # the outer graph's nodes only
    checks(events)


@tool
def broken(city: str) -> str:
    """Always fails."""
    raise RuntimeError(f"the weather service for {city} is down")


async def test_an_exception_in_a_tool_ends_the_run_with_every_start_closed():
    fake = model(ai("Checking.", call("broken", {"city": "Bern"}, "x1")))
    events = await collect(LangChainAgent(create_agent(fake, [broken])), make_input("weather?"))
    assert events[-1].type.value == "RUN_ERROR" and "is down" in events[-1].message
    started = [e.step_name for e in of_type(events, "STEP_STARTED")]
    finished = [e.step_name for e in of_type(events, "STEP_FINISHED")]
    assert sorted(started) == sorted(finished)
    checks(events)


async def test_the_users_checkpointer_is_kept_and_used():
    saver = InMemorySaver()
    fake = model("first", "second")
    agent = LangChainAgent(create_agent(fake, [], checkpointer=saver))
    assert agent.graph.checkpointer is saver
    chat = AgentChat(agent)
    await chat.send("one")
    await chat.send("two")
    stored = await agent.graph.aget_state({"configurable": {"thread_id": chat.thread_id}})
    assert [m.content for m in stored.values["messages"]] == ["one", "first", "two", "second"]


async def test_a_slow_agent_does_not_block_the_loop():
    fake = model("a b c d e f g h", delay=0.01)
    agent = LangChainAgent(create_agent(fake, []))
    ticks = 0

    async def tick():
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    ticker = asyncio.create_task(tick())
    events = await collect(agent, make_input([{"id": "u1", "role": "user", "content": "go"}]))
    ticker.cancel()
    assert text_of(events) == "a b c d e f g h" and ticks > 5
    checks(events)


def test_human_messages_made_inside_a_graph_have_no_event():
    from agui_widget.adapters._base import EventStream
    from agui_widget.adapters.langchain._events import MessageMapper
    from agui_widget.adapters.langchain._options import AGUIOptions

    mapper = MessageMapper(EventStream(make_input("x")), AGUIOptions())
    assert mapper.message(HumanMessage("made by a node")) == []


async def test_two_models_streaming_at_once_keep_their_messages_apart():
    left, right = model("left one two three four", delay=0.002), model("right five six seven eight", delay=0.002)

    async def a(state: MessagesState):
        return {"messages": [await left.ainvoke(state["messages"])]}

    async def b(state: MessagesState):
        return {"messages": [await right.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("a", a)
    graph.add_node("b", b)
    graph.add_edge(START, "a")
    graph.add_edge(START, "b")
    graph.add_edge("a", END)
    graph.add_edge("b", END)
    events = await collect(LangChainAgent(graph.compile()), make_input("go"))
    by_message: dict[str, str] = {}
    for event in of_type(events, "TEXT_MESSAGE_CONTENT"):
        by_message[event.message_id] = by_message.get(event.message_id, "") + event.delta
    assert sorted(by_message.values()) == ["left one two three four", "right five six seven eight"]
    assert len(of_type(events, "TEXT_MESSAGE_START")) > 2  # interleaved: each switch reopens the other message
    checks(events)
