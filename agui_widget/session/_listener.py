"""What a session tells whoever shows it (the widget): a module of its own, so the parts of the
session can all speak to it without importing the session."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ag_ui.core import BaseEvent, Context

from ..pipeline._eventlog import Record, revive


class SessionListener:
    """What the session tells the widget. The defaults do nothing (a session can run alone)."""

    def session_events(self, events: Sequence[BaseEvent], records: Sequence[tuple[Record, int]] = ()) -> None:
        """Events were delivered (in order); ``messages``/``state`` already include them.
        ``records`` are the same events as the event log keeps them (a plain delta as a tuple of
        strings), when the session has them: what the hot path reads instead of the events."""

    def session_delta(self, record: tuple[str, str, str], size: int) -> None:
        """A plain delta was delivered, as the event log keeps it (``(type, id, delta)``, about
        ``size`` bytes of JSON): the hot path. By default, the same as :meth:`session_events`."""
        self.session_events([revive(record)], [(record, size)])

    def session_messages(self, start: int) -> None:
        """The transcript changed outside the event stream, from index ``start`` on."""

    def session_state(self, patch: list[dict[str, Any]]) -> None:
        """The state changed outside the event stream, by ``patch``."""

    def session_status(self) -> None:
        """status, pending, queued, error or run_id changed."""

    def session_run_ended(self, start: int) -> None:
        """A run ended; the messages from ``start`` on are what it changed."""

    def session_run_starting(self) -> None:
        """A run's input is about to be built: the last moment to hand the session what changed."""

    def session_notice(self, level: Literal["info", "warning", "error"], text: str) -> None:
        """Something for the user to read that is not part of the transcript."""

    def session_context(self, read: Sequence[Context | None]) -> None:
        """What each ``context`` entry sends the run about to start (None: it could not be read)."""
