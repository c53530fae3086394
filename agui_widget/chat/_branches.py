"""``AgentChat``'s turns run again: Regenerate, and a user message edited.

A mixin of ``AgentChat``: the views' ``regenerate`` and ``edit`` requests and the cells' calls both
come here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..inputs._attachments import with_attachments

if TYPE_CHECKING:
    from ..session._run import Run
    from ..session._session import Session


class ChatBranches:
    """Regenerate and Edit."""

    if TYPE_CHECKING:  # what the methods read of the chat
        _session: Session
        messages: list[dict[str, Any]]

    def regenerate(self) -> Run:
        """Run the last turn again, dropping the answer it got: the last user message, or the
        action on an A2UI surface that started the turn (the same action, reported as before)."""
        return self._session.regenerate()

    def edit(self, message_id: str, text: str) -> Run:
        """Replace a user message's text, drop what followed it, and run again; the message's
        attachments go with the new text."""
        for index, message in enumerate(self.messages):
            if message.get("id") == message_id and message.get("role") == "user":
                content = message.get("content")
                media = (
                    [p for p in content if isinstance(p, dict) and p.get("type") != "text"] if isinstance(content, list) else []
                )
                return self._session.truncate_and_send(index, with_attachments(text, media))
        raise KeyError(f"no user message has id {message_id!r}")


__all__ = ["ChatBranches"]
