"""The three kinds of delta event, declared once: a message's text, a tool call's arguments, and
a reasoning message's text.

Most of a stream is deltas, so several parts of the pipeline treat them specially: the consumer
rejoins surrogate pairs split across them, the event log keeps a plain one as three strings, the
wire writes it without the generic serializer and merges neighbours of the same id. They all read
this table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningMessageContentEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)


class DeltaKind(NamedTuple):
    type: EventType
    id_key: str
    """The camelCase field naming what the delta belongs to (``messageId``, ``toolCallId``)."""
    id_attr: str
    """The same field as an ``ag_ui.core`` attribute."""
    end: EventType
    """The event that closes what the deltas stream into."""
    build: Callable[[str, str], BaseEvent]
    """``(id, delta) -> event``."""

    @property
    def name(self) -> str:
        return self.type.value


DELTAS: dict[Any, DeltaKind] = {
    kind.type: kind
    for kind in (
        DeltaKind(EventType.TEXT_MESSAGE_CONTENT, "messageId", "message_id", EventType.TEXT_MESSAGE_END,
                  lambda ident, delta: TextMessageContentEvent(message_id=ident, delta=delta)),
        DeltaKind(EventType.TOOL_CALL_ARGS, "toolCallId", "tool_call_id", EventType.TOOL_CALL_END,
                  lambda ident, delta: ToolCallArgsEvent(tool_call_id=ident, delta=delta)),
        DeltaKind(EventType.REASONING_MESSAGE_CONTENT, "messageId", "message_id", EventType.REASONING_MESSAGE_END,
                  lambda ident, delta: ReasoningMessageContentEvent(message_id=ident, delta=delta)),
    )
}  # fmt: skip
"""Event type -> its kind (``EventType`` members compare equal to their names, so either works)."""

BY_NAME: dict[str, DeltaKind] = {kind.name: kind for kind in DELTAS.values()}
BY_END: dict[Any, DeltaKind] = {kind.end: kind for kind in DELTAS.values()}

PLAIN_FIELDS = frozenset({"type", "delta", "message_id", "tool_call_id"})
WIRE_FIELDS = PLAIN_FIELDS | {"raw_event"}
"""Fields a delta may have set and still go to a view as a plain delta (rawEvent stays in the kernel)."""


def plain_delta(event: BaseEvent, allowed: frozenset[str] = PLAIN_FIELDS) -> tuple[str, str, str, str] | None:
    """``(type, id key, id, delta)`` when ``event`` is a plain delta: a delta event with only its
    id and its delta set (most of a stream), or only ``allowed`` fields; else None."""
    kind = DELTAS.get(event.type)
    if kind is None or event.__pydantic_extra__ or not event.__pydantic_fields_set__ <= allowed:
        return None
    return kind.name, kind.id_key, getattr(event, kind.id_attr), event.delta  # type: ignore[attr-defined]
