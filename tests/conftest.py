"""Fixtures shared by several test modules: a real PostgreSQL server (tests/postgres.py), and a
thread store of each kind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agui_widget import MemoryThreadStore, SQLiteThreadStore, ThreadStore

from .postgres import postgres_dsn, postgres_server

__all__ = ["postgres_dsn", "postgres_server", "thread_store"]


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def thread_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ThreadStore]:
    """A store of each kind: in memory, a SQLite file, a PostgreSQL database of its own."""
    if request.param == "memory":
        yield MemoryThreadStore()
    elif request.param == "sqlite":
        store = SQLiteThreadStore(tmp_path / "threads.db")
        yield store
        store.close()
    else:
        from agui_widget.stores._postgres import PostgresThreadStore

        served = PostgresThreadStore(request.getfixturevalue("postgres_dsn"))
        yield served
        served.close()
