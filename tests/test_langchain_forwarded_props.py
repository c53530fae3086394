"""Forwarded props as model settings in the LangChain adapter: bound to a chat model's call, in the
request's ``model_settings`` under ``agui_middleware()``, in ``config["configurable"]`` for graphs,
Runnables and configurable models; for one run only, and never over what the agent sets itself."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.runnables import ConfigurableField, RunnableConfig, RunnableLambda
from langgraph.graph import END, START, MessagesState, StateGraph

from agui_widget import AgentChat
from agui_widget.adapters.langchain import LangChainAgent, agui_middleware, run_context

from .langchain_fakes import PICK_COLOR, FakeChatModel, StreamChecks, ai, model
from .support import collect, make_input, text_of

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


def with_props(props: Any, text: str = "hi", **kwargs: Any):
    return make_input(text, **kwargs).model_copy(update={"forwarded_props": props})


# -- chat models ---------------------------------------------------------------------------------


async def test_the_call_settings_reach_a_chat_model_call_for_that_run_only():
    fake = model("one", "two")
    agent = LangChainAgent(fake)
    settings = {"temperature": 0.2, "max_tokens": 64, "top_p": 0.9, "stop": "END", "persona": "pirate"}
    first = await collect(agent, with_props(settings))
    second = await collect(agent, make_input("again"))
    assert text_of(first) == "one" and text_of(second) == "two"
    assert fake.call_options == [{"temperature": 0.2, "max_tokens": 64, "top_p": 0.9, "stop": ["END"]}, {}]
    checks(first, second)


async def test_agentchat_props_and_a_turn_s_own_reach_the_model():
    fake = model("one", "two", "three")
    chat = AgentChat(fake, forwarded_props={"temperature": 0.1, "max_tokens": 32})
    await chat.send("first")
    await chat.send("second", forwarded_props={"temperature": 0.7, "max_tokens": None})
    chat.forwarded_props = {}
    third = await chat.send("third")
    assert third.status == "finished"
    assert fake.call_options == [{"temperature": 0.1, "max_tokens": 32}, {"temperature": 0.7}, {}]


async def test_the_settings_are_bound_next_to_the_frontend_tools_and_a_binding_s_own_arguments_win():
    fake = model("Pick one.")
    agent = LangChainAgent(fake.bind(temperature=0.0, max_tokens=10))
    events = await collect(agent, with_props({"temperature": 0.9, "top_p": 0.5}, tools=[PICK_COLOR]))
    assert fake.bound_tools == ["pick_color"]
    assert fake.call_options == [{"temperature": 0.0, "max_tokens": 10, "top_p": 0.5}]
    checks(events)


async def test_values_of_the_wrong_type_are_left_out_with_a_warning(caplog):
    fake = model("one")
    props = {"temperature": "hot", "max_tokens": 0, "top_p": True, "stop": [1], "model": "", "seed": 7}
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        events = await collect(LangChainAgent(fake), with_props(props))
    assert text_of(events) == "one" and fake.call_options == [{}]
    for key in ("temperature", "max_tokens", "top_p", "stop", "model"):
        assert f"forwarded prop {key}=" in caplog.text
    assert "seed" not in caplog.text  # not a setting of this adapter: simply not used


async def test_forwarded_props_that_are_not_an_object_are_not_read():
    fake = model("one")
    events = await collect(LangChainAgent(fake), with_props(["temperature", 0.2]))
    assert text_of(events) == "one" and fake.call_options == [{}]


async def test_model_is_not_bound_to_a_plain_chat_model_and_says_so_once(caplog):
    fake = model("one", "two")
    agent = LangChainAgent(fake)
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        await collect(agent, with_props({"model": "gpt-4o-mini", "temperature": 0.3}))
        await collect(agent, with_props({"model": "gpt-4o-mini"}))
    assert fake.call_options == [{"temperature": 0.3}, {}]
    assert caplog.text.count("reaches a chat model only when it is configurable") == 1


async def test_model_picks_an_alternative_of_a_configurable_model():
    default, mini = model("from the default"), model("from mini", "from mini again")
    chooser = default.configurable_alternatives(ConfigurableField(id="model"), default_key="default", mini=mini)
    agent = LangChainAgent(chooser)
    picked = await collect(agent, with_props({"model": "mini", "temperature": 0.4}))
    plain = await collect(agent, make_input("again"))
    assert text_of(picked) == "from mini" and text_of(plain) == "from the default"
    assert len(mini.calls) == 1 and len(default.calls) == 1
    checks(picked, plain)


seen_temperatures: list[float] = []


class TemperatureModel(FakeChatModel):
    """A chat model with a ``temperature`` field, as providers' models have."""

    temperature: float = 1.0

    def _next_reply(self, messages, stop=None, **kwargs):
        seen_temperatures.append(self.temperature)
        return super()._next_reply(messages, stop, **kwargs)


async def test_temperature_sets_a_configurable_field_of_the_model():
    seen_temperatures.clear()
    base = TemperatureModel(respond=lambda messages, tools: "ok")
    agent = LangChainAgent(base.configurable_fields(temperature=ConfigurableField(id="temperature")))
    first = await collect(agent, with_props({"temperature": 0.25}))
    await collect(agent, make_input("again"))
    assert text_of(first) == "ok" and seen_temperatures == [0.25, 1.0]


# -- graphs and Runnables --------------------------------------------------------------------------


def reading_graph(seen: list[dict[str, Any]]):
    """A graph whose node reports what the run's config holds."""

    def node(state: MessagesState, config: RunnableConfig):
        configurable = config.get("configurable") or {}
        context = run_context(config)
        seen.append(
            {
                "settings": {k: configurable[k] for k in ("model", "temperature", "max_tokens") if k in configurable},
                "thread_id": configurable.get("thread_id"),
                "props": dict(context.forwarded_props) if context else None,
                "model_settings": dict(context.model_settings) if context else None,
            }
        )
        return {"messages": [ai("done")]}

    graph = StateGraph(MessagesState)
    graph.add_node("node", node)
    graph.add_edge(START, "node")
    graph.add_edge("node", END)
    return graph.compile()


async def test_a_graph_s_nodes_read_the_settings_in_configurable_and_every_prop_in_the_run_context():
    seen: list[dict[str, Any]] = []
    agent = LangChainAgent(reading_graph(seen))
    props = {"model": "gpt-4o-mini", "temperature": 0.2, "persona": "pirate", "thread_id": "elsewhere"}
    events = await collect(agent, with_props(props))
    await collect(agent, make_input("again"))
    assert seen[0] == {
        "settings": {"model": "gpt-4o-mini", "temperature": 0.2},
        "thread_id": "thread-test",  # a prop never moves the run to another LangGraph thread
        "props": props,
        "model_settings": {"model": "gpt-4o-mini", "temperature": 0.2},
    }
    assert seen[1] == {"settings": {}, "thread_id": "thread-test", "props": {}, "model_settings": {}}
    checks(events)


async def test_what_the_agent_s_config_sets_is_not_changed_by_a_run_s_props():
    seen: list[dict[str, Any]] = []
    agent = LangChainAgent(reading_graph(seen), config={"configurable": {"temperature": 0.0}})
    await collect(agent, with_props({"temperature": 0.9, "max_tokens": 100}))
    assert seen[0]["settings"] == {"temperature": 0.0, "max_tokens": 100}
    assert seen[0]["model_settings"] == {"max_tokens": 100}


async def test_create_agent_with_the_middleware_gets_the_call_settings_on_every_model_call():
    fake = model(ai("", {"id": "c1", "name": "shout", "args": {"text": "hi"}, "type": "tool_call"}), "Done.", "Again.")

    from langchain_core.tools import tool

    @tool
    def shout(text: str) -> str:
        """Shout the text."""
        return text.upper()

    agent = LangChainAgent(create_agent(fake, [shout], middleware=[agui_middleware()]))
    first = await collect(agent, with_props({"temperature": 0.3, "max_tokens": 50, "model": "ignored-here"}))
    second = await collect(agent, make_input("again"))
    assert text_of(first) == "Done." and text_of(second) == "Again."
    assert fake.call_options == [{"temperature": 0.3, "max_tokens": 50}] * 2 + [{}]
    checks(first, second)


async def test_another_middleware_s_model_settings_win_and_an_agent_without_the_middleware_is_not_bound():
    class Cold(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            return handler(request.override(model_settings={**request.model_settings, "temperature": 0.0}))

        async def awrap_model_call(self, request, handler):
            return await handler(request.override(model_settings={**request.model_settings, "temperature": 0.0}))

    fake = model("one")
    agent = LangChainAgent(create_agent(fake, [], middleware=[Cold(), agui_middleware()]))
    await collect(agent, with_props({"temperature": 0.8, "top_p": 0.5}))
    assert fake.call_options == [{"temperature": 0.0, "top_p": 0.5}]

    bare = model("two")
    await collect(LangChainAgent(create_agent(bare, [])), with_props({"temperature": 0.8}))
    assert bare.call_options == [{}]


async def test_a_runnable_reads_the_settings_from_its_config():
    def answer(messages: Any, config: RunnableConfig) -> str:
        configurable = config.get("configurable") or {}
        return f"temperature={configurable.get('temperature')} model={configurable.get('model')}"

    agent = LangChainAgent(RunnableLambda(answer))
    events = await collect(agent, with_props({"temperature": 0.5, "model": "small"}))
    plain = await collect(agent, make_input("again"))
    assert text_of(events) == "temperature=0.5 model=small"
    assert text_of(plain) == "temperature=None model=None"
    checks(events, plain)
