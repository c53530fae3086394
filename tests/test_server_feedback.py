"""``POST {path}feedback``: a served client rates an answer (thumbs up or down, a comment). With a
thread store the rating is saved into the stored thread's message metadata, as a notebook's chat
keeps it; under ``auth`` only into the caller's own threads; ``on_feedback`` is told (awaited; a
failing hook is logged and the rating stands). Bad input gets a 4xx naming the fault, never a 5xx."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from agui_widget import MemoryThreadStore, SQLiteThreadStore
from agui_widget.adapters import DemoAgent
from agui_widget.server import create_app
from agui_widget.stores._store import ThreadRecord
from agui_widget.vocabulary._feedback import MAX_COMMENT, feedback_of

from .support import make_input, text_of, user
from .test_server import body, parse_sse
from .test_server_auth import TOKENS, bearer, client_of

TRANSCRIPT = [
    {"id": "u1", "role": "user", "content": "weather in Paris?"},
    {"id": "a1", "role": "assistant", "content": "Sunny, 21°C.", "metadata": {"model": "m1"}},
]


def stored(user: str | None = None) -> MemoryThreadStore:
    store = MemoryThreadStore()
    store.save(ThreadRecord.now("t1", "demo", TRANSCRIPT, {}, user))
    return store


def answer_in(store: Any, thread_id: str = "t1", message_id: str = "a1") -> dict[str, Any]:
    return next(m for m in store.load(thread_id).messages if m["id"] == message_id)


async def test_a_rating_is_saved_into_the_stored_answer_and_the_hook_is_told() -> None:
    heard: list[Any] = []
    store = stored()
    app = create_app(DemoAgent(delay=0), store=store, on_feedback=lambda *args: heard.append(args))
    async with client_of(app) as client:
        response = await client.post(
            "/feedback", json={"threadId": "t1", "messageId": "a1", "rating": "down", "comment": " too warm "}
        )
        assert response.status_code == 200
        assert response.json() == {"threadId": "t1", "messageId": "a1", "rating": "down", "comment": "too warm", "saved": True}
        assert answer_in(store)["metadata"] == {
            "model": "m1",
            "agui_widget": {"feedback": {"rating": "down", "comment": "too warm"}},
        }
        ((message, rating, comment),) = heard
        assert message["id"] == "a1" and feedback_of(message) == {"rating": "down", "comment": "too warm"}
        assert (rating, comment) == ("down", "too warm")
        thread = (await client.get("/threads/t1")).json()
        assert feedback_of(thread["messages"][1]) == {"rating": "down", "comment": "too warm"}, "a client reading it back sees it"
        withdrawn = await client.post("/feedback", json={"threadId": "t1", "messageId": "a1", "rating": None})
        assert withdrawn.status_code == 200 and answer_in(store)["metadata"] == {"model": "m1"}


async def test_a_rated_answer_of_a_served_run_is_saved_in_sqlite(tmp_path: Any) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    app = create_app(DemoAgent(delay=0), store=store)
    run_input = make_input([user("weather in Rome")])
    async with client_of(app) as client:
        streamed = await client.post("/", json=body(run_input), headers={"accept": "text/event-stream"})
        assert "Rome" in text_of(parse_sse(streamed.text))
        saved = store.load(run_input.thread_id)
        assert saved is not None
        answer = next(m for m in saved.messages if m["role"] == "assistant" and m.get("content"))
        response = await client.post(
            "/feedback", json={"threadId": run_input.thread_id, "messageId": answer["id"], "rating": "up"}
        )
    assert response.status_code == 200
    assert feedback_of(answer_in(store, run_input.thread_id, answer["id"])) == {"rating": "up"}


async def test_without_a_store_the_hook_alone_hears_of_it_with_the_thread_and_user() -> None:
    heard: list[Any] = []

    async def on_feedback(
        message: dict[str, Any], rating: str | None, comment: str | None, *, thread_id: str, user: str | None
    ) -> None:
        heard.append((message, rating, comment, thread_id, user))

    app = create_app(DemoAgent(delay=0), auth=TOKENS, on_feedback=on_feedback)
    async with client_of(app) as client:
        payload = {"threadId": "t9", "messageId": "m9", "rating": "up", "comment": "great"}
        response = await client.post("/feedback", json=payload, headers=bearer(TOKENS["alice"]))
    assert response.status_code == 200 and response.json()["saved"] is False
    assert heard == [
        (
            {"id": "m9", "metadata": {"agui_widget": {"feedback": {"rating": "up", "comment": "great"}}}},
            "up",
            "great",
            "t9",
            "alice",
        )
    ]


async def test_no_store_and_no_hook_means_no_route() -> None:
    async with client_of(create_app(DemoAgent(delay=0))) as client:
        assert (await client.post("/feedback", json={"threadId": "t1", "messageId": "a1", "rating": "up"})).status_code == 404


async def test_under_auth_only_the_callers_own_threads_are_rated() -> None:
    store = stored(user="alice")
    heard: list[Any] = []
    app = create_app(DemoAgent(delay=0), auth=TOKENS, store=store, on_feedback=lambda *args: heard.append(args))
    payload = {"threadId": "t1", "messageId": "a1", "rating": "up"}
    async with client_of(app) as client:
        assert (await client.post("/feedback", json=payload)).status_code == 401
        refused = await client.post("/feedback", json=payload, headers=bearer(TOKENS["bob"]))
        assert refused.status_code == 403 and "another user" in refused.json()["detail"]
        assert feedback_of(answer_in(store)) is None and heard == []
        allowed = await client.post("/feedback", json=payload, headers=bearer(TOKENS["alice"]))
    assert allowed.status_code == 200 and feedback_of(answer_in(store)) == {"rating": "up"} and len(heard) == 1


async def test_a_failing_hook_is_logged_and_the_rating_stands(caplog: pytest.LogCaptureFixture) -> None:
    async def broken(*_args: Any) -> None:
        raise LookupError("the metrics service is down")

    store = stored()
    app = create_app(DemoAgent(delay=0), store=store, on_feedback=broken)
    with caplog.at_level(logging.ERROR, logger="agui_widget"):
        async with client_of(app) as client:
            response = await client.post("/feedback", json={"threadId": "t1", "messageId": "a1", "rating": "up"})
    assert response.status_code == 200 and response.json()["hookFailed"] is True
    assert feedback_of(answer_in(store)) == {"rating": "up"}
    assert any("on_feedback" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("payload", "status", "says"),
    [
        ({"threadId": "nope", "messageId": "a1", "rating": "up"}, 404, "No saved thread 'nope'"),
        ({"threadId": "t1", "messageId": "nope", "rating": "up"}, 404, "has no message 'nope'"),
        ({"threadId": "t1", "messageId": "u1", "rating": "up"}, 422, "only an assistant's answer is rated"),
        ({"threadId": "t1", "messageId": "a1", "rating": "meh"}, 422, "rating"),
        ({"threadId": "t1", "messageId": "a1"}, 422, "rating"),
        ({"threadId": "", "messageId": "a1", "rating": "up"}, 422, "threadId"),
        ({"threadId": "t1", "messageId": "a1", "rating": "up", "comment": "x" * (MAX_COMMENT + 1)}, 422, "comment"),
        ({"threadId": "t1", "messageId": "a1", "rating": "up", "comment": "\ud83d"}, 422, "lone UTF-16 surrogate"),
        (["not", "an", "object"], 422, "not valid feedback"),
    ],
)
async def test_bad_input_gets_a_4xx_naming_the_fault_and_changes_nothing(payload: Any, status: int, says: str) -> None:
    heard: list[Any] = []
    store = stored()
    app = create_app(DemoAgent(delay=0), store=store, on_feedback=lambda *args: heard.append(args))
    async with client_of(app) as client:
        # escaped as JSON travels (a lone surrogate cannot be UTF-8)
        response = await client.post("/feedback", content=json.dumps(payload), headers={"content-type": "application/json"})
    assert response.status_code == status and says in response.json()["detail"]
    assert answer_in(store) == TRANSCRIPT[1] and heard == []


async def test_a_body_that_is_not_json_or_too_large_is_refused() -> None:
    app = create_app(DemoAgent(delay=0), store=stored())
    async with client_of(app) as client:
        not_json = await client.post("/feedback", content=b"{not json", headers={"content-type": "application/json"})
        huge = await client.post("/feedback", content=b'{"comment": "' + b"x" * 20_000 + b'"}')
    assert not_json.status_code == 400 and "not JSON" in not_json.json()["detail"]
    assert huge.status_code == 413 and "at most" in huge.json()["detail"]


async def test_a_store_that_fails_is_a_503_not_a_crash(caplog: pytest.LogCaptureFixture) -> None:
    class FailingStore(MemoryThreadStore):
        def save(self, record: ThreadRecord) -> None:
            if feedback_of(record.messages[-1]) is not None:
                raise OSError("disk full")
            super().save(record)

    store = FailingStore()
    store.save(ThreadRecord.now("t1", "demo", TRANSCRIPT, {}))
    app = create_app(DemoAgent(delay=0), store=store)
    with caplog.at_level(logging.ERROR, logger="agui_widget"):
        async with client_of(app) as client:
            response = await client.post("/feedback", json={"threadId": "t1", "messageId": "a1", "rating": "up"})
    assert response.status_code == 503 and "could not be saved" in response.json()["detail"]
