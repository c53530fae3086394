"""Threads and agents for ``AgentChat``: the store, switching threads, several agents.

A chat continues one thread at a time. Every thread lives in a :class:`~agui_widget._store.ThreadStore`
(in memory unless ``store=`` is given); with a store the current thread is written after every turn
and after changes made outside runs, so a new ``AgentChat`` with the same store and thread id (after
a kernel restart, say) continues it. With several agents, each agent has its own current thread.
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import logging
import os
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import _wire
from ._ids import new_id
from ._store import ThreadRecord, ThreadStore, open_store
from ._transport import soon
from .adapters import as_agent

if TYPE_CHECKING:
    from ._session import Session
    from ._transport import BatchingTransport

log = logging.getLogger("agui_widget")


class ThreadsMixin:
    """The thread and agent part of ``AgentChat`` (which provides the session and the traits)."""

    _session: Session
    _transport: BatchingTransport
    thread_id: str
    agent_name: str

    def _setup_threads(
        self,
        agent: Any,
        store: str | os.PathLike[str] | ThreadStore | None,
        thread_id: str | None,
        messages: list[dict[str, Any]] | None,
        state: Any,
    ) -> tuple[Any, str, list[dict[str, Any]], Any]:
        """Before the session exists: the agent to start with, its thread, transcript and state.

        Precedence when the store already holds the thread: the stored transcript and state win,
        except what the caller gave explicitly (``messages=``, ``state=``), which replaces the
        stored value with a warning when they differ.
        """
        self._agents = _agents_of(agent)
        self._agent_name: str | None = next(iter(self._agents)) if self._agents else None
        runnable = self._agents[self._agent_name] if self._agents and self._agent_name else as_agent(agent)
        self._store = open_store(store)
        self._persist = store is not None
        self._loading = False
        self._save_handle: asyncio.Handle | None = None
        self._initial_state: Any = {} if state is None else copy.deepcopy(state)
        names: list[str | None] = list(self._agents) if self._agents else [None]
        self._threads: dict[str | None, str] = {name: _initial_thread_id(thread_id, name) for name in names}
        first = self._threads[self._agent_name]
        record = self._store.load(first) if self._persist else None
        self._dirty = self._persist and (messages is not None or state is not None)
        if record is None:
            return runnable, first, messages or [], self._initial_state
        if messages is not None and record.messages and messages != record.messages:
            warnings.warn(
                f"thread {first!r} has {len(record.messages)} stored messages; the messages= given replace them",
                stacklevel=3,
            )
        if state is not None and record.state not in (None, {}) and state != record.state:
            warnings.warn(f"thread {first!r} has a stored state; the state= given replaces it", stacklevel=3)
        return (
            runnable,
            first,
            record.messages if messages is None else messages,
            (record.state if record.state is not None else {}) if state is None else self._initial_state,
        )

    def _agent_traits(self) -> dict[str, Any]:
        return {"agent_names": list(self._agents or ()), "agent_name": self._agent_name or ""}

    # -- the Python API -----------------------------------------------------------------------

    @property
    def agents(self) -> dict[str, Any]:
        """The agents by name (empty for a chat of one agent)."""
        return dict(self._agents or {})

    @property
    def store(self) -> ThreadStore:
        """Where threads are kept (in memory unless ``store=`` was given)."""
        return self._store

    def select_agent(self, name: str) -> None:
        """Make ``name`` the active agent; its own thread (transcript and state) comes back.

        Refused while a run is active or waiting; the current thread is saved first.
        """
        if not self._agents:
            raise TypeError("this chat has one agent; give AgentChat a dict of agents to switch between them")
        if not isinstance(name, str) or name not in self._agents:
            raise KeyError(f"no agent named {name!r}; the agents are {', '.join(self._agents)}")
        self._session.check_idle("switching agents")
        if name == self._agent_name:
            return
        self._save()
        thread_id = self._threads[name]
        self._load(thread_id, self._store.load(thread_id), agent=self._agents[name], agent_name=name)

    def threads(self) -> list[dict[str, Any]]:
        """The threads in the store (the active agent's, with several agents), newest first.

        Each: ``thread_id``, ``title`` (the start of the first user message), ``updated`` (a UTC
        datetime), ``messages`` (how many), ``agent``.
        """
        if self._dirty or not self._persist:
            self._save()
        records = self._store.list_threads(self._agent_name if self._agents else None)
        return [
            {
                "thread_id": r.thread_id,
                "title": r.title,
                "updated": datetime.datetime.fromtimestamp(r.updated_at, datetime.timezone.utc),
                "messages": len(r.messages),
                "agent": r.agent,
            }
            for r in records
        ]

    def switch(self, thread_id: str) -> None:
        """Continue thread ``thread_id`` from the store, or start it empty when it is new.

        The current thread is saved first. Refused while a run is active or waiting.
        """
        if not isinstance(thread_id, str) or not thread_id.strip():
            raise ValueError("chat.switch() needs a thread id (a non-empty string)")
        self._session.check_idle("switching threads")
        if thread_id == self._session.thread_id:
            return
        self._save()
        self._load(thread_id, self._store.load(thread_id), agent=None, agent_name=self._agent_name)

    def new_thread(self, thread_id: str | None = None) -> str:
        """Start an empty thread (a fresh id unless given), switch to it, and return its id."""
        thread_id = thread_id or new_id("thread")
        self.switch(thread_id)
        return thread_id

    # -- saving and loading -------------------------------------------------------------------

    def _save(self) -> None:
        """Write the current thread to the store (raises when the store refuses it)."""
        if self._save_handle is not None:
            self._save_handle.cancel()
            self._save_handle = None
        session = self._session
        self._store.save(ThreadRecord.now(session.thread_id, self._agent_name, session.messages, session.state))
        self._dirty = False

    def _save_quietly(self) -> None:
        """Save from a callback: a failure is logged and told to the views, never raised."""
        self._save_handle = None
        try:
            self._save()
        except Exception as exc:
            log.exception("agui-widget: saving thread %s failed", self._session.thread_id)
            self._transport.send(_wire.notice_message("error", f"The thread was not saved: {type(exc).__name__}: {exc}"))

    def _thread_changed(self) -> None:
        """The thread changed; with a store, save once this burst of changes is over.

        During a turn only the mark is set: the turn's end saves (see :meth:`_turn_may_have_ended`).
        """
        if self._loading:
            return
        self._dirty = True
        if not self._persist or self._session.active is not None or self._save_handle is not None:
            return
        self._save_handle = soon(self._save_quietly)

    def _turn_may_have_ended(self) -> None:
        if self._dirty and self._persist and self._session.active is None and not self._session.queue:
            self._save_quietly()

    def _load(self, thread_id: str, record: ThreadRecord | None, *, agent: Any, agent_name: str | None) -> None:
        messages = record.messages if record is not None else []
        state = record.state if record is not None and record.state is not None else copy.deepcopy(self._initial_state)
        self._loading = True
        try:
            self._session.load_thread(thread_id, messages, state, agent)
        finally:
            self._loading = False
        self._dirty = False
        self._agent_name = agent_name
        self._threads[agent_name] = thread_id
        with self._sync(), self.hold_sync():  # type: ignore[attr-defined]
            self.thread_id = thread_id
            self.agent_name = agent_name or ""


def _agents_of(agent: Any) -> dict[str, Any] | None:
    """Several agents by name (each wrapped by as_agent), or None for one agent."""
    if not isinstance(agent, Mapping):
        return None
    if not agent:
        raise ValueError("AgentChat({}) needs at least one agent: {'name': agent, ...}")
    for name in agent:
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"agent names must be non-empty strings, not {name!r}")
    return {name: as_agent(value) for name, value in agent.items()}


def _initial_thread_id(thread_id: str | None, agent_name: str | None) -> str:
    """Each agent's own thread: ``<thread_id>.<agent>`` when a thread id is given, else a fresh id."""
    if thread_id is None:
        return new_id("thread")
    return thread_id if agent_name is None else f"{thread_id}.{agent_name}"


__all__ = ["ThreadsMixin"]
