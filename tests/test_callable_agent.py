"""Plain functions and generators are agents, and they never block the kernel's loop."""

from __future__ import annotations

import asyncio
import time

import pytest
from ag_ui.core import EventType

from agui_widget.adapters import ACCEPTED, CallableAgent, DemoAgent, FunctionAgent, as_agent

from .agui_check import assert_valid_streams
from .support import collect, make_input, text_of, types


def echo(messages):
    return "you said " + messages[-1]["content"]


async def aecho(messages):
    await asyncio.sleep(0)
    return "async " + messages[-1]["content"]


def words(messages):
    yield from ["one ", "two ", "three"]


async def awords(messages):
    for word in ["four ", "five"]:
        await asyncio.sleep(0)
        yield word


@pytest.mark.parametrize(
    ("fn", "expected", "chunks"),
    [(echo, "you said hi", 1), (aecho, "async hi", 1), (words, "one two three", 3), (awords, "four five", 2)],
)
async def test_each_kind_of_callable_streams_its_text(fn, expected, chunks):
    events = await collect(as_agent(fn), make_input("hi"))
    assert text_of(events) == expected
    assert types(events).count("TEXT_MESSAGE_CONTENT") == chunks
    assert_valid_streams([events])


async def test_the_callable_sees_the_whole_transcript_as_dicts():
    seen = []

    def spy(messages):
        seen.extend(messages)
        return "ok"

    history = [
        {"id": "u1", "role": "user", "content": "first"},
        {"id": "a1", "role": "assistant", "content": "reply"},
        {"id": "u2", "role": "user", "content": "second"},
    ]
    await collect(as_agent(spy), make_input(history))
    assert [(m["role"], m["content"]) for m in seen] == [("user", "first"), ("assistant", "reply"), ("user", "second")]


async def test_a_slow_sync_function_does_not_block_the_loop():
    def slow(messages):
        time.sleep(0.5)
        return "done"

    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    task = asyncio.create_task(ticker())
    events = await collect(as_agent(slow), make_input("x"))
    task.cancel()
    assert text_of(events) == "done"
    assert ticks >= 10, f"the loop ticked only {ticks} times during a 0.5 s call"


async def test_a_slow_sync_generator_does_not_block_the_loop():
    def slow_words(messages):
        for word in ("a", "b", "c"):
            time.sleep(0.15)
            yield word

    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    task = asyncio.create_task(ticker())
    await collect(as_agent(slow_words), make_input("x"))
    task.cancel()
    assert ticks >= 10


async def test_an_exception_in_the_callable_becomes_run_error():
    def broken(messages):
        raise KeyError("missing thing")

    events = await collect(as_agent(broken), make_input("x"))
    assert events[-1].type == EventType.RUN_ERROR
    assert "missing thing" in events[-1].message
    assert_valid_streams([events])


def test_recognition():
    assert isinstance(as_agent(None), DemoAgent)
    assert isinstance(as_agent(echo), CallableAgent)
    assert isinstance(as_agent(lambda m: "x"), CallableAgent)
    demo = DemoAgent()
    assert as_agent(demo) is demo

    class Producer:  # anything with run(input) -> AsyncIterator[BaseEvent], like LangGraphAgent
        async def run(self, input):
            yield None

    producer = Producer()
    assert as_agent(producer) is producer
    function_agent = FunctionAgent(lambda run_input: DemoAgent(delay=0).run(run_input))
    assert as_agent(function_agent) is function_agent


async def test_function_agent_wraps_an_event_producing_function():
    agent = FunctionAgent(lambda run_input: DemoAgent(delay=0).run(run_input))
    assert "scripted" in text_of(await collect(agent, make_input("help")))


@pytest.mark.parametrize("bad", [42, object(), DemoAgent, "not a url"])
def test_what_is_not_an_agent_gets_a_clear_error(bad):
    with pytest.raises(TypeError) as info:
        as_agent(bad)
    assert ACCEPTED in str(info.value)
