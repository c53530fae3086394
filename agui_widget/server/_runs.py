"""A served run as the app's hooks see it, the input guard's refusal, and the per-user run limit.

The notebook's hooks and guard (``on_run_start``, ``on_event``, ``on_run_end``, ``on_error``,
``guard``) work the same on ``create_app``: the same :class:`~agui_widget.vocabulary._hooks.Hooks` calls
them, with a :class:`ServedRun` where a notebook hands its ``Run`` (the same names: ``id``,
``status``, ``events``, ``reply``, ``error``, ``refused``).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ag_ui.core import BaseEvent, EventType, RunAgentInput, RunErrorEvent, RunStartedEvent
from ag_ui.core.version import PROTOCOL_VERSION

from ..pipeline._eventlog import EventLog
from ..vocabulary._hooks import INPUT_REFUSED, Guard
from ..vocabulary._marks import REFUSED, with_mark

__all__ = [
    "REFUSED_CODE",
    "RETRY_AFTER_SECONDS",
    "RefusedTurn",
    "RunLimiter",
    "ServedRun",
    "checked_guard",
    "mark_refused",
    "turn_content",
]

REFUSED_CODE = INPUT_REFUSED
"""The ``RUN_ERROR`` code of a turn the input guard refused (its message is the guard's reason)."""

RETRY_AFTER_SECONDS = 2
"""What a 429 asks a client to wait: a run slot frees when one of the user's runs ends."""

ServedStatus = Literal["running", "finished", "error", "cancelled", "refused"]


@dataclass
class ServedRun:
    """One run the server streams: who asked, what was sent, and how it ended."""

    id: str
    thread_id: str
    agent: str
    user: str | None
    input: RunAgentInput
    status: ServedStatus = "running"
    error: str | None = None
    refused: str | None = None
    """The input guard's reason when it refused the turn's message."""
    event_log: EventLog | None = field(default=None, repr=False)
    """The events sent, kept only when a hook can read them (``on_run_end``, ``on_error``)."""

    @property
    def events(self) -> list[BaseEvent]:
        """The AG-UI events the client was sent (empty unless ``on_run_end`` or ``on_error`` is set)."""
        return self.event_log.events() if self.event_log is not None else []

    @property
    def reply(self) -> str:
        """The text of the messages this run streamed, one paragraph per message."""
        texts: dict[str, list[str]] = {}
        for event in self.events:
            if event.type == EventType.TEXT_MESSAGE_CONTENT:
                texts.setdefault(event.message_id, []).append(event.delta)  # type: ignore[attr-defined]
        return "\n\n".join("".join(parts) for parts in texts.values())


def checked_guard(guard: Guard | None) -> Guard | None:
    """``create_app``'s ``guard``, refused at once when it is not a function."""
    if guard is not None and not callable(guard):
        raise TypeError(f"guard must be a function of the user's message (or None), not {type(guard).__name__}")
    return guard


def turn_content(run_input: RunAgentInput) -> Any | None:
    """The content of the message that starts a turn (the request's last message, when it is the
    user's): what the input guard reads. None for a follow-up run (after a tool result, say)."""
    if not run_input.messages or run_input.messages[-1].role != "user":
        return None
    content = run_input.messages[-1].content
    if isinstance(content, list):
        return [part.model_dump(mode="json", by_alias=True, exclude_none=True) for part in content]
    return content


class RefusedTurn:
    """What runs instead of the agent when the guard refuses: a run that ends in ``RUN_ERROR``
    with the guard's reason (code ``input_refused``), so any AG-UI client shows it."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id, protocol_version=PROTOCOL_VERSION)
        yield RunErrorEvent(message=self.reason, code=REFUSED_CODE)


def mark_refused(messages: list[dict[str, Any]], reason: str) -> list[dict[str, Any]]:
    """``messages`` with the last user message marked refused (as a notebook's chat marks it)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "user":
            metadata = message.get("metadata")
            marked = {**message, "metadata": with_mark(metadata if isinstance(metadata, Mapping) else None, REFUSED, reason)}
            return [*messages[:index], marked, *messages[index + 1 :]]
    return messages


class RunLimiter:
    """How many runs each user has streaming in this process, against a limit (None: no limit).

    Per worker process: with N workers behind a balancer, a user may have up to N × the limit
    at once (docs/remote.md says so).
    """

    def __init__(self, max_runs: int | None) -> None:
        if max_runs is not None and (isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 1):
            raise ValueError(f"max_runs_per_user must be a positive number of runs or None (no limit), not {max_runs!r}")
        self.max_runs = max_runs
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()

    def acquire(self, key: str) -> bool:
        """Take a run slot for ``key``; False when its runs are at the limit."""
        with self._lock:
            count = self._running.get(key, 0)
            if self.max_runs is not None and count >= self.max_runs:
                return False
            self._running[key] = count + 1
            return True

    def release(self, key: str) -> None:
        with self._lock:
            count = self._running.get(key, 0) - 1
            if count > 0:
                self._running[key] = count
            else:
                self._running.pop(key, None)  # no entry is kept for a user with no run

    def running(self, key: str) -> int:
        with self._lock:
            return self._running.get(key, 0)
