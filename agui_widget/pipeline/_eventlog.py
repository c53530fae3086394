"""The events a chat keeps (``chat.events``, ``Run.events``), stored so that keeping them is cheap.

A plain delta (most of a stream: a TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS or
REASONING_MESSAGE_CONTENT with only an id and a delta) is kept as a tuple of three strings, which
the garbage collector stops tracking; any other event is kept as itself. Reading rebuilds the
``ag_ui.core`` objects. Kept as pydantic objects, every token left three tracked objects that each
collection walked again: measured (docs/architecture.md, "The event log"), that cost more per
streamed token than all the rest of the pipeline.

The chat's log is bounded by count and by JSON size; the newest event is always kept.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Union

from ag_ui.core import BaseEvent

from ..vocabulary._deltas import BY_NAME, plain_delta

MAX_EVENTS = 20_000
"""How many events a chat's log keeps at most (the newest)."""

MAX_EVENT_BYTES = 4_000_000
"""About how much JSON a chat's log keeps at most (the newest events).

A count alone does not bound memory: some agents put the whole transcript into every run's
MESSAGES_SNAPSHOT, or a copy of their framework's raw event (with the graph state) onto nearly
every event, so 20,000 of those can hold gigabytes. Plain token deltas (about 90 bytes each) meet
the count first. Measured (benchmarks/memory.py): an event costs about 8 times its JSON in
memory."""

DELTA_FRAMING = 80
"""JSON bytes of a plain delta event besides its delta text (its type, a typical id, the keys)."""

Record = Union[tuple[str, str, str], BaseEvent]
"""How one event is kept: ``(type, id, delta)`` for a plain delta, else the event itself."""


def event_json_size(event: BaseEvent) -> int:
    """About how many bytes ``event`` takes as camelCase JSON (plain deltas without serializing)."""
    plain = plain_delta(event)
    if plain is not None:
        return DELTA_FRAMING + len(plain[3])
    try:
        return len(event.model_dump_json(by_alias=True))
    except Exception:  # a value JSON cannot hold: its text stands in for it
        return len(repr(event))


def records_of(events: Iterable[BaseEvent]) -> list[tuple[Record, int]]:
    """Each event as it is kept, with its JSON size."""
    kept: list[tuple[Record, int]] = []
    for event in events:
        plain = plain_delta(event)
        if plain is None:
            kept.append((event, event_json_size(event)))
        else:
            kind, _key, ident, delta = plain
            kept.append(((kind, ident, delta), DELTA_FRAMING + len(delta)))
    return kept


def revive(record: Record) -> BaseEvent:
    if isinstance(record, tuple):
        kind, ident, delta = record
        return BY_NAME[kind].build(ident, delta)
    return record


class _KeptEvents:
    """Reading a log: events in order, oldest first."""

    _records: deque[Record]

    def events(self) -> list[BaseEvent]:
        """The kept events as ``ag_ui.core`` objects (rebuilt: plain deltas are new objects)."""
        return [revive(record) for record in self._records]

    def tail(self, count: int) -> list[BaseEvent]:
        """The newest ``count`` events."""
        records = self._records
        start = max(0, len(records) - count)
        return [revive(records[index]) for index in range(start, len(records))]

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[BaseEvent]:
        return (revive(record) for record in self._records)


class EventLog(_KeptEvents):
    """Events in order, oldest first, optionally bounded by count and by JSON bytes."""

    def __init__(self, max_events: int | None = None, max_bytes: int | None = None) -> None:
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.bytes = 0
        """About how many bytes of JSON the kept events take."""
        self._records = deque()
        self._sizes: deque[int] = deque()
        self._count_limit = max_events if max_events is not None else float("inf")
        self._byte_limit = max_bytes if max_bytes is not None else float("inf")

    def add(self, records: list[tuple[Record, int]]) -> None:
        """Keep these (from :func:`records_of`), dropping the oldest beyond the bounds."""
        kept, sizes = self._records, self._sizes
        for record, size in records:
            kept.append(record)
            sizes.append(size)
            self.bytes += size
        self._trim()

    def add_one(self, record: Record, size: int) -> None:
        """Keep one record (the hot path: a plain delta)."""
        records = self._records
        records.append(record)
        self._sizes.append(size)
        self.bytes += size
        if len(records) > self._count_limit or self.bytes > self._byte_limit:
            self._trim()

    def _trim(self) -> None:
        """Drop the oldest records beyond the bounds; the newest is always kept."""
        kept, sizes = self._records, self._sizes
        while len(kept) > self._count_limit or (self.bytes > self._byte_limit and len(kept) > 1):
            kept.popleft()
            self.bytes -= sizes.popleft()

    def extend(self, events: Iterable[BaseEvent]) -> None:
        self.add(records_of(events))


class TurnLog(_KeptEvents):
    """Every event of one turn (``Run.events``): unbounded, so it keeps no sizes, and keeping a
    delta is one append (the hot path keeps each token in this log and the chat's)."""

    def __init__(self) -> None:
        self._records = deque()
        self.keep = self._records.append
        """Keep one record (the hot path; the deque's own append: no Python frame a token)."""

    def add(self, records: list[tuple[Record, int]]) -> None:
        self._records.extend(record for record, _size in records)


__all__ = ["DELTA_FRAMING", "MAX_EVENTS", "MAX_EVENT_BYTES", "EventLog", "TurnLog", "event_json_size", "records_of", "revive"]
