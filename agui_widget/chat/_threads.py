"""Threads and agents for ``AgentChat``: the store, switching threads, several agents.

A chat continues one thread at a time. Every thread lives in a :class:`~agui_widget.stores._store.ThreadStore`
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
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..adapters import as_agent
from ..stores._store import ThreadRecord, ThreadStore, open_store
from ..vocabulary._ids import new_id
from ..wire._transport import soon

if TYPE_CHECKING:
    from ..session._session import Session

log = logging.getLogger("agui_widget")

MAX_TITLE = 200
"""Longest title a user may give a thread (characters)."""


class Start(NamedTuple):
    """What a chat's session starts from: the agent, its thread, the transcript and the state."""

    agent: Any
    thread_id: str
    messages: list[dict[str, Any]]
    state: Any
    branches: Any = None
    """The thread's other branches, as stored (``session/_branches.py``)."""


class Threads:
    """A chat's threads and agents: the store, the current thread of each agent, switching.

    The widget owns one and talks to it through this interface: it is built before the session
    (:attr:`start` says what the session starts from), then :meth:`attach` gives it the session,
    a function that shows a switch in the widget's traits, and one that tells the views something.
    """

    def __init__(
        self,
        agent: Any,
        store: str | os.PathLike[str] | ThreadStore | None,
        thread_id: str | None,
        messages: list[dict[str, Any]] | None,
        state: Any,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Precedence when the store already holds the thread: the stored transcript and state
        win, except what the caller gave explicitly (``messages=``, ``state=``), which replaces
        the stored value with a warning when they differ. ``headers`` go with every request to a
        URL agent (a bearer token, say)."""
        is_url = isinstance(agent, str) and agent.startswith(("http://", "https://"))
        if headers is not None and not is_url:
            raise TypeError("headers= is for an agent given by its URL; for another agent, pass RemoteAgent(url, headers=...)")
        if is_url:
            from ..adapters._remote import RemoteAgent, agents_at

            # a server of several agents: one picker entry each
            agent = agents_at(agent, headers=headers) or (agent if headers is None else RemoteAgent(agent, headers=headers))
        self.agents: dict[str, Any] = _agents_of(agent) or {}
        self.agent_name: str | None = next(iter(self.agents)) if self.agents else None
        runnable = self.agents[self.agent_name] if self.agent_name else as_agent(agent)
        self.store: ThreadStore = open_store(store)
        self._persist = store is not None
        self._loading = False
        self._save_handle: asyncio.Handle | None = None
        self._initial_state: Any = {} if state is None else copy.deepcopy(state)
        names: list[str | None] = list(self.agents) if self.agents else [None]
        self._threads: dict[str | None, str] = {name: _initial_thread_id(thread_id, name) for name in names}
        first = self._threads[self.agent_name]
        record = self.store.load(first) if self._persist else None
        self.dirty = self._persist and (messages is not None or state is not None)
        """The thread changed since it was last saved."""
        self._stored_settings: dict[str, dict[str, Any]] = {}
        """The run settings each thread was loaded with from the store (``ThreadRecord.settings``)."""
        self.start = self._start(runnable, first, record, messages, state)
        self._session: Session | None = None
        self._switched: Callable[[str, str], None] = lambda thread_id, agent_name: None
        self._notice: Callable[[str, str], None] = lambda level, text: None
        self.listing_changed: Callable[[], None] = lambda: None
        """Called whenever the threads a listing shows may have changed (a save, a switch, a
        rename, a delete): the views' threads panels follow (``_thread_list``)."""
        self.thread_list: Any = None
        """What the views' threads panels are told, once one asked (``_thread_list.ThreadList``)."""

    def _start(
        self, runnable: Any, first: str, record: ThreadRecord | None, messages: list[dict[str, Any]] | None, state: Any
    ) -> Start:
        self._remember_settings(first, record)
        if record is None:
            return Start(runnable, first, messages or [], self._initial_state)
        if messages is not None and record.messages and messages != record.messages:
            warnings.warn(
                f"thread {first!r} has {len(record.messages)} stored messages; the messages= given replace them",
                stacklevel=4,
            )
        if state is not None and record.state not in (None, {}) and state != record.state:
            warnings.warn(f"thread {first!r} has a stored state; the state= given replaces it", stacklevel=4)
        return Start(
            runnable,
            first,
            record.messages if messages is None else messages,
            (record.state if record.state is not None else {}) if state is None else self._initial_state,
            record.branches if messages is None else None,
        )

    def attach(self, session: Session, switched: Callable[[str, str], None], notice: Callable[[str, str], None]) -> None:
        """The session now exists: ``switched(thread_id, agent_name)`` shows a switch,
        ``notice(level, text)`` tells the views. A thread given with ``messages=`` or ``state=``
        is saved at once (it replaces what the store held)."""
        self._session = session
        self._switched = switched
        self._notice = notice
        if self.dirty:
            self.save_quietly()

    @property
    def session(self) -> Session:
        assert self._session is not None, "Threads.attach() comes first"
        return self._session

    # -- what the chat's Python API offers ------------------------------------------------------

    def select_agent(self, name: str) -> None:
        """Make ``name`` the active agent; its own thread (transcript and state) comes back.

        Refused while a run is active or waiting; the current thread is saved first.
        """
        if not self.agents:
            raise TypeError("this chat has one agent; give AgentChat a dict of agents to switch between them")
        if not isinstance(name, str) or name not in self.agents:
            raise KeyError(f"no agent named {name!r}; the agents are {', '.join(self.agents)}")
        self.session.check_idle("switching agents")
        if name == self.agent_name:
            return
        self.save_if_changed()
        thread_id = self._threads[name]
        self._load(thread_id, self.store.load(thread_id), agent=self.agents[name], agent_name=name)

    def listing(self) -> list[dict[str, Any]]:
        """The threads in the store (the active agent's, with several agents), newest first."""
        self.save_if_changed()
        records = self.store.list_threads(self.agent_name if self.agents else None)
        return [
            {
                "thread_id": r.thread_id,
                "title": r.title,
                "updated": datetime.datetime.fromtimestamp(r.updated_at, datetime.timezone.utc),
                "messages": len(r.messages),
                "agent": r.agent,
                "named": bool(_given_title(r)),
            }
            for r in records
        ]

    def switch(self, thread_id: str) -> None:
        """Continue thread ``thread_id`` from the store, or start it empty when it is new.

        The current thread is saved first. Refused while a run is active or waiting.
        """
        if not isinstance(thread_id, str) or not thread_id.strip():
            raise ValueError("chat.switch() needs a thread id (a non-empty string)")
        self.session.check_idle("switching threads")
        if thread_id == self.session.thread_id:
            return
        self.save_if_changed()
        self._load(thread_id, self.store.load(thread_id), agent=None, agent_name=self.agent_name)

    def new_thread(self, thread_id: str | None = None) -> str:
        """Start an empty thread (a fresh id unless given), switch to it, and return its id."""
        thread_id = thread_id or new_id("thread")
        self.switch(thread_id)
        return thread_id

    def rename(self, thread_id: str, title: str) -> None:
        """Give thread ``thread_id`` the title ``title`` ('' takes it back: the title follows the
        first user message again). Its last activity stays. Refused while a run is active or
        waiting, and for a thread the store does not hold (KeyError)."""
        if not isinstance(thread_id, str) or not thread_id.strip():
            raise ValueError("chat.rename_thread() needs a thread id (a non-empty string)")
        if not isinstance(title, str):
            raise TypeError(f"a thread's title is a string, not {type(title).__name__}")
        title = " ".join(title.split())
        if len(title) > MAX_TITLE:
            raise ValueError(f"a thread's title is at most {MAX_TITLE} characters, not {len(title)}")
        self.session.check_idle("renaming a thread")
        current = thread_id == self.session.thread_id
        if current:
            self.save_if_changed()
        record = self.store.load(thread_id)
        if record is None and current:  # nothing said in it yet: stored now, so the title sticks
            self.save()
            record = self.store.load(thread_id)
        if record is None:
            raise KeyError(f"no thread {thread_id!r} in the store")
        record.given_title = title
        self.store.save(record)
        self.listing_changed()

    def delete(self, thread_id: str) -> None:
        """Delete thread ``thread_id`` from the store; deleting the current thread first starts a
        new, empty one. Refused while a run is active or waiting, and for a thread the store does
        not hold (KeyError)."""
        if not isinstance(thread_id, str) or not thread_id.strip():
            raise ValueError("chat.delete_thread() needs a thread id (a non-empty string)")
        self.session.check_idle("deleting a thread")
        current = thread_id == self.session.thread_id
        if not current and self.store.load(thread_id) is None:
            raise KeyError(f"no thread {thread_id!r} in the store")
        if current:
            self._load(new_id("thread"), None, agent=None, agent_name=self.agent_name)  # nothing of it is saved
        self.store.delete(thread_id)
        self.listing_changed()

    # -- what the chat tells it -----------------------------------------------------------------

    def changed(self) -> None:
        """The thread changed; with a store, save once this burst of changes is over.

        During a turn only the mark is set: the turn's end saves (see :meth:`turn_may_have_ended`).
        Before :meth:`attach` nothing is marked: the chat is still being made from what was given.
        """
        if self._loading or self._session is None:
            return
        self.dirty = True
        if not self._persist or self.session.active is not None or self._save_handle is not None:
            return
        self._save_handle = soon(self.save_quietly)

    def turn_may_have_ended(self) -> None:
        session = self.session
        if self.dirty and self._persist and session.active is None and not session.queue:
            self.save_quietly()

    # -- saving and loading -------------------------------------------------------------------

    def save(self) -> None:
        """Write the current thread to the store (raises when the store refuses it)."""
        if self._save_handle is not None:
            self._save_handle.cancel()
            self._save_handle = None
        session = self.session
        record = ThreadRecord.now(session.thread_id, self.agent_name, session.messages, session.state)
        record.settings = dict(session.setting_values) or None  # None keeps what the store holds
        record.branches = session.branches.to_json()  # [] drops what the store held
        self.store.save(record)
        self.dirty = False
        self.listing_changed()

    def save_if_changed(self) -> None:
        """Save the current thread when it changed since it was last saved, so its last activity
        stays when nothing happened in it (a switch away, a listing). Without a store, the current
        thread is kept even while empty, so the listing shows it."""
        if self.dirty or (not self._persist and self.store.load(self.session.thread_id) is None):
            self.save()

    def save_quietly(self) -> None:
        """Save from a callback: a failure is logged and told to the views, never raised."""
        self._save_handle = None
        try:
            self.save()
        except Exception as exc:
            log.exception("agui-widget: saving thread %s failed", self.session.thread_id)
            self._notice("error", f"The thread was not saved: {type(exc).__name__}: {exc}")

    def stored_settings(self, thread_id: str) -> dict[str, Any] | None:
        """The run settings thread ``thread_id`` had in the store when it was loaded (None: none)."""
        return self._stored_settings.get(thread_id)

    def _remember_settings(self, thread_id: str, record: ThreadRecord | None) -> None:
        settings = getattr(record, "settings", None)
        if isinstance(settings, dict):
            self._stored_settings[thread_id] = settings
        else:
            self._stored_settings.pop(thread_id, None)

    def _load(self, thread_id: str, record: ThreadRecord | None, *, agent: Any, agent_name: str | None) -> None:
        self._remember_settings(thread_id, record)
        messages = record.messages if record is not None else []
        state = record.state if record is not None and record.state is not None else copy.deepcopy(self._initial_state)
        self._loading = True
        try:
            self.session.load_thread(thread_id, messages, state, agent, record.branches if record is not None else None)
        finally:
            self._loading = False
        self.dirty = False
        self.agent_name = agent_name
        self._threads[agent_name] = thread_id
        self._switched(thread_id, agent_name or "")
        self.listing_changed()


def _given_title(record: ThreadRecord) -> str:
    """The title the user gave the thread ('' for none)."""
    return getattr(record, "given_title", None) or ""


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


class ChatThreads:
    """``AgentChat``'s threads and agents, as a cell uses them (docs/threads.md)."""

    if TYPE_CHECKING:  # what the methods read of the chat
        _session: Session
        _threads: Threads

    @property
    def agent(self) -> Any:
        """The agent this chat runs (after wrapping, for plain callables).

        With several agents, assigning a name (``chat.agent = "coder"``) selects that agent.
        """
        return self._session.agent

    @agent.setter
    def agent(self, name: str) -> None:
        self.select_agent(name)

    @property
    def agents(self) -> dict[str, Any]:
        """The agents by name (empty for a chat of one agent)."""
        return dict(self._threads.agents)

    @property
    def store(self) -> ThreadStore:
        """Where threads are kept (in memory unless ``store=`` was given)."""
        return self._threads.store

    def select_agent(self, name: str) -> None:
        """Make ``name`` the active agent; its own thread (transcript and state) comes back.

        Refused while a run is active or waiting; the current thread is saved first.
        """
        self._threads.select_agent(name)

    def threads(self) -> list[dict[str, Any]]:
        """The threads in the store (the active agent's, with several agents), newest first.

        Each: ``thread_id``, ``title`` (the one given with :meth:`rename_thread`, else the start
        of the first user message), ``updated`` (a UTC datetime), ``messages`` (how many),
        ``agent``, ``named`` (whether the title is a given one).
        """
        return self._threads.listing()

    def switch(self, thread_id: str) -> None:
        """Continue thread ``thread_id`` from the store, or start it empty when it is new.

        The current thread is saved first. Refused while a run is active or waiting.
        """
        self._threads.switch(thread_id)

    def new_thread(self, thread_id: str | None = None) -> str:
        """Start an empty thread (a fresh id unless given), switch to it, and return its id."""
        return self._threads.new_thread(thread_id)

    def rename_thread(self, thread_id: str, title: str) -> None:
        """Give thread ``thread_id`` a title of your own (at most 200 characters), shown by
        :meth:`threads` and the chat's threads panel; ``""`` takes it back (the title follows the
        first user message again). Refused while a run is active or waiting (RuntimeError), and
        for a thread the store does not hold (KeyError)."""
        self._threads.rename(thread_id, title)

    def delete_thread(self, thread_id: str) -> None:
        """Delete thread ``thread_id`` from the store. Deleting the current thread starts a new,
        empty one. Refused while a run is active or waiting (RuntimeError), and for a thread the
        store does not hold (KeyError)."""
        self._threads.delete(thread_id)


__all__ = ["ChatThreads", "Start", "Threads"]
