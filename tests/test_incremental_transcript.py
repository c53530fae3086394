"""A long transcript costs what is new: what is carried from one run (or assignment) to the next
gives exactly what starting afresh gives.

The reducer's index of the transcript is extended from the last run's (``TranscriptIndex``), the
agent's input models are reused for the messages seen last time (``InputMessages``), and an
assignment to ``chat.messages`` validates only the messages that differ from what the chat
validated before. Generated transcripts and edits (appends, truncations, replacements, inserted
and repeated messages, duplicate ids, tool calls) must read the same either way; a new message
that is not an AG-UI message is still refused with nothing changed, and a message edited in place
is still seen.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import traitlets
from ag_ui.core import (
    ActivitySnapshotEvent,
    BaseEvent,
    RunAgentInput,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agui_widget.adapters import AgentAdapter, EventStream
from agui_widget.pipeline._reducer import EventReducer, TranscriptIndex
from agui_widget.session import _transcript
from agui_widget.session._session import InputMessages, Session
from agui_widget.vocabulary._marks import DISPLAY, REFUSED, marked

from .genui_support import Captured

IDS = ["a", "b", "c", "d", "e"]
CALL_IDS = ["k1", "k2", "k3"]
SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


# -- generated transcripts and edits ----------------------------------------------------------


@st.composite
def raw_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A message as a reducer may be handed one: ids repeat, tool calls repeat or are malformed."""
    message: dict[str, Any] = {"role": draw(st.sampled_from(["user", "assistant", "tool", "activity"]))}
    message_id = draw(st.one_of(st.sampled_from(IDS), st.none(), st.just(7)))
    if message_id is not None:
        message["id"] = message_id
    message["content"] = draw(st.sampled_from(["", "hi", "more"]))
    if message["role"] == "assistant" and draw(st.booleans()):
        calls: list[Any] = []
        for call_id in draw(st.lists(st.sampled_from(CALL_IDS), max_size=2)):
            if draw(st.integers(0, 5)) == 0:
                calls.append({"id": call_id, "type": "function"})  # no function: not indexed
            else:
                calls.append({"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}})
        message["toolCalls"] = calls
    return message


EDITS = st.lists(
    st.tuples(st.sampled_from(["append", "truncate", "replace", "copy", "insert", "repeat"]), st.integers(0, 12), raw_messages()),
    max_size=4,
)


def edited(messages: list[dict[str, Any]], edits: list[tuple[str, int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The next transcript: ``messages`` (the same objects) changed by ``edits``."""
    result = list(messages)
    for kind, at, message in edits:
        place = at % (len(result) + 1)
        if kind == "append":
            result.append(message)
        elif kind == "truncate":
            del result[place:]
        elif kind == "insert":
            result.insert(place, message)
        elif result and kind == "replace":
            result[place % len(result)] = message
        elif result and kind == "copy":  # equal, not the same object
            result[place % len(result)] = copy.deepcopy(result[place % len(result)])
        elif result and kind == "repeat":  # the very same object twice
            result.append(result[place % len(result)])
    return result


def shape(by_id: dict[str, Any], pos: dict[str, int], tool_calls: dict[str, Any], call_owner: dict[str, Any]) -> Any:
    """Indexes as comparable values: every entry names its object by identity."""
    return (
        {key: id(value) for key, value in by_id.items()},
        dict(pos),
        {key: id(value) for key, value in tool_calls.items()},
        {key: id(value) for key, value in call_owner.items()},
    )


def rebuilt(messages: list[dict[str, Any]]) -> Any:
    """The indexes a reducer builds for ``messages`` from nothing."""
    reducer = EventReducer(messages)
    return shape(reducer._by_id, reducer._pos, reducer._tool_calls, reducer._call_owner)


_ONE = {"id": "a", "role": "user", "content": ""}


@SETTINGS
@given(st.lists(raw_messages(), max_size=8), EDITS, EDITS)
@example([_ONE], [("repeat", 0, _ONE)], [("truncate", 1, _ONE)])  # the same object twice, the second dropped
def test_an_extended_index_is_the_index_rebuilt(first: list[dict[str, Any]], edits: Any, more: Any) -> None:
    index = TranscriptIndex.of(first)
    second = edited(first, edits)
    index = TranscriptIndex.of(second, index)
    assert shape(index.by_id, index.pos, index.tool_calls, index.call_owner) == rebuilt(second)
    assert index.messages == second and all(a is b for a, b in zip(index.messages, second, strict=True))
    third = edited(second, more)
    index = TranscriptIndex.of(third, index)
    assert shape(index.by_id, index.pos, index.tool_calls, index.call_owner) == rebuilt(third)


@st.composite
def events(draw: st.DrawFn) -> list[BaseEvent]:
    """Events a reducer folds in (unverified), naming ids the transcript may already hold."""
    made: list[BaseEvent] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["start", "content", "end", "call", "args", "call_end", "result", "activity"]))
        message_id = draw(st.sampled_from([*IDS, "n1", "n2"]))
        call_id = draw(st.sampled_from([*CALL_IDS, "k9"]))
        if kind == "start":
            made.append(TextMessageStartEvent(message_id=message_id, role="assistant"))
        elif kind == "content":
            made.append(TextMessageContentEvent(message_id=message_id, delta="x"))
        elif kind == "end":
            made.append(TextMessageEndEvent(message_id=message_id, metadata={"seen": 1}))
        elif kind == "call":
            parent = draw(st.one_of(st.none(), st.sampled_from(IDS)))
            made.append(ToolCallStartEvent(tool_call_id=call_id, tool_call_name="g", parent_message_id=parent))
        elif kind == "args":
            made.append(ToolCallArgsEvent(tool_call_id=call_id, delta="{"))
        elif kind == "call_end":
            made.append(ToolCallEndEvent(tool_call_id=call_id, metadata={"done": True}))
        elif kind == "result":
            made.append(
                ToolCallResultEvent(message_id=draw(st.sampled_from(["r1", "r2", *IDS])), tool_call_id=call_id, content="ok")
            )
        else:
            made.append(ActivitySnapshotEvent(message_id=message_id, activity_type="plan", content={"step": 1}))
    return made


def fold(reducer: EventReducer, warnings: list[str], stream: list[BaseEvent]) -> Any:
    for event in stream:
        reducer.apply(event)
    return copy.deepcopy(reducer.messages), reducer.changed_from, list(warnings)


@SETTINGS
@given(st.lists(raw_messages(), max_size=8), events(), EDITS, events())
def test_a_run_on_a_carried_index_reads_as_a_run_on_a_rebuilt_one(
    first: list[dict[str, Any]], run_one: list[BaseEvent], edits: Any, run_two: list[BaseEvent]
) -> None:
    warned: list[str] = []
    earlier = EventReducer(first, on_warning=warned.append)
    fold(earlier, warned, run_one)
    second = edited(earlier.messages, edits)
    before = copy.deepcopy(second)
    carried_warnings: list[str] = []
    carried = EventReducer(second, on_warning=carried_warnings.append, carried=earlier.carried)
    carried.reset_changes()
    fresh_warnings: list[str] = []
    fresh = EventReducer(second, on_warning=fresh_warnings.append)
    fresh.reset_changes()
    assert fold(carried, carried_warnings, run_two) == fold(fresh, fresh_warnings, run_two)
    assert second == before  # the messages handed in are never changed: copied on write
    assert shape(carried.carried.by_id, carried.carried.pos, carried.carried.tool_calls, carried.carried.call_owner) == rebuilt(
        second
    )


# -- the agent's input models -------------------------------------------------------------------


@st.composite
def valid_messages(draw: st.DrawFn) -> dict[str, Any]:
    """An AG-UI message; ids repeat, some were refused by the guard, some carry a display bundle."""
    role = draw(st.sampled_from(["user", "assistant", "tool"]))
    message: dict[str, Any] = {"id": draw(st.sampled_from(IDS)), "role": role, "content": draw(st.sampled_from(["hi", "yo"]))}
    if role == "tool":
        message["toolCallId"] = draw(st.sampled_from(CALL_IDS))
    mark = draw(st.sampled_from([None, REFUSED, DISPLAY]))
    if mark is not None:
        message["metadata"] = marked(**{mark: "refused" if mark == REFUSED else {"text/plain": "x"}})
    return message


def dumped(models: list[Any]) -> list[dict[str, Any]]:
    return [model.model_dump(mode="json", by_alias=True) for model in models]


@SETTINGS
@given(
    st.lists(valid_messages(), max_size=8),
    st.lists(st.tuples(st.sampled_from(["append", "truncate", "copy"]), st.integers(0, 12), valid_messages()), max_size=3),
    st.lists(valid_messages(), max_size=3),
)
def test_input_models_carried_over_are_the_models_made_afresh(
    first: list[dict[str, Any]], edits: Any, appended: list[dict[str, Any]]
) -> None:
    cached = InputMessages()
    for transcript in (first, edited(first, edits), [*edited(first, edits), *appended], first):
        assert dumped(cached(transcript)) == dumped(InputMessages()(transcript))


def test_input_models_are_reused_for_the_messages_seen_last_time() -> None:
    first = [{"id": f"m{i}", "role": "user", "content": "hi"} for i in range(5)]
    cached = InputMessages()
    models = cached(first)
    again = cached([*first, {"id": "new", "role": "user", "content": "more"}])
    assert all(a is b for a, b in zip(models, again, strict=False)) and len(again) == 6
    again.append(again[0])  # the caller's list: what is cached is not changed
    assert len(cached([*first, {"id": "new", "role": "user", "content": "more"}])) == 6


# -- a session carries the index across runs ----------------------------------------------------


class Calls(AgentAdapter):
    """Answers with text, a tool call on the previous answer and its result."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[RunAgentInput] = []

    async def _events(self, input: RunAgentInput, stream: EventStream) -> Any:
        self.inputs.append(input)
        yield stream.text("ok")
        turn = len(self.inputs)
        yield ToolCallStartEvent(tool_call_id=f"call{turn}", tool_call_name="g")
        yield ToolCallArgsEvent(tool_call_id=f"call{turn}", delta="{}")
        yield ToolCallEndEvent(tool_call_id=f"call{turn}")
        yield ToolCallResultEvent(message_id=f"result{turn}", tool_call_id=f"call{turn}", content="done")


async def test_a_session_extends_the_index_of_the_last_run() -> None:
    agent = Calls()
    session = Session(agent, messages=[{"id": "u0", "role": "user", "content": "hi"}])
    await session.send("one")
    carried = session._carried
    assert carried is not None
    await session.send("two")
    assert session._carried is carried  # extended, not rebuilt
    index = session._pipeline().carried_index
    assert shape(index.by_id, index.pos, index.tool_calls, index.call_owner) == rebuilt(session.messages)
    assert [m.id for m in agent.inputs[-1].messages] == [m["id"] for m in session.messages[: len(agent.inputs[-1].messages)]]
    session.clear()
    assert session._carried is None and session._checked == []


# -- assigning chat.messages ---------------------------------------------------------------------


def chat_with(count: int) -> Captured:
    messages = [{"id": f"m{i}", "role": "user" if i % 2 == 0 else "assistant", "content": f"text {i}"} for i in range(count)]
    messages.append(
        {
            "id": "call-holder",
            "role": "assistant",
            "content": "",
            "toolCalls": [{"id": "k1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}],
        }
    )
    chat = Captured(messages=messages)
    chat.messages = list(chat.messages)  # validated once here
    return chat


def test_one_more_message_leaves_the_rest_as_it_was() -> None:
    chat = chat_with(20)
    before = list(chat._session.messages)
    chat.messages = [*chat.messages, {"id": "new", "role": "user", "content": "more"}]
    after = chat._session.messages
    assert len(after) == len(before) + 1 and all(a is b for a, b in zip(before, after, strict=False))
    assert chat.of_kind("messages")[-1] == {
        "kind": "messages",
        "start": len(before),
        "messages": [{"id": "new", "role": "user", "content": "more"}],
    }
    assert chat.messages == after


def test_equal_copies_keep_the_chats_own_dicts_not_the_callers() -> None:
    chat = chat_with(5)
    before = list(chat._session.messages)
    mine = [*copy.deepcopy(chat.messages), {"id": "new", "role": "user", "content": "more"}]
    chat.messages = mine
    assert all(a is b for a, b in zip(before, chat._session.messages, strict=False))
    assert chat.of_kind("messages")[-1]["start"] == len(before)
    mine[0]["content"] = "changed by the caller later"
    mine[-1]["content"] = "this too"
    assert chat._session.messages[0]["content"] == "text 0" and chat._session.messages[-1]["content"] == "more"


def test_an_invalid_new_message_is_refused_and_changes_nothing() -> None:
    chat = chat_with(5)
    before, trait, sent = list(chat._session.messages), list(chat.messages), len(chat.of_kind("messages"))
    with pytest.raises(traitlets.TraitError, match="AG-UI messages"):
        chat.messages = [*chat.messages, {"id": "bad", "role": "nobody", "content": "x"}]
    with pytest.raises(traitlets.TraitError, match="AG-UI messages"):
        chat.messages = [*chat.messages[:2], "not a message", *chat.messages[2:]]
    assert all(a is b for a, b in zip(before, chat._session.messages, strict=True))
    assert chat.messages == trait and len(chat.of_kind("messages")) == sent


@pytest.mark.parametrize("where", ["top", "nested", "the list"])
def test_an_edit_in_place_then_an_assignment_is_seen(where: str) -> None:
    chat = chat_with(4)
    held = chat.messages
    if where == "top":
        held[1]["content"] = "edited in place"
        at = 1
    elif where == "nested":
        held[-1]["toolCalls"][0]["function"]["arguments"] = '{"x": 2}'
        at = len(held) - 1
    else:
        held.append({"id": "added", "role": "user", "content": "appended in place"})
        at = len(held) - 1
    chat.messages = held
    last = chat.of_kind("messages")[-1]
    assert last["start"] == at and last["messages"] == [dict(m) for m in held[at:]]
    assert chat._session.messages == held


async def test_an_edit_in_place_reaches_the_next_run() -> None:
    agent = Calls()
    chat = Captured(agent, messages=[{"id": "u0", "role": "user", "content": "hi"}])
    await chat.send("one")
    chat.messages = list(chat.messages)
    chat.messages[0]["content"] = "edited in place"
    chat.messages = chat.messages
    await chat.send("two")
    assert agent.inputs[-1].messages[0].content == "edited in place"


class CountingAdapter:
    """The session's messages adapter, counting the messages it validates."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.validated = 0

    def validate_python(self, value: Any, *args: Any, **kwargs: Any) -> Any:
        self.validated += len(value)
        return self.real.validate_python(value, *args, **kwargs)


def test_the_first_assignment_after_a_chat_is_made_validates_only_what_is_new(monkeypatch: pytest.MonkeyPatch) -> None:
    chat = Captured(messages=[{"id": f"u{i}", "role": "user", "content": f"text {i}"} for i in range(50)])
    counting = CountingAdapter(_transcript._messages_adapter())
    monkeypatch.setattr(_transcript, "_messages_adapter", lambda: counting)
    chat.messages = [*chat.messages, {"id": "new", "role": "user", "content": "more"}]
    assert counting.validated == 1
    assert chat.of_kind("messages")[-1]["start"] == 50


@pytest.mark.parametrize("where", ["top", "nested"])
def test_an_edit_in_place_right_after_the_chat_is_made_is_seen(where: str) -> None:
    call = {"id": "k1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
    chat = Captured(
        messages=[
            {"id": "u0", "role": "user", "content": "hi"},
            {"id": "a0", "role": "assistant", "content": "", "toolCalls": [call]},
        ]
    )
    held = chat.messages
    if where == "top":
        held[0]["content"] = "edited in place"
    else:
        held[1]["toolCalls"][0]["function"]["arguments"] = '{"x": 2}'
    chat.messages = held
    last = chat.of_kind("messages")[-1]
    assert last["start"] == (0 if where == "top" else 1)
    assert chat._session.messages == held


async def test_an_edit_in_place_of_a_message_a_run_has_sent_reaches_the_next_run() -> None:
    agent = Calls()
    chat = Captured(agent, messages=[{"id": "u0", "role": "user", "content": "hi"}])
    await chat.send("one")  # the agent's models of these very dicts are kept for the next run
    chat.messages[0]["content"] = "edited in place"
    chat.messages = chat.messages
    await chat.send("two")
    assert agent.inputs[-1].messages[0].content == "edited in place"
