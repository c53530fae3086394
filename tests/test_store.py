"""Thread stores: what a record holds survives a reopen, across threads, and bad input loses nothing."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from agui_widget import MemoryThreadStore, SQLiteThreadStore, ThreadRecord, ThreadStore, open_store
from agui_widget._store import SCHEMA_VERSION, title_of

MESSAGES = [
    {"id": "u1", "role": "user", "content": "Plan a trip to Lisbon, please"},
    {"id": "a1", "role": "assistant", "content": "Sure — três dias?"},
]


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path) -> ThreadStore:
    return MemoryThreadStore() if request.param == "memory" else SQLiteThreadStore(tmp_path / "chats.db")


def record(thread_id: str, agent: str | None = None, updated_at: float = 1.0, **extra) -> ThreadRecord:
    return ThreadRecord(thread_id, agent, list(MESSAGES), {"city": "Lisbon", "days": [1, 2]}, "Plan a trip", updated_at, **extra)


def test_a_saved_record_loads_back_equal(store):
    store.save(record("t1", "planner"))
    assert store.load("t1") == record("t1", "planner")
    assert store.load("missing") is None


def test_saving_again_replaces_the_record(store):
    store.save(record("t1"))
    changed = record("t1", updated_at=2.0)
    changed.messages = MESSAGES[:1]
    store.save(changed)
    assert store.load("t1").messages == MESSAGES[:1]
    assert [r.thread_id for r in store.list_threads()] == ["t1"]


def test_threads_are_listed_newest_first_and_by_agent(store):
    store.save(record("old", "planner", updated_at=1.0))
    store.save(record("new", "planner", updated_at=3.0))
    store.save(record("other", "coder", updated_at=2.0))
    assert [r.thread_id for r in store.list_threads()] == ["new", "other", "old"]
    assert [r.thread_id for r in store.list_threads("planner")] == ["new", "old"]
    assert [r.thread_id for r in store.list_threads("nobody")] == []


def test_delete_removes_one_thread(store):
    store.save(record("a"))
    store.save(record("b"))
    store.delete("a")
    store.delete("never-there")
    assert store.load("a") is None and store.load("b") is not None


def test_a_loaded_record_is_the_callers_own_copy(store):
    store.save(record("t1"))
    loaded = store.load("t1")
    loaded.messages.append({"id": "x", "role": "user", "content": "not saved"})
    loaded.state["city"] = "Porto"
    assert store.load("t1") == record("t1")


def test_a_record_without_a_thread_id_is_refused(store):
    with pytest.raises(ValueError, match="thread_id"):
        store.save(ThreadRecord("", None, [], {}, "", 0.0))


def test_a_state_that_is_not_json_is_refused_and_the_stored_record_stays(tmp_path):
    store = SQLiteThreadStore(tmp_path / "chats.db")
    store.save(record("t1"))
    bad = record("t1", updated_at=5.0)
    bad.state = {"when": object()}
    with pytest.raises(TypeError):
        store.save(bad)
    assert store.load("t1") == record("t1")


def test_the_sqlite_file_survives_a_new_store_object_and_uses_wal(tmp_path):
    path = tmp_path / "chats.db"
    first = SQLiteThreadStore(path)
    first.save(record("t1", "planner"))
    first.close()
    again = SQLiteThreadStore(str(path))
    assert again.load("t1") == record("t1", "planner")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_file_from_a_newer_schema_is_refused_with_what_to_do(tmp_path):
    path = tmp_path / "future.db"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="upgrade agui-widget"):
        SQLiteThreadStore(path)


def test_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="folder does not exist"):
        SQLiteThreadStore(tmp_path / "nowhere" / "chats.db")


def test_threads_of_the_process_each_use_the_store_safely(tmp_path):
    store = SQLiteThreadStore(tmp_path / "chats.db")
    failures: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(20):
                store.save(record(f"t{n}-{i}", f"agent{n}", updated_at=float(i)))
                assert store.load(f"t{n}-{i}") is not None
        except BaseException as exc:  # reported below
            failures.append(exc)

    workers = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []
    assert len(store.list_threads()) == 80 and len(store.list_threads("agent2")) == 20


def test_open_store_takes_none_a_path_or_a_store(tmp_path):
    assert isinstance(open_store(None), MemoryThreadStore)
    assert isinstance(open_store(tmp_path / "a.db"), SQLiteThreadStore)
    assert isinstance(open_store(str(tmp_path / "b.db")), SQLiteThreadStore)
    mine = MemoryThreadStore()
    assert open_store(mine) is mine
    with pytest.raises(TypeError, match="no load, save, list_threads, delete"):
        open_store(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="file path"):
        open_store("")


def test_the_title_is_the_first_user_message_on_one_line():
    assert title_of(MESSAGES) == "Plan a trip to Lisbon, please"
    assert title_of([{"id": "s", "role": "system", "content": "be brief"}]) == ""
    parts = [{"id": "u", "role": "user", "content": [{"type": "text", "text": "look\nat"}, {"type": "image", "source": {}}]}]
    assert title_of(parts) == "look at"
    long = title_of([{"id": "u", "role": "user", "content": "x" * 200}])
    assert len(long) == 80 and long.endswith("…")


def test_connections_of_ended_threads_are_closed(tmp_path):
    store = SQLiteThreadStore(tmp_path / "chats.db")
    worker = threading.Thread(target=lambda: store.save(record("from-a-thread")))
    worker.start()
    worker.join()
    assert worker in store._connections
    store.load("from-a-thread")  # this thread's own connection already exists: nothing pruned yet
    other = threading.Thread(target=lambda: store.load("from-a-thread"))
    other.start()
    other.join()
    assert worker not in store._connections and store.load("from-a-thread") is not None


def test_an_in_memory_sqlite_store_is_one_database_for_every_thread():
    store = SQLiteThreadStore(":memory:")
    store.save(record("t1"))
    seen: list[ThreadRecord | None] = []
    worker = threading.Thread(target=lambda: (store.save(record("t2", updated_at=2.0)), seen.append(store.load("t1"))))
    worker.start()
    worker.join()
    assert seen == [record("t1")]
    assert [r.thread_id for r in store.list_threads()] == ["t2", "t1"]
    store.close()
    assert store.load("t1") is None and store.list_threads() == []  # reopened: empty, and usable
