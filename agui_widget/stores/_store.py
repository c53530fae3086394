"""Thread stores: where a chat keeps each thread's transcript and state between kernels.

A store holds :class:`ThreadRecord` values keyed by thread id. :class:`SQLiteThreadStore` (stdlib
``sqlite3``, one file, WAL) survives a kernel restart and can be shared by several processes (an
HTTP server's workers, say); :class:`MemoryThreadStore` lives as long as the process. Anything with
the four methods of :class:`ThreadStore` works as a store.

A thread may belong to a user (``ThreadRecord.user``: who made it, when a server knows who is
asking). The owner is set by the first save that names one and never changes: a save naming
another user is refused with :class:`ThreadOwnedElsewhere`, and a save naming nobody (a notebook's
chat) keeps the owner. ``list_threads(user=...)`` lists one user's threads.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import sqlite3  # imported when a SQLite store opens: most chats never use one

SCHEMA_VERSION = 3
"""1: the threads table; 2: a thread's owner (``user_id``); 3: a title the user gave, the run
settings chosen and the other branches (``given_title``, ``settings``, ``branches``)."""
TITLE_LENGTH = 80
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@dataclass
class ThreadRecord:
    """One thread as a store keeps it: AG-UI messages (camelCase dicts) and the shared state."""

    thread_id: str
    agent: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    state: Any = None
    title: str = ""
    updated_at: float = 0.0
    user: str | None = None
    """Who the thread belongs to (the user a server signed in), or None: nobody in particular."""
    given_title: str | None = None
    """A title the user gave the thread, which ``title`` then is; ``""`` takes it back (the title
    follows the first user message again). None in a save keeps the stored one."""
    settings: dict[str, Any] | None = None
    """The run settings chosen in the thread (``AgentChat(settings=...)``); None in a save keeps
    the stored ones."""
    branches: Any = None
    """The thread's other branches: a JSON value its chat writes and reads back, which the store
    keeps as it is. None in a save keeps the stored one."""

    @classmethod
    def now(
        cls, thread_id: str, agent: str | None, messages: list[dict[str, Any]], state: Any, user: str | None = None
    ) -> ThreadRecord:
        """The thread as it is now: titled from its messages, updated at this time."""
        return cls(thread_id, agent, list(messages), state, title_of(messages), time.time(), user)


class ThreadOwnedElsewhere(PermissionError):
    """A save, by one user, of a thread that belongs to another: nothing was written."""

    def __init__(self, thread_id: str) -> None:
        super().__init__(f"thread {thread_id!r} belongs to another user")
        self.thread_id = thread_id


@runtime_checkable
class ThreadStore(Protocol):
    """What a chat (or a server) needs from a store. Implementations must be safe across threads."""

    def load(self, thread_id: str) -> ThreadRecord | None: ...

    def save(self, record: ThreadRecord) -> None: ...

    def list_threads(self, agent: str | None = None, *, user: str | None = None) -> list[ThreadRecord]: ...

    def delete(self, thread_id: str) -> None: ...


def shown_title(record: ThreadRecord, stored_given: str | None) -> tuple[str | None, str]:
    """The title a save of ``record`` leaves, and the given title behind it: the given one (the
    record's, else the stored one), else the record's own, or its first message's when the record
    takes a given title back."""
    given = stored_given if record.given_title is None else record.given_title
    if given:
        return given, given
    return given, title_of(record.messages) if record.given_title == "" else record.title


def title_of(messages: list[dict[str, Any]]) -> str:
    """A thread's title: the start of its first user message (one line)."""
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        text = " ".join(str(content or "").split())
        if text:
            return text if len(text) <= TITLE_LENGTH else text[: TITLE_LENGTH - 1] + "…"
    return ""


class MemoryThreadStore:
    """Threads in this process only (the default: a chat without a store forgets on restart)."""

    def __init__(self) -> None:
        self._records: dict[str, ThreadRecord] = {}
        self._lock = threading.Lock()

    def load(self, thread_id: str) -> ThreadRecord | None:
        with self._lock:
            record = self._records.get(thread_id)
            return copy.deepcopy(record) if record is not None else None

    def save(self, record: ThreadRecord) -> None:
        _check_record(record)
        kept = copy.deepcopy(record)
        with self._lock:
            stored = self._records.get(record.thread_id)
            owner = stored.user if stored is not None else None
            if owner is not None:
                if record.user is not None and record.user != owner:
                    raise ThreadOwnedElsewhere(record.thread_id)
                kept.user = owner
            if stored is not None:
                kept.settings = stored.settings if kept.settings is None else kept.settings
                kept.branches = stored.branches if kept.branches is None else kept.branches
            kept.given_title, kept.title = shown_title(record, stored.given_title if stored is not None else None)
            self._records[record.thread_id] = kept

    def list_threads(self, agent: str | None = None, *, user: str | None = None) -> list[ThreadRecord]:
        with self._lock:
            records = [
                copy.deepcopy(r)
                for r in self._records.values()
                if (agent is None or r.agent == agent) and (user is None or r.user == user)
            ]
        return sorted(records, key=lambda r: r.updated_at, reverse=True)

    def owner(self, thread_id: str) -> str | None:
        """The user thread ``thread_id`` belongs to (None: nobody, or no such thread)."""
        with self._lock:
            record = self._records.get(thread_id)
            return record.user if record is not None else None

    def delete(self, thread_id: str) -> None:
        with self._lock:
            self._records.pop(thread_id, None)

    def __repr__(self) -> str:
        return f"<MemoryThreadStore threads={len(self._records)}>"


class SQLiteThreadStore:
    """Threads in one SQLite file: WAL journal, JSON columns, a versioned schema.

    Each thread of the process gets its own connection (sqlite3 connections must not be shared
    across threads); WAL lets readers and one writer work at once, also from other processes.
    ``":memory:"`` keeps the threads in this process: its one connection serves every thread.
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 10.0) -> None:
        self.path = os.fspath(path)
        if self.path != ":memory:":
            directory = os.path.dirname(os.path.abspath(self.path))
            if not os.path.isdir(directory):
                raise FileNotFoundError(f"the store's folder does not exist: {directory}")
        self._timeout = timeout
        self._local = threading.local()
        self._connections: dict[threading.Thread, sqlite3.Connection] = {}
        self._lock = threading.Lock()
        # ":memory:" is a database of one connection: every thread shares it, one use at a time.
        self._memory = self.path == ":memory:"
        self._memory_connection: sqlite3.Connection | None = None
        self._memory_lock = threading.RLock()
        with self._transaction() as db:
            self._migrate(db)

    def _open(self) -> sqlite3.Connection:
        import sqlite3

        connection = sqlite3.connect(self.path, timeout=self._timeout, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    def _connection(self) -> sqlite3.Connection:
        if self._memory:
            if self._memory_connection is None:
                self._memory_connection = self._open()
                with self._memory_connection as db:
                    self._migrate(db)  # a new in-memory database is empty
            return self._memory_connection
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._open()
            self._local.connection = connection
            with self._lock:
                for thread in [t for t in self._connections if not t.is_alive()]:
                    self._connections.pop(thread).close()  # its thread has ended
                self._connections[threading.current_thread()] = connection
        return connection

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._memory_lock if self._memory else contextlib.nullcontext():
            connection = self._connection()
            with connection:  # commits, or rolls back on an exception
                yield connection

    def _migrate(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{self.path} was written by a newer agui-widget (schema {version}, this one knows {SCHEMA_VERSION}); upgrade agui-widget"
            )
        if version < 1:
            db.execute(
                """CREATE TABLE IF NOT EXISTS threads (
                    thread_id TEXT PRIMARY KEY,
                    agent TEXT,
                    title TEXT NOT NULL DEFAULT '',
                    messages TEXT NOT NULL,
                    state TEXT NOT NULL,
                    message_count INTEGER NOT NULL DEFAULT 0,
                    updated_at REAL NOT NULL
                )"""
            )
            db.execute("CREATE INDEX IF NOT EXISTS threads_by_agent ON threads (agent, updated_at)")
        if version < 2:
            db.execute("ALTER TABLE threads ADD COLUMN user_id TEXT")
            db.execute("CREATE INDEX IF NOT EXISTS threads_by_user ON threads (user_id, updated_at)")
        if version < 3:
            for column in ("given_title", "settings", "branches"):  # NULL: never given
                db.execute(f"ALTER TABLE threads ADD COLUMN {column} TEXT")
        if version < SCHEMA_VERSION:
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def load(self, thread_id: str) -> ThreadRecord | None:
        with self._transaction() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
        return None if row is None else _record_of(row)

    def save(self, record: ThreadRecord) -> None:
        _check_record(record)
        messages = json.dumps(record.messages, ensure_ascii=False)
        state = json.dumps(record.state, ensure_ascii=False)
        settings, branches = (
            None if value is None else json.dumps(value, ensure_ascii=False) for value in (record.settings, record.branches)
        )
        with self._transaction() as db:
            # One statement: the owner check and the write are atomic, also across processes.
            # A NULL given title, settings or branches keeps the stored one; the title shown is
            # the given one when there is one (shown_title, in SQL).
            written = db.execute(
                """INSERT INTO threads (thread_id, agent, title, messages, state, message_count, updated_at, user_id,
                                        given_title, settings, branches)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (thread_id) DO UPDATE SET agent = excluded.agent,
                     title = CASE WHEN COALESCE(excluded.given_title, threads.given_title, '') <> ''
                             THEN COALESCE(excluded.given_title, threads.given_title) ELSE excluded.title END,
                     messages = excluded.messages, state = excluded.state,
                     message_count = excluded.message_count, updated_at = excluded.updated_at,
                     user_id = COALESCE(threads.user_id, excluded.user_id),
                     given_title = COALESCE(excluded.given_title, threads.given_title),
                     settings = COALESCE(excluded.settings, threads.settings),
                     branches = COALESCE(excluded.branches, threads.branches)
                   WHERE threads.user_id IS NULL OR excluded.user_id IS NULL OR threads.user_id = excluded.user_id""",
                (
                    record.thread_id,
                    record.agent,
                    shown_title(record, None)[1],
                    messages,
                    state,
                    len(record.messages),
                    record.updated_at or time.time(),
                    record.user,
                    record.given_title,
                    settings,
                    branches,
                ),
            ).rowcount
        if written == 0:
            raise ThreadOwnedElsewhere(record.thread_id)

    def list_threads(self, agent: str | None = None, *, user: str | None = None) -> list[ThreadRecord]:
        """Every thread (of ``agent``, of ``user``), newest first (messages included: a listing
        reads them all)."""
        conditions = [(column, value) for column, value in (("agent", agent), ("user_id", user)) if value is not None]
        where = " WHERE " + " AND ".join(f"{column} = ?" for column, _ in conditions) if conditions else ""
        with self._transaction() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM threads{where} ORDER BY updated_at DESC", [value for _, value in conditions]
            ).fetchall()
        return [_record_of(row) for row in rows]

    def owner(self, thread_id: str) -> str | None:
        """The user thread ``thread_id`` belongs to (None: nobody, or no such thread)."""
        with self._transaction() as db:
            row = db.execute("SELECT user_id FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
        return None if row is None else row[0]

    def delete(self, thread_id: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM threads WHERE thread_id = ?", (thread_id,))

    def close(self) -> None:
        """Close every connection this store opened (it reopens on next use; an in-memory store
        starts empty again)."""
        with self._lock:
            connections, self._connections = self._connections, {}
        for connection in connections.values():
            connection.close()
        self._local = threading.local()
        with self._memory_lock:
            if self._memory_connection is not None:
                self._memory_connection.close()
                self._memory_connection = None

    def __repr__(self) -> str:
        return f"<SQLiteThreadStore {self.path!r}>"


def open_store(spec: str | os.PathLike[str] | ThreadStore | None) -> ThreadStore:
    """A store from what a user passes: None (in memory), a ``postgresql://`` URL (PostgreSQL),
    a file path (SQLite) or a store."""
    if spec is None:
        return MemoryThreadStore()
    if isinstance(spec, str) and spec.startswith(POSTGRES_SCHEMES):
        # The PostgreSQL store builds on this module and needs psycopg: it is loaded by name, only
        # for such a URL (as the adapters package loads a framework's adapter), so imports keep
        # one direction.
        import importlib

        postgres: Any = importlib.import_module("._postgres", __package__)
        store: ThreadStore = postgres.PostgresThreadStore(spec)
        return store
    if isinstance(spec, (str, os.PathLike)):
        if not os.fspath(spec):
            raise ValueError("store= needs a file path, a ThreadStore, or None")
        return SQLiteThreadStore(spec)
    missing = [name for name in ("load", "save", "list_threads", "delete") if not callable(getattr(spec, name, None))]
    if missing:
        raise TypeError(f"store= takes a file path or a ThreadStore; {type(spec).__name__} has no {', '.join(missing)}")
    return spec


_COLUMNS = "thread_id, agent, messages, state, title, updated_at, user_id, given_title, settings, branches"


def _record_of(row: tuple[Any, ...]) -> ThreadRecord:
    settings, branches = (None if text is None else json.loads(text) for text in row[8:10])
    return ThreadRecord(
        row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], row[5], row[6], row[7], settings, branches
    )


def _check_record(record: ThreadRecord) -> None:
    if not isinstance(record.thread_id, str) or not record.thread_id:
        raise ValueError("a thread record needs a non-empty thread_id")


__all__ = [
    "MemoryThreadStore",
    "SQLiteThreadStore",
    "ThreadOwnedElsewhere",
    "ThreadRecord",
    "ThreadStore",
    "open_store",
    "shown_title",
    "title_of",
]
