"""Suggestions: starter prompts as chips, and the ones an agent gives for what to say next."""

from __future__ import annotations

import pytest
import traitlets
from ag_ui.core import CustomEvent

from agui_widget import DemoAgent
from agui_widget.adapters import AgentAdapter, EventStream

from .genui_support import Captured


class Suggester(AgentAdapter):
    def __init__(self) -> None:
        self.custom: object = None
        self.state_list: object = None

    async def _events(self, input, stream: EventStream):
        yield stream.text("answer")
        if self.custom is not None:
            yield CustomEvent(name="suggestions", value=self.custom)
        if self.state_list is not None:
            yield stream.state_delta([{"op": "add", "path": "/suggestions", "value": self.state_list}])


def test_starters_are_normalized_and_synced():
    chat = Captured(suggestions=["Tell me a joke", {"title": "Plan a trip", "message": "Plan a 3-day trip to Lisbon"}])
    assert chat.suggestions == [
        {"title": "Tell me a joke", "message": "Tell me a joke"},
        {"title": "Plan a trip", "message": "Plan a 3-day trip to Lisbon"},
    ]
    assert chat.suggestions_after == ""
    assert chat.trait_metadata("suggestions", "sync") is True


def test_python_can_replace_them_and_bad_ones_are_refused():
    chat = Captured()
    chat.suggestions = ["help"]
    assert chat.suggestions == [{"title": "help", "message": "help"}]
    with pytest.raises(traitlets.TraitError):
        chat.suggestions = [{"title": 3}]
    with pytest.raises(traitlets.TraitError):
        chat.suggestions = [5]
    assert chat.suggestions == [{"title": "help", "message": "help"}]


async def test_a_custom_event_replaces_them_after_the_run_below_the_last_answer():
    agent = Suggester()
    chat = Captured(agent, suggestions=["start"])
    agent.custom = ["more", {"title": "Again", "message": "say it again"}]
    await chat.send("hi")
    assert chat.suggestions == [{"title": "more", "message": "more"}, {"title": "Again", "message": "say it again"}]
    assert chat.suggestions_after == chat.messages[-1]["id"]
    # A run without suggestions leaves them, anchored to the earlier answer (so the view hides them).
    agent.custom = None
    await chat.send("next")
    assert chat.suggestions_after != chat.messages[-1]["id"]
    # From Python again: starters.
    chat.suggestions = ["fresh"]
    assert chat.suggestions_after == ""


async def test_a_suggestions_key_in_the_state_replaces_them_when_a_run_changes_it():
    agent = Suggester()
    chat = Captured(agent)
    agent.state_list = ["from state"]
    await chat.send("hi")
    assert chat.suggestions == [{"title": "from state", "message": "from state"}]
    chat.suggestions = ["mine"]
    agent.state_list = None
    await chat.send("again")  # the state still holds the same list: not offered again
    assert chat.suggestions == [{"title": "mine", "message": "mine"}]


async def test_malformed_agent_suggestions_are_ignored_with_a_warning(caplog):
    agent = Suggester()
    chat = Captured(agent, suggestions=["keep"])
    agent.custom = [{"nope": 1}]
    await chat.send("hi")
    assert chat.suggestions == [{"title": "keep", "message": "keep"}]
    assert "suggestions were ignored" in caplog.text


async def test_the_demo_agent_suggests():
    chat = Captured(DemoAgent(delay=0))
    await chat.send("suggest")
    assert "chart" in [s["message"] for s in chat.suggestions]
