"""LangChain chat models as agents: streaming, ids, bound and frontend tools, reasoning, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from ag_ui.core import Tool
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agui_widget import AgentChat
from agui_widget.adapters import as_agent
from agui_widget.adapters.langchain import LangChainAgent
from agui_widget.session._session import Session

from .langchain_fakes import (
    PICK_COLOR,
    StreamChecks,
    ai,
    call,
    get_weather,
    model,
    of_type,
    one,
    until,
)
from .support import collect, make_input, split_runs, text_of, types

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


async def test_a_chat_model_streams_its_answer_token_by_token():
    events = await collect(LangChainAgent(model("Hello there, how are you today?")), make_input("hi"))
    assert text_of(events) == "Hello there, how are you today?"
    assert len(of_type(events, "TEXT_MESSAGE_CONTENT")) == 6
    start = one(events, "TEXT_MESSAGE_START")
    assert start.message_id.startswith("lc_run--")  # LangChain's own message id, kept
    assert types(events)[1] == "STEP_STARTED" and types(events)[-2] == "STEP_FINISHED"
    checks(events)


async def test_agentchat_takes_a_langchain_chat_model_as_it_is():
    chat = AgentChat(GenericFakeChatModel(messages=iter(["Hi from LangChain's own fake model"])))
    assert isinstance(chat.agent, LangChainAgent) and chat.agent.kind == "chat_model"
    run = await chat.send("hello")
    assert run.status == "finished" and run.reply == "Hi from LangChain's own fake model"
    assert [m["role"] for m in chat.messages] == ["user", "assistant"]
    checks(run.events)


async def test_the_model_gets_the_transcript_with_the_ag_ui_ids():
    fake = model("one", "two")
    session = Session(LangChainAgent(fake))
    await session.send("first")
    await session.send("second")
    seen = fake.calls[1]
    assert [type(m) for m in seen] == [HumanMessage, AIMessage, HumanMessage]
    assert [m.id for m in seen] == [m["id"] for m in session.messages[:3]]
    assert seen[1].content == "one"


async def test_tool_calls_of_a_chat_model_are_left_for_the_chat_to_answer():
    fake = model(ai("", call("get_weather", {"city": "Oslo"}, "c1")), "It is 21 °C in Oslo.")
    chat = AgentChat(fake.bind_tools([get_weather]))  # a RunnableBinding: tools bound
    run = chat.send("weather in Oslo?")
    await until(lambda: chat.pending_tool_calls or run.done)
    [pending] = chat.pending_tool_calls
    assert pending["toolCallId"] == "c1" and pending["name"] == "get_weather" and pending["args"] == {"city": "Oslo"}
    chat.respond("c1", {"temperature_c": 21})
    await run
    assert run.reply == "It is 21 °C in Oslo."
    last = fake.calls[1][-1]
    assert isinstance(last, ToolMessage) and last.tool_call_id == "c1" and json.loads(last.content) == {"temperature_c": 21}
    first, second = split_runs(run.events)
    assert first[-1].outcome.pending_tool_call_ids == ["c1"]
    args = "".join(e.delta for e in of_type(first, "TOOL_CALL_ARGS"))
    assert len(of_type(first, "TOOL_CALL_ARGS")) > 1 and json.loads(args) == {"city": "Oslo"}
    checks(first, second)


async def test_frontend_tools_are_bound_next_to_the_models_own():
    fake = model("ok", "ok")
    await collect(LangChainAgent(fake.bind_tools([get_weather], tool_choice="auto")), make_input("hi", tools=[PICK_COLOR]))
    assert fake.bound_tools == ["get_weather", "pick_color"]
    await collect(LangChainAgent(fake), make_input("hi", tools=[PICK_COLOR]))
    assert fake.bound_tools == ["pick_color"]


async def test_a_frontend_tool_with_a_backend_name_is_not_bound_twice():
    fake = model("ok")
    clash = Tool(name="get_weather", description="the browser's", parameters={"type": "object"})
    await collect(LangChainAgent(fake.bind_tools([get_weather])), make_input("hi", tools=[clash, PICK_COLOR]))
    assert fake.bound_tools == ["get_weather", "pick_color"]


async def test_a_chat_model_reasons_before_it_answers():
    events = await collect(LangChainAgent(model(ai("The answer is 4.", reasoning="Two plus two is four."))), make_input("2+2?"))
    kinds = types(events)
    assert kinds.index("REASONING_START") < kinds.index("REASONING_MESSAGE_CONTENT") < kinds.index("TEXT_MESSAGE_START")
    reasoning = "".join(e.delta for e in of_type(events, "REASONING_MESSAGE_CONTENT"))
    assert reasoning == "Two plus two is four." and text_of(events) == "The answer is 4."
    checks(events)


async def test_the_applications_context_reaches_the_model_as_a_system_message():
    fake = model("noted")
    chat = AgentChat(fake.bind_tools([]), context=[{"description": "the user's time zone", "value": "Europe/Oslo"}])
    await chat.send("what time is it?")
    first = fake.calls[0][0]
    assert isinstance(first, SystemMessage) and "the user's time zone: Europe/Oslo" in first.content


class WholeAnswers(BaseChatModel):
    """A chat model that cannot stream: it answers in one piece."""

    @property
    def _llm_type(self) -> str:
        return "whole"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        message = AIMessage("The whole answer at once.", tool_calls=[call("get_weather", {"city": "Rome"}, "w1")])
        return ChatResult(generations=[ChatGeneration(message=message)])


async def test_a_model_that_cannot_stream_still_answers_with_its_tool_calls():
    events = await collect(LangChainAgent(WholeAnswers()), make_input("hi"))
    assert text_of(events) == "The whole answer at once."
    start = one(events, "TOOL_CALL_START")
    assert start.tool_call_id == "w1" and start.parent_message_id == one(events, "TEXT_MESSAGE_START").message_id
    assert events[-1].outcome.pending_tool_call_ids == ["w1"]
    checks(events)


async def test_a_failing_model_ends_the_run_with_an_error_that_says_why():
    events = await collect(LangChainAgent(model()), make_input("hi"))  # an empty script
    error = events[-1]
    assert error.type.value == "RUN_ERROR" and "no more replies" in error.message and error.code == "agent_error"
    checks(events)


def test_what_is_not_a_langchain_agent_is_refused_with_what_is_accepted():
    with pytest.raises(TypeError, match="chat model, a Runnable or a LangGraph graph"):
        LangChainAgent(object())


def test_as_agent_wraps_langchain_objects_and_keeps_a_wrapped_one():
    agent = as_agent(GenericFakeChatModel(messages=iter(["x"])))
    assert isinstance(agent, LangChainAgent)
    assert as_agent(agent) is agent


def test_importing_agui_widget_does_not_import_langchain_and_the_adapter_imports_alone():
    code = (
        "import sys, agui_widget\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('langchain', 'langchain_core', 'langgraph')]\n"
        "from agui_widget.adapters.langchain import agent_for\n"
        "from agui_widget.adapters.langchain import LangChainAgent, agui_middleware, AGUICallbackHandler\n"
        "assert 'langchain_core' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


async def test_a_configurable_model_from_init_chat_model_is_a_chat_model():
    from langchain.chat_models.base import _ConfigurableModel

    fake = model("Configured.")

    class Configurable(_ConfigurableModel):
        """What init_chat_model() without a model returns, choosing the fake (binding tools would
        choose a real provider: that needs its package, so it is left to the other tests)."""

        def _model(self, config=None):
            chosen = fake
            for name, args, kwargs in self._queued_declarative_operations:
                chosen = getattr(chosen, name)(*args, **kwargs)
            return chosen

    agent = LangChainAgent(Configurable(default_config={"model": "fake"}))
    assert agent.kind == "chat_model"
    events = await collect(agent, make_input("hi"))
    assert text_of(events) == "Configured." and [m.content for m in fake.calls[0]] == ["hi"]
    checks(events)


def test_a_chat_model_subclass_defined_in_a_notebook_is_recognised():
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    from agui_widget.adapters import LangChainAgent, as_agent

    class NotebookModel(GenericFakeChatModel):
        pass

    NotebookModel.__module__ = "__main__"
    assert isinstance(as_agent(NotebookModel(messages=iter([]))), LangChainAgent)
