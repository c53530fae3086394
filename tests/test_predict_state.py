"""Predictive state: a state key follows a tool call's arguments while they stream."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import traitlets
from ag_ui.core import CustomEvent

from agui_widget import DemoAgent
from agui_widget.adapters import AgentAdapter, EventStream
from agui_widget.chat._predict import StatePredictor, coerce_rules
from agui_widget.vocabulary._content import parse_partial_json as parse_partial

from .genui_support import Captured

DOCUMENT = "A short document, written live."


class Writer(AgentAdapter):
    """Streams write_document's arguments in small pieces, recording the chat's state after each."""

    def __init__(self, announce: bool = False) -> None:
        self.announce = announce
        self.chat: Any = None
        self.seen: list[Any] = []

    async def _events(self, input, stream: EventStream):
        if self.announce:
            yield CustomEvent(
                name="PredictState", value=[{"state_key": "draft", "tool": "write_document", "tool_argument": "document"}]
            )
        call = stream.tool_call_start("write_document")
        call_id = call[0].tool_call_id
        yield call
        text = json.dumps({"document": DOCUMENT, "title": "T"})
        for start in range(0, len(text), 4):
            yield stream.tool_call_args(call_id, text[start : start + 4])
            await asyncio.sleep(0)
            self.seen.append((self.chat._session.state or {}).get("draft"))
        yield stream.tool_call_end(call_id)
        yield stream.tool_result(call_id, "ok")


async def test_the_state_key_follows_the_streamed_argument_in_the_kernel():
    agent = Writer()
    chat = Captured(agent, predict_state=[{"state_key": "draft", "tool": "write_document", "tool_argument": "document"}])
    agent.chat = chat
    await chat.send("write")
    partial = [value for value in agent.seen if value]
    assert len(set(partial)) > 5  # it grew while the arguments streamed
    assert all(DOCUMENT.startswith(value) for value in partial)
    assert chat.state["draft"] == DOCUMENT
    # Nothing extra travels: the views predict from the same TOOL_CALL_ARGS events.
    assert chat.of_kind("state_patch") == []
    assert chat.predict_state == [{"state_key": "draft", "tool": "write_document", "tool_argument": "document"}]


async def test_a_predict_state_event_turns_it_on_for_that_run_only():
    agent = Writer(announce=True)
    chat = Captured(agent)
    agent.chat = chat
    await chat.send("write")
    assert chat.state["draft"] == DOCUMENT and any(value and value != DOCUMENT for value in agent.seen)
    agent.announce = False
    chat.state = {}
    await chat.send("again")
    assert "draft" not in chat.state


async def test_the_demo_agent_writes_a_document_into_the_state():
    chat = Captured(DemoAgent(delay=0))
    await chat.send("write a document about owls")
    assert chat.state["document"].startswith("Owls")
    events = chat.wire_events()
    assert any(e["type"] == "CUSTOM" and e["name"] == "PredictState" for e in events)


def test_partial_json_keeps_an_unfinished_string():
    assert parse_partial('{"document": "Hel') == {"document": "Hel"}
    assert parse_partial('{"doc') == {}
    assert parse_partial("") is None


def test_the_whole_arguments_follow_when_no_argument_is_named():
    from ag_ui.core import ToolCallArgsEvent, ToolCallStartEvent

    predictor = StatePredictor(coerce_rules([{"state_key": "args", "tool": "t"}]))
    state: Any = {}
    state = predictor.observe(ToolCallStartEvent(tool_call_id="c", tool_call_name="t"), state)
    state = predictor.observe(ToolCallArgsEvent(tool_call_id="c", delta='{"a": [1, 2'), state)
    assert state == {"args": {"a": [1, 2]}}


def test_bad_rules_are_refused_clearly():
    with pytest.raises(ValueError, match="state_key"):
        coerce_rules([{"tool": "t"}])
    with pytest.raises(TypeError):
        coerce_rules({"state_key": "a", "tool": "t"})
    chat = Captured(Writer())
    with pytest.raises(traitlets.TraitError):
        chat.predict_state = [{"tool": "t"}]
