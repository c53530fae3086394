"""Clear: the conversation goes, the agent's suggestions with it, and the state only when asked."""

from __future__ import annotations

from .genui_support import Captured
from .test_suggestions import Suggester

STARTERS = [{"title": "start", "message": "start"}]


async def test_clear_from_a_view_brings_back_the_starters_instead_of_the_agents_suggestions():
    agent = Suggester()
    chat = Captured(agent, suggestions=["start"])
    agent.custom = ["more"]
    await chat.send("hi")
    assert chat.suggestions == [{"title": "more", "message": "more"}]

    chat.view_says({"kind": "clear"})

    assert chat.messages == []
    assert chat.suggestions == STARTERS
    assert chat.suggestions_after == ""


async def test_clear_from_python_brings_back_starters_assigned_from_python():
    agent = Suggester()
    chat = Captured(agent)
    chat.suggestions = ["start"]
    agent.custom = ["more"]
    await chat.send("hi")

    chat.clear()

    assert chat.suggestions == STARTERS and chat.suggestions_after == ""


async def test_a_chat_without_starters_shows_no_suggestions_after_a_clear():
    agent = Suggester()
    chat = Captured(agent)
    agent.custom = ["more"]
    await chat.send("hi")

    chat.clear()

    assert chat.suggestions == []


async def test_clear_keeps_the_state_unless_asked_to_reset_it():
    chat = Captured(Suggester(), state={"city": "Oslo", "steps": [1]})
    chat.update_state(city="Rome", extra=True)
    await chat.send("hi")

    chat.view_says({"kind": "clear"})
    assert chat.state == {"city": "Rome", "steps": [1], "extra": True}

    chat.view_says({"kind": "clear", "resetState": True})
    assert chat.messages == []
    assert chat.state == {"city": "Oslo", "steps": [1]}
    assert chat.of_kind("state_patch"), "the views should be told of the reset state"


def test_reset_state_from_python_puts_back_the_state_the_chat_started_with():
    chat = Captured(state={"steps": [1]})
    chat.state["steps"].append(2)  # in place: the state the chat started with is not changed by it
    chat.update_state(more=1)
    chat.clear(reset_state=True)
    assert chat.state == {"steps": [1]}

    plain = Captured()
    plain.state = {"anything": 1}
    plain.clear(reset_state=True)
    assert plain.state == {}
