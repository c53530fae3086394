"""Values that are not JSON, from an agent run in the kernel: made what the wire would carry.

An in-process agent hands over Python objects, and a field holding any JSON (state, a patch
operation's value, a CUSTOM value, activity content, a tool result, message content) may hold
LangChain messages, models, dataclasses, datetimes, numpy scalars, tuples and sets. They reach
the state, the transcript and the store as pydantic's JSON form of them (what the HTTP encoder
would have sent); a value pydantic cannot serialise ends the run with a RUN_ERROR naming where
it is, and nothing of that event is applied.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
import logging
import warnings
from typing import Any

import ag_ui_langgraph
import numpy as np
import pytest
from ag_ui.core import (
    ActivityMessage,
    ActivitySnapshotEvent,
    BaseEvent,
    CustomEvent,
    EventType,
    MessagesSnapshotEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextPart,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel
from pydantic_core import to_jsonable_python

from agui_widget import AgentChat, MemoryThreadStore
from agui_widget.adapters._base import json_patch
from agui_widget.pipeline._consumer import EventConsumer
from agui_widget.vocabulary._errors import ProtocolError

from .test_langchain_vs_ag_ui_langgraph import graph

PROFILE = settings(
    deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


# -- values -----------------------------------------------------------------------------------


class Point(BaseModel):
    """A model with camelCase aliases: the wire (and so the state) spells its fields by alias."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)
    x_value: int
    label: str


class Box(BaseModel):
    """A model holding anything, to carry a value that is not serialisable one level down."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)
    held_value: Any


@dataclasses.dataclass
class Stamp:
    when: datetime.datetime
    note: str


class Opaque:
    """An object pydantic has no JSON form for."""


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
    max_leaves=6,
)
convertible_leaves = st.one_of(
    st.datetimes(),
    st.dates(),
    st.uuids(),
    st.tuples(st.integers(), st.text(max_size=6)).map(lambda args: Point(x_value=args[0], label=args[1])),
    st.builds(Stamp, when=st.datetimes(), note=st.text(max_size=6)),
    st.text(max_size=12).map(lambda text: HumanMessage(text, id="h1")),
    st.text(max_size=12).map(lambda text: AIMessage(text, id="a1")),
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(np.int64),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(np.float32),
    st.booleans().map(np.bool_),
    st.frozensets(st.integers(), max_size=3),
)
convertible = st.recursive(
    plain | convertible_leaves,
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.dictionaries(st.text(max_size=4), kids, max_size=3)
        | st.tuples(kids, kids)
        | kids.map(lambda held: Box(held_value=held))
    ),
    max_leaves=10,
)
"""Nested values pydantic can serialise, with at least some of them not JSON as they are."""


def wire_json(value: Any) -> Any:
    """What the wire's encoder (pydantic, by alias) makes of ``value``; numpy by its ``tolist()``."""
    return to_jsonable_python(value, by_alias=True, fallback=lambda v: v.tolist())


def _token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _in_dict(others: dict[str, Any], key: str, inner: tuple[Any, str, str]) -> tuple[Any, str, str]:
    value, pointer, kind = inner
    return {**{k: v for k, v in others.items() if k != key}, key: value}, f"/{_token(key)}{pointer}", kind


def _in_list(others: list[Any], at: int, inner: tuple[Any, str, str]) -> tuple[Any, str, str]:
    value, pointer, kind = inner
    at = min(at, len(others))
    return [*others[:at], value, *others[at:]], f"/{at}{pointer}", kind


def _in_box(inner: tuple[Any, str, str]) -> tuple[Any, str, str]:
    value, pointer, kind = inner
    return Box(held_value=value), f"/heldValue{pointer}", kind


unserialisable = st.sampled_from([(object(), "", "object"), (lambda: None, "", "function"), (Opaque(), "", "Opaque")])
holding_one = st.recursive(
    unserialisable,
    lambda inner: (
        st.builds(_in_dict, st.dictionaries(st.text(max_size=4), convertible, max_size=2), st.text(max_size=4), inner)
        | st.builds(_in_list, st.lists(convertible, max_size=2), st.integers(0, 2), inner)
        | st.builds(_in_box, inner)
    ),
    max_leaves=6,
)
"""(a value holding exactly one object pydantic cannot serialise, its JSON pointer, its type's name)."""


# -- the events carrying a value, and where each keeps it -------------------------------------


def carrying(kind: str, value: Any) -> tuple[list[BaseEvent], str]:
    """Events putting ``value`` where ``kind`` says, and the JSON pointer of the value in the last."""
    if kind == "state snapshot":
        return [StateSnapshotEvent(snapshot=value)], "/snapshot"
    if kind == "state delta":
        return [StateDeltaEvent(delta=json_patch([{"op": "add", "path": "/v", "value": value}]))], "/delta/0/value"
    if kind == "custom":
        return [CustomEvent(name="progress", value=value)], "/value"
    if kind == "activity snapshot":
        return [ActivitySnapshotEvent(message_id="act-1", activity_type="progress", content={"v": value})], "/content/v"
    if kind == "messages snapshot":
        message = ActivityMessage(id="act-2", activity_type="progress", content={"v": value})
        return [MessagesSnapshotEvent(messages=[message])], "/messages/0/content/v"
    assert kind == "tool result"
    result = ToolCallResultEvent(
        message_id="tool-1", tool_call_id="call-1", content=[TextPart(text="done", metadata={"v": value})]
    )
    return [
        ToolCallStartEvent(tool_call_id="call-1", tool_call_name="lookup"),
        ToolCallEndEvent(tool_call_id="call-1"),
        result,
    ], "/content/0/metadata/v"


def where_it_went(kind: str, consumer: EventConsumer, delivered: list[BaseEvent]) -> Any:
    """The value as the chat kept it."""
    if kind == "state snapshot":
        return consumer.state
    if kind == "state delta":
        return consumer.state["v"]
    if kind == "custom":
        return delivered[-1].value  # type: ignore[attr-defined]
    by_id = {message["id"]: message for message in consumer.messages}
    if kind == "activity snapshot":
        return by_id["act-1"]["content"]["v"]
    if kind == "messages snapshot":
        return by_id["act-2"]["content"]["v"]
    return by_id["tool-1"]["content"][0]["metadata"]["v"]


KINDS = ["state snapshot", "state delta", "custom", "activity snapshot", "messages snapshot", "tool result"]


def started(state: Any = None) -> EventConsumer:
    consumer = EventConsumer(state={} if state is None else state)
    consumer.consume(RunStartedEvent(thread_id="t1", run_id="r1"))
    return consumer


class Scripted:
    """An in-process agent sending the given events inside one run."""

    def __init__(self, events: list[BaseEvent]) -> None:
        self.events = events

    async def run(self, input: Any):
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        for event in self.events:
            yield event
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


# -- the tests --------------------------------------------------------------------------------


async def test_ag_ui_langgraph_in_process_keeps_a_json_state_and_its_thread_is_saved(tmp_path, caplog):
    path = tmp_path / "t.db"
    chat = AgentChat(
        ag_ui_langgraph.LangGraphAgent(name="todo", graph=graph()), store=path, thread_id="t1", state={"todos": ["bread"]}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ag-ui-langgraph warns about its own pydantic serialisation
        run = await chat.send("add milk")
    assert run.status == "finished", run.error
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]

    # The graph's whole state, its LangChain messages as the HTTP encoder would have sent them.
    assert chat.state["todos"] == ["bread", "milk"]
    assert [message["type"] for message in chat.state["messages"]] == ["human", "ai", "tool", "ai"]
    assert chat.state["messages"][0]["content"] == "add milk"
    assert json.loads(json.dumps(chat.state)) == chat.state
    document = json.loads(chat.to_json())
    assert document["threadId"] == "t1" and document["state"] == chat.state and document["messages"] == chat.messages

    again = AgentChat(ag_ui_langgraph.LangGraphAgent(name="todo", graph=graph()), store=path, thread_id="t1")
    assert again.messages == chat.messages and again.state == chat.state
    assert any(message.get("content") == "Done: milk is on the list." for message in again.messages)


@PROFILE
@given(value=convertible, kind=st.sampled_from(KINDS))
def test_a_value_pydantic_can_serialise_is_kept_as_its_json_form(value, kind):
    consumer = started()
    events, _ = carrying(kind, value)
    delivered = [item for event in events for item in consumer.consume(event)]
    kept = where_it_went(kind, consumer, delivered)
    assert kept == wire_json(value)
    json.dumps(consumer.state, allow_nan=False)
    json.dumps(consumer.messages, allow_nan=False)
    json.dumps([event.model_dump(mode="json", by_alias=True, exclude={"raw_event"}) for event in delivered])


@PROFILE
@given(bad=holding_one, kind=st.sampled_from(KINDS))
def test_a_value_pydantic_cannot_serialise_is_refused_naming_where_it_is(bad, kind):
    value, pointer, type_name = bad
    consumer = started({"keep": 1})
    events, field = carrying(kind, value)
    for event in events[:-1]:
        consumer.consume(event)
    messages_before = json.loads(json.dumps(consumer.messages))
    with pytest.raises(ProtocolError) as refused:
        consumer.consume(events[-1])
    assert str(refused.value).startswith(f"{events[-1].type.value} at {field}{pointer}: object of type {type_name} ")
    assert "not JSON-serialisable" in str(refused.value)
    assert consumer.state == {"keep": 1} and consumer.messages == messages_before


@settings(PROFILE, max_examples=25)
@given(bad=holding_one, kind=st.sampled_from(KINDS[:-1]))
def test_the_run_ends_in_a_run_error_and_the_state_transcript_and_store_stay_as_they_were(bad, kind):
    value, pointer, type_name = bad
    events, field = carrying(kind, value)

    async def turn() -> None:
        store = MemoryThreadStore()
        chat = AgentChat(Scripted(events), store=store, thread_id="t1", state={"keep": 1})
        run = await chat.send("go")
        assert run.status == "error"
        [error] = [event for event in run.events if event.type == EventType.RUN_ERROR]
        assert f"{events[-1].type.value} at {field}{pointer}: object of type {type_name} " in (error.message or "")
        assert chat.state == {"keep": 1}
        assert [message["role"] for message in chat.messages] == ["user"]
        record = store.load("t1")
        assert record is not None and record.state == {"keep": 1} and record.messages == chat.messages
        json.loads(chat.to_json())

    asyncio.run(turn())


def test_a_state_holding_itself_is_refused():
    looping: dict[str, Any] = {"a": 1}
    looping["self"] = looping
    consumer = started({"keep": 1})
    with pytest.raises(ProtocolError, match=r"^STATE_SNAPSHOT: a value is not JSON-serialisable \(Circular reference"):
        consumer.consume(StateSnapshotEvent(snapshot=looping))
    assert consumer.state == {"keep": 1}
