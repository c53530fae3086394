"""The client pipeline an AG-UI event stream goes through before it reaches the transcript.

For each event, in the order ``@ag-ui/client`` (the reference TypeScript client) runs them, each
step in a module of its own:

1. **compatibility** (:mod:`~agui_widget.pipeline._compat`) – retired ``THINKING_*`` events
   become their ``REASONING_*`` equivalents, legacy ``binary`` content parts become media parts,
   the few nulls older peers sent where 1.0 omits a field become absent (in the enforcement's
   walk), each with a warning; for a peer pinned at or below 0.0.57 the subagent additions are
   removed (``SUBAGENT_*`` dropped with a warning, attribution stripped);
2. **enforcement** (:mod:`~agui_widget.pipeline._enforce`) – a raw dict is parsed into an
   ``ag_ui.core`` event: an unrecognised event type is dropped, an undescribed property or an
   unrecognised union member (an unknown outcome, patch operation, content part, message role
   inside a list) is stripped, each with a warning naming its path; a described field holding a
   malformed value is fatal;
3. **chunk expansion** (:mod:`~agui_widget.pipeline._chunks`) – ``*_CHUNK`` shorthand becomes
   start/content/end triads;
4. **verification** – :class:`~agui_widget.pipeline._verify.EventVerifier`;
5. **reduction** – :class:`~agui_widget.pipeline._reducer.EventReducer`.

Between expansion and verification, lone UTF-16 surrogates split across deltas are rejoined or
replaced (:mod:`~agui_widget.pipeline._surrogates`). This module composes the steps.

Typed ``BaseEvent`` objects built in this process take the same path (flat events skip the
re-parse), so an adapter and a remote endpoint are held to the same rules. Their values are made
what the wire would carry first (:mod:`~agui_widget.pipeline._json_values`): a value pydantic can serialise
takes its JSON form, one it cannot is fatal.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    Interrupt,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)
from ag_ui.core.version import PROTOCOL_VERSION
from pydantic import BaseModel

from ..vocabulary._deltas import DELTAS, PLAIN_FIELDS
from ..vocabulary._unicode import has_surrogate
from ._chunks import CHUNK_TYPES, ChunkExpander
from ._compat import (
    SUBAGENT_LIFECYCLE,
    THINKING,
    ThinkingTranslator,
    at_most,
    check_declared_version,
    flatten_content,
    parse_version,
    strip_attribution,
    upgrade_binary_parts,
    without_attribution,
)
from ._enforce import EVENT_MODELS, FLAT_EVENT_MODELS, enforce
from ._json_values import VALUE_FIELDS, plain_values, wire_form
from ._reducer import EventReducer, TranscriptIndex
from ._surrogates import SurrogateRepair
from ._verify import EventVerifier, ProtocolError

__all__ = ["EventConsumer"]

log = logging.getLogger("agui_widget")

_TEXT_CONTENT = EventType.TEXT_MESSAGE_CONTENT.value
_TOOL_CALL_ARGS = EventType.TOOL_CALL_ARGS.value
# Flat events passed on as they are; those whose field holds any JSON have it made JSON first.
_FLAT_EVENT_CLASSES = FLAT_EVENT_MODELS - VALUE_FIELDS.keys()

_RUN_BOOKKEEPING = frozenset(
    {
        EventType.RUN_STARTED,
        EventType.RUN_FINISHED,
        EventType.RUN_ERROR,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_RESULT,
    }
)


class _Warnings:
    """Where a consumer's warnings go: its list, the ``agui_widget`` logger, and ``on_warning``."""

    __slots__ = ("on_warning", "texts")

    def __init__(self, on_warning: Callable[[str], None] | None) -> None:
        self.texts: list[str] = []
        self.on_warning = on_warning

    def __call__(self, text: str) -> None:
        self.texts.append(text)
        log.warning("agui-widget: %s", text)
        if self.on_warning is not None:
            self.on_warning(text)


class EventConsumer:
    """One stream of runs, from the wire (or an in-process adapter) to ``messages`` and ``state``.

    ``consume()`` returns the events delivered to the application (after chunk expansion) and
    raises :class:`ProtocolError` when the stream breaks a rule a client must reject; everything
    delivered before that stays applied. Warnings (stripped material, retired shapes, a newer
    producer) go to the ``agui_widget`` logger, to ``on_warning`` and to :attr:`warnings`.

    ``max_protocol_version`` pins the peer's protocol ceiling (``None``: a current 1.x peer).
    At or below 0.0.57 the subagent additions are removed in both directions; at or below 0.0.39
    outgoing message content is flattened to text (see :meth:`outgoing_input`).
    """

    def __init__(
        self,
        messages: Iterable[Mapping[str, Any]] | None = None,
        state: Any = None,
        *,
        on_warning: Callable[[str], None] | None = None,
        max_protocol_version: str | None = None,
        carried: TranscriptIndex | None = None,
    ) -> None:
        """``carried``: the index an earlier consumer left (``carried_index``), given up to be
        extended when this transcript starts with the same message objects (see
        :class:`~agui_widget.pipeline._reducer.TranscriptIndex`)."""
        # The parts of the pipeline that warn are handed this object, not a method of the consumer:
        # one would make every consumer a reference cycle, so a finished stream's pipeline (and the
        # transcript its reducer holds) would wait for the cyclic garbage collector to be freed.
        self._warn = _Warnings(on_warning)
        ceiling = parse_version(max_protocol_version) if max_protocol_version is not None else None
        self._flatten_content = ceiling is not None and at_most(ceiling, (0, 0, 39))
        self._pre_subagent = ceiling is not None and at_most(ceiling, (0, 0, 57))
        # protocolVersion entered RunAgentInput with 1.0: an older peer's parser may reject it.
        self._declares_version = ceiling is None or at_most(parse_version(PROTOCOL_VERSION), ceiling)
        self._reducer = EventReducer(messages, state, on_warning=self._warn, carried=carried)
        self.carried_index: TranscriptIndex = self._reducer.carried
        """The index of the transcript handed in, for the next consumer to extend."""
        self._verifier = EventVerifier()
        self._chunks = ChunkExpander()
        self._unicode = SurrogateRepair(self._warn)
        self._thinking = ThinkingTranslator(self._warn)
        self._last_finished: RunFinishedEvent | None = None
        self._last_error: RunErrorEvent | None = None
        self._run_tool_calls: dict[str, None] = {}
        self._answered: set[str] = set()

    # -- the pipeline ------------------------------------------------------------------------

    def consume(self, event: BaseEvent | Mapping[str, Any]) -> list[BaseEvent]:
        """Run one event (typed, or a raw camelCase dict off the wire) through the pipeline."""
        if isinstance(event, BaseEvent):
            parsed = self._typed(event)
        elif isinstance(event, Mapping):
            parsed = self._parse(event)
        else:
            raise ProtocolError(f"An AG-UI event must be a JSON object, not {type(event).__name__}")
        if parsed is None:
            return []
        expanded = self._chunks.expand(parsed) if self._chunks.lanes or parsed.type in CHUNK_TYPES else (parsed,)
        delivered: list[BaseEvent] = []
        verifier, reducer, unicode = self._verifier, self._reducer, self._unicode
        for original in expanded:
            delta_kind = DELTAS.get(original.type)
            if delta_kind is not None:
                repaired: Any = (unicode.delta(original, delta_kind.id_attr),)
            elif unicode.held:
                repaired = (*unicode.flush(original), unicode.whole(original))
            else:
                repaired = (unicode.whole(original),)
            for item in repaired:
                try:
                    verifier.check(item)
                except ProtocolError as exc:
                    exc.delivered = delivered
                    raise
                if item.type in _RUN_BOOKKEEPING:
                    self._note(item)
                reducer.apply(item)
                delivered.append(item)
        return delivered

    def consume_plain_delta(self, event: BaseEvent) -> tuple[str, str, str] | None:
        """The hot path, most of a stream: a plain text or tool-argument delta (only its id and
        its delta set) that continues what is streaming now is checked and folded in as
        :meth:`consume` would, and returned as the event log keeps it, ``(type, id, delta)``.
        Anything else (the first delta of a message, a tagged or repaired one, chunks pending)
        returns None with nothing changed, for :meth:`consume` to take."""
        cls = type(event)
        if cls is not TextMessageContentEvent and cls is not ToolCallArgsEvent:
            return None
        if event.__pydantic_extra__ or not event.__pydantic_fields_set__ <= PLAIN_FIELDS:
            return None
        if self._pre_subagent or self._chunks.lanes or self._unicode.held:
            return None
        delta: str = event.delta  # type: ignore[attr-defined]
        if not delta.isascii() and has_surrogate(delta):
            return None
        if cls is TextMessageContentEvent:
            ident: str = event.message_id  # type: ignore[attr-defined]
            if self._verifier.continues_text(ident) and self._reducer.continue_text(ident, delta):
                return _TEXT_CONTENT, ident, delta
            return None
        ident = event.tool_call_id  # type: ignore[attr-defined]
        if self._verifier.continues_tool_call(ident) and self._reducer.continue_args(ident, delta):
            return _TOOL_CALL_ARGS, ident, delta
        return None

    def end_of_stream(self) -> None:
        """The transport ended. Raise :class:`ProtocolError` if a run was left without an outcome.

        A truncated run MUST NOT be reported as having succeeded; everything it delivered before
        the break stays delivered.
        """
        self._chunks.lanes.clear()
        if self._verifier.run_active:
            raise ProtocolError(
                f"The stream ended while run '{self._verifier.run_id}' was still active: no RUN_FINISHED or "
                "RUN_ERROR arrived, so the run is truncated and has no outcome."
            )

    def reset_stream(self) -> None:
        """Begin a new stream (a new request): forget sequencing state, keep messages and state."""
        self._verifier = EventVerifier()
        self._chunks = ChunkExpander()
        self._unicode = SurrogateRepair(self._warn)
        self._thinking = ThinkingTranslator(self._warn)

    # -- what the pipeline built -------------------------------------------------------------

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The transcript as camelCase AG-UI message dicts (read-only: assign to replace it)."""
        return self._reducer.messages

    @messages.setter
    def messages(self, messages: Iterable[Mapping[str, Any]]) -> None:
        self._reducer.messages = messages

    @property
    def state(self) -> Any:
        """The shared state (any JSON value)."""
        return self._reducer.state

    @state.setter
    def state(self, value: Any) -> None:
        self._reducer.state = value

    @property
    def warnings(self) -> list[str]:
        """Every warning so far, in order."""
        return self._warn.texts

    @property
    def last_run_finished(self) -> RunFinishedEvent | None:
        """The RUN_FINISHED of the latest run, if it has one."""
        return self._last_finished

    @property
    def last_run_error(self) -> RunErrorEvent | None:
        """The RUN_ERROR of the latest run (or of the stream before any run), if any."""
        return self._last_error

    @property
    def run_active(self) -> bool:
        """True between a RUN_STARTED and the event that ends that run."""
        return self._verifier.run_active

    @property
    def changed_from(self) -> int | None:
        """The smallest message index added or changed since :meth:`reset_changes`."""
        return self._reducer.changed_from

    def reset_changes(self) -> None:
        """Start a new window for :attr:`changed_from`."""
        self._reducer.reset_changes()

    def open_events(self) -> list[BaseEvent]:
        """END events closing everything the current run left open, innermost first.

        For closing a stream (a stop, a failure): items still streaming as chunks are handed over
        to these ENDs, so consume them next."""
        self._chunks.release()
        return self._verifier.open_events()

    def error_closing(self, thread_id: str, run_id: str, message: str, code: str) -> list[BaseEvent]:
        """What ends a failed run cleanly: RUN_STARTED if none came, the open ENDs, RUN_ERROR."""
        closing: list[BaseEvent] = []
        if not self.run_active and self.last_run_finished is None and self._last_error is None:
            closing.append(RunStartedEvent(thread_id=thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION))
        if self.run_active:
            closing.extend(self.open_events())
        closing.append(RunErrorEvent(message=message, code=code))
        return closing

    def pending_tool_call_ids(self) -> list[str]:
        """Tool calls the latest run left for the client to answer.

        The success outcome's ``pendingToolCallIds`` when it names any; otherwise the calls the
        run started that got no TOOL_CALL_RESULT, in order. Empty after a RUN_ERROR and after an
        interrupt or cancelled outcome (an interrupt is answered through :meth:`interrupts`).
        """
        if self._last_error is not None:
            return []
        finished = self._last_finished
        outcome = finished.outcome if finished is not None else None
        if outcome is not None:
            if outcome.type != "success":
                return []
            if outcome.pending_tool_call_ids:
                return list(outcome.pending_tool_call_ids)
        return [call_id for call_id in self._run_tool_calls if call_id not in self._answered]

    def interrupts(self) -> list[Interrupt]:
        """The interrupts of the latest run's interrupt outcome (empty otherwise)."""
        finished = self._last_finished
        if finished is None or finished.outcome is None or finished.outcome.type != "interrupt":
            return []
        return list(finished.outcome.interrupts)

    # -- the request direction ---------------------------------------------------------------

    def outgoing_input(self, run_input: RunAgentInput | Mapping[str, Any]) -> RunAgentInput:
        """The ``RunAgentInput`` to send to this peer: shaped for its era, then enforced.

        Activity messages (display state no producer owns) are left out and a null attribution
        is omitted; a current peer is told ``protocolVersion``, a pinned older one is not. Legacy
        binary parts become media parts for everyone. For a peer at or below 0.0.57 attribution
        is removed; at or below 0.0.39 content is flattened to its text (saying which parts were
        lost). Undescribed material is stripped with a warning; a malformed field is fatal.
        """
        if isinstance(run_input, BaseModel):
            data: dict[str, Any] = run_input.model_dump(mode="json", by_alias=True)
        else:
            data = copy.deepcopy(dict(run_input))
        messages = [
            {k: v for k, v in message.items() if not (k == "subagentRunId" and v is None)}
            if isinstance(message, dict)
            else message
            for message in data.get("messages") or []
            if not (isinstance(message, dict) and message.get("role") == "activity")
        ]
        if self._declares_version:
            data["protocolVersion"] = PROTOCOL_VERSION
        else:
            data.pop("protocolVersion", None)
        if self._pre_subagent:
            messages = [without_attribution(message) for message in messages]
        if self._flatten_content:
            data.pop("parentRunId", None)
            messages = [flatten_content(message, self._warn) for message in messages]
        data["messages"] = [upgrade_binary_parts(message, None) for message in messages]
        return enforce(data, RunAgentInput, "RunAgentInput", self._warn, "from the outgoing input")

    # -- internals ---------------------------------------------------------------------------

    def _typed(self, event: BaseEvent) -> BaseEvent | None:
        """A typed event as the wire form would give it: flat events pass (a value that is not JSON
        given its JSON form), the rest re-parse; a value with no JSON form is a ProtocolError."""
        if type(event) in _FLAT_EVENT_CLASSES and not event.__pydantic_extra__ and not self._pre_subagent:
            return event
        if type(event) in VALUE_FIELDS and not event.__pydantic_extra__ and not self._pre_subagent:
            return plain_values(event)
        return self._parse(wire_form(event))

    def _parse(self, raw: Mapping[str, Any]) -> BaseEvent | None:
        type_name = raw.get("type")
        if type_name in THINKING:
            raw = self._thinking.translate(raw)
            type_name = raw["type"]
        elif type_name == "MESSAGES_SNAPSHOT" and isinstance(raw.get("messages"), list):
            raw = {**raw, "messages": [upgrade_binary_parts(m, self._warn) for m in raw["messages"]]}
        elif type_name == "RUN_STARTED" and isinstance(raw.get("input"), dict) and isinstance(raw["input"].get("messages"), list):
            run_input = raw["input"]
            raw = {
                **raw,
                "input": {**run_input, "messages": [upgrade_binary_parts(m, self._warn) for m in run_input["messages"]]},
            }
        if self._pre_subagent:
            if type_name in SUBAGENT_LIFECYCLE:
                self._warn(
                    f"AG-UI is dropping {type_name} because the target agent predates subagent support "
                    "(protocol 0.0.57 or older)."
                )
                return None
            raw = strip_attribution(raw)
        model = EVENT_MODELS.get(type_name) if isinstance(type_name, str) else None
        if model is None:
            self._warn(f"Dropping unrecognised event '{type_name}': the protocol does not describe it.")
            return None
        return enforce(raw, model, f"{type_name} event", self._warn, f"on {type_name}")

    def _note(self, event: Any) -> None:
        """Per-run bookkeeping for pending tool calls, interrupts and the run's end."""
        event_type = event.type
        if event_type == EventType.TOOL_CALL_START:
            self._run_tool_calls[event.tool_call_id] = None
        elif event_type == EventType.TOOL_CALL_RESULT:
            self._answered.add(event.tool_call_id)
        elif event_type == EventType.RUN_STARTED:
            self._run_tool_calls = {}
            self._answered = set()
            self._last_finished = None
            self._last_error = None
            check_declared_version(event.protocol_version, self._warn)
        elif event_type == EventType.RUN_FINISHED:
            self._last_finished = event
        else:
            self._last_error = event
