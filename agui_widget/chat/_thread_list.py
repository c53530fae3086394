"""What the views' threads panels ask of the kernel: the store's threads, and switching, starting,
renaming and deleting them (docs/wire.md: ``threads``, ``switch_thread``, ``new_thread``,
``rename_thread``, ``delete_thread``).

The listing travels as a message, not as a synced trait: a trait would be computed (a read of the
whole store) and sent at every save of every chat, whether or not anyone looks at the list. Here a
chat reads its store for a view only once a view has asked (a panel opened); from then on every
change of the threads sends the list again, once per burst of changes, to every view.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from ..wire import _codec
from ..wire._transport import soon

if TYPE_CHECKING:
    from ..wire import _requests
    from ._threads import Threads
    from ._view_link import ViewLink

log = logging.getLogger("agui_widget")


class ThreadList:
    """One chat's threads as its views' panels list them."""

    def __init__(self, threads: Threads, link: ViewLink) -> None:
        self._threads = threads
        self._link = link
        self._due: asyncio.Handle | None = None
        threads.listing_changed = self.changed

    def message(self, request_id: str | None) -> dict[str, Any]:
        """The list as the views get it: newest first, the current thread always among them (a
        new thread is stored once something is said in it)."""
        threads = self._threads
        current = threads.session.thread_id
        listing = threads.listing()
        entries = [
            _codec.thread_entry(t["thread_id"], t["title"], t["updated"].timestamp(), t["messages"], t["named"]) for t in listing
        ]
        if all(t["thread_id"] != current for t in listing):
            session = threads.session
            entries.insert(0, _codec.thread_entry(current, "", time.time(), len(session.messages), False))
        return _codec.threads_message(request_id, current, entries)

    def changed(self) -> None:
        """The threads changed: the views get the list again once this burst of changes is over."""
        if self._due is None:
            self._due = soon(self._push)

    def _push(self) -> None:
        self._due = None
        try:
            message = self.message(None)
        except Exception:  # a store that fails here fails at the next save too, which tells the user
            log.exception("agui-widget: listing the threads for the views failed")
            return
        self._link.send(message)


def thread_list(link: ViewLink) -> ThreadList:
    """The chat's :class:`ThreadList`, made when a view first asks for the threads."""
    threads = link._threads
    if threads.thread_list is None:
        threads.thread_list = ThreadList(threads, link)
    made: ThreadList = threads.thread_list
    return made


def on_threads(link: ViewLink, request: _requests.ListThreads) -> None:
    link.send(thread_list(link).message(request.request_id))


def on_switch_thread(link: ViewLink, request: _requests.SwitchThread) -> None:
    link._chat.switch(request.thread_id)


def on_new_thread(link: ViewLink, request: _requests.NewThread) -> None:
    link._chat.new_thread()


def on_rename_thread(link: ViewLink, request: _requests.RenameThread) -> None:
    link._chat.rename_thread(request.thread_id, request.title)


def on_delete_thread(link: ViewLink, request: _requests.DeleteThread) -> None:
    link._chat.delete_thread(request.thread_id)


__all__ = ["ThreadList", "on_delete_thread", "on_new_thread", "on_rename_thread", "on_switch_thread", "on_threads"]
