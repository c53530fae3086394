"""History: ids round-trip, only new messages go to a checkpointed graph, a stop repairs the history."""

from __future__ import annotations

import asyncio

import pytest
from langchain.agents import create_agent
from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import tool

from agui_widget import AgentChat
from agui_widget.adapters.langchain import LangChainAgent
from agui_widget.adapters.langchain._messages import (
    CANCELLED_CALL,
    new_messages_for,
    to_langchain,
)
from agui_widget.adapters.langchain._options import AGUIOptions

from .langchain_fakes import (
    FakeChatModel,
    StreamChecks,
    ai,
    call,
    get_weather,
    model,
    until,
)
from .support import make_input, split_runs

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


async def stored_messages(chat: AgentChat):
    snapshot = await chat.agent.graph.aget_state({"configurable": {"thread_id": chat.thread_id}})
    return snapshot.values["messages"]


def spy_on_inputs(agent: LangChainAgent) -> list:
    inputs: list = []
    original = agent.graph.astream

    def astream(graph_input, *args, **kwargs):
        inputs.append(graph_input)
        return original(graph_input, *args, **kwargs)

    agent.graph.astream = astream  # type: ignore[method-assign]
    return inputs


async def test_message_ids_round_trip_between_the_transcript_and_the_checkpoint():
    fake = model(ai("Checking.", call("get_weather", {"city": "Oslo"}, "c1")), "Sunny.", "You're welcome.")
    chat = AgentChat(create_agent(fake, [get_weather]))
    await chat.send("weather in Oslo?")
    await chat.send("thanks")
    stored = await stored_messages(chat)
    assert [m.id for m in stored] == [m["id"] for m in chat.messages]
    assert [m.type for m in stored] == ["human", "ai", "tool", "ai", "human", "ai"]


async def test_with_a_checkpointer_only_the_new_messages_are_sent():
    agent = LangChainAgent(create_agent(model("one", "two", "three"), []))
    inputs = spy_on_inputs(agent)
    chat = AgentChat(agent)
    for text in ("a", "b", "c"):
        await chat.send(text)
    assert [[m.content for m in i["messages"]] for i in inputs] == [["a"], ["b"], ["c"]]
    assert len(await stored_messages(chat)) == 6  # nothing twice


async def test_stopping_mid_answer_keeps_the_partial_answer_in_both_histories():
    fake = model("a long answer that streams slowly " * 5, "Short answer.", delay=0.01)
    chat = AgentChat(create_agent(fake, []))
    run = chat.send("tell me a story")
    await until(lambda: any(m["role"] == "assistant" and m.get("content") for m in chat.messages))
    chat.stop()
    await run
    partial = chat.messages[-1]
    assert partial["metadata"]["agui_widget"]["stopped"] and partial["content"]
    again = await chat.send("shorter please")
    seen = fake.calls[-1]
    assert [type(m) for m in seen] == [HumanMessage, AIMessage, HumanMessage]
    assert seen[1].id == partial["id"] and seen[1].content == partial["content"]
    assert [m.id for m in await stored_messages(chat)] == [m["id"] for m in chat.messages]
    checks(run.events, again.events)


looking_up: list[str] = []
"""The cities slow_lookup has started looking up."""


@tool
async def slow_lookup(city: str) -> str:
    """A lookup that takes a long time."""
    looking_up.append(city)
    await asyncio.sleep(30)
    return "never"


async def test_stopping_while_a_tool_runs_leaves_no_dangling_call():
    fake = model(ai("", call("slow_lookup", {"city": "Oslo"}, "s1")), "Let's try something else.")
    chat = AgentChat(create_agent(fake, [slow_lookup]))
    looking_up.clear()
    run = chat.send("look it up")
    await until(lambda: any(m.get("toolCalls") for m in chat.messages))
    await until(lambda: looking_up == ["Oslo"])  # the tool runs
    chat.stop()
    await run
    again = await chat.send("never mind")
    assert again.reply == "Let's try something else."
    seen = fake.calls[-1]
    answered = [m for m in seen if isinstance(m, ToolMessage) and m.tool_call_id == "s1"]
    assert len(answered) == 1 and "Cancelled" in answered[0].content
    checks(*split_runs(run.events), again.events)


async def test_editing_an_earlier_message_rewrites_the_checkpoint():
    fake = model("first answer", "second answer", "edited answer")
    chat = AgentChat(create_agent(fake, []))
    await chat.send("one")
    await chat.send("two")
    first_user = chat.messages[0]["id"]
    await chat.edit(first_user, "one, edited")
    assert [m["content"] for m in chat.messages] == ["one, edited", "edited answer"]
    assert [m.content for m in fake.calls[-1]] == ["one, edited"]
    assert [m.content for m in await stored_messages(chat)] == ["one, edited", "edited answer"]


async def test_clearing_the_chat_starts_the_model_afresh_on_the_same_thread():
    fake = model("old", "new")
    chat = AgentChat(create_agent(fake, []))
    await chat.send("before")
    chat.clear()
    await chat.send("after")
    assert [m.content for m in fake.calls[-1]] == ["after"]


async def test_a_dangling_call_in_a_given_transcript_is_answered_as_cancelled():
    fake = model("Fine.")
    history = [
        {"id": "u1", "role": "user", "content": "weather?"},
        {"id": "a1", "role": "assistant", "toolCalls": [{"id": "x1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
        {"id": "u2", "role": "user", "content": "never mind"},
    ]  # fmt: skip
    chat = AgentChat(create_agent(fake, [get_weather]), messages=history)
    await chat.send("hello?")
    seen = fake.calls[0]
    assert [m.id for m in seen] == ["u1", "a1", "x1-cancelled", "u2", chat.messages[3]["id"]]
    assert seen[2].content == CANCELLED_CALL and seen[1].tool_calls[0]["args"] == {"city": "Oslo"}


async def test_without_a_checkpointer_the_whole_transcript_goes_every_time():
    agent = LangChainAgent(create_agent(model("one", "two"), [], checkpointer=False))
    inputs = spy_on_inputs(agent)
    chat = AgentChat(agent)
    await chat.send("a")
    await chat.send("b")
    assert [m.content for m in inputs[-1]["messages"]] == ["a", "one", "b"]


def test_the_checkpoint_diff():
    h1, a1, h2 = HumanMessage("a", id="h1"), AIMessage("b", id="a1"), HumanMessage("c", id="h2")
    system = SystemMessage("kept by the graph", id="s1")
    assert new_messages_for([], [h1]) == [h1]
    assert new_messages_for([system, h1, a1], [h1, a1, h2]) == [h2]
    edited = HumanMessage("a, edited", id="h1")
    assert new_messages_for([h1, a1], [edited, a1, h2]) == [edited, h2]
    update = new_messages_for([h1, a1, h2], [HumanMessage("new", id="h9")])
    assert [type(m) for m in update] == [RemoveMessage, RemoveMessage, RemoveMessage, HumanMessage]


def test_ag_ui_messages_become_langchain_messages_with_their_ids():
    run_input = make_input(
        [
            {"id": "s", "role": "system", "content": "be nice"},
            {"id": "d", "role": "developer", "content": "be brief"},
            {"id": "u", "role": "user", "content": [{"type": "text", "text": "look: "}, {"type": "image", "source": {"type": "url", "value": "https://x/y.png"}}]},
            {"id": "a", "role": "assistant", "content": "ok", "toolCalls": [{"id": "t", "type": "function", "function": {"name": "f", "arguments": "not json"}}]},
            {"id": "r", "role": "tool", "toolCallId": "t", "content": "done", "error": "it failed"},
            {"id": "z", "role": "reasoning", "content": "hmm"},
        ]
    )  # fmt: skip
    converted = to_langchain(run_input.messages)
    assert [m.id for m in converted] == ["s", "d", "u", "a", "r"]
    assert converted[1].additional_kwargs == {"__openai_role__": "developer"}
    assert converted[2].content == [{"type": "text", "text": "look: "}, {"type": "image", "url": "https://x/y.png"}]
    assert converted[3].tool_calls[0]["args"] == {"input": "not json"}
    assert converted[4].status == "error"
    assert AGUIOptions().max_ui_payload == 20_000


class FirstChunkIds(FakeChatModel):
    """Like providers that send their message id on the first chunk only (Anthropic does)."""

    def _chunks(self, message):
        for index, chunk in enumerate(super()._chunks(message)):
            chunk.id = message.id if index == 0 else None
            yield chunk


async def test_a_provider_id_sent_on_the_first_chunk_only_is_the_messages_id_throughout():
    fake = FirstChunkIds(
        [
            ai("Checking the weather.", call("get_weather", {"city": "Oslo"}, "c1"), id="msg_provider_1"),
            ai("Sunny.", id="msg_provider_2"),
        ]
    )
    chat = AgentChat(create_agent(fake, [get_weather]))
    run = await chat.send("weather?")
    assert [m["id"] for m in chat.messages if m["role"] == "assistant"] == ["msg_provider_1", "msg_provider_2"]
    assert [m.id for m in await stored_messages(chat)] == [m["id"] for m in chat.messages]
    checks(run.events)
