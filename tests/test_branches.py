"""Branches: Regenerate and Edit keep what they replace as another version (‹1/2›) instead of
dropping it. ``chat.messages`` and the next run's input are the branch shown; ``chat.branches``
(and the views' ``branch_points`` trait) say where it forks; ``chat.show_branch`` and a view's
``branch`` request show another version, never during a run. The versions not shown are kept with
the thread in its store and in ``to_json()``; Clear and a new thread drop them."""

from __future__ import annotations

import copy
import json
import logging
from typing import Any

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from agui_widget import AgentChat
from agui_widget.session._branches import MAX_VERSIONS, Branches

from .genui_support import Captured, Counting
from .support import until


def shape(chat: AgentChat) -> list[str]:
    return [m["content"] for m in chat.messages]


def sent_to_agent(agent: Counting) -> list[str]:
    return [m.content for m in agent.inputs[-1].messages]


async def two_answers() -> tuple[Captured, Counting]:
    agent = Counting()
    chat = Captured(agent)
    await chat.send("hi")
    await chat.regenerate()
    return chat, agent


async def test_regenerate_keeps_the_earlier_answer_as_another_version() -> None:
    chat, agent = await two_answers()
    question = chat.messages[0]
    assert shape(chat) == ["hi", "answer 2"]
    assert agent.inputs[1].messages[0].id == question["id"], "the same question, its id kept"
    answer = chat.messages[1]["id"]
    assert chat.branches == [
        {"parentId": question["id"], "messageId": answer, "kind": "answer", "index": 1, "count": 2, "at": answer}
    ]
    assert chat.branch_points == chat.branches, "the views are told where the branch forks"


async def test_switching_back_and_forth_shows_each_version_and_the_agent_gets_the_branch_shown() -> None:
    chat, agent = await two_answers()
    question = chat.messages[0]["id"]
    chat.show_branch(chat.branches[0]["messageId"], 0)
    assert shape(chat) == ["hi", "answer 1"]
    assert chat.branches[0]["index"] == 0 and chat.branches[0]["count"] == 2
    assert chat.of_kind("messages")[-1] == {"kind": "messages", "start": 1, "messages": chat.messages[1:]}
    await chat.send("and then?")
    assert sent_to_agent(agent) == ["hi", "answer 1", "and then?"]
    chat.view_says({"kind": "branch", "parentId": question, "index": 1})
    assert shape(chat) == ["hi", "answer 2"]
    await chat.send("so?")
    assert sent_to_agent(agent) == ["hi", "answer 2", "so?"]
    chat.show_branch(question, 0)  # back: the turn sent after answer 1 comes back with it
    assert shape(chat) == ["hi", "answer 1", "and then?", "answer 3"]
    chat.show_branch(question, 0)  # shown already: nothing changes
    assert shape(chat) == ["hi", "answer 1", "and then?", "answer 3"]


async def test_regenerate_after_a_switch_adds_a_third_version() -> None:
    chat, _agent = await two_answers()
    question = chat.messages[0]["id"]
    chat.show_branch(question, 0)
    await chat.regenerate()
    assert shape(chat) == ["hi", "answer 3"]
    assert [(e["index"], e["count"]) for e in chat.branches] == [(2, 3)]
    seen = []
    for index in range(3):
        chat.show_branch(question, index)
        seen.append(shape(chat)[-1])
    assert seen == ["answer 1", "answer 2", "answer 3"]


async def test_regenerating_an_action_turn_keeps_its_answer_after_the_same_action() -> None:
    from agui_widget.session._a2ui import send_action, user_action

    agent = Counting()
    chat = Captured(agent)
    await chat.send("hello")
    await send_action(chat._session, user_action("submit", "form", "ok", {"guest": "Ada"}, "2026-01-01T00:00:00Z"))
    opening = [m["id"] for m in chat.messages[2:4]]
    await chat.regenerate()
    assert [m["id"] for m in chat.messages[2:4]] == opening and shape(chat)[-1] == "answer 3"
    (point,) = chat.branches
    assert (point["parentId"], point["kind"], point["index"], point["count"]) == (opening[1], "answer", 1, 2)
    chat.show_branch(opening[1], 0)
    assert shape(chat)[-1] == "answer 2" and [m["id"] for m in chat.messages[2:4]] == opening


async def test_any_user_message_can_be_edited_and_the_conversation_forks_there() -> None:
    agent = Counting()
    chat = Captured(agent)
    for text in ("one", "two", "three"):
        await chat.send(text)
    second = chat.messages[2]["id"]
    await chat.edit(second, "two, edited")
    assert shape(chat) == ["one", "answer 1", "two, edited", "answer 4"]
    assert sent_to_agent(agent) == ["one", "answer 1", "two, edited"]
    (point,) = chat.branches
    assert point["kind"] == "edit" and point["parentId"] == chat.messages[1]["id"]
    assert point["messageId"] == point["at"] == chat.messages[2]["id"] and (point["index"], point["count"]) == (1, 2)
    chat.show_branch(point["messageId"], 0)
    assert shape(chat) == ["one", "answer 1", "two", "answer 2", "three", "answer 3"]
    assert chat.messages[2]["id"] == second


async def test_editing_the_first_message_forks_at_the_start_and_keeps_later_forks_with_their_version() -> None:
    chat, _agent = await two_answers()
    await chat.send("more")
    await chat.edit(chat.messages[0]["id"], "hello")
    assert shape(chat) == ["hello", "answer 4"]
    assert [(e["parentId"], e["kind"], e["index"], e["count"]) for e in chat.branches] == [(None, "edit", 1, 2)]
    chat.show_branch(None, 0)
    assert shape(chat) == ["hi", "answer 2", "more", "answer 3"]
    assert [(e["kind"], e["index"], e["count"]) for e in chat.branches] == [("edit", 0, 2), ("answer", 1, 2)]


async def test_an_empty_version_left_by_a_failed_regenerate_goes_when_another_is_shown() -> None:
    runs = []

    def agent(messages: list[dict[str, Any]]) -> str:
        runs.append(len(messages))
        if len(runs) == 2:
            raise RuntimeError("the model is down")
        return "fine"

    chat = Captured(agent)
    await chat.send("hi")
    await chat.regenerate()
    question = chat.messages[0]["id"]
    assert chat.status == "error" and shape(chat) == ["hi"]
    assert chat.branches == [{"parentId": question, "messageId": None, "kind": "answer", "index": 1, "count": 2, "at": question}]
    chat.show_branch(question, 0)
    assert shape(chat) == ["hi", "fine"] and chat.branches == []


async def test_bad_edited_text_changes_nothing() -> None:
    chat, _agent = await two_answers()
    before, points = copy.deepcopy(chat.messages), chat.branches
    with pytest.raises(ValueError, match="needs some text"):
        chat.edit(chat.messages[0]["id"], "   ")
    assert chat.messages == before and chat.branches == points


async def test_a_thread_keeps_its_branches_in_a_sqlite_store(tmp_path) -> None:
    path = tmp_path / "threads.db"
    agent = Counting()
    chat = AgentChat(agent, thread_id="t", store=path)
    await chat.send("hi")
    await chat.regenerate()
    await until(lambda: not chat._threads.dirty, 10, "the save after the turn")
    points = chat.branches
    again = AgentChat(agent, thread_id="t", store=path)
    assert again.messages == chat.messages and again.branches == points and again.branch_points == points
    again.show_branch(points[0]["parentId"], 0)
    assert shape(again) == ["hi", "answer 1"]
    again.new_thread()
    assert again.branches == [] and again.branch_points == []
    again.switch("t")  # the switch saved "t" as it was: answer 1 shown, answer 2 kept
    assert shape(again) == ["hi", "answer 1"] and [(e["index"], e["count"]) for e in again.branches] == [(0, 2)]
    again.show_branch(points[0]["parentId"], 1)
    assert shape(again) == ["hi", "answer 2"]


async def test_branches_a_store_cannot_read_back_are_logged_and_the_thread_loads(tmp_path, caplog) -> None:
    from agui_widget.stores._store import SQLiteThreadStore, ThreadRecord

    store = SQLiteThreadStore(tmp_path / "threads.db")
    record = ThreadRecord.now("t", None, [{"id": "u", "role": "user", "content": "hi"}], {})
    record.branches = [{"parentId": "u", "versions": [None, {"messages": [{"role": "nobody"}]}]}]
    store.save(record)
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat = AgentChat(lambda messages: "ok", thread_id="t", store=store)
    assert shape(chat) == ["hi"] and chat.branches == []
    assert any("other branches were not read" in r.getMessage() for r in caplog.records)


async def test_to_json_has_the_other_branches_and_markdown_the_branch_shown() -> None:
    chat, _agent = await two_answers()
    document = json.loads(chat.to_json())
    assert [m["content"] for m in document["messages"]] == ["hi", "answer 2"]
    (fork,) = document["branches"]
    assert fork["parentId"] == chat.messages[0]["id"]
    assert fork["versions"][1] is None and [m["content"] for m in fork["versions"][0]["messages"]] == ["answer 1"]
    markdown = chat.to_markdown()
    assert "answer 2" in markdown and "answer 1" not in markdown
    assert "branches" not in json.loads(Captured(Counting()).to_json()), "a chat without versions exports as before"


async def test_clear_and_a_new_thread_drop_the_branches() -> None:
    chat, _agent = await two_answers()
    chat.clear()
    assert chat.branches == [] and chat.branch_points == []
    chat, _agent = await two_answers()
    chat.new_thread()
    assert chat.branches == [] and chat.branch_points == []


async def test_a_cell_that_drops_the_message_a_fork_follows_drops_the_fork() -> None:
    chat, _agent = await two_answers()
    chat.messages = [{"id": "other", "role": "user", "content": "else"}]
    assert chat.branches == [] and chat._session.branches.forks == {}


async def test_switching_is_refused_during_a_run() -> None:
    import asyncio

    gate = asyncio.Event()

    class Slow(Counting):
        async def _events(self, input, stream):
            self.inputs.append(input)
            if len(self.inputs) == 3:
                await gate.wait()
            yield stream.text(f"answer {len(self.inputs)}")

    agent = Slow()
    chat = Captured(agent)
    await chat.send("hi")
    await chat.regenerate()
    question = chat.messages[0]["id"]
    running = chat.send("wait for it")
    await until(lambda: len(agent.inputs) == 3, 10, "the third run")
    with pytest.raises(RuntimeError, match="a run is active"):
        chat.show_branch(question, 0)
    chat.view_says({"kind": "branch", "parentId": question, "index": 0})
    assert "a run is active" in chat.of_kind("notice")[-1]["text"]
    with pytest.raises(RuntimeError, match="active run"):
        chat.regenerate()
    gate.set()
    await running
    assert shape(chat) == ["hi", "answer 2", "wait for it", "answer 3"]
    assert [(e["index"], e["count"]) for e in chat.branch_points] == [(1, 2)]


@pytest.mark.parametrize(
    "request_",
    [
        {"kind": "branch", "parentId": 5, "index": 0},
        {"kind": "branch", "parentId": "x", "index": -1},
        {"kind": "branch", "parentId": "x"},
        {"kind": "branch", "parentId": "x", "index": 1.5},
    ],
)
async def test_malformed_branch_requests_are_logged_and_ignored(request_, caplog) -> None:
    chat, _agent = await two_answers()
    before = copy.deepcopy(chat.messages)
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.view_says(request_)
    assert chat.messages == before
    assert any("malformed branch request" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("parent, index, said", [("nope", 0, "no branches follow"), (None, 0, "no branches at the start")])
async def test_a_branch_request_for_a_fork_the_chat_does_not_have_is_refused_with_a_notice(parent, index, said) -> None:
    chat, _agent = await two_answers()
    before = copy.deepcopy(chat.messages)
    chat.view_says({"kind": "branch", "parentId": parent, "index": index})
    assert chat.messages == before and said in chat.of_kind("notice")[-1]["text"]


async def test_a_version_out_of_range_is_refused_with_a_notice() -> None:
    chat, _agent = await two_answers()
    chat.view_says({"kind": "branch", "parentId": chat.messages[0]["id"], "index": 2})
    assert "versions 0 to 1" in chat.of_kind("notice")[-1]["text"]
    assert shape(chat) == ["hi", "answer 2"]


def test_a_fork_keeps_at_most_max_versions_the_oldest_going_first() -> None:
    branches = Branches()
    messages = [{"id": "u", "role": "user", "content": "q"}, {"id": "a0", "role": "assistant", "content": "0"}]
    for n in range(1, MAX_VERSIONS + 5):
        branches.fork(messages, 1)
        messages = [messages[0], {"id": f"a{n}", "role": "assistant", "content": str(n)}]
    (point,) = branches.entries(messages)
    assert point["count"] == MAX_VERSIONS and point["index"] == MAX_VERSIONS - 1
    kept = [v.messages[0]["content"] for v in branches.forks["u"].versions if v is not None]
    assert kept == [str(n) for n in range(5, MAX_VERSIONS + 4)]


# -- any sequence of regenerate, edit, send and switch ---------------------------------------------

Op = tuple[str, int, int]
OPS = st.lists(
    st.tuples(st.sampled_from(["send", "regenerate", "edit", "switch"]), st.integers(0, 50), st.integers(0, 50)), max_size=12
)


class Model:
    """A transcript driven as the session drives it, around the session's own :class:`Branches`."""

    def __init__(self) -> None:
        self.branches = Branches()
        self.messages: list[dict[str, Any]] = []
        self.answers: set[str] = set()
        self.made = 0

    def _new(self, role: str) -> dict[str, Any]:
        self.made += 1
        message = {"id": f"{role[0]}{self.made}", "role": role, "content": f"{role} {self.made}"}
        if role == "assistant":
            self.answers.add(message["id"])
        return message

    def apply(self, op: Op) -> None:
        kind, a, b = op
        users = [i for i, m in enumerate(self.messages) if m["role"] == "user"]
        if kind == "send" or not users:
            self.messages = [*self.messages, self._new("user"), self._new("assistant")]
        elif kind == "regenerate":
            self.branches.fork(self.messages, users[-1] + 1)
            self.messages = [*self.messages[: users[-1] + 1], self._new("assistant")]
        elif kind == "edit":
            at = users[a % len(users)]
            self.branches.fork(self.messages, at)
            self.messages = [*self.messages[:at], self._new("user"), self._new("assistant")]
        else:
            points = self.branches.entries(self.messages)
            if points:
                point = points[a % len(points)]
                shown = self.branches.show(self.messages, point["parentId"], b % point["count"])
                if shown is not None:
                    self.messages = shown[0]


def assert_a_transcript(messages: list[dict[str, Any]], points: list[dict[str, Any]]) -> None:
    assert [m["role"] for m in messages] == ["user", "assistant"] * (len(messages) // 2)
    assert len({m["id"] for m in messages}) == len(messages)
    for point in points:
        assert 0 <= point["index"] < point["count"] <= MAX_VERSIONS


def reachable_answers(model: Model) -> set[str]:
    """Every answer some sequence of switches shows, from the model as it is."""
    seen: set[tuple[str, ...]] = set()
    found: set[str] = set()
    stack = [(model.branches, model.messages)]
    while stack:
        branches, messages = stack.pop()
        key = tuple(m["id"] for m in messages)
        if key in seen:
            continue
        seen.add(key)
        found |= {m["id"] for m in messages if m["role"] == "assistant"}
        for point in branches.entries(messages):
            for index in range(point["count"]):
                other = copy.deepcopy(branches)
                shown = other.show(messages, point["parentId"], index)
                if shown is not None:
                    stack.append((other, shown[0]))
    return found


@seed(31)
@settings(max_examples=120, deadline=None)
@given(OPS)
def test_any_sequence_keeps_a_valid_branch_shown_and_every_answer_within_reach(ops: list[Op]) -> None:
    model = Model()
    for op in ops:
        model.apply(op)
        assert_a_transcript(model.messages, model.branches.entries(model.messages))
    assert reachable_answers(model) == model.answers
    again = Branches()
    again.load(json.loads(json.dumps(model.branches.to_json())))
    assert again.entries(model.messages) == model.branches.entries(model.messages), "kept as JSON and read back"
