"""Token usage: what an agent reports of the tokens a turn used is summed over the turn's runs, kept
on the turn's last answer (so a store, an export and a reload keep it) and read as ``chat.usage``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import traitlets
from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
)
from langchain_core.messages import AIMessage

from agui_widget import AgentChat, SQLiteThreadStore
from agui_widget.adapters.langchain import LangChainAgent
from agui_widget.vocabulary._marks import USAGE, mark_of

from .langchain_fakes import call, model
from .support import collect, make_input


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def used(text: str, input_tokens: int, output_tokens: int, *calls: dict[str, Any], name: str = "gpt-4o-mini") -> AIMessage:
    """A scripted reply that reports its usage and model as a provider's would."""
    return AIMessage(
        content=text,
        tool_calls=list(calls),
        usage_metadata={
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
        },
        response_metadata={"model_name": name, "model_provider": "openai"},
    )


class UsageAgent:
    """A plain AG-UI agent (not one of ours) that reports usage on RUN_FINISHED."""

    def __init__(self, usage: list[TokenUsage] | None) -> None:
        self.usage = usage

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id=f"m-{input.run_id}", role="assistant")
        yield TextMessageContentEvent(message_id=f"m-{input.run_id}", delta="Hello.")
        yield TextMessageEndEvent(message_id=f"m-{input.run_id}")
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, usage=self.usage)


def answers(chat: AgentChat) -> list[dict[str, Any]]:
    return [m for m in chat.messages if m["role"] == "assistant"]


async def test_the_langchain_adapter_reports_a_models_usage_and_name_on_run_finished():
    events = await collect(LangChainAgent(model(used("Hi.", 12, 3))), make_input("hi"))
    [usage] = events[-1].usage
    assert (usage.provider, usage.model) == ("openai", "gpt-4o-mini")
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (12, 3, 15)


async def test_a_turn_with_a_tool_follow_up_sums_its_runs_on_its_last_answer():
    scripted = model(used("", 100, 20, call("add", {"a": 1, "b": 2})), used("It is 3.", 130, 5))
    chat = AgentChat(LangChainAgent(scripted), tools=[add])
    run = await chat.send("what is 1 + 2?")
    assert len(run.run_ids) == 2  # the tool's answer started a follow-up run
    *earlier, last = answers(chat)
    assert last["content"] == "It is 3."
    assert mark_of(last, USAGE) == [
        {"provider": "openai", "model": "gpt-4o-mini", "inputTokens": 230, "outputTokens": 25, "totalTokens": 255}
    ]
    assert all(mark_of(message, USAGE) is None for message in earlier)
    assert chat.usage == {
        "turns": [{"messageId": last["id"], "model": "gpt-4o-mini", "inputTokens": 230, "outputTokens": 25, "totalTokens": 255}],
        "inputTokens": 230,
        "outputTokens": 25,
        "totalTokens": 255,
    }


async def test_run_finished_usage_from_a_plain_agui_agent_is_kept_per_turn_and_summed_per_thread():
    usage = [
        TokenUsage(model="small", input_tokens=7, output_tokens=2),
        TokenUsage(model="large", input_tokens=40, output_tokens=9),
    ]
    chat = AgentChat(UsageAgent(usage))
    await chat.send("one")
    await chat.send("two")
    turns = chat.usage["turns"]
    assert [turn["messageId"] for turn in turns] == [m["id"] for m in answers(chat)]
    assert turns[0] == {
        "messageId": turns[0]["messageId"],
        "model": "small, large",
        "inputTokens": 47,
        "outputTokens": 11,
        "totalTokens": 58,
    }
    assert (chat.usage["inputTokens"], chat.usage["outputTokens"], chat.usage["totalTokens"]) == (94, 22, 116)


async def test_an_agent_that_reports_no_usage_leaves_no_mark_and_chat_usage_empty():
    chat = AgentChat(UsageAgent(None))
    await chat.send("hi")
    assert all(mark_of(message, USAGE) is None for message in chat.messages)
    assert chat.usage == {"turns": [], "inputTokens": 0, "outputTokens": 0, "totalTokens": 0}
    plain = AgentChat(LangChainAgent(model("No usage here.")))
    await plain.send("hi")
    assert plain.usage["turns"] == []


async def test_usage_is_kept_across_a_reload_a_thread_switch_and_the_json_export(tmp_path):
    store = SQLiteThreadStore(tmp_path / "chats.db")
    chat = AgentChat(UsageAgent([TokenUsage(model="m", input_tokens=5, output_tokens=1)]), thread_id="a", store=store)
    await chat.send("hi")
    expected = chat.usage
    assert expected["totalTokens"] == 6
    chat.switch("b")
    assert chat.usage["turns"] == []
    chat.switch("a")
    assert chat.usage == expected
    reloaded = AgentChat(UsageAgent(None), thread_id="a", store=store)
    assert reloaded.usage == expected
    exported = json.loads(chat.to_json())
    [answer] = [m for m in exported["messages"] if m["role"] == "assistant"]
    assert mark_of(answer, USAGE) == [{"model": "m", "inputTokens": 5, "outputTokens": 1}]  # as the agent reported it


async def test_the_langroid_adapter_sums_its_model_calls_usage_on_run_finished():
    from langroid.language_models.base import LLMTokenUsage

    from agui_widget.adapters.langroid import LangroidAgent

    from .langroid_fakes import Reply, ToolCall, Weather, make_agent

    def script(turn):
        if turn.after_tool:
            return Reply(f"It is {turn.tool_result}.", usage=LLMTokenUsage(prompt_tokens=60, completion_tokens=8))
        return Reply(
            tool_calls=[ToolCall("get_weather", {"city": "Oslo"})],
            usage=LLMTokenUsage(prompt_tokens=50, cached_tokens=20, completion_tokens=10),
        )

    agent = make_agent(script, tools=[Weather], chat_model="scripted-mini")
    events = await collect(LangroidAgent(agent), make_input("weather in Oslo?"))
    assert [usage.model_dump(by_alias=True, exclude_none=True) for usage in events[-1].usage] == [
        {"model": "scripted-mini", "inputTokens": 110, "outputTokens": 18, "totalTokens": 128, "cachedInputTokens": 20}
    ]


async def test_a_langroid_model_that_reports_no_usage_gets_langroids_own_count():
    """Langroid counts the tokens itself (with its tokenizer) when its model reports none."""
    from agui_widget.adapters.langroid import LangroidAgent

    from .langroid_fakes import make_agent

    events = await collect(LangroidAgent(make_agent(["Hello there."])), make_input("hi"))
    [usage] = events[-1].usage
    assert usage.model is None and usage.input_tokens > 0 and usage.output_tokens > 0


def test_the_context_window_is_known_only_when_given_or_in_the_models_own_profile():
    assert AgentChat(UsageAgent(None)).context_window is None  # never guessed from a name
    profiled = model("Hi.", profile={"max_input_tokens": 128_000})
    assert AgentChat(LangChainAgent(profiled)).context_window == 128_000
    assert AgentChat(UsageAgent(None), context_window=32_000).context_window == 32_000
    chat = AgentChat(LangChainAgent(profiled), context_window=8_000)  # given wins over the profile
    assert chat.context_window == 8_000
    assert chat.get_state("context_window") == {"context_window": 8_000}  # what the view reads


def test_a_context_window_that_is_not_a_positive_count_is_refused():
    chat = AgentChat(UsageAgent(None))
    with pytest.raises(traitlets.TraitError):
        chat.context_window = 0
    assert chat.context_window is None
