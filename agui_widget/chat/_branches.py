"""``AgentChat``'s turns run again, and the versions that leaves: Regenerate, Edit, and branches.

A mixin of ``AgentChat``: the views' ``regenerate``, ``edit`` and ``branch`` requests and the
cells' calls all come here. A Regenerate or an Edit keeps what it replaces as another version
(``session/_branches.py``); ``chat.messages`` and what the agent gets are the branch shown, and
``chat.branches`` / the synced ``branches`` trait say where the other versions are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import traitlets

from ..inputs._attachments import with_attachments

if TYPE_CHECKING:
    from ..session._run import Run
    from ..session._session import Session


class ChatBranches(traitlets.HasTraits):
    """Regenerate, Edit, and the versions of the conversation they keep."""

    branch_points: traitlets.List[dict[str, Any]] = traitlets.List(
        help="where the branch shown forks: the 'n of m' each view shows, as chat.branches lists them"
    ).tag(sync=True)

    if TYPE_CHECKING:  # what the methods read of the chat
        _session: Session
        messages: list[dict[str, Any]]

    def regenerate(self) -> Run:
        """Run the last turn again: the last user message (the same message), or the action on an
        A2UI surface that started the turn (the same action, reported as before). The answer it
        had is kept as another version (:attr:`branches`)."""
        return self._session.regenerate()

    def edit(self, message_id: str, text: str) -> Run:
        """Send ``text`` in place of user message ``message_id`` (any one, not only the last) and
        run again from there; the message's attachments go with the new text. The conversation it
        replaces is kept as another version (:attr:`branches`)."""
        for index, message in enumerate(self.messages):
            if message.get("id") == message_id and message.get("role") == "user":
                content = message.get("content")
                media = (
                    [p for p in content if isinstance(p, dict) and p.get("type") != "text"] if isinstance(content, list) else []
                )
                return self._session.truncate_and_send(index, with_attachments(text, media))
        raise KeyError(f"no user message has id {message_id!r}")

    @property
    def branches(self) -> list[dict[str, Any]]:
        """Where the branch shown forks, in transcript order; each: ``parentId`` (the message the
        versions follow; None for the start), ``messageId`` (the first message of the version
        shown; None when it is empty), ``kind`` (``"answer"``: the versions are answers to
        ``parentId``, from Regenerate; ``"edit"``: they start with an edited user message),
        ``index`` (the version shown, from 0), ``count``, and ``at`` (the message the view shows
        "n of m" under). The versions not shown are kept with the thread and in :meth:`to_json`."""
        session = self._session
        return session.branches.entries(session.messages)

    def show_branch(self, message_id: str | None, index: int) -> None:
        """Show version ``index`` (from 0) of the conversation at a fork: ``message_id`` is an
        entry's ``messageId`` or ``parentId`` in :attr:`branches` (None: the fork at the start).
        ``chat.messages``, the views and the next run's input follow. Refused while a run is
        active (RuntimeError); KeyError for no such fork, ValueError for no such version."""
        session = self._session
        entries = self.branches
        entry = next((e for e in entries if message_id is not None and e["messageId"] == message_id), None)
        entry = entry or next((e for e in entries if e["parentId"] == message_id), None)
        if entry is None:
            raise KeyError(f"no versions at message {message_id!r}: chat.branches lists the forks of the branch shown")
        session.show_branch(entry["parentId"], index)

    def _branches_follow(self) -> None:
        """The views' ``branch_points`` follow the transcript, between runs (during one nothing
        can switch, and the view offers no switch)."""
        session = self._session
        if session.active is None and (session.branches.forks or self.branch_points):
            self.branch_points = self.branches


__all__ = ["ChatBranches"]
