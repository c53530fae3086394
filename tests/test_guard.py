"""The input guard: a refused message stays visible, marked with the reason, and never reaches the agent."""

from __future__ import annotations

import asyncio

from agui_widget import AgentChat

from .genui_support import Captured


class Recorder:
    """An agent that remembers every transcript it was given."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    async def __call__(self, messages):
        self.seen.append([m["content"] for m in messages])
        return "answered"


def no_passwords(text):
    return "Please do not paste passwords." if "password" in str(text) else None


def refusal(message):
    return (message.get("metadata") or {}).get("agui_widget", {}).get("refused")


async def test_a_refused_message_is_marked_shown_and_not_sent():
    agent = Recorder()
    chat = Captured(agent, guard=no_passwords)
    run = await chat.send("my password is hunter2")
    assert run.status == "refused" and run.refused == "Please do not paste passwords."
    assert agent.seen == []
    [message] = chat.messages
    assert message["content"] == "my password is hunter2"
    assert refusal(message) == "Please do not paste passwords."
    assert chat.status == "idle" and chat.error == ""
    assert chat.of_kind("notice")[-1] == {
        "kind": "notice",
        "level": "warning",
        "text": "Not sent: Please do not paste passwords.",
    }
    assert refusal(chat.of_kind("messages")[-1]["messages"][0]) == "Please do not paste passwords."


async def test_later_runs_never_see_a_refused_message():
    agent = Recorder()
    chat = AgentChat(agent, guard=no_passwords)
    await chat.send("password: x")
    await chat.send("hello")
    assert agent.seen == [["hello"]]
    assert [refusal(m) is not None for m in chat.messages] == [True, False, False]


async def test_verdicts_true_none_false_and_async_guards():
    agent = Recorder()

    async def slow_guard(text):
        await asyncio.sleep(0)
        return text != "no"

    chat = AgentChat(agent, guard=slow_guard)
    allowed = await chat.send("yes")
    refused = await chat.send("no")
    assert allowed.status == "finished"
    assert refused.status == "refused" and refused.refused == "This message was not sent to the agent."


async def test_a_guard_that_fails_refuses_with_its_error():
    def broken(text):
        raise RuntimeError("moderation service down")

    agent = Recorder()
    chat = AgentChat(agent, guard=broken)
    run = await chat.send("hi")
    assert run.status == "refused" and "moderation service down" in run.refused and agent.seen == []


async def test_the_guard_gets_content_parts_as_given():
    given: list[object] = []
    chat = AgentChat(Recorder(), guard=lambda content: given.append(content))
    await chat.send(
        [{"type": "text", "text": "look"}, {"type": "image", "source": {"type": "url", "value": "https://example.org/a.png"}}]
    )
    assert given[0][0] == {"type": "text", "text": "look"} and given[0][1]["type"] == "image"


async def test_queued_messages_are_guarded_when_their_turn_comes():
    agent = Recorder()
    chat = AgentChat(agent, guard=no_passwords)
    first = chat.send("one")
    second = chat.send("password two")
    third = chat.send("three")
    await asyncio.gather(first, second, third)
    assert (first.status, second.status, third.status) == ("finished", "refused", "finished")
    assert agent.seen == [["one"], ["one", "answered", "three"]]


def test_a_guard_that_is_not_a_function_is_a_clear_error():
    import pytest

    with pytest.raises(TypeError, match="guard must be a function"):
        AgentChat(Recorder(), guard="no")
