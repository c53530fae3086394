"""Hypothesis strategies for AG-UI 1.0 event streams, as a producer puts them on the wire.

A generated :class:`Stream` is the conversation a client holds before the stream (its seed
messages and state) and the raw camelCase events a producer sends: several runs, text messages
interleaved with tool calls, reasoning and state, arguments and text split anywhere (inside a
UTF-16 surrogate pair too, as a JavaScript producer slicing strings does), the ``*_CHUNK``
shorthand, snapshots. Valid streams obey the sequencing rules of ``agui_widget/pipeline/_verify.py``
(those of ``@ag-ui/client``'s ``verifyEvents``) and every JSON Patch applies. An invalid stream
is a valid one with one violation of a named kind injected partway.

Ids and texts are short and drawn from small pools, so a shrunk counterexample reads easily:
messages ``m0, m1…``, tool calls ``t0…``, tool results ``r0…``, reasoning spans ``s0…``.
"""

from __future__ import annotations

import copy
import functools
import json
import struct
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
from hypothesis import strategies as st

__all__ = [
    "ALL_FEATURES",
    "VIOLATIONS",
    "Stream",
    "json_values",
    "streams",
    "text_to_units",
    "units_to_text",
    "utf16_split",
]

TEXT = "text"
TOOLS = "tools"
RESULTS = "results"
REASONING = "reasoning"
STATE = "state"
SNAPSHOTS = "messages snapshots"
CHUNKS = "chunks"
REOPEN = "reopened messages"
SPLIT_PAIRS = "split surrogate pairs"
LONE_SURROGATES = "lone surrogates"
METADATA = "metadata"
RUN_ERRORS = "run errors"

ALL_FEATURES: frozenset[str] = frozenset(
    {TEXT, TOOLS, RESULTS, REASONING, STATE, SNAPSHOTS, CHUNKS, REOPEN, SPLIT_PAIRS, LONE_SURROGATES, METADATA, RUN_ERRORS}
)

# The violations an invalid stream carries; each names a rule both clients must enforce.
CONTENT_NEVER_STARTED = "TEXT_MESSAGE_CONTENT for a message that was never started"
END_TWICE = "an END repeated for an entity already closed"
CHUNK_CLOSED_BY_END = "a TEXT_MESSAGE_CHUNK-built message closed by an explicit TEXT_MESSAGE_END"
FINISHED_WHILE_OPEN = "RUN_FINISHED while a text message is still open"
REASONING_START_WITHOUT_ROLE = "REASONING_MESSAGE_START without its required role"

VIOLATIONS: tuple[str, ...] = (
    CONTENT_NEVER_STARTED,
    END_TWICE,
    CHUNK_CLOSED_BY_END,
    FINISHED_WHILE_OPEN,
    REASONING_START_WITHOUT_ROLE,
)

THREAD_ID = "th"


@dataclass(frozen=True)
class Stream:
    """What a client holds before the stream, the raw events, and the rule they break (if any)."""

    messages: list[dict[str, Any]]
    state: Any
    events: list[dict[str, Any]]
    violation: str | None = None

    def __repr__(self) -> str:
        lines = [
            f"Stream(violation={self.violation!r},",
            f"  messages={_ascii(self.messages)},",
            f"  state={_ascii(self.state)},",
            "  events=[",
            *(f"    {_ascii(event)}," for event in self.events),
            "  ])",
        ]
        return "\n".join(lines)


def _ascii(value: Any) -> str:
    """JSON as a JavaScript producer writes it: lone surrogates stay visible as escapes."""
    return json.dumps(value, ensure_ascii=True)


# ---------------------------------------------------------------------------------------------
# Text as UTF-16 code units
# ---------------------------------------------------------------------------------------------

# Tokens of generated text, as UTF-16 code units. An emoji is two units (a surrogate pair), so a
# split between them hands each delta one half, which is what a JavaScript producer does.
_PLAIN_TOKENS: tuple[tuple[int, ...], ...] = ((0x61,), (0x62,), (0x20,), (0xE9,))
_EMOJI = (0xD83D, 0xDE00)  # U+1F600
_LONE_HIGH = (0xD83D,)
_LONE_LOW = (0xDC00,)


def units_to_text(units: Sequence[int]) -> str:
    """The Python string a JSON parser gives for these code units: pairs join, lone halves stay."""
    return struct.pack(f"<{len(units)}H", *units).decode("utf-16-le", "surrogatepass")


def text_to_units(text: str) -> list[int]:
    raw = text.encode("utf-16-le", "surrogatepass")
    return list(struct.unpack(f"<{len(raw) // 2}H", raw))


def utf16_split(text: str, cuts: Sequence[int]) -> list[str]:
    """``text`` cut at UTF-16 code-unit offsets (sorted, repeats giving empty pieces)."""
    units = text_to_units(text)
    bounds = [0, *sorted(min(max(cut, 0), len(units)) for cut in cuts), len(units)]
    return [units_to_text(units[start:end]) for start, end in zip(bounds, bounds[1:])]


def choose(draw: st.DrawFn, items: Sequence[Any]) -> Any:
    """One of ``items`` (shrinking towards the first), without building a strategy per call."""
    return items[draw(st.integers(0, len(items) - 1))]


def rarely(draw: st.DrawFn, one_in: int) -> bool:
    """True about once in ``one_in`` draws; shrinks to False."""
    return draw(st.integers(0, one_in - 1)) == one_in - 1


@functools.cache
def _texts(features: frozenset[str], max_tokens: int = 6) -> st.SearchStrategy[str]:
    """Short texts over a small alphabet: ASCII, an accented letter, and (by feature) an emoji
    (two UTF-16 units) and lone surrogates."""
    tokens: list[tuple[int, ...]] = list(_PLAIN_TOKENS)
    if SPLIT_PAIRS in features:
        tokens.append(_EMOJI)
    if LONE_SURROGATES in features:
        tokens += [_LONE_HIGH, _LONE_LOW]
    return st.lists(st.sampled_from(tokens), max_size=max_tokens).map(
        lambda chosen: units_to_text([unit for token in chosen for unit in token])
    )


@functools.cache
def _cuts(length: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, length), max_size=4)


def shuffled(draw: st.DrawFn, items: Sequence[Any]) -> list[Any]:
    """``items`` in a drawn order (shrinking towards the given one)."""
    remaining, order = list(items), []
    while remaining:
        order.append(remaining.pop(draw(st.integers(0, len(remaining) - 1))))
    return order


def draw_pieces(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` split at arbitrary code-unit offsets (pieces may be empty or half a pair)."""
    return utf16_split(text, draw(_cuts(len(text_to_units(text)))))


# ---------------------------------------------------------------------------------------------
# JSON values and JSON Patch
# ---------------------------------------------------------------------------------------------

# Keys include the ones RFC 6901 must escape ("/" and "~"), the empty key and a numeric one.
_KEYS = st.sampled_from(["a", "b", "c", "0", "x/y", "m~n", ""])


def json_values(features: Collection[str] = ALL_FEATURES) -> st.SearchStrategy[Any]:
    """Small JSON values: null, booleans, small integers, short texts, nested lists and objects."""
    return _json_values(frozenset(features))


@functools.cache
def _json_values(features: frozenset[str]) -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers(-2, 2) | _texts(features, 3)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
        max_leaves=5,
    )


def _token(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _locations(document: Any, pointer: str = "") -> list[tuple[str, Any]]:
    """Every (pointer, value) in ``document``, the root (``""``) first."""
    found = [(pointer, document)]
    if isinstance(document, dict):
        for key, value in document.items():
            found += _locations(value, f"{pointer}/{_token(key)}")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _locations(value, f"{pointer}/{index}")
    return found


def _add_targets(document: Any) -> list[str]:
    """Pointers an ``add`` may name: any member of an object (new or not), any array slot or end."""
    targets: list[str] = []
    for pointer, value in _locations(document):
        if isinstance(value, dict):
            targets += [f"{pointer}/{_token(key)}" for key in [*value, "a", "b", "x/y", ""]]
        elif isinstance(value, list):
            targets += [f"{pointer}/{index}" for index in range(len(value) + 1)] + [f"{pointer}/-"]
    return list(dict.fromkeys(targets))


def _applies(document: Any, operations: list[dict[str, Any]]) -> Any | None:
    """The document after ``operations`` (RFC 6902, python-jsonpatch), or None when they fail."""
    try:
        return jsonpatch.apply_patch(copy.deepcopy(document), copy.deepcopy(operations))
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, KeyError, IndexError, TypeError, ValueError):
        return None


@st.composite
def _operation(draw: st.DrawFn, document: Any, features: Collection[str]) -> dict[str, Any] | None:
    """One operation that applies to ``document``, or None when the drawn one would not."""
    locations = _locations(document)
    inner = [pointer for pointer, _ in locations if pointer != ""]
    targets = _add_targets(document)
    kind = choose(draw, ["add", "replace", "remove", "move", "copy", "test"])
    if kind == "add" and targets:
        operation = {"op": "add", "path": choose(draw, targets), "value": draw(json_values(features))}
    elif kind == "replace":
        operation = {"op": "replace", "path": choose(draw, [p for p, _ in locations]), "value": draw(json_values(features))}
    elif kind == "remove" and inner:
        operation = {"op": "remove", "path": choose(draw, inner)}
    elif kind in ("move", "copy") and inner and targets:
        source = choose(draw, inner)
        destinations = [t for t in targets if not t.startswith(source + "/")]
        if not destinations:
            return None
        operation = {"op": kind, "from": source, "path": choose(draw, destinations)}
    elif kind == "test":
        pointer, value = choose(draw, locations)
        operation = {"op": "test", "path": pointer, "value": copy.deepcopy(value)}
    else:
        return None
    return operation if _applies(document, [operation]) is not None else None


@st.composite
def _patch(draw: st.DrawFn, document: Any, features: Collection[str]) -> tuple[list[dict[str, Any]], Any]:
    """A JSON Patch of one to three operations that applies to ``document``, and the result."""
    operations: list[dict[str, Any]] = []
    current = document
    for _ in range(draw(st.integers(1, 3))):
        operation = draw(_operation(current, features))
        if operation is None:
            continue
        operations.append(operation)
        current = _applies(current, [operation])
    if not operations:
        operations = [{"op": "test", "path": "", "value": copy.deepcopy(document)}]
    return operations, current


# ---------------------------------------------------------------------------------------------
# The producer
# ---------------------------------------------------------------------------------------------


@dataclass
class _Open:
    """An entity between its START and its END, with the pieces it has still to stream."""

    pieces: list[str] = field(default_factory=list)


@dataclass
class _Lane:
    """What the ``*_CHUNK`` shorthand is assembling (one lane: every chunk is the parent's)."""

    kind: str  # "text" | "tool" | "reasoning"
    entity_id: str
    pieces: list[str]


class _Producer:
    """A model of what a well-behaved producer may send next, and the events sent so far."""

    def __init__(self, draw: st.DrawFn, features: Collection[str], messages: list[dict[str, Any]], state: Any) -> None:
        self.draw = draw
        self.features = frozenset(features)
        self.events: list[dict[str, Any]] = []
        self.counters: dict[str, int] = {}
        self.roles: dict[str, str] = {}  # message id -> role, for every message the client holds
        self.calls: dict[str, str] = {}  # tool call id -> name, every call seen
        self.open_text: dict[str, _Open] = {}
        self.open_reasoning: dict[str, _Open] = {}
        self.open_spans: dict[str, None] = {}
        self.open_calls: dict[str, _Open] = {}
        self.lane: _Lane | None = None
        self.state = state
        self.run_index = 0
        for message in messages:
            self._remember(message)
        self.kinds = self._kinds()

    # -- ids ---------------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        count = self.counters.get(prefix, 0)
        self.counters[prefix] = count + 1
        return f"{prefix}{count}"

    def _remember(self, message: dict[str, Any]) -> None:
        self.roles[message["id"]] = message["role"]
        for call in message.get("toolCalls") or ():
            self.calls[call["id"]] = call["function"]["name"]

    # -- emitting ----------------------------------------------------------------------------

    def emit(self, event: dict[str, Any], *, chunk: bool = False) -> None:
        if not chunk:
            self.lane = None  # any explicit event closes the shorthand's open entity
        self.events.append(event)

    def with_metadata(self, event: dict[str, Any]) -> dict[str, Any]:
        if METADATA in self.features and self.rarely(6):
            event["metadata"] = {self.choose(["k", "usage"]): self.draw(json_values(self.features))}
        return event

    def rarely(self, one_in: int) -> bool:
        return rarely(self.draw, one_in)

    def choose(self, items: Sequence[Any]) -> Any:
        return choose(self.draw, items)

    def text(self, max_tokens: int = 6) -> str:
        return self.draw(_texts(self.features, max_tokens))

    def pieces(self, text: str) -> list[str]:
        return draw_pieces(self.draw, text)

    # -- what may happen next ----------------------------------------------------------------

    def _kinds(self) -> list[Callable[[], None]]:
        """The steps this stream's features allow, in a fixed order (continuations twice, so
        streams stream). A step whose entity is not there (content with nothing open) sends
        nothing; keeping the list fixed is what lets the shrinker drop a step without changing
        what the steps after it mean."""
        has = self.features.__contains__
        kinds: list[Callable[[], None]] = []
        if has(TEXT):
            kinds += [self.text_start, self.text_content, self.text_content, self.text_end]
        if has(TOOLS):
            kinds += [self.tool_start, self.tool_args, self.tool_args, self.tool_end]
            if has(RESULTS):
                kinds.append(self.tool_result)
        if has(REASONING):
            kinds += [self.reasoning_start, self.reasoning_content, self.reasoning_content, self.reasoning_end]
            kinds += [self.span_start, self.span_end]
        if has(STATE):
            kinds += [self.state_snapshot, self.state_delta]
        if has(SNAPSHOTS):
            kinds.append(self.messages_snapshot)
        if has(CHUNKS):
            if has(TEXT):
                kinds.append(self.text_chunk)
            if has(TOOLS):
                kinds.append(self.tool_chunk)
            if has(REASONING):
                kinds.append(self.reasoning_chunk)
            kinds += [self.continue_chunk, self.continue_chunk]
        return kinds

    def step(self) -> None:
        self.choose(self.kinds)()

    # -- runs --------------------------------------------------------------------------------

    def run_started(self) -> None:
        self.emit({"type": "RUN_STARTED", "threadId": THREAD_ID, "runId": f"run{self.run_index}"})

    def run_ended(self) -> None:
        run_id = f"run{self.run_index}"
        self.run_index += 1
        if RUN_ERRORS in self.features and self.rarely(5):
            # A failed run may leave anything open; the next RUN_STARTED begins afresh.
            self.emit({"type": "RUN_ERROR", "message": "boom", "code": "failed"})
        else:
            self.close_everything()
            self.emit({"type": "RUN_FINISHED", "threadId": THREAD_ID, "runId": run_id})
        # Nothing is open once the run is over (a RUN_ERROR ends whatever it left open).
        self.open_text.clear()
        self.open_reasoning.clear()
        self.open_spans.clear()
        self.open_calls.clear()

    def close_everything(self) -> None:
        """ENDs for everything explicitly open, in a drawn order (a chunk lane closes itself)."""
        closers: list[tuple[str, str]] = [("TEXT_MESSAGE_END", i) for i in self.open_text]
        closers += [("TOOL_CALL_END", i) for i in self.open_calls]
        closers += [("REASONING_MESSAGE_END", i) for i in self.open_reasoning]
        closers += [("REASONING_END", i) for i in self.open_spans]
        for kind, entity_id in shuffled(self.draw, closers):
            key = "toolCallId" if kind == "TOOL_CALL_END" else "messageId"
            self.emit({"type": kind, key: entity_id})

    # -- text messages -----------------------------------------------------------------------

    def _streaming(self) -> set[str]:
        """Message ids between a START and its END (explicit, or the chunk shorthand's)."""
        busy = {*self.open_text, *self.open_reasoning}
        if self.lane is not None and self.lane.kind != "tool":
            busy.add(self.lane.entity_id)
        return busy

    def _text_target(self) -> str:
        """A fresh message id, or (a reopen) one the client holds that is not streaming now."""
        busy = self._streaming()
        reopenable = [i for i, role in self.roles.items() if role not in ("reasoning", "activity") and i not in busy]
        if REOPEN in self.features and reopenable and self.rarely(4):
            return self.choose(reopenable)
        return self.fresh("m")

    def text_start(self) -> None:
        message_id = self._text_target()
        event: dict[str, Any] = {"type": "TEXT_MESSAGE_START", "messageId": message_id}
        role = self.choose([None, "assistant", "user", "system", "developer"])
        if role is not None:
            event["role"] = role
        self.emit(self.with_metadata(event))
        self.roles.setdefault(message_id, role or "assistant")
        self.open_text[message_id] = _Open(self.pieces(self.text()))

    def text_content(self) -> None:
        streaming = [i for i, o in self.open_text.items() if o.pieces]
        if not streaming:
            return
        message_id = self.choose(streaming)
        delta = self.open_text[message_id].pieces.pop(0)
        self.emit(self.with_metadata({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta}))

    def text_end(self) -> None:
        if not self.open_text:
            return
        message_id = self.choose(list(self.open_text))
        del self.open_text[message_id]
        self.emit(self.with_metadata({"type": "TEXT_MESSAGE_END", "messageId": message_id}))

    # -- tool calls --------------------------------------------------------------------------

    def _arguments(self) -> list[str]:
        arguments = json.dumps(self.draw(json_values(self.features)), ensure_ascii=False)
        return self.pieces(arguments)

    def _parent(self) -> str | None:
        """No parent, an assistant message the client holds, or an id it does not hold yet."""
        assistants = [i for i, role in self.roles.items() if role == "assistant"]
        others = [i for i, role in self.roles.items() if role != "assistant"]
        choice = self.choose(["none", "assistant", "unknown", "other"])
        if choice == "assistant" and assistants:
            return self.choose(assistants)
        if choice == "other" and others:
            return self.choose(others)
        if choice == "unknown":
            return self.fresh("m")
        return None

    def _tool_call_id(self) -> str:
        """A fresh id, or (a replayed start) a call already made and closed."""
        closed = [i for i in self.calls if i not in self.open_calls and not (self.lane and self.lane.entity_id == i)]
        if closed and self.rarely(6):
            return self.choose(closed)
        return self.fresh("t")

    def _note_call(self, tool_call_id: str, name: str, parent: str | None) -> None:
        if tool_call_id in self.calls:
            self.calls[tool_call_id] = name
            return
        self.calls[tool_call_id] = name
        if parent is not None and self.roles.get(parent) == "assistant":
            return
        owner = parent if parent is not None and parent not in self.roles else tool_call_id
        self.roles.setdefault(owner, "assistant")

    def tool_start(self) -> None:
        tool_call_id = self._tool_call_id()
        name = self.choose(["get_weather", "search"])
        parent = self._parent()
        event: dict[str, Any] = {"type": "TOOL_CALL_START", "toolCallId": tool_call_id, "toolCallName": name}
        if parent is not None:
            event["parentMessageId"] = parent
        self.emit(self.with_metadata(event))
        self._note_call(tool_call_id, name, parent)
        self.open_calls[tool_call_id] = _Open(self._arguments())

    def tool_args(self) -> None:
        streaming = [i for i, o in self.open_calls.items() if o.pieces]
        if not streaming:
            return
        tool_call_id = self.choose(streaming)
        delta = self.open_calls[tool_call_id].pieces.pop(0)
        self.emit(self.with_metadata({"type": "TOOL_CALL_ARGS", "toolCallId": tool_call_id, "delta": delta}))

    def tool_end(self) -> None:
        if not self.open_calls:
            return
        tool_call_id = self.choose(list(self.open_calls))
        del self.open_calls[tool_call_id]
        self.emit(self.with_metadata({"type": "TOOL_CALL_END", "toolCallId": tool_call_id}))

    def tool_result(self) -> None:
        if not self.calls:
            return
        tool_call_id = self.choose(list(self.calls))
        # Ids are unique in a conversation; now and then a producer reuses one anyway.
        reused = [i for i, role in self.roles.items() if i not in self.open_text and i not in self.open_reasoning]
        if reused and self.rarely(8):
            message_id = self.choose(reused)
        else:
            message_id = self.fresh("r")
        content: Any = self.text(4)
        if self.draw(st.booleans()):
            content = [{"type": "text", "text": content}]
        event: dict[str, Any] = {
            "type": "TOOL_CALL_RESULT",
            "messageId": message_id,
            "toolCallId": tool_call_id,
            "content": content,
        }
        if self.draw(st.booleans()):
            event["role"] = "tool"
        self.emit(self.with_metadata(event))
        self.roles[message_id] = "tool"

    # -- reasoning ---------------------------------------------------------------------------

    def reasoning_start(self) -> None:
        busy = self._streaming()
        reopenable = [i for i, role in self.roles.items() if role == "reasoning" and i not in busy]
        if REOPEN in self.features and reopenable and self.rarely(4):
            message_id = self.choose(reopenable)
        else:
            message_id = self.fresh("m")
        self.emit(self.with_metadata({"type": "REASONING_MESSAGE_START", "messageId": message_id, "role": "reasoning"}))
        self.roles.setdefault(message_id, "reasoning")
        self.open_reasoning[message_id] = _Open(self.pieces(self.text()))

    def reasoning_content(self) -> None:
        streaming = [i for i, o in self.open_reasoning.items() if o.pieces]
        if not streaming:
            return
        message_id = self.choose(streaming)
        delta = self.open_reasoning[message_id].pieces.pop(0)
        self.emit(self.with_metadata({"type": "REASONING_MESSAGE_CONTENT", "messageId": message_id, "delta": delta}))

    def reasoning_end(self) -> None:
        if not self.open_reasoning:
            return
        message_id = self.choose(list(self.open_reasoning))
        del self.open_reasoning[message_id]
        self.emit(self.with_metadata({"type": "REASONING_MESSAGE_END", "messageId": message_id}))

    def span_start(self) -> None:
        span_id = self.fresh("s")
        self.open_spans[span_id] = None
        self.emit({"type": "REASONING_START", "messageId": span_id})

    def span_end(self) -> None:
        if not self.open_spans:
            return
        span_id = self.choose(list(self.open_spans))
        del self.open_spans[span_id]
        self.emit({"type": "REASONING_END", "messageId": span_id})

    # -- state -------------------------------------------------------------------------------

    def state_snapshot(self) -> None:
        snapshot = self.draw(st.dictionaries(_KEYS, json_values(self.features), max_size=3) | json_values(self.features))
        self.state = snapshot
        self.emit({"type": "STATE_SNAPSHOT", "snapshot": copy.deepcopy(snapshot)})

    def state_delta(self) -> None:
        operations, after = self.draw(_patch(self.state, self.features))
        self.state = after
        self.emit({"type": "STATE_DELTA", "delta": operations})

    # -- messages snapshots ------------------------------------------------------------------

    def messages_snapshot(self) -> None:
        kept = shuffled(self.draw, [i for i in self.roles if self.draw(st.booleans())])
        fresh = [self.fresh("m") for _ in range(self.draw(st.integers(0, 2)))]
        messages = [
            self.draw(_message(message_id, self.roles.get(message_id), self.calls, self.features)) for message_id in kept + fresh
        ]
        if not any(m["role"] == "reasoning" for m in messages):
            # A snapshot without reasoning leaves the client's reasoning messages where they are.
            messages_kept = {i: r for i, r in self.roles.items() if r == "reasoning"}
        else:
            messages_kept = {}
        self.roles = dict(messages_kept)
        for message in messages:
            self._remember(message)
        self.emit({"type": "MESSAGES_SNAPSHOT", "messages": messages})

    # -- the chunk shorthand -----------------------------------------------------------------

    def _chunk_target(self, kind: str) -> str:
        if kind == "tool":
            return self._tool_call_id()
        if kind == "text":
            return self._text_target()
        busy = self._streaming()
        reopenable = [i for i, role in self.roles.items() if role == "reasoning" and i not in busy]
        if REOPEN in self.features and reopenable and self.rarely(4):
            return self.choose(reopenable)
        return self.fresh("m")

    def text_chunk(self) -> None:
        message_id = self._chunk_target("text")
        pieces = self.pieces(self.text())
        event: dict[str, Any] = {"type": "TEXT_MESSAGE_CHUNK", "messageId": message_id}
        role = self.choose([None, "assistant", "user"])
        if role is not None:
            event["role"] = role
        if pieces:
            event["delta"] = pieces.pop(0)
        self.emit(self.with_metadata(event), chunk=True)
        self.roles.setdefault(message_id, role or "assistant")
        self.lane = _Lane("text", message_id, pieces)

    def tool_chunk(self) -> None:
        tool_call_id = self._chunk_target("tool")
        name = self.choose(["get_weather", "search"])
        parent = self._parent()
        pieces = self._arguments()
        event: dict[str, Any] = {"type": "TOOL_CALL_CHUNK", "toolCallId": tool_call_id, "toolCallName": name}
        if parent is not None:
            event["parentMessageId"] = parent
        if pieces:
            event["delta"] = pieces.pop(0)
        self.emit(self.with_metadata(event), chunk=True)
        self._note_call(tool_call_id, name, parent)
        self.lane = _Lane("tool", tool_call_id, pieces)

    def reasoning_chunk(self) -> None:
        message_id = self._chunk_target("reasoning")
        pieces = self.pieces(self.text())
        event: dict[str, Any] = {"type": "REASONING_MESSAGE_CHUNK", "messageId": message_id}
        if pieces:
            event["delta"] = pieces.pop(0)
        self.emit(self.with_metadata(event), chunk=True)
        self.roles.setdefault(message_id, "reasoning")
        self.lane = _Lane("reasoning", message_id, pieces)

    def continue_chunk(self) -> None:
        """The next piece of the open chunk stream; its id is repeated or (shorthand) left out."""
        lane = self.lane
        if lane is None or not lane.pieces:
            return
        kind = {"text": "TEXT_MESSAGE_CHUNK", "tool": "TOOL_CALL_CHUNK", "reasoning": "REASONING_MESSAGE_CHUNK"}[lane.kind]
        event: dict[str, Any] = {"type": kind, "delta": lane.pieces.pop(0)}
        if self.draw(st.booleans()):
            event["toolCallId" if lane.kind == "tool" else "messageId"] = lane.entity_id
        self.emit(event, chunk=True)

    # -- violations --------------------------------------------------------------------------

    def violate(self, violation: str) -> bool:
        """Send one event sequence breaking ``violation``'s rule; True when the stream ends here."""
        if violation == CONTENT_NEVER_STARTED:
            self.emit({"type": "TEXT_MESSAGE_CONTENT", "messageId": self.fresh("m"), "delta": "a"})
        elif violation == END_TWICE:
            message_id = self.fresh("m")
            self.emit({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"})
            self.emit({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": "a"})
            self.emit({"type": "TEXT_MESSAGE_END", "messageId": message_id})
            self.emit({"type": "TEXT_MESSAGE_END", "messageId": message_id})
        elif violation == CHUNK_CLOSED_BY_END:
            message_id = self.fresh("m")
            self.emit({"type": "TEXT_MESSAGE_CHUNK", "messageId": message_id, "delta": "a"}, chunk=True)
            self.emit({"type": "TEXT_MESSAGE_END", "messageId": message_id})
        elif violation == FINISHED_WHILE_OPEN:
            self.emit({"type": "TEXT_MESSAGE_START", "messageId": self.fresh("m"), "role": "assistant"})
            self.emit({"type": "RUN_FINISHED", "threadId": THREAD_ID, "runId": f"run{self.run_index}"})
            return True
        elif violation == REASONING_START_WITHOUT_ROLE:
            message_id = self.fresh("m")
            self.emit({"type": "REASONING_MESSAGE_START", "messageId": message_id})
            self.emit({"type": "REASONING_MESSAGE_CONTENT", "messageId": message_id, "delta": "a"})
            self.emit({"type": "REASONING_MESSAGE_END", "messageId": message_id})
        else:
            raise ValueError(f"unknown violation {violation!r}")
        return False


# ---------------------------------------------------------------------------------------------
# Messages (the seed, and MESSAGES_SNAPSHOT)
# ---------------------------------------------------------------------------------------------


@st.composite
def _content_parts(draw: st.DrawFn, features: Collection[str]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text} for text in draw(st.lists(_texts(features, 3), min_size=1, max_size=2))]


@st.composite
def _message(
    draw: st.DrawFn, message_id: str, role: str | None, calls: dict[str, str], features: Collection[str]
) -> dict[str, Any]:
    """A message for ``message_id``; its role kept when known (a snapshot rarely changes it)."""
    roles = ["user", "assistant", "tool", "system", "developer", "reasoning"]
    if role not in roles or rarely(draw, 6):
        role = choose(draw, roles)
    text = draw(_texts(features, 4))
    message: dict[str, Any] = {"id": message_id, "role": role}
    if role == "user":
        message["content"] = draw(st.just(text) | _content_parts(features))
    elif role == "assistant":
        if draw(st.booleans()):
            message["content"] = text
        if calls and draw(st.booleans()):
            chosen = shuffled(draw, [call_id for call_id in sorted(calls) if draw(st.booleans())])[:2]
            message["toolCalls"] = [
                {"id": call_id, "type": "function", "function": {"name": calls[call_id], "arguments": "{}"}} for call_id in chosen
            ]
    elif role == "tool":
        message["toolCallId"] = choose(draw, sorted(calls)) if calls else "t-elsewhere"
        message["content"] = draw(st.just(text) | _content_parts(features))
    else:
        message["content"] = text
    return message


@st.composite
def _seed(draw: st.DrawFn, features: frozenset[str]) -> tuple[list[dict[str, Any]], Any]:
    """The conversation before the stream: a few messages (one with a tool call) and a state.

    It never holds a lone surrogate: it is what the client held already, and no client can hold
    one it could not encode (the kernel replaces those the stream brings)."""
    features = features - {LONE_SURROGATES}
    messages: list[dict[str, Any]] = []
    for index in range(draw(st.integers(0, 3))):
        role = choose(draw, ["user", "assistant", "system"])
        message_id = {"user": "u", "assistant": "a", "system": "sys"}[role] + str(index)
        if role == "user":
            messages.append({"id": message_id, "role": "user", "content": draw(st.just("hi") | _content_parts(features))})
        elif role == "assistant":
            call_id = f"c{index}"
            messages.append(
                {
                    "id": message_id,
                    "role": "assistant",
                    "content": "ok",
                    "toolCalls": [{"id": call_id, "type": "function", "function": {"name": "search", "arguments": "{}"}}],
                }
            )
            if draw(st.booleans()):
                messages.append({"id": f"tool{index}", "role": "tool", "toolCallId": call_id, "content": "found"})
        else:
            messages.append({"id": message_id, "role": "system", "content": "be brief"})
    state = draw(st.dictionaries(_KEYS, json_values(features), max_size=3))
    return messages, state


# ---------------------------------------------------------------------------------------------
# Streams
# ---------------------------------------------------------------------------------------------


@st.composite
def streams(
    draw: st.DrawFn,
    features: Collection[str] = ALL_FEATURES,
    *,
    violation: str | None = None,
    max_runs: int = 3,
    max_steps: int = 20,
) -> Stream:
    """A stream of one to ``max_runs`` runs using ``features``, valid unless ``violation`` names
    the rule to break (once, at a drawn point of the first run)."""
    features = frozenset(features)
    messages, state = draw(_seed(features))
    producer = _Producer(draw, features, copy.deepcopy(messages), copy.deepcopy(state))
    runs = 0
    while runs == 0 or (runs < max_runs and draw(_more_runs)):
        # A run is one span of choices, so the shrinker can drop it whole.
        if draw(_run(producer, violation if runs == 0 else None, max_steps)):
            break
        runs += 1
    return Stream(messages, state, producer.events, violation)


_more_runs = st.integers(0, 2).map(bool)
_more_steps = st.integers(0, 14).map(bool)


@st.composite
def _run(draw: st.DrawFn, producer: _Producer, violation: str | None, max_steps: int) -> bool:
    """One run, RUN_STARTED to its end; True when a violation ended the stream inside it."""
    outer, producer.draw = producer.draw, draw
    try:
        producer.run_started()
        violate_at = draw(st.integers(0, max_steps)) if violation is not None else None
        for step in range(max_steps + 1):
            if step == violate_at and producer.violate(violation):  # type: ignore[arg-type]
                return True
            if step == max_steps or ((violate_at is None or step >= violate_at) and not draw(_more_steps)):
                break
            draw(_step(producer))
        producer.run_ended()
        return False
    finally:
        producer.draw = outer


@st.composite
def _step(draw: st.DrawFn, producer: _Producer) -> None:
    """One producer step, its choices grouped so the shrinker can drop it whole."""
    outer, producer.draw = producer.draw, draw
    try:
        producer.step()
    finally:
        producer.draw = outer
