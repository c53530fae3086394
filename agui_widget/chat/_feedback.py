"""``AgentChat``'s feedback: a thumbs up or down on an answer, with an optional comment.

A mixin of ``AgentChat``: the view's ``feedback`` request and ``chat.feedback(...)`` both come
here. The rating is written into the answer's metadata (``vocabulary._feedback``), so the thread
store, the exports and the views see it, and ``on_feedback`` is told.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ..vocabulary._feedback import FeedbackHook, Rating, call_feedback_hook, feedback_of, rated
from ..vocabulary._loops import running_loop

if TYPE_CHECKING:
    from ..session._session import Session
    from ._view_link import ViewLink

log = logging.getLogger("agui_widget")


class ChatFeedback:
    """Ratings of the chat's answers, and the hook that hears of them."""

    if TYPE_CHECKING:  # what the methods read of the chat
        _session: Session
        _link: ViewLink

    _on_feedback: FeedbackHook | None = None
    _feedback_tasks: set[asyncio.Task[None]]

    def feedback(self, message_id: str, rating: Rating | None, comment: str | None = None) -> None:
        """Rate the assistant message ``message_id``: ``"up"``, ``"down"``, or None to withdraw the
        rating; ``comment`` (at most 2,000 characters) goes with it. Kept in the message's metadata
        (``metadata.agui_widget.feedback``), so threads, exports and every view keep it; then
        ``on_feedback(message, rating, comment)`` is called. Not while a run is active (RuntimeError)."""
        session = self._session
        messages, message = rated(session.messages, message_id, rating, comment)
        if session.active is not None:
            raise RuntimeError("an answer is rated once the agent has finished answering")
        before = next(m for m in session.messages if m.get("id") == message_id)
        if feedback_of(before) == feedback_of(message):
            return  # said already (a second click in another view): nothing new to store or tell
        session.replace_messages(messages)
        value = feedback_of(message)
        self._tell_feedback_hook(message, value["rating"] if value else None, value.get("comment") if value else None)  # type: ignore[arg-type]

    def _tell_feedback_hook(self, message: dict[str, Any], rating: Rating | None, comment: str | None) -> None:
        hook = self._on_feedback
        if hook is None:
            return
        try:
            pending = call_feedback_hook(hook, copy.deepcopy(message), rating, comment)
        except Exception as exc:
            self._feedback_hook_failed(exc)
            return
        if pending is not None:
            loop = running_loop()
            if loop is None:  # no loop (a script, not a kernel): nothing can run the coroutine
                getattr(pending, "close", lambda: None)()
                self._feedback_hook_failed(RuntimeError("an async on_feedback needs a running event loop"))
                return
            task = loop.create_task(self._awaited_hook(pending), name="agui-widget on_feedback")
            tasks = self.__dict__.setdefault("_feedback_tasks", set())
            tasks.add(task)  # the loop keeps only weak references to tasks
            task.add_done_callback(tasks.discard)

    async def _awaited_hook(self, pending: Awaitable[Any]) -> None:
        try:
            await pending
        except Exception as exc:
            self._feedback_hook_failed(exc)

    def _feedback_hook_failed(self, exc: Exception) -> None:
        """The hook's failure is the notebook author's to see; the rating stands."""
        log.error("agui-widget: the on_feedback hook failed (the rating is kept)", exc_info=exc)
        self._link.session_notice("warning", f"on_feedback failed ({type(exc).__name__}: {exc}); the rating is kept")


__all__ = ["ChatFeedback"]
