"""Fixtures shared by several test modules: a real PostgreSQL server (tests/postgres.py)."""

from .postgres import postgres_dsn, postgres_server

__all__ = ["postgres_dsn", "postgres_server"]
