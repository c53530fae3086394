"""Which sub-task invocation the running code belongs to (its "lane"), so every event its agents
stream carries its ``subagentRunId``. Needs no Langroid.

The lane is a context variable: set around a sub-task's ``run_async``, it follows the code that
runs inside (its model calls, its handlers, their threads). Events posted to the run's outbox from
there are tagged on the way in (:class:`LaneOutbox`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from ag_ui.core import BaseEvent, EventType

_LANE: ContextVar[str | None] = ContextVar("agui_widget_langroid_lane", default=None)

_UNTAGGED = frozenset(
    {
        EventType.STATE_SNAPSHOT,
        EventType.STATE_DELTA,
        EventType.SUBAGENT_STARTED,
        EventType.SUBAGENT_FINISHED,
        EventType.SUBAGENT_ERROR,
    }
)


def current_lane() -> str | None:
    """The sub-task invocation the running code belongs to (None: the main task)."""
    return _LANE.get()


@contextlib.contextmanager
def in_lane(lane: str | None) -> Iterator[None]:
    """Run the block as part of ``lane``."""
    token = _LANE.set(lane)
    try:
        yield
    finally:
        _LANE.reset(token)


def tag(event: BaseEvent, lane: str | None) -> BaseEvent:
    """``event`` attributed to ``lane`` (state and the sub-agent lifecycle are the run's own)."""
    if lane is None or event.type in _UNTAGGED or "subagent_run_id" not in type(event).model_fields:
        return event
    if getattr(event, "subagent_run_id", None) is not None:
        return event
    return event.model_copy(update={"subagent_run_id": lane})


class LaneOutbox(asyncio.Queue[Any]):
    """The run's event queue: events put from inside a sub-task carry its ``subagentRunId``."""

    def put_nowait(self, item: Any) -> None:
        lane = _LANE.get()
        if lane is not None and isinstance(item, list):
            item = [tag(event, lane) for event in item]
        super().put_nowait(item)
