"""A served app's saved threads are renamed (``PATCH {path}threads/{id}``) and deleted (``DELETE
{path}threads/{id}``) as a notebook's chat renames and deletes them: with ``auth``, only the
caller's own (another user's is a 403, as reading it is), in every store; a thread the store does
not hold is a 404 and a bad title a 422, and neither changes anything."""

from __future__ import annotations

from typing import Any

import pytest

from agui_widget import MemoryThreadStore
from agui_widget.adapters import DemoAgent
from agui_widget.server import create_app

from .support import make_input, user
from .test_server import body
from .test_server_auth import TOKENS, bearer, client_of, fresh_input


def listing(response: Any) -> dict[str, str]:
    return {t["threadId"]: t["title"] for t in response.json()["threads"]}


async def test_a_user_renames_and_deletes_their_own_threads_and_not_anothers(thread_store: Any) -> None:
    app = create_app(DemoAgent(delay=0), auth=TOKENS, store=thread_store)
    alices, more, bobs = fresh_input("add buy milk"), fresh_input("add walk dog"), fresh_input("add call mum")
    async with client_of(app) as client:
        for run, who in ((alices, "alice"), (more, "alice"), (bobs, "bob")):
            assert (await client.post("/", json=body(run), headers=bearer(TOKENS[who]))).status_code == 200
        before = thread_store.load(alices.thread_id)
        renamed = await client.patch(
            f"/threads/{alices.thread_id}", json={"title": "  Groceries\n"}, headers=bearer(TOKENS["alice"])
        )
        refused_rename = await client.patch(f"/threads/{alices.thread_id}", json={"title": "Mine"}, headers=bearer(TOKENS["bob"]))
        refused_delete = await client.delete(f"/threads/{alices.thread_id}", headers=bearer(TOKENS["bob"]))
        deleted = await client.delete(f"/threads/{more.thread_id}", headers=bearer(TOKENS["alice"]))
        alice_list = await client.get("/threads", headers=bearer(TOKENS["alice"]))
        bob_list = await client.get("/threads", headers=bearer(TOKENS["bob"]))
        gone = await client.get(f"/threads/{more.thread_id}", headers=bearer(TOKENS["alice"]))
        taken_back = await client.patch(f"/threads/{alices.thread_id}", json={"title": ""}, headers=bearer(TOKENS["alice"]))
    assert renamed.status_code == 200 and renamed.json()["title"] == "Groceries" and renamed.json()["named"] is True
    assert refused_rename.status_code == 403 and "another user" in refused_rename.json()["detail"]
    assert refused_delete.status_code == 403
    assert deleted.status_code == 204 and gone.status_code == 404
    assert listing(alice_list) == {alices.thread_id: "Groceries"}, "a rename shows in the listing, a delete leaves it"
    assert listing(bob_list) == {bobs.thread_id: "add call mum"}
    after = thread_store.load(alices.thread_id)
    assert after.messages == before.messages and after.updated_at == pytest.approx(before.updated_at), "only the title"
    assert taken_back.json()["title"] == "add buy milk" and taken_back.json()["named"] is False


async def test_a_rename_survives_the_next_run_of_the_thread(thread_store: Any) -> None:
    app = create_app(DemoAgent(delay=0), store=thread_store)
    first = fresh_input("add buy milk")
    async with client_of(app) as client:
        await client.post("/", json=body(first), headers={"accept": "text/event-stream"})
        await client.patch(f"/threads/{first.thread_id}", json={"title": "Groceries"})
        saved = (await client.get(f"/threads/{first.thread_id}")).json()
        more = make_input([*saved["messages"], user("add eggs")], state=saved["state"])
        more = more.model_copy(update={"thread_id": first.thread_id})
        await client.post("/", json=body(more), headers={"accept": "text/event-stream"})
        listed = await client.get("/threads")
    assert listing(listed) == {first.thread_id: "Groceries"}
    assert len(thread_store.load(first.thread_id).messages) > len(saved["messages"])


@pytest.mark.parametrize(
    ("method", "payload", "status", "said"),
    [
        ("patch", {"title": "x" * 201}, 422, "at most 200"),
        ("patch", {}, 422, "title"),
        ("patch", {"title": 7}, 422, "title"),
        ("patch", b'{"title": "\\ud800"}', 422, "surrogate"),
    ],
)
async def test_bad_input_is_a_4xx_naming_the_fault_and_changes_nothing(method: str, payload: Any, status: int, said: str) -> None:
    store = MemoryThreadStore()
    app = create_app(DemoAgent(delay=0), store=store)
    first = fresh_input("add buy milk")
    async with client_of(app) as client:
        await client.post("/", json=body(first), headers={"accept": "text/event-stream"})
        raw = (
            {"content": payload, "headers": {"content-type": "application/json"}}
            if isinstance(payload, bytes)
            else {"json": payload}
        )
        response = await client.request(method.upper(), f"/threads/{first.thread_id}", **raw)
    assert response.status_code == status and said in str(response.json()["detail"])
    assert store.load(first.thread_id).title == "add buy milk"


async def test_an_unknown_thread_is_a_404_and_a_body_that_is_not_json_a_4xx() -> None:
    app = create_app(DemoAgent(delay=0), store=MemoryThreadStore())
    async with client_of(app) as client:
        assert (await client.patch("/threads/nope", json={"title": "x"})).status_code == 404
        assert (await client.delete("/threads/nope")).status_code == 404
        broken = await client.patch("/threads/nope", content=b"{not json", headers={"content-type": "application/json"})
    assert 400 <= broken.status_code < 500


async def test_with_auth_a_thread_of_nobody_is_not_the_callers_to_change() -> None:
    store = MemoryThreadStore()
    app = create_app(DemoAgent(delay=0), store=store)  # a first app, without auth, saved it as nobody's
    first = fresh_input("add buy milk")
    async with client_of(app) as client:
        await client.post("/", json=body(first), headers={"accept": "text/event-stream"})
    guarded = create_app(DemoAgent(delay=0), auth=TOKENS, store=store)
    async with client_of(guarded) as client:
        renamed = await client.patch(f"/threads/{first.thread_id}", json={"title": "x"}, headers=bearer(TOKENS["alice"]))
        deleted = await client.delete(f"/threads/{first.thread_id}", headers=bearer(TOKENS["alice"]))
    assert renamed.status_code == 403 and deleted.status_code == 403
    assert store.load(first.thread_id) is not None and store.load(first.thread_id).title == "add buy milk"


async def test_without_a_store_there_is_nothing_to_rename_or_delete() -> None:
    app = create_app(DemoAgent(delay=0))
    async with client_of(app) as client:
        assert (await client.patch("/threads/t", json={"title": "x"})).status_code in (404, 405)
        assert (await client.delete("/threads/t")).status_code in (404, 405)
