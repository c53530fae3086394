"""Thread stores: what a record holds survives a reopen, across threads, and bad input loses nothing.

The contract runs against every store: memory, SQLite and PostgreSQL (a real server the session
starts, tests/postgres.py). PostgreSQL's rule for writers that save one thread at once (a save
never removes a message its writer has not seen) is tested at the end.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from agui_widget import AgentChat, MemoryThreadStore, SQLiteThreadStore, ThreadRecord, ThreadStore, open_store
from agui_widget.stores._postgres import PostgresThreadStore, merge_messages
from agui_widget.stores._store import SCHEMA_VERSION, title_of

from .live_server import closed_port

MESSAGES = [
    {"id": "u1", "role": "user", "content": "Plan a trip to Lisbon, please"},
    {"id": "a1", "role": "assistant", "content": "Sure — três dias?"},
]


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def store(request, tmp_path) -> Iterator[ThreadStore]:
    if request.param == "memory":
        yield MemoryThreadStore()
    elif request.param == "sqlite":
        yield SQLiteThreadStore(tmp_path / "chats.db")
    else:
        opened = PostgresThreadStore(request.getfixturevalue("postgres_dsn"))
        yield opened
        opened.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_store(request, tmp_path) -> Iterator[tuple[ThreadStore, object]]:
    """A store that outlives its objects, with how to open another object on the same threads."""
    if request.param == "sqlite":
        path = tmp_path / "chats.db"
        yield SQLiteThreadStore(path), lambda: SQLiteThreadStore(path)
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        opened: list[PostgresThreadStore] = []

        def another() -> PostgresThreadStore:
            opened.append(PostgresThreadStore(dsn))
            return opened[-1]

        yield another(), another
        for each in opened:
            each.close()


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


def test_a_state_that_is_not_json_is_refused_and_the_stored_record_stays(shared_store):
    store, _ = shared_store
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


def test_a_store_object_on_the_same_threads_sees_what_another_saved(shared_store):
    first, another = shared_store
    first.save(record("t1", "planner"))
    second = another()
    assert second.load("t1") == record("t1", "planner")
    second.delete("t1")
    assert first.load("t1") is None and first.list_threads() == []


def test_threads_are_listed_per_user(store):
    store.save(record("a1", "planner", updated_at=1.0, user="alice"))
    store.save(record("b1", "planner", updated_at=2.0, user="bob"))
    store.save(record("a2", "coder", updated_at=3.0, user="alice"))
    store.save(record("nobodys", "planner", updated_at=4.0))
    assert [r.thread_id for r in store.list_threads(user="alice")] == ["a2", "a1"]
    assert [r.thread_id for r in store.list_threads("planner", user="alice")] == ["a1"]
    assert [r.thread_id for r in store.list_threads(user="carol")] == []
    assert [r.thread_id for r in store.list_threads()] == ["nobodys", "a2", "b1", "a1"]
    assert store.load("a1").user == "alice" and store.load("nobodys").user is None


def test_the_first_owner_keeps_the_thread(store):
    from agui_widget import ThreadOwnedElsewhere

    store.save(record("t1", updated_at=1.0))  # nobody's yet (a notebook's chat, say)
    assert store.owner("t1") is None
    store.save(record("t1", updated_at=2.0, user="alice"))  # the first user to name it owns it
    taken = record("t1", updated_at=3.0, user="bob")
    taken.messages = [{"id": "u9", "role": "user", "content": "mine now"}]
    with pytest.raises(ThreadOwnedElsewhere, match="belongs to another user"):
        store.save(taken)
    assert store.load("t1") == record("t1", updated_at=2.0, user="alice")  # nothing of bob's was written
    store.save(record("t1", updated_at=4.0))  # a writer that names nobody keeps the owner
    assert store.owner("t1") == "alice" and store.owner("missing") is None
    assert isinstance(ThreadOwnedElsewhere("t1"), PermissionError)


def test_a_given_title_is_the_title_until_taken_back(store):
    store.save(record("t1", given_title="Lisbon ideas"))
    assert (store.load("t1").title, store.load("t1").given_title) == ("Lisbon ideas", "Lisbon ideas")
    store.save(record("t1"))  # a save that says nothing of it (a turn ending) keeps it
    assert (store.load("t1").title, store.load("t1").given_title) == ("Lisbon ideas", "Lisbon ideas")
    assert [r.title for r in store.list_threads()] == ["Lisbon ideas"]
    store.save(record("t1", given_title=""))  # taken back: the first user message's start again
    assert (store.load("t1").title, store.load("t1").given_title) == (title_of(MESSAGES), "")


def test_settings_and_branches_are_kept_until_a_save_gives_new_ones(store):
    branches = {"u1": [[{"id": "a0", "role": "assistant", "content": "An earlier answer"}]]}
    store.save(record("t1", settings={"model": "small", "temperature": 0.2}, branches=branches))
    store.save(record("t1"))  # None: keep what is stored
    loaded = store.load("t1")
    assert (loaded.settings, loaded.branches) == ({"model": "small", "temperature": 0.2}, branches)
    store.save(record("t1", settings={}, branches=[]))  # empty values replace them
    loaded = store.load("t1")
    assert (loaded.settings, loaded.branches) == ({}, [])
    assert (store.load("t1").settings, record("t2").settings) == ({}, None)


def test_a_second_version_sqlite_file_gains_titles_settings_and_branches(tmp_path):
    path = tmp_path / "v2.db"
    with sqlite3.connect(path) as db:
        db.execute(
            """CREATE TABLE threads (thread_id TEXT PRIMARY KEY, agent TEXT, title TEXT NOT NULL DEFAULT '',
               messages TEXT NOT NULL, state TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL,
               user_id TEXT)"""
        )
        db.execute("INSERT INTO threads VALUES ('old', NULL, 'Plan', '[]', '{}', 0, 1.0, 'alice')")
        db.execute("PRAGMA user_version = 2")
    store = SQLiteThreadStore(path)
    assert store.load("old") == ThreadRecord("old", None, [], {}, "Plan", 1.0, "alice")
    store.save(record("old", given_title="Renamed", settings={"model": "m"}))
    assert (store.load("old").title, store.load("old").settings, store.load("old").user) == ("Renamed", {"model": "m"}, "alice")


def test_a_first_version_sqlite_file_gains_owners_and_keeps_its_threads(tmp_path):
    path = tmp_path / "v1.db"
    with sqlite3.connect(path) as db:
        db.execute(
            """CREATE TABLE threads (thread_id TEXT PRIMARY KEY, agent TEXT, title TEXT NOT NULL DEFAULT '',
               messages TEXT NOT NULL, state TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL)"""
        )
        db.execute("INSERT INTO threads VALUES ('old', 'planner', 'Plan', '[]', '{}', 0, 1.0)")
        db.execute("PRAGMA user_version = 1")
    store = SQLiteThreadStore(path)
    assert store.load("old") == ThreadRecord("old", "planner", [], {}, "Plan", 1.0)
    store.save(record("old", user="alice"))
    assert [r.thread_id for r in store.list_threads(user="alice")] == ["old"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3


# PostgreSQL


def test_the_postgres_schema_is_created_on_first_use_and_versioned(postgres_dsn):
    import psycopg

    store = PostgresThreadStore(postgres_dsn, pool_size=2)
    store.save(record("t1"))
    again = PostgresThreadStore(postgres_dsn)  # the tables exist: nothing is created twice
    assert again.load("t1") == record("t1") and again.version("t1") == 1 and again.version("nope") == 0
    with psycopg.connect(postgres_dsn) as db:
        assert db.execute("SELECT version FROM agui_schema").fetchall() == [(SCHEMA_VERSION,)]
    store.close()
    again.close()


def test_workers_starting_together_create_the_schema_once(postgres_dsn):
    stores: list[PostgresThreadStore] = []
    failures: list[BaseException] = []

    def start() -> None:
        try:
            stores.append(PostgresThreadStore(postgres_dsn, pool_size=1))
        except BaseException as exc:  # reported below
            failures.append(exc)

    workers = [threading.Thread(target=start) for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == [] and len(stores) == 6
    for store in stores:
        store.close()


def test_a_first_version_postgres_database_gains_owners_and_keeps_its_threads(postgres_dsn):
    import psycopg

    with psycopg.connect(postgres_dsn) as db:
        db.execute("CREATE TABLE agui_schema (only_row BOOLEAN PRIMARY KEY DEFAULT TRUE, version INTEGER NOT NULL)")
        db.execute("INSERT INTO agui_schema (version) VALUES (1)")
        db.execute(
            """CREATE TABLE agui_threads (thread_id TEXT PRIMARY KEY, agent TEXT, title TEXT NOT NULL DEFAULT '',
               messages JSON NOT NULL, state JSON NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
               updated_at DOUBLE PRECISION NOT NULL, version BIGINT NOT NULL DEFAULT 1)"""
        )
        db.execute("""INSERT INTO agui_threads VALUES ('old', 'planner', 'Plan', '[]', '{}', 0, 1.0, 1)""")
    store = PostgresThreadStore(postgres_dsn)
    assert store.load("old") == ThreadRecord("old", "planner", [], {}, "Plan", 1.0)
    store.save(record("old", user="alice"))
    assert [r.thread_id for r in store.list_threads(user="alice")] == ["old"]
    with psycopg.connect(postgres_dsn) as db:
        assert db.execute("SELECT version FROM agui_schema").fetchall() == [(SCHEMA_VERSION,)] == [(3,)]
    store.close()


def test_a_second_version_postgres_database_gains_titles_settings_and_branches(postgres_dsn):
    import psycopg

    with psycopg.connect(postgres_dsn) as db:
        db.execute("CREATE TABLE agui_schema (only_row BOOLEAN PRIMARY KEY DEFAULT TRUE, version INTEGER NOT NULL)")
        db.execute("INSERT INTO agui_schema (version) VALUES (2)")
        db.execute(
            """CREATE TABLE agui_threads (thread_id TEXT PRIMARY KEY, agent TEXT, title TEXT NOT NULL DEFAULT '',
               messages JSON NOT NULL, state JSON NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
               updated_at DOUBLE PRECISION NOT NULL, version BIGINT NOT NULL DEFAULT 1, user_id TEXT)"""
        )
        db.execute("""INSERT INTO agui_threads VALUES ('old', NULL, 'Plan', '[]', '{}', 0, 1.0, 1, 'alice')""")
    store = PostgresThreadStore(postgres_dsn)
    assert store.load("old") == ThreadRecord("old", None, [], {}, "Plan", 1.0, "alice")
    store.save(record("old", given_title="Renamed", branches={"u1": []}))
    loaded = store.load("old")
    assert (loaded.title, loaded.branches, loaded.user) == ("Renamed", {"u1": []}, "alice")
    with psycopg.connect(postgres_dsn) as db:
        assert db.execute("SELECT version FROM agui_schema").fetchall() == [(3,)]
    store.close()


def test_a_database_of_a_newer_schema_is_refused_with_what_to_do(postgres_dsn):
    import psycopg

    with psycopg.connect(postgres_dsn) as db:
        db.execute("CREATE TABLE agui_schema (only_row BOOLEAN PRIMARY KEY DEFAULT TRUE, version INTEGER NOT NULL)")
        db.execute("INSERT INTO agui_schema (version) VALUES (%s)", (SCHEMA_VERSION + 1,))
    with pytest.raises(RuntimeError, match=rf"newer agui-widget \(schema {SCHEMA_VERSION + 1}.*upgrade agui-widget"):
        PostgresThreadStore(postgres_dsn)


def test_a_number_json_has_no_word_for_is_refused_and_the_stored_record_stays(postgres_dsn):
    store = PostgresThreadStore(postgres_dsn)
    store.save(record("t1"))
    bad = record("t1", updated_at=5.0)
    bad.state = {"score": math.nan}
    with pytest.raises(ValueError, match="JSON cannot write"):
        store.save(bad)
    assert store.load("t1") == record("t1")
    store.close()


def test_text_postgres_cannot_hold_as_is_round_trips(postgres_dsn):
    store = PostgresThreadStore(postgres_dsn)
    odd = record("t1")
    odd.messages = [{"id": "u", "role": "user", "content": "nul\x00 half\ud83d emoji😀 ü"}]
    odd.state = {"\x00": ["ß", None, 1.5, True]}
    store.save(odd)
    assert store.load("t1") == odd
    store.close()


def test_an_unreachable_server_is_a_clear_error_and_the_password_is_not_shown():
    import psycopg

    with pytest.raises(psycopg.OperationalError, match=r"127\.0\.0\.1"):
        PostgresThreadStore(f"postgresql://me:secret@127.0.0.1:{closed_port()}/db", timeout=2)
    store = object.__new__(PostgresThreadStore)
    store.dsn = "postgresql://me:secret@db.example:5432/chats"
    assert "secret" not in repr(store) and "db.example" in repr(store)


def test_open_store_takes_a_postgresql_url(postgres_dsn):
    for url in (postgres_dsn, postgres_dsn.replace("postgresql://", "postgres://")):
        store = open_store(url)
        assert isinstance(store, PostgresThreadStore)
        store.save(record("t1"))
        assert open_store(store) is store
        store.close()


def test_without_psycopg_a_postgresql_url_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg_pool", None)  # as if the extra were not installed
    with pytest.raises(ImportError, match=r'pip install "agui-widget\[postgres\]"'):
        open_store("postgresql://127.0.0.1/chats")


def test_psycopg_is_imported_only_for_a_postgresql_store(tmp_path):
    code = (
        "import sys, agui_widget\n"
        f"agui_widget.open_store(None), agui_widget.open_store({str(tmp_path / 'chats.db')!r})\n"
        "assert not [m for m in sys.modules if m.startswith(('psycopg', 'agui_widget.stores._postgres'))]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_pool_serves_more_threads_than_it_has_connections(postgres_dsn):
    store = PostgresThreadStore(postgres_dsn, pool_size=2)
    failures: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(15):
                store.save(record(f"t{n}-{i}", f"agent{n}", updated_at=float(i)))
                assert store.load(f"t{n}-{i}") is not None
        except BaseException as exc:  # reported below
            failures.append(exc)

    workers = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []
    assert len(store.list_threads()) == 120 and len(store.list_threads("agent3")) == 15
    store.close()


def turn(writer: str, i: int) -> list[dict[str, str]]:
    return [
        {"id": f"{writer}-u{i}", "role": "user", "content": f"{writer} asks {i}"},
        {"id": f"{writer}-a{i}", "role": "assistant", "content": f"answer {i} to {writer}"},
    ]


def run_together(*writers) -> None:
    failures: list[BaseException] = []
    start = threading.Barrier(len(writers))

    def run(job) -> None:
        try:
            start.wait()
            job()
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(job,)) for job in writers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


TURNS = 25


def test_two_store_objects_loading_and_saving_one_thread_at_once_lose_no_turn(postgres_dsn):
    stores = [PostgresThreadStore(postgres_dsn), PostgresThreadStore(postgres_dsn)]
    stores[0].save(ThreadRecord("shared", None, MESSAGES, {}, "", 1.0))

    def writer(name: str, store: PostgresThreadStore):
        def job() -> None:
            for i in range(TURNS):
                loaded = store.load("shared")
                store.save(ThreadRecord.now("shared", None, [*loaded.messages, *turn(name, i)], {"last": name}))

        return job

    run_together(writer("a", stores[0]), writer("b", stores[1]))
    saved = stores[0].load("shared")
    ids = [m["id"] for m in saved.messages]
    assert len(ids) == len(set(ids)) == len(MESSAGES) + 4 * TURNS
    for name in "ab":  # each writer's turns, whole and in its order
        assert [i for i in ids if i.startswith(f"{name}-")] == [m["id"] for i in range(TURNS) for m in turn(name, i)]
    assert stores[1].version("shared") == 1 + 2 * TURNS
    for store in stores:
        store.close()


def test_two_chats_that_never_reload_keep_each_others_turns(postgres_dsn):
    """As two notebooks continuing one thread do: each keeps its own transcript and saves it whole."""
    stores = [PostgresThreadStore(postgres_dsn), PostgresThreadStore(postgres_dsn)]

    def writer(name: str, store: PostgresThreadStore):
        def job() -> None:
            transcript = list(store.load("shared").messages) if store.load("shared") else []
            for i in range(TURNS):
                transcript += turn(name, i)
                store.save(ThreadRecord.now("shared", None, transcript, {}))

        return job

    run_together(writer("a", stores[0]), writer("b", stores[1]))
    ids = [m["id"] for m in stores[0].load("shared").messages]
    assert sorted(ids) == sorted(m["id"] for name in "ab" for i in range(TURNS) for m in turn(name, i))
    for store in stores:
        store.close()


def test_writers_sharing_one_store_object_say_what_they_had_seen(postgres_dsn):
    store = PostgresThreadStore(postgres_dsn, pool_size=2)

    def writer(name: str):
        def job() -> None:
            for i in range(TURNS):
                loaded = store.load("shared") or ThreadRecord("shared")
                mine = ThreadRecord.now("shared", None, [*loaded.messages, *turn(name, i)], {})
                store.save(mine, seen=loaded)

        return job

    run_together(writer("a"), writer("b"))
    assert len(store.load("shared").messages) == 4 * TURNS
    store.close()


def test_a_writer_still_removes_what_it_has_seen(postgres_dsn):
    """A clear, a regenerated answer or an edit sticks; only messages the writer never had stay."""
    mine, other = PostgresThreadStore(postgres_dsn), PostgresThreadStore(postgres_dsn)
    mine.save(ThreadRecord.now("t", None, turn("a", 0) + turn("a", 1), {}))
    regenerated = [
        *turn("a", 0),
        {"id": "a-u1", "role": "user", "content": "again"},
        {"id": "new", "role": "assistant", "content": "better"},
    ]
    mine.save(ThreadRecord.now("t", None, regenerated, {}))
    assert other.load("t").messages == regenerated
    other.save(ThreadRecord.now("t", None, [*regenerated, *turn("b", 0)], {}))  # meanwhile, another worker
    mine.save(ThreadRecord.now("t", None, turn("a", 0), {}), seen=regenerated)  # an edit: drops the tail it had
    assert [m["id"] for m in mine.load("t").messages] == ["a-u0", "a-a0", "b-u0", "b-a0"]
    mine.save(ThreadRecord.now("t", None, [], {}))  # it has just loaded everything: a clear empties the thread
    assert mine.load("t").messages == [] and mine.load("t").title == ""
    mine.close()
    other.close()


def test_kept_messages_follow_the_message_they_followed():
    stored = [{"id": "p"}, {"id": "x1"}, {"id": "x2"}, {"id": "q"}]
    assert merge_messages(stored, [{"id": "p"}, {"id": "y"}], frozenset()) == [
        {"id": "p"},
        {"id": "x1"},
        {"id": "x2"},
        {"id": "q"},
        {"id": "y"},
    ]
    assert merge_messages(stored, [{"id": "p"}, {"id": "y"}], frozenset({"q"})) == [
        {"id": "p"},
        {"id": "x1"},
        {"id": "x2"},
        {"id": "y"},
    ]
    assert merge_messages([{"id": "x"}], [{"id": "y"}], frozenset()) == [{"id": "x"}, {"id": "y"}]  # two new threads
    mine = [{"id": "p", "content": "edited"}]
    assert merge_messages([{"id": "p", "content": "old"}, {"role": "user"}], mine, frozenset()) is mine  # no id: not kept


async def echo(messages):
    return f"echo: {messages[-1]['content']}"


async def test_a_chat_continues_a_thread_from_the_postgres_store(postgres_dsn):
    chat = AgentChat(echo, thread_id="lesson-1", store=postgres_dsn, state={"step": 1})
    assert isinstance(chat.store, PostgresThreadStore)
    await chat.send("hello")
    chat.update_state(step=2)
    await asyncio.sleep(0)  # changes outside runs are saved once the loop turns
    again = AgentChat(echo, thread_id="lesson-1", store=postgres_dsn)
    assert [(m["role"], m["content"]) for m in again.messages] == [("user", "hello"), ("assistant", "echo: hello")]
    assert again.state == {"step": 2}
    await again.send("more")
    await chat.send("from the first chat")  # both chats continue the thread: no turn is lost
    stored = again.store.load("lesson-1")
    assert [m["content"] for m in stored.messages] == [
        "hello",
        "echo: hello",
        "more",
        "echo: more",
        "from the first chat",
        "echo: from the first chat",
    ]
    assert [t["thread_id"] for t in again.threads()] == ["lesson-1"]
    chat.messages = chat.messages[:1]  # a deliberate change of the first chat's own transcript sticks
    await asyncio.sleep(0)
    assert [m["content"] for m in again.store.load("lesson-1").messages] == ["hello", "more", "echo: more"]
    chat.clear()
    again.clear()
    await asyncio.sleep(0)
    assert again.store.load("lesson-1").messages == []
    for each in (chat, again):
        each.store.close()


def test_a_restarted_server_costs_a_reconnect_not_a_failed_save(postgres_dsn):
    import psycopg

    store = PostgresThreadStore(postgres_dsn, pool_size=2)
    store.save(record("t1"))
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:  # what a restart does to the pool's connections
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    store.save(record("t2"))
    assert sorted(r.thread_id for r in store.list_threads()) == ["t1", "t2"]
    store.close()


def test_without_postgresql_installed_the_session_fails_saying_how_to_install_it(monkeypatch):
    from . import postgres

    monkeypatch.setattr(postgres.glob, "glob", lambda pattern: [])  # as on a machine without the package
    with pytest.raises(pytest.fail.Exception, match=r"make test-deps .*apt-get install -y postgresql"):
        postgres.postgres_bin()
