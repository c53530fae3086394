"""Recordings: a chat's runs kept as what was sent (each ``RunAgentInput``) and what came back (the
events, with their times), and the JSON-lines file format they are saved in (docs/recordings.md).

A session keeps its newest runs (:class:`RunRecordings`) so that any chat can be saved after the
fact (``chat.save_recording``), the event inspector can show a run's input and timing, and
``record=`` writes each run to a file as it ends. ``ReplayAgent`` (adapters) reads the format back.

The format, one JSON object per line, each with a ``kind``:

* ``{"kind": "recording", "version": 1, "recorded": ISO time, "label": str | null, "agent": str,
  "tools": [the chat's frontend tools, as the view sees them]}``: first, once;
* ``{"kind": "run", "started": ISO time, "input": RunAgentInput}``: each run, followed by
* ``{"kind": "event", "t": seconds since the run started, "event": AG-UI event}``: its events.

Events and inputs are AG-UI's camelCase JSON; a framework's ``rawEvent`` is left out (the kernel's
``chat.events`` keeps it), as on the wire to the views.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from ag_ui.core import BaseEvent, Event, RunAgentInput
from pydantic import TypeAdapter, ValidationError

from ._eventlog import Record, revive

FORMAT = "recording"
VERSION = 1
"""The format's version; a reader refuses a newer one by name rather than misreading it."""

SUFFIX = ".agui.jsonl"
"""The file name ending recordings use (any name works)."""

MAX_KEPT_RUNS = 100
"""How many of its newest runs a chat keeps for ``save_recording`` and the inspector."""

MAX_KEPT_INPUT_MESSAGES = 20_000
"""About how many input messages the kept runs hold at most: every run's input carries the
transcript so far, so a long conversation's inputs would otherwise grow with its square."""

_DROPPED = {"raw_event"}


def _iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="milliseconds")


def event_json(event: BaseEvent) -> dict[str, Any]:
    """An event as a recording holds it: camelCase JSON without the framework's ``rawEvent``."""
    return event.model_dump(mode="json", by_alias=True, exclude=_DROPPED)


class RunRecording:
    """One run as it happens: its input, its events and when each arrived."""

    __slots__ = ("clock", "input", "records", "started", "times")

    def __init__(self, run_input: RunAgentInput) -> None:
        self.input = run_input
        self.started = time.time()
        self.clock = time.perf_counter()
        """``time.perf_counter()`` when the run started: what ``times`` count from."""
        self.records: list[Record] = []
        self.times = array("d")
        """Seconds since the run started, one per record (an array: nothing for the GC to walk)."""

    @property
    def run_id(self) -> str:
        return self.input.run_id

    def add(self, records: Iterable[tuple[Record, int]]) -> None:
        now = time.perf_counter() - self.clock
        for record, _size in records:
            self.records.append(record)
            self.times.append(now)

    def add_one(self, record: Record) -> None:
        self.records.append(record)
        self.times.append(time.perf_counter() - self.clock)

    def events(self) -> list[BaseEvent]:
        return [revive(record) for record in self.records]

    def lines(self) -> Iterator[str]:
        """This run as recording lines: the run, then its events."""
        yield _line({"kind": "run", "started": _iso(self.started), "input": self.input.model_dump(mode="json", by_alias=True)})
        for record, at in zip(self.records, self.times, strict=True):
            yield _line({"kind": "event", "t": round(at, 4), "event": event_json(revive(record))})


class RunRecordings:
    """The newest runs of a chat, and where each run is written as it ends (``record=``)."""

    def __init__(self, max_runs: int = MAX_KEPT_RUNS, max_input_messages: int = MAX_KEPT_INPUT_MESSAGES) -> None:
        self.max_runs = max_runs
        self.max_input_messages = max_input_messages
        self.sink: RecordingFile | None = None
        self.runs: deque[RunRecording] = deque()
        self._input_messages = 0

    def start(self, run_input: RunAgentInput) -> RunRecording:
        recording = RunRecording(run_input)
        self.runs.append(recording)
        self._input_messages += len(run_input.messages)
        while len(self.runs) > self.max_runs or (self._input_messages > self.max_input_messages and len(self.runs) > 1):
            self._input_messages -= len(self.runs.popleft().input.messages)
        return recording

    def ended(self, recording: RunRecording) -> None:
        if self.sink is not None:
            self.sink.write(recording)

    def find(self, run_id: str) -> RunRecording | None:
        return next((run for run in reversed(self.runs) if run.run_id == run_id), None)

    def clear(self) -> None:
        self.runs.clear()
        self._input_messages = 0


def header(*, label: str | None, agent: str, tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "kind": FORMAT,
        "version": VERSION,
        "recorded": _iso(time.time()),
        "label": label,
        "agent": agent,
        "tools": [dict(tool) for tool in tools],
    }


def recording_text(head: Mapping[str, Any], runs: Iterable[RunRecording]) -> str:
    """A whole recording as text: the header line, then each run's lines."""
    return "".join([_line(head), *(line for run in runs for line in run.lines())])


class RecordingFile:
    """A recording file that each run is appended to as it ends (the header first, once).

    An existing recording is continued; a file that is not one is refused when the chat is made,
    so a typo never overwrites something else.
    """

    def __init__(self, path: str | os.PathLike[str], head: Callable[[], Mapping[str, Any]]) -> None:
        self.path = Path(path)
        self.head = head
        """Makes the header when the file is started (the chat's tools as they are then)."""
        if self.path.exists() and self.path.stat().st_size > 0:
            with self.path.open(encoding="utf-8") as existing:
                _read_header(existing.readline(), str(self.path))

    def write(self, recording: RunRecording) -> None:
        new = not self.path.exists() or self.path.stat().st_size == 0
        with self.path.open("a", encoding="utf-8") as out:
            if new:
                out.write(_line(self.head()))
            out.writelines(recording.lines())


def _line(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"


# -- reading ------------------------------------------------------------------------------------


class RecordingError(ValueError):
    """A file that is not a recording this version can read; the message names the line."""


class RecordedRun(NamedTuple):
    """One run of a recording: what was sent, and each event with its time (seconds)."""

    input: RunAgentInput
    started: str
    events: tuple[tuple[float, BaseEvent], ...]

    @property
    def is_continuation(self) -> bool:
        """True for a run that went on after answers (a tool result or a resumed interrupt), not
        after a new user message."""
        if self.input.resume:
            return True
        last = self.input.messages[-1] if self.input.messages else None
        return last is not None and last.role == "tool"

    @property
    def duration(self) -> float:
        return self.events[-1][0] if self.events else 0.0


class Recording(NamedTuple):
    """A recording read back: its header and its runs, in order."""

    version: int
    recorded: str
    label: str | None
    agent: str
    tools: tuple[Mapping[str, Any], ...]
    runs: tuple[RecordedRun, ...]
    source: str = "<recording>"


_event_adapter: TypeAdapter[BaseEvent] | None = None


def _events() -> TypeAdapter[BaseEvent]:
    global _event_adapter
    if _event_adapter is None:
        _event_adapter = TypeAdapter(Event)
    return _event_adapter


def _read_header(line: str, source: str) -> dict[str, Any]:
    try:
        head = json.loads(line)
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("kind") != FORMAT:
        raise RecordingError(f"{source} is not an agui-widget recording (its first line is not a recording header)")
    version = head.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise RecordingError(f"{source} is a recording of format version {version!r}; this agui-widget reads up to {VERSION}")
    return head


def parse_recording(lines: Iterable[str], source: str = "<recording>") -> Recording:
    """A recording from its lines; :class:`RecordingError` names the first line that is wrong."""
    numbered = ((number, line) for number, line in enumerate(lines, start=1) if line.strip())
    first = next(numbered, None)
    if first is None:
        raise RecordingError(f"{source} is empty")
    head = _read_header(first[1], source)
    runs: list[RecordedRun] = []
    current: tuple[RunAgentInput, str, list[tuple[float, BaseEvent]]] | None = None

    def close() -> None:
        if current is not None:
            runs.append(RecordedRun(current[0], current[1], tuple(current[2])))

    for number, line in numbered:
        where = f"{source} line {number}"
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise RecordingError(f"{where}: not JSON ({exc})") from None
        kind = item.get("kind") if isinstance(item, dict) else None
        try:
            if kind == "run":
                close()
                current = (RunAgentInput.model_validate(item.get("input")), str(item.get("started", "")), [])
            elif kind == "event":
                if current is None:
                    raise RecordingError(f"{where}: an event before any run")
                at = item.get("t")
                if not isinstance(at, (int, float)) or at < 0:
                    raise RecordingError(f"{where}: an event needs its time 't' (seconds since the run started)")
                current[2].append((float(at), _events().validate_python(item.get("event"))))
            else:
                raise RecordingError(f"{where}: unknown kind {kind!r} (expected 'run' or 'event')")
        except ValidationError as exc:
            what = "RunAgentInput" if kind == "run" else "AG-UI event"
            first_error = exc.errors()[0]
            place = ".".join(str(part) for part in first_error["loc"]) or "(the whole value)"
            raise RecordingError(f"{where}: not a valid {what}: {place}: {first_error['msg']}") from None
    close()
    tools = head.get("tools") or []
    return Recording(
        version=head["version"],
        recorded=str(head.get("recorded", "")),
        label=head.get("label") if isinstance(head.get("label"), str) else None,
        agent=str(head.get("agent", "")),
        tools=tuple(tool for tool in tools if isinstance(tool, dict)),
        runs=tuple(runs),
        source=source,
    )


def read_recording(source: str | os.PathLike[str] | TextIO) -> Recording:
    """Read a recording from a path or an open text file."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"no recording at {path}")
        with path.open(encoding="utf-8") as file:
            return parse_recording(file, str(path))
    return parse_recording(source, getattr(source, "name", "<recording>"))


def user_text(run_input: RunAgentInput) -> str:
    """The text of the input's last user message (what a user turn was started with)."""
    for message in reversed(run_input.messages):
        if message.role == "user":
            content = message.content
            if isinstance(content, str):
                return content
            return " ".join(getattr(part, "text", "") for part in content if getattr(part, "type", "") == "text")
    return ""


def user_count(run_input: RunAgentInput) -> int:
    return sum(1 for message in run_input.messages if message.role == "user")


__all__ = [
    "MAX_KEPT_RUNS",
    "SUFFIX",
    "VERSION",
    "RecordedRun",
    "Recording",
    "RecordingError",
    "RecordingFile",
    "RunRecording",
    "RunRecordings",
    "event_json",
    "header",
    "parse_recording",
    "read_recording",
    "recording_text",
    "user_count",
    "user_text",
]
