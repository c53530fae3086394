"""Langroid agents in AG-UI: recognised, async, streaming token by token (scripted model and
Langroid's real OpenAI client against a local fake server), reasoning, and nothing printed."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import langroid as lr
from ag_ui.core import EventType

from agui_widget import AgentChat
from agui_widget.adapters import as_agent
from agui_widget.adapters.langroid import LangroidAgent
from agui_widget.adapters.langroid.mock import ScriptedLM

from .langroid_fakes import (
    FakeOpenAI,
    Reply,
    check_streams,
    finished,
    make_agent,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
    text_deltas,
)
from .support import collect, make_input, text_of, types


def content_deltas(events):
    return [e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT]


async def test_a_chat_agent_and_a_task_are_recognised_and_answer_in_agent_chat():
    agent = make_agent(["Hello from Langroid."])
    chat = AgentChat(agent)
    assert isinstance(chat.agent, LangroidAgent) and chat.agent.agent is agent
    run = await finished(chat.send("hi"))
    assert run.status == "finished" and run.reply == "Hello from Langroid."
    assert [m["role"] for m in chat.messages] == ["user", "assistant"]

    task_agent = make_agent(["From the task."])
    task = lr.Task(task_agent, name="helper", interactive=False)
    adapter = as_agent(task)
    assert isinstance(adapter, LangroidAgent) and adapter.task is task and adapter.agent is task_agent
    events = await collect(adapter, make_input("hi"))
    assert text_of(events) == "From the task."
    check_streams([run.events, events])


async def test_subclasses_defined_outside_langroid_are_recognised_too():
    class MyAgent(lr.ChatAgent):  # as a notebook would define one
        pass

    class MyTask(lr.Task):
        pass

    agent = make_agent(["Mine."], agent_class=MyAgent)
    assert isinstance(as_agent(agent), LangroidAgent)
    adapter = as_agent(MyTask(agent, interactive=False))
    assert isinstance(adapter, LangroidAgent) and adapter.agent is agent
    events = await collect(adapter, make_input("hi"))
    assert text_of(events) == "Mine."
    check_streams([events])


async def test_tokens_are_sent_as_they_arrive_not_after_the_answer():
    gate = asyncio.Event()

    class Gated(ScriptedLM):
        async def achat(self, messages, *args, **kwargs):
            await self.config.streamer_async("Hello ", lr.language_models.StreamEventType.TEXT)
            await self.config.streamer_async("there ", lr.language_models.StreamEventType.TEXT)
            await gate.wait()  # the rest only comes once the test has seen the first tokens
            await self.config.streamer_async("world.", lr.language_models.StreamEventType.TEXT)
            return lr.language_models.LLMResponse(message="Hello there world.")

    agent = make_agent(None, lm_class=Gated)
    stream = LangroidAgent(agent).run(make_input("hi"))
    seen = []
    async for event in stream:
        seen.append(event)
        if len(content_deltas(seen)) == 2:
            break
    assert content_deltas(seen) == ["Hello ", "there "] and not gate.is_set()
    gate.set()
    seen += [event async for event in stream]
    assert content_deltas(seen) == ["Hello ", "there ", "world."]
    assert types(seen)[-2:] == ["TEXT_MESSAGE_END", "RUN_FINISHED"]
    check_streams([seen])


async def test_every_token_of_a_scripted_model_is_one_content_event():
    agent = make_agent([Reply("one two three four five")], delay=0.001)
    events = await collect(LangroidAgent(agent), make_input("count"))
    assert content_deltas(events) == ["one ", "two ", "three ", "four ", "five"]
    check_streams([events])


async def test_reasoning_tokens_become_reasoning_events_before_the_text():
    agent = make_agent([Reply("Forty-two.", reasoning="Let me think about it")])
    events = await collect(LangroidAgent(agent), make_input("meaning of life?"))
    kinds = types(events)
    assert kinds.index("REASONING_START") < kinds.index("REASONING_END") < kinds.index("TEXT_MESSAGE_START")
    reasoning = "".join(e.delta for e in events if e.type == EventType.REASONING_MESSAGE_CONTENT)
    assert reasoning == "Let me think about it" and text_of(events) == "Forty-two."
    check_streams([events])


async def test_a_model_that_does_not_stream_still_answers_in_one_piece():
    agent = make_agent([Reply("All at once.", reasoning="quietly")], stream=False)
    events = await collect(LangroidAgent(agent), make_input("hi"))
    assert content_deltas(events) == ["All at once."]
    assert "REASONING_START" in types(events)
    check_streams([events])


async def test_the_kernel_loop_keeps_running_during_a_slow_model_call():
    """The model takes half a second before its first token; a ticker must keep ticking meanwhile.
    (The model's blocking chat() would stall and fail: only the async path may be used.)"""
    agent = make_agent([Reply("Done thinking.")], first_token_delay=0.5)
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.ensure_future(ticker())
    started = time.monotonic()
    events = await collect(LangroidAgent(agent), make_input("think"))
    elapsed = time.monotonic() - started
    ticking.cancel()
    assert text_of(events) == "Done thinking." and elapsed >= 0.5
    assert ticks >= 10, f"the loop was blocked: only {ticks} ticks in {elapsed:.2f}s"
    check_streams([events])


async def test_langroid_s_real_openai_client_streams_through_the_adapter(capfd):
    """OpenAIGPT against a local OpenAI-compatible server: tokens, reasoning, and no stdout."""

    def responder(body):
        return [{"reasoning_content": "Hmm. "}] + text_deltas("Streaming from a real client.")

    async with FakeOpenAI(responder) as server:
        agent = lr.ChatAgent(lr.ChatAgentConfig(llm=server.config(), use_tools=False, use_functions_api=True))
        capfd.readouterr()
        events = await collect(LangroidAgent(agent), make_input("hi"))
    out = capfd.readouterr().out
    assert content_deltas(events) == ["Streaming ", "from ", "a ", "real ", "client."]
    assert "REASONING_MESSAGE_CONTENT" in types(events)
    assert out == "", f"the run printed to stdout: {out!r}"
    assert server.requests[0]["stream"] is True
    assert server.requests[0]["messages"][-1] == {"role": "user", "content": "hi"}
    check_streams([events])


def test_langroid_is_imported_only_when_a_langroid_object_is_given():
    code = (
        "import sys, agui_widget, agui_widget.adapters.langroid\n"
        "from agui_widget.adapters.langroid import LangroidAgent, ToolBehavior, tool_context\n"
        "assert 'langroid' not in sys.modules, 'langroid was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
