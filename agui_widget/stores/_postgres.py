"""A thread store in PostgreSQL, shared by every worker and machine that can reach the database.

``PostgresThreadStore(dsn)`` (or ``store="postgresql://..."``) keeps threads in one table of an
existing database, through a pool of connections (``psycopg_pool``). It meets the
:class:`~agui_widget.stores._store.ThreadStore` contract of the SQLite store, and adds a rule for writers
that save one thread at once (several workers, several chats): **a save never removes a message
its writer has not seen.** See :meth:`PostgresThreadStore.save` and docs/threads.md.

Why the synchronous psycopg API: every caller of a store is synchronous. A chat saves from the
kernel's loop between turns (one short transaction, about a millisecond on a local database), and
the HTTP server already calls its store through ``asyncio.to_thread``, so its event loop never
waits on the database. An async store would need a second protocol that neither caller uses.
"""

from __future__ import annotations

import collections
import json
import threading
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ._store import ThreadOwnedElsewhere, ThreadRecord, shown_title, title_of

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

    from ._store import ThreadStore

SCHEMA_VERSION = 3
"""The version of the tables below (1: threads; 2: a thread's owner, ``user_id``; 3: a given title,
the run settings and the other branches); a database written by a newer one is refused."""

INSTALL_HINT = 'the PostgreSQL thread store needs psycopg 3 and psycopg_pool: pip install "agui-widget[postgres]"'

VIEWS_KEPT = 1_000
"""How many threads a store object remembers its own last load or save of (oldest forgotten first)."""

_MIGRATION_LOCK = 0x61677569  # "agui": one creator of the tables at a time, across workers

_COLUMNS = "thread_id, agent, messages, state, title, updated_at, user_id, given_title, settings, branches"


class PostgresThreadStore:
    """Threads in a PostgreSQL database: JSON columns, a versioned schema, a connection pool.

    ``dsn``: a libpq connection string or URL (``postgresql://user:pass@host:5432/db``).
    ``pool_size``: the most connections this store holds open (one is opened at once, the rest
    when concurrent callers need them). The tables are created on first use, in one transaction
    that several workers starting together can run at once. Call :meth:`close` when done (the
    server closes a store it opened from a URL at shutdown).

    Safe across threads: each call borrows a connection from the pool for one transaction.
    """

    def __init__(self, dsn: str, *, pool_size: int = 4, timeout: float = 10.0) -> None:
        if pool_size < 1:
            raise ValueError(f"pool_size must be at least 1 (got {pool_size})")
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise ImportError(INSTALL_HINT) from exc
        self.dsn = dsn
        self._lock = threading.Lock()
        self._views: collections.OrderedDict[str, frozenset[str]] = collections.OrderedDict()
        # One direct connection first: an unreachable server or a wrong password fails here with
        # libpq's own words (a pool would only time out), and the tables exist before any use.
        with psycopg.connect(dsn, connect_timeout=max(1, round(timeout))) as connection:
            self._migrate(connection)
        # Each borrowed connection is checked first (one round trip): a database restarted, or a
        # proxy that closed an idle connection, costs a reconnect rather than a failed save.
        self._pool: ConnectionPool = ConnectionPool(
            dsn,
            min_size=1,
            max_size=pool_size,
            timeout=timeout,
            open=True,
            name="agui-widget-threads",
            check=ConnectionPool.check_connection,
        )

    def _migrate(self, db: psycopg.Connection[Any]) -> None:
        db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        db.execute(
            "CREATE TABLE IF NOT EXISTS agui_schema (only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row), version INTEGER NOT NULL)"
        )
        row = db.execute("SELECT version FROM agui_schema").fetchone()
        version = 0 if row is None else int(row[0])
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"the database at {_safe_dsn(self.dsn)} was written by a newer agui-widget (schema {version}, "
                f"this one knows {SCHEMA_VERSION}); upgrade agui-widget"
            )
        if version < 1:
            db.execute(
                """CREATE TABLE IF NOT EXISTS agui_threads (
                    thread_id TEXT PRIMARY KEY,
                    agent TEXT,
                    title TEXT NOT NULL DEFAULT '',
                    messages JSON NOT NULL,
                    state JSON NOT NULL,
                    message_count INTEGER NOT NULL DEFAULT 0,
                    updated_at DOUBLE PRECISION NOT NULL,
                    version BIGINT NOT NULL DEFAULT 1
                )"""
            )
            db.execute("CREATE INDEX IF NOT EXISTS agui_threads_by_agent ON agui_threads (agent, updated_at DESC)")
            db.execute("CREATE INDEX IF NOT EXISTS agui_threads_by_time ON agui_threads (updated_at DESC)")
        if version < 2:
            db.execute("ALTER TABLE agui_threads ADD COLUMN IF NOT EXISTS user_id TEXT")
            db.execute("CREATE INDEX IF NOT EXISTS agui_threads_by_user ON agui_threads (user_id, updated_at DESC)")
        if version < 3:
            db.execute("ALTER TABLE agui_threads ADD COLUMN IF NOT EXISTS given_title TEXT")
            db.execute("ALTER TABLE agui_threads ADD COLUMN IF NOT EXISTS settings JSON")
            db.execute("ALTER TABLE agui_threads ADD COLUMN IF NOT EXISTS branches JSON")
        if version < SCHEMA_VERSION:
            db.execute(
                "INSERT INTO agui_schema (only_row, version) VALUES (TRUE, %s) ON CONFLICT (only_row) DO UPDATE SET version = excluded.version",
                (SCHEMA_VERSION,),
            )

    def load(self, thread_id: str) -> ThreadRecord | None:
        with self._pool.connection() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM agui_threads WHERE thread_id = %s", (thread_id,)).fetchone()
        if row is None:
            self._forget(thread_id)
            return None
        record = _record_of(row)
        self._remember(thread_id, record.messages)
        return record

    def save(self, record: ThreadRecord, *, seen: ThreadRecord | Iterable[Mapping[str, Any]] | None = None) -> None:
        """Write ``record``, keeping every stored message its writer has not seen.

        The thread's row is locked for the save's one transaction, so saves of one thread happen
        one after the other, whichever worker makes them. A stored message (by its ``id``) that
        ``record`` lacks is removed only when the writer has seen it, i.e. it chose to drop it
        (a clear, a regenerated answer, an edited message); a message another writer added
        meanwhile is kept, placed after the stored message it followed. The record's own messages
        win over stored ones with the same id; its state, title and agent replace the stored ones.

        ``seen``: what the writer had before its changes (the record it loaded, or its messages).
        Without it, this store object's own last load or save of the thread stands in for it;
        a store object that has neither removes nothing. Each save increments the row's
        ``version``.

        The thread's owner (``record.user``) is set by the first save that names one; a save
        naming another user raises :class:`~agui_widget.stores._store.ThreadOwnedElsewhere` and writes
        nothing.
        """
        _check(record)
        state = _dumps(record.state, "state")
        mine = list(record.messages)
        messages = _dumps(mine, "messages")  # what JSON cannot hold is refused before any write
        if seen is None:
            with self._lock:
                view = self._views.get(record.thread_id)
        else:
            view = _ids(seen.messages if isinstance(seen, ThreadRecord) else list(seen))
        with self._pool.connection() as db, db.transaction():
            db.execute(
                """INSERT INTO agui_threads (thread_id, agent, title, messages, state, message_count, updated_at, version)
                   VALUES (%s, NULL, '', '[]'::json, 'null'::json, 0, 0, 0) ON CONFLICT (thread_id) DO NOTHING""",
                (record.thread_id,),
            )
            stored = db.execute(
                "SELECT messages, user_id, given_title FROM agui_threads WHERE thread_id = %s FOR UPDATE", (record.thread_id,)
            ).fetchone()
            owner = stored[1] if stored is not None else None
            if owner is not None and record.user is not None and owner != record.user:
                raise ThreadOwnedElsewhere(record.thread_id)
            merged = merge_messages(stored[0] if stored is not None else [], mine, view or frozenset())
            given, title = shown_title(record, stored[2] if stored is not None else None)
            if merged is not mine and not given and title == title_of(mine):
                title = title_of(merged)  # a title taken from the messages follows the merged ones
            db.execute(
                """UPDATE agui_threads SET agent = %s, title = %s, messages = %s::json, state = %s::json,
                     message_count = %s, updated_at = %s, version = version + 1, user_id = COALESCE(user_id, %s),
                     given_title = %s, settings = COALESCE(%s::json, settings), branches = COALESCE(%s::json, branches)
                   WHERE thread_id = %s""",
                (
                    record.agent,
                    title,
                    messages if merged is mine else _dumps(merged, "messages"),
                    state,
                    len(merged),
                    record.updated_at or time.time(),
                    record.user,
                    given,
                    None if record.settings is None else _dumps(record.settings, "settings"),
                    None if record.branches is None else _dumps(record.branches, "branches"),
                    record.thread_id,
                ),
            )
        self._remember(record.thread_id, mine)

    def list_threads(self, agent: str | None = None, *, user: str | None = None) -> list[ThreadRecord]:
        """Every thread (of ``agent``, of ``user``), newest first (messages included: a listing
        reads them all)."""
        conditions = [(column, value) for column, value in (("agent", agent), ("user_id", user)) if value is not None]
        where = "".join(f" AND {column} = %s" for column, _ in conditions)
        query = f"SELECT {_COLUMNS} FROM agui_threads WHERE version > 0{where} ORDER BY updated_at DESC"
        with self._pool.connection() as db:
            rows = db.execute(query, [value for _, value in conditions]).fetchall()
        return [_record_of(row) for row in rows]

    def owner(self, thread_id: str) -> str | None:
        """The user thread ``thread_id`` belongs to (None: nobody, or no such thread)."""
        with self._pool.connection() as db:
            row = db.execute("SELECT user_id FROM agui_threads WHERE thread_id = %s", (thread_id,)).fetchone()
        return None if row is None else row[0]

    def delete(self, thread_id: str) -> None:
        with self._pool.connection() as db:
            db.execute("DELETE FROM agui_threads WHERE thread_id = %s", (thread_id,))
        self._forget(thread_id)

    def version(self, thread_id: str) -> int:
        """How many saves the thread has had (0 when it is not stored)."""
        with self._pool.connection() as db:
            row = db.execute("SELECT version FROM agui_threads WHERE thread_id = %s", (thread_id,)).fetchone()
        return 0 if row is None else int(row[0])

    def close(self) -> None:
        """Close the pool's connections (the store cannot be used afterwards)."""
        self._pool.close()

    def _remember(self, thread_id: str, messages: list[dict[str, Any]]) -> None:
        with self._lock:
            self._views[thread_id] = _ids(messages)
            self._views.move_to_end(thread_id)
            while len(self._views) > VIEWS_KEPT:
                self._views.popitem(last=False)  # a forgotten thread's next save removes nothing

    def _forget(self, thread_id: str) -> None:
        with self._lock:
            self._views.pop(thread_id, None)

    def __repr__(self) -> str:
        return f"<PostgresThreadStore {_safe_dsn(self.dsn)!r}>"


def merge_messages(stored: list[dict[str, Any]], mine: list[dict[str, Any]], seen: frozenset[str]) -> list[dict[str, Any]]:
    """``mine``, plus each stored message that it lacks and its writer has not seen.

    A kept message goes right after the stored message it followed (the last one before it that
    the result holds), so turns keep the order in which they were first saved. Returns ``mine``
    itself when nothing is kept.
    """
    have = _ids(mine)
    kept = [m for m in stored if _id(m) is not None and _id(m) not in have and _id(m) not in seen]
    if not kept:
        return mine
    keep = {_id(m) for m in kept}
    result = list(mine)
    after: str | None = None  # the id of the last stored message already placed in the result
    for message in stored:
        key = _id(message)
        if key in keep:
            index = 0 if after is None else next(i for i, m in enumerate(result) if _id(m) == after) + 1
            result.insert(index, message)
            after = key
        elif key is not None and key in have:
            after = key
    return result


def _id(message: Any) -> str | None:
    key = message.get("id") if isinstance(message, Mapping) else None
    return key if isinstance(key, str) and key else None


def _ids(messages: Iterable[Any]) -> frozenset[str]:
    return frozenset(key for key in map(_id, messages) if key is not None)


def _dumps(value: Any, what: str) -> str:
    """JSON text for a column: non-JSON values raise TypeError (as with SQLite); NaN and the
    infinities, which JSON has no words for, raise ValueError. Non-ASCII characters are escaped,
    so a NUL or a lone surrogate travels as ``\\u....`` text."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError as exc:
        raise ValueError(f"the thread's {what} holds a number JSON cannot write ({exc})") from exc


def _check(record: ThreadRecord) -> None:
    if not isinstance(record.thread_id, str) or not record.thread_id:
        raise ValueError("a thread record needs a non-empty thread_id")


def _record_of(row: tuple[Any, ...]) -> ThreadRecord:
    return ThreadRecord(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9])


def _safe_dsn(dsn: str) -> str:
    """The connection string without its password (for messages and reprs)."""
    try:
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        parts = conninfo_to_dict(dsn)
    except Exception:  # not parseable: say nothing of it
        return "<the given database>"
    if "password" in parts:
        parts["password"] = "***"
    return make_conninfo("", **{k: v for k, v in parts.items() if v is not None})


if TYPE_CHECKING:

    def _meets_the_contract(store: PostgresThreadStore) -> ThreadStore:
        return store  # mypy checks PostgresThreadStore against the ThreadStore protocol


__all__ = ["SCHEMA_VERSION", "PostgresThreadStore", "merge_messages"]
