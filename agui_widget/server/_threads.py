"""The thread store as a server uses it: opened for the app, written after each run, read per user.

Each saved thread belongs to the user whose run made it; these helpers answer who that is, which
threads a user may list, and the 403 another user gets. The store's calls are blocking, so each
runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from ag_ui.core import RunAgentInput
from fastapi import FastAPI
from fastapi.responses import JSONResponse

__all__ = ["open_store", "owner", "record_summary", "save_thread", "store_lifespan", "thread_refusal", "threads_of"]

log = logging.getLogger("agui_widget")


def open_store(store: Any) -> Any:
    """The thread store ``create_app`` was given (a path, a URL or a store), or None."""
    if store is None:
        return None
    from ..stores._store import open_store as open_thread_store

    return open_thread_store(store)


def store_lifespan(thread_store: Any, *, opened_here: bool) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """The app's lifespan: a store opened here from a path or URL is closed at shutdown."""

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        if thread_store is not None and opened_here:
            close = getattr(thread_store, "close", None)
            if close is not None:
                close()

    return lifespan


async def save_thread(
    store: Any, agent_name: str, run_input: RunAgentInput, messages: list[dict[str, Any]], state: Any, user: str | None
) -> None:
    """Persist what the run left: the whole transcript and state of its thread, as ``user``'s."""
    from ..stores._store import ThreadRecord

    record = ThreadRecord.now(run_input.thread_id, agent_name, messages, state, user)
    save = store.save
    if "seen" in inspect.signature(save).parameters:
        # What this run was sent is what its writer saw: a store that merges concurrent writers
        # (PostgreSQL's) keeps the turns another run of the thread saved meanwhile.
        seen = [message.model_dump(mode="json", by_alias=True) for message in run_input.messages]
        save = functools.partial(save, seen=seen)
    try:
        await asyncio.to_thread(save, record)
    except Exception:  # a store that fails must not break the served stream (it has ended already)
        log.exception("agui-widget: could not save thread %s", run_input.thread_id)


def owner(store: Any, thread_id: str) -> str | None:
    """Who a stored thread belongs to (None: nobody in particular, or not stored)."""
    read_owner = getattr(store, "owner", None)
    if callable(read_owner):  # the built-in stores read one column
        found: str | None = read_owner(thread_id)
        return found
    record = store.load(thread_id)
    return getattr(record, "user", None) if record is not None else None


def threads_of(store: Any, agent: str | None, user: str | None) -> list[Any]:
    """The threads to list: every one without auth, the user's own with it (a store of its own
    that knows no users is filtered here)."""
    if user is None:
        records: list[Any] = store.list_threads(agent)
        return records
    if "user" in inspect.signature(store.list_threads).parameters:
        records = store.list_threads(agent, user=user)
        return records
    return [record for record in store.list_threads(agent) if getattr(record, "user", None) == user]


def thread_refusal(thread_id: str) -> JSONResponse:
    return JSONResponse({"detail": f"Thread {thread_id!r} belongs to another user."}, status_code=403)


def record_summary(record: Any) -> dict[str, Any]:
    return {
        "threadId": record.thread_id,
        "agent": record.agent,
        "title": record.title,
        "updatedAt": record.updated_at,
    }
