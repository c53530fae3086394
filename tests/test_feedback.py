"""A thumbs up or down on an answer, with an optional comment: a view's ``feedback`` request or
``chat.feedback(...)`` keeps it in the answer's metadata (``agui_widget.feedback``), so the
transcript, the thread store, the exports and the next run's input hold it, and
``AgentChat(on_feedback=fn)`` is told. What cannot be rated is refused with a notice; a failing
hook is logged and shown, and the rating stands."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from agui_widget import AgentChat, DemoAgent
from agui_widget.vocabulary._feedback import MAX_COMMENT, feedback_of

from .genui_support import Captured
from .support import until

TRANSCRIPT = [
    {"id": "u1", "role": "user", "content": "weather in Paris?"},
    {"id": "a1", "role": "assistant", "content": "Sunny, 21°C."},
    {"id": "u2", "role": "user", "content": "and tomorrow?"},
    {"id": "a2", "role": "assistant", "content": "Rain."},
]


def chat_with(**options: Any) -> Captured:
    return Captured(DemoAgent(delay=0), messages=TRANSCRIPT, **options)


def rating_of(chat: AgentChat, message_id: str) -> dict[str, str] | None:
    return feedback_of(next(m for m in chat.messages if m["id"] == message_id))


def test_a_views_rating_is_kept_in_the_answers_metadata_and_told_to_the_hook() -> None:
    heard: list[tuple[dict[str, Any], Any, Any]] = []
    chat = chat_with(on_feedback=lambda message, rating, comment: heard.append((message, rating, comment)))
    chat.view_says({"kind": "feedback", "messageId": "a1", "rating": "up", "comment": None})
    assert rating_of(chat, "a1") == {"rating": "up"}
    assert chat.messages[1]["metadata"] == {"agui_widget": {"feedback": {"rating": "up"}}}
    assert rating_of(chat, "a2") is None
    ((message, rating, comment),) = heard
    assert message["id"] == "a1" and feedback_of(message) == {"rating": "up"} and (rating, comment) == ("up", None)
    (splice,) = chat.of_kind("messages")
    assert splice["messages"][0]["metadata"]["agui_widget"]["feedback"] == {"rating": "up"}, "every view is told"
    assert chat.of_kind("notice") == []


def test_a_rating_can_be_changed_commented_and_withdrawn() -> None:
    heard: list[tuple[Any, Any]] = []
    chat = chat_with(on_feedback=lambda _message, rating, comment: heard.append((rating, comment)))
    chat.feedback("a2", "up")
    chat.feedback("a2", "down", "  It rains less than that.  ")
    assert rating_of(chat, "a2") == {"rating": "down", "comment": "It rains less than that."}
    chat.feedback("a2", "down", "It rains less than that.")  # said already: nothing new
    chat.feedback("a2", None, "ignored without a rating")
    assert rating_of(chat, "a2") is None and "metadata" not in chat.messages[3]
    assert heard == [("up", None), ("down", "It rains less than that."), (None, None)]


def test_the_producers_own_metadata_stays_beside_the_rating() -> None:
    own = [*TRANSCRIPT[:1], {**TRANSCRIPT[1], "metadata": {"model": "m1", "agui_widget": {"stopped": True}}}]
    chat = AgentChat(DemoAgent(delay=0), messages=own)
    chat.feedback("a1", "up", "fine")
    assert chat.messages[1]["metadata"] == {
        "model": "m1",
        "agui_widget": {"stopped": True, "feedback": {"rating": "up", "comment": "fine"}},
    }
    chat.feedback("a1", None)
    assert chat.messages[1]["metadata"] == {"model": "m1", "agui_widget": {"stopped": True}}


async def test_an_async_hook_is_awaited_on_the_kernels_loop() -> None:
    heard: list[Any] = []

    async def on_feedback(message: dict[str, Any], rating: str | None, comment: str | None) -> None:
        heard.append((message["id"], rating, comment))

    chat = chat_with(on_feedback=on_feedback)
    chat.view_says({"kind": "feedback", "messageId": "a1", "rating": "down", "comment": "wrong city"})
    await until(lambda: heard, what="the async hook ran")
    assert heard == [("a1", "down", "wrong city")]


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_failing_hook_is_logged_and_shown_and_the_rating_stands(
    asynchronous: bool, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_message: Any, _rating: Any, _comment: Any) -> None:
        raise LookupError("the metrics service is down")

    async def broken_later(_message: Any, _rating: Any, _comment: Any) -> None:
        raise LookupError("the metrics service is down")

    chat = chat_with(on_feedback=broken_later if asynchronous else broken)
    with caplog.at_level(logging.ERROR, logger="agui_widget"):
        chat.view_says({"kind": "feedback", "messageId": "a1", "rating": "up"})
        await until(lambda: chat.of_kind("notice"), what="the hook's failure is shown")
    (notice,) = chat.of_kind("notice")
    assert notice["level"] == "warning" and "on_feedback failed (LookupError: the metrics service is down)" in notice["text"]
    assert any("on_feedback" in record.getMessage() for record in caplog.records)
    assert rating_of(chat, "a1") == {"rating": "up"}
    chat.view_says({"kind": "feedback", "messageId": "a2", "rating": "down"})  # the chat goes on
    assert rating_of(chat, "a2") == {"rating": "down"}


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        ({"kind": "feedback", "messageId": "u1", "rating": "up"}, "only an assistant's answer is rated"),
        ({"kind": "feedback", "messageId": "nope", "rating": "up"}, "no message has id 'nope'"),
        ({"kind": "feedback", "messageId": "a1", "rating": "meh"}, "rating"),
        ({"kind": "feedback", "messageId": "a1"}, "rating"),
        ({"kind": "feedback", "messageId": "", "rating": "up"}, "messageId"),
        ({"kind": "feedback", "messageId": "a1", "rating": "up", "comment": "x" * (MAX_COMMENT + 1)}, "comment"),
        ({"kind": "feedback", "messageId": "a1", "rating": "up", "comment": 7}, "comment"),
    ],
)
def test_a_bad_request_is_refused_with_a_notice_and_changes_nothing(
    payload: dict[str, Any], says: str, caplog: pytest.LogCaptureFixture
) -> None:
    heard: list[Any] = []
    chat = chat_with(on_feedback=lambda *args: heard.append(args))
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.view_says(payload)
    (notice,) = chat.of_kind("notice")
    assert notice["text"].startswith("feedback: ") and says in notice["text"]
    assert chat.messages == TRANSCRIPT and heard == []
    assert any("feedback" in record.getMessage() for record in caplog.records)


def test_python_refuses_what_cannot_be_rated() -> None:
    chat = chat_with()
    with pytest.raises(KeyError, match="no message has id"):
        chat.feedback("nope", "up")
    with pytest.raises(ValueError, match="only an assistant's answer"):
        chat.feedback("u1", "up")
    with pytest.raises(ValueError, match="'up', 'down' or None"):
        chat.feedback("a1", "good")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"at most {MAX_COMMENT} characters"):
        chat.feedback("a1", "up", "x" * (MAX_COMMENT + 1))
    with pytest.raises(TypeError, match="on_feedback must be a function"):
        AgentChat(DemoAgent(delay=0), on_feedback="print")  # type: ignore[arg-type]
    assert chat.messages == TRANSCRIPT


async def test_an_answer_is_rated_once_the_run_is_over() -> None:
    chat = Captured(DemoAgent(delay=0.05), messages=TRANSCRIPT)
    run = chat.send("weather in Rome")
    chat.view_says({"kind": "feedback", "messageId": "a1", "rating": "up"})
    (notice,) = chat.of_kind("notice")
    assert "once the agent has finished answering" in notice["text"] and rating_of(chat, "a1") is None
    await run
    chat.view_says({"kind": "feedback", "messageId": chat.messages[-1]["id"], "rating": "up"})
    assert rating_of(chat, chat.messages[-1]["id"]) == {"rating": "up"}


async def test_the_rating_is_saved_with_the_thread_and_comes_back(tmp_path: Any) -> None:
    store = tmp_path / "threads.db"
    chat = AgentChat(DemoAgent(delay=0), store=store, thread_id="t1")
    await chat.send("weather in Paris")
    answer = next(m for m in chat.messages if m["role"] == "assistant" and m.get("content"))
    chat.feedback(answer["id"], "down", "too vague")
    chat.new_thread()
    chat.switch("t1")
    assert rating_of(chat, answer["id"]) == {"rating": "down", "comment": "too vague"}
    again = AgentChat(DemoAgent(delay=0), store=store, thread_id="t1")  # a reload of the notebook
    assert rating_of(again, answer["id"]) == {"rating": "down", "comment": "too vague"}


async def test_exports_and_the_next_runs_input_hold_the_rating() -> None:
    chat = AgentChat(DemoAgent(delay=0), messages=TRANSCRIPT)
    chat.feedback("a1", "up", "<b>spot on</b>\nthanks")
    chat.feedback("a2", "down")
    markdown = chat.to_markdown()
    assert "*Rated: 👍 good answer*\n> <\u200bb>spot on<\u200b/b> thanks" in markdown
    assert "*Rated: 👎 bad answer*" in markdown
    document = json.loads(chat.to_json())
    assert document["messages"][1]["metadata"]["agui_widget"]["feedback"] == {"rating": "up", "comment": "<b>spot on</b>\nthanks"}
    await chat.send("weather in Rome")
    recording = [json.loads(line) for line in chat.to_recording().splitlines()]
    (run,) = [line for line in recording if line["kind"] == "run"]
    sent = {m["id"]: m for m in run["input"]["messages"]}
    assert sent["a2"]["metadata"]["agui_widget"]["feedback"] == {"rating": "down"}
