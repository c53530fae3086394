"""Forwarded props as model settings in the Langroid adapter: the run's model, temperature, output
length, top_p and stop reach the agent's LLM (scripted, and Langroid's real OpenAI client against a
local fake server), for that run only; the agent's configs are put back after every run, one that
fails or is stopped included, and a Task's sub-agents keep their own."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import langroid as lr
import pytest
from langroid.language_models.openai_gpt import OpenAICallParams

from agui_widget import AgentChat
from agui_widget.adapters.langroid import LangroidAgent

from .langroid_fakes import (
    AsyncOnlyLM,
    FakeOpenAI,
    Reply,
    check_streams,
    finished,
    make_agent,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
    text_deltas,
)
from .support import collect, make_input, text_of, types, until

BASE = {"chat_model": "base-model", "temperature": 0.1, "max_output_tokens": 500}


class SettingsLM(AsyncOnlyLM):
    """A scripted model that keeps what each call was made with."""

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self.seen: list[dict[str, Any]] = []

    async def achat(self, messages: Any, max_tokens: int = 200, *args: Any, **kwargs: Any) -> Any:
        self.seen.append(
            {
                "model": self.config.chat_model,
                "model_info": self.chat_model_orig,
                "temperature": self.config.temperature,
                "max_tokens": max_tokens,
            }
        )
        return await super().achat(messages, max_tokens, *args, **kwargs)


class FailingLM(SettingsLM):
    async def achat(self, messages: Any, max_tokens: int = 200, *args: Any, **kwargs: Any) -> Any:
        await super().achat(messages, max_tokens, *args, **kwargs)
        raise RuntimeError("the model is down")


class EndlessLM(SettingsLM):
    async def achat(self, messages: Any, max_tokens: int = 200, *args: Any, **kwargs: Any) -> Any:
        self.seen.append({"temperature": self.config.temperature})
        for _ in range(1000):
            await self.config.streamer_async("tok ", lr.language_models.StreamEventType.TEXT)
            await asyncio.sleep(0.01)
        return lr.language_models.LLMResponse(message="never")


def with_props(props: Any, text: str = "hi"):
    return make_input(text).model_copy(update={"forwarded_props": props})


def configs_of(agent: lr.ChatAgent) -> tuple[Any, ...]:
    """What a run may change on the agent: the objects and the values the settings live in."""
    llm, config = agent.llm, agent.config
    return (
        llm.config,
        config,
        config.llm,
        llm.chat_model_orig,
        llm.config.model_dump(exclude={"script", "streamer", "streamer_async"}),
        config.llm.model_dump(exclude={"script", "streamer", "streamer_async"}),
    )


def assert_left_as_found(agent: lr.ChatAgent, before: tuple[Any, ...]) -> None:
    after = configs_of(agent)
    assert after[0] is before[0] and after[1] is before[1] and after[2] is before[2]
    assert after[3:] == before[3:]


ON_BASE = {"model": "base-model", "model_info": "base-model", "temperature": 0.1, "max_tokens": 500}


async def test_the_settings_reach_the_model_for_one_run_and_the_agent_is_left_as_found():
    agent = make_agent(["One.", "Two."], lm_class=SettingsLM, **BASE)
    before = configs_of(agent)
    adapter = LangroidAgent(agent)
    props = {"model": "run-model", "temperature": 0.7, "max_tokens": 123, "persona": "pirate"}
    first = await collect(adapter, with_props(props))
    assert_left_as_found(agent, before)
    second = await collect(adapter, make_input("again"))
    assert text_of(first) == "One." and text_of(second) == "Two."
    assert agent.llm.seen == [
        {"model": "run-model", "model_info": "run-model", "temperature": 0.7, "max_tokens": 123},
        ON_BASE,
    ]
    assert_left_as_found(agent, before)
    check_streams([first, second])


async def test_agentchat_props_and_a_turn_s_own_reach_the_model():
    agent = make_agent(["One.", "Two.", "Three."], lm_class=SettingsLM, **BASE)
    chat = AgentChat(agent, forwarded_props={"temperature": 0.5})
    await finished(chat.send("first"))
    await finished(chat.send("second", forwarded_props={"temperature": None, "max_tokens": 42}))
    chat.forwarded_props = None
    third = await finished(chat.send("third"))
    assert third.reply == "Three."
    assert [(s["temperature"], s["max_tokens"]) for s in agent.llm.seen] == [(0.5, 500), (0.1, 42), (0.1, 500)]


async def test_the_agent_is_left_as_found_after_a_failed_run():
    agent = make_agent([Reply("never shown")], lm_class=FailingLM, **BASE)
    before = configs_of(agent)
    events = await collect(LangroidAgent(agent), with_props({"temperature": 0.9, "model": "run-model"}))
    assert types(events)[-1] == "RUN_ERROR" and "the model is down" in events[-1].message
    assert agent.llm.seen[0]["temperature"] == 0.9 and agent.llm.seen[0]["model"] == "run-model"
    assert_left_as_found(agent, before)
    check_streams([events])


async def test_the_agent_is_left_as_found_after_a_stopped_run():
    agent = make_agent(None, lm_class=EndlessLM, **BASE)
    before = configs_of(agent)
    chat = AgentChat(agent)
    run = chat.send("go on forever", forwarded_props={"temperature": 0.9, "max_tokens": 7, "model": "run-model"})
    await until(lambda: len(run.events) > 5)
    chat.stop()
    await finished(run)
    assert run.status == "cancelled" and agent.llm.seen == [{"temperature": 0.9}]
    assert_left_as_found(agent, before)
    check_streams([run.events])


@pytest.mark.parametrize("runs", ["agent", "task"])
async def test_the_agent_is_left_as_found_when_the_consumer_walks_away(runs):
    agent = make_agent(None, lm_class=EndlessLM, **BASE)
    target = agent if runs == "agent" else lr.Task(agent, name="Main", interactive=False)
    before = configs_of(agent)
    events = LangroidAgent(target).run(with_props({"temperature": 0.9}))
    async for event in events:
        if event.type.value == "TEXT_MESSAGE_CONTENT":
            break
    await events.aclose()
    assert agent.llm.seen == [{"temperature": 0.9}]
    assert_left_as_found(agent, before)


async def test_values_of_the_wrong_type_are_left_out_with_a_warning(caplog):
    agent = make_agent(["One."], lm_class=SettingsLM, **BASE)
    props = {"model": 4, "temperature": -1, "max_tokens": 2.5, "top_p": "high", "stop": [""], "seed": 7}
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        events = await collect(LangroidAgent(agent), with_props(props))
    assert text_of(events) == "One." and agent.llm.seen == [ON_BASE]
    for key in ("model", "temperature", "max_tokens", "top_p", "stop"):
        assert f"forwarded prop {key}=" in caplog.text
    assert "seed" not in caplog.text


async def test_in_a_task_the_main_agent_takes_the_settings_and_the_sub_agents_keep_their_own():
    main_agent = make_agent(
        lambda turn: Reply("Over to you.") if turn.user_text == "go" else Reply("Back. DONE"), lm_class=SettingsLM, **BASE
    )
    sub_agent = make_agent(["Sub here."], lm_class=SettingsLM, **BASE)
    main = lr.Task(main_agent, name="Main", interactive=False)
    main.add_sub_task(lr.Task(sub_agent, name="Sub", interactive=False, single_round=True))
    main_before, sub_before = configs_of(main_agent), configs_of(sub_agent)
    events = await collect(LangroidAgent(main), with_props({"model": "run-model", "temperature": 0.6}, text="go"))
    assert text_of(events).endswith("Back. DONE")
    assert {(s["model"], s["temperature"]) for s in main_agent.llm.seen} == {("run-model", 0.6)}
    assert sub_agent.llm.seen == [ON_BASE]
    assert_left_as_found(main_agent, main_before)
    assert_left_as_found(sub_agent, sub_before)
    check_streams([events])


async def test_langroid_s_openai_client_sends_the_run_s_settings_then_its_own_again():
    def responder(body):
        return text_deltas("Fine.")

    keys = ("model", "temperature", "max_completion_tokens", "top_p", "stop")
    async with FakeOpenAI(responder) as server:
        config = server.config(temperature=0.1, max_output_tokens=300, params=OpenAICallParams(temperature=0.9))
        agent = lr.ChatAgent(lr.ChatAgentConfig(llm=config, use_tools=False, use_functions_api=True))
        before = configs_of(agent)
        adapter = LangroidAgent(agent)
        props = {"model": "gpt-4o-mini", "temperature": 0.3, "max_tokens": 77, "top_p": 0.5, "stop": "STOP"}
        first = await collect(adapter, with_props(props))
        assert_left_as_found(agent, before)
        second = await collect(adapter, make_input("again"))
    assert text_of(first) == "Fine." and text_of(second) == "Fine."
    sent = [{key: request.get(key) for key in keys} for request in server.requests]
    assert sent[0] == {"model": "gpt-4o-mini", "temperature": 0.3, "max_completion_tokens": 77, "top_p": 0.5, "stop": ["STOP"]}
    # params' temperature wins over the config's in Langroid, so the run overrode it there too
    assert sent[1] == {
        "model": f"local/{server.base}",
        "temperature": 0.9,
        "max_completion_tokens": 300,
        "top_p": None,
        "stop": None,
    }
    assert_left_as_found(agent, before)
    check_streams([first, second])
