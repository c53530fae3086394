"""Any other Runnable: the input convention, streaming through astream_events, tools, custom events."""

from __future__ import annotations

import pytest
from langchain_core.callbacks import adispatch_custom_event
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda

from agui_widget import AgentChat
from agui_widget.adapters.langchain import LangChainAgent

from .langchain_fakes import StreamChecks, ai, call, get_weather, model, of_type, one
from .support import collect, make_input, text_of

checks = StreamChecks()

PROMPT = ChatPromptTemplate.from_messages([("system", "You help {user_name}."), MessagesPlaceholder("messages")])


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


async def test_a_prompt_and_model_chain_streams_and_takes_prompt_variables_from_the_state():
    fake = model("Hello Ada, nice to meet you.")
    chat = AgentChat(PROMPT | fake, state={"user_name": "Ada", "unrelated": [1, 2]})
    assert chat.agent.kind == "runnable"
    run = await chat.send("hi")
    assert fake.calls[0][0].content == "You help Ada." and fake.calls[0][1].content == "hi"
    assert run.reply == "Hello Ada, nice to meet you." and len(of_type(run.events, "TEXT_MESSAGE_CONTENT")) == 6
    assert [e.step_name for e in of_type(run.events, "STEP_STARTED")] == ["FakeChatModel"]
    checks(run.events)


async def test_a_chain_ending_in_a_string_parser_streams_the_models_tokens_once():
    events = await collect(
        LangChainAgent(PROMPT | model("Just once.") | StrOutputParser()), make_input("hi", state={"user_name": "Bo"})
    )
    assert text_of(events) == "Just once."
    checks(events)


async def test_a_runnable_without_a_model_streams_what_it_yields():
    async def shout(data):
        for word in data["messages"][-1].content.upper().split():
            yield word + " "

    events = await collect(LangChainAgent(RunnableLambda(shout)), make_input("hello there"))
    assert text_of(events) == "HELLO THERE " and len(of_type(events, "TEXT_MESSAGE_CONTENT")) == 2
    checks(events)


async def test_a_runnable_that_returns_a_message_or_a_value():
    events = await collect(LangChainAgent(RunnableLambda(lambda data: AIMessage("done", id="m1"))), make_input("x"))
    assert text_of(events) == "done" and one(events, "TEXT_MESSAGE_START").message_id == "m1"
    events2 = await collect(LangChainAgent(RunnableLambda(lambda data: {"answer": 42})), make_input("x"))
    assert text_of(events2) == '{"answer": 42}'
    checks(events, events2)


async def test_tools_a_runnable_runs_show_as_tool_calls_with_their_results():
    fake = model(ai("", call("get_weather", {"city": "Rome"}, "r1")))
    chain = fake.bind_tools([get_weather]) | (lambda message: get_weather.invoke(message.tool_calls[0]))
    events = await collect(LangChainAgent(chain), make_input("weather in Rome?"))
    assert one(events, "TOOL_CALL_START").tool_call_id == "r1"
    assert one(events, "TOOL_CALL_RESULT").tool_call_id == "r1"

    async def lookup(data):
        return await get_weather.ainvoke({"city": "Oslo"})

    events2 = await collect(LangChainAgent(RunnableLambda(lookup)), make_input("weather in Oslo?"))
    start = one(events2, "TOOL_CALL_START")
    assert start.tool_call_name == "get_weather" and one(events2, "TOOL_CALL_RESULT").tool_call_id == start.tool_call_id
    checks(events, events2)


async def test_custom_events_become_custom():
    async def work(data):
        await adispatch_custom_event("progress", {"percent": 50})
        return "half way and done"

    events = await collect(LangChainAgent(RunnableLambda(work)), make_input("go"))
    [custom] = of_type(events, "CUSTOM")
    assert (custom.name, custom.value) == ("progress", {"percent": 50})
    assert text_of(events) == "half way and done"
    checks(events)


async def test_input_mapper_decides_what_the_runnable_gets():
    seen = []

    def answer(question: str) -> str:
        seen.append(question)
        return f"You asked: {question}"

    agent = LangChainAgent(RunnableLambda(answer), input_mapper=lambda messages, state: messages[-1].content)
    events = await collect(agent, make_input("why?"))
    assert seen == ["why?"] and text_of(events) == "You asked: why?"
    checks(events)
