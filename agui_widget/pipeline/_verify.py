"""The stream rules a client must enforce: which event may follow which.

The rules follow ``@ag-ui/client``'s ``verifyEvents`` (the reference TypeScript client), so a
stream that client rejects is rejected here too, with a message naming the rule and the id:

* the first event is ``RUN_STARTED`` (or ``RUN_ERROR``: a run may fail before it begins);
* no ``RUN_STARTED`` while a run is active; after ``RUN_FINISHED`` only ``RUN_STARTED`` or a
  late ``RUN_ERROR``; after ``RUN_ERROR`` only a new ``RUN_STARTED``;
* text messages, tool calls, reasoning messages and reasoning spans are bracketed: content and
  end only for an open id, no second start for an id still open;
* steps and subagent invocations are bracketed too; ``RUN_FINISHED`` requires that nothing the
  run opened is still open;
* subagent attribution: a continuation may omit ``subagentRunId`` but must not name a different
  owner than the event that opened the entity (owners are kept per entity kind for the run).

The verifier is stateful, one per stream; :meth:`EventVerifier.open_events` lists the END events
that would close everything still open, so a stopped run can be closed cleanly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningEndEvent,
    ReasoningMessageEndEvent,
    StepFinishedEvent,
    SubagentErrorEvent,
    TextMessageEndEvent,
    ToolCallEndEvent,
)

from ..vocabulary._errors import ProtocolError

__all__ = ["EventVerifier", "ProtocolError"]

_PARENT = "(the parent agent)"


def _who(owner: str | None) -> str:
    return _PARENT if owner is None else f"'{owner}'"


class EventVerifier:
    """Checks each event of one stream against the AG-UI sequencing rules.

    Owners are recorded per entity kind (message, tool call, activity, reasoning) because an id is
    only unique within its kind, and they outlive the entity's close so a late continuation (say an
    encrypted value after TOOL_CALL_END) is still checked against the right producer.
    """

    def __init__(self) -> None:
        self._first_seen = False
        self._run_started = False
        self._run_finished = False
        self._run_errored = False
        self._run_id: str | None = None
        self._reset_run_state()

    def _reset_run_state(self) -> None:
        # Ordered dicts used as ordered sets: open_events() closes in a stable order.
        self._messages: dict[str, str | None] = {}
        self._tool_calls: dict[str, str | None] = {}
        self._reasoning_spans: dict[str, str | None] = {}
        self._reasoning_messages: dict[str, str | None] = {}
        self._owners: dict[str, dict[str, str | None]] = {
            "message": {},
            "tool call": {},
            "activity": {},
            "reasoning message": {},
        }
        self._steps: dict[str | None, dict[str, None]] = {}
        self._subagents: dict[str, None] = {}
        self._closed_subagents: set[str] = set()
        self._run_finished = False
        self._run_errored = False

    # -- public ------------------------------------------------------------------------------

    @property
    def run_active(self) -> bool:
        """True between a RUN_STARTED and the RUN_FINISHED or RUN_ERROR that ends it."""
        return self._run_started and not self._run_finished and not self._run_errored

    @property
    def run_id(self) -> str | None:
        """The id of the run most recently started on this stream."""
        return self._run_id

    def check(self, event: BaseEvent) -> None:
        """Accept ``event`` or raise :class:`ProtocolError` naming the broken rule."""
        event_type = event.type
        if self._run_errored and event_type != EventType.RUN_STARTED:
            raise ProtocolError(
                f"Cannot send event type '{_name(event_type)}': The run has already errored with "
                "'RUN_ERROR'. No further events can be sent."
            )
        if self._run_finished and event_type != EventType.RUN_ERROR and event_type != EventType.RUN_STARTED:
            raise ProtocolError(
                f"Cannot send event type '{_name(event_type)}': The run has already finished with "
                "'RUN_FINISHED'. Start a new run with 'RUN_STARTED'."
            )
        if not self._first_seen:
            self._first_seen = True
            if event_type != EventType.RUN_STARTED and event_type != EventType.RUN_ERROR:
                raise ProtocolError(f"First event must be 'RUN_STARTED' (got '{_name(event_type)}')")
        elif event_type == EventType.RUN_STARTED:
            if self.run_active:
                raise ProtocolError(
                    "Cannot send 'RUN_STARTED' while a run is still active. The previous run "
                    f"{_quote(self._run_id)} must be finished with 'RUN_FINISHED' before starting a new run."
                )
            if self._run_finished or self._run_errored:
                self._reset_run_state()
        handler = _HANDLERS.get(event_type)
        if handler is not None:
            handler(self, event)

    def continues_text(self, message_id: str) -> bool:
        """True when a TEXT_MESSAGE_CONTENT for ``message_id`` with no owner tag passes
        :meth:`check` without changing anything: the run is active and the message is open.
        The hot path asks this instead of calling :meth:`check` (the answer is the same)."""
        return self._run_started and not self._run_finished and not self._run_errored and message_id in self._messages

    def continues_tool_call(self, tool_call_id: str) -> bool:
        """The same for a TOOL_CALL_ARGS of ``tool_call_id``."""
        return self._run_started and not self._run_finished and not self._run_errored and tool_call_id in self._tool_calls

    def open_events(self) -> list[BaseEvent]:
        """END events that close everything still open, innermost first.

        Text message and tool call ends come first, then reasoning message ends, reasoning span
        ends, step finishes (latest first) and finally a SUBAGENT_ERROR for each invocation still
        running (latest first). Fed back through :meth:`check`, a following RUN_FINISHED passes.
        Each event carries its entity's recorded owner, so the attribution check accepts it.
        Empty when no run is active (after RUN_FINISHED or RUN_ERROR nothing may be closed).
        """
        closing: list[BaseEvent] = []
        if not self.run_active:
            return closing
        for message_id, owner in self._messages.items():
            closing.append(TextMessageEndEvent(message_id=message_id, subagent_run_id=owner))
        for tool_call_id, owner in self._tool_calls.items():
            closing.append(ToolCallEndEvent(tool_call_id=tool_call_id, subagent_run_id=owner))
        for message_id, owner in self._reasoning_messages.items():
            closing.append(ReasoningMessageEndEvent(message_id=message_id, subagent_run_id=owner))
        for message_id, owner in self._reasoning_spans.items():
            closing.append(ReasoningEndEvent(message_id=message_id, subagent_run_id=owner))
        opened_steps = [(owner, name) for owner, names in self._steps.items() for name in names]
        for owner, name in reversed(opened_steps):
            closing.append(StepFinishedEvent(step_name=name, subagent_run_id=owner))
        for subagent_run_id in reversed(list(self._subagents)):
            closing.append(
                SubagentErrorEvent(
                    subagent_run_id=subagent_run_id,
                    message="The run was stopped before this subagent finished.",
                    code="cancelled",
                )
            )
        return closing

    # -- ownership ---------------------------------------------------------------------------

    def _check_owner(self, event: BaseEvent, kind: str, entity_id: str) -> None:
        """A tagged continuation must name the owner recorded for the entity, if there is one."""
        tag = getattr(event, "subagent_run_id", None)
        if tag is None:
            return
        owners = self._owners[kind]
        if entity_id in owners and owners[entity_id] != tag:
            raise ProtocolError(
                f"Cannot send '{_name(event.type)}': subagentRunId '{tag}' does not match the {kind} "
                f"'{entity_id}' opener's subagent {_who(owners[entity_id])}."
            )

    def _seed_owners(self, messages: Iterable[Any] | None, authoritative: bool) -> None:
        """Record the owners of replayed history, so a later reopen under another owner is caught."""
        for message in messages or ():
            message_id = getattr(message, "id", None)
            if not isinstance(message_id, str):
                continue
            role = getattr(message, "role", None)
            kind = "reasoning message" if role == "reasoning" else "activity" if role == "activity" else "message"
            owner = getattr(message, "subagent_run_id", None)
            if authoritative or message_id not in self._owners[kind]:
                self._owners[kind][message_id] = owner
            for call in getattr(message, "tool_calls", None) or ():
                if authoritative or call.id not in self._owners["tool call"]:
                    self._owners["tool call"][call.id] = owner

    # -- text messages -----------------------------------------------------------------------

    def _text_start(self, event: Any) -> None:
        message_id = event.message_id
        if message_id in self._messages:
            raise ProtocolError(
                f"Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '{message_id}' is "
                "already in progress. Complete it with 'TEXT_MESSAGE_END' first."
            )
        owners = self._owners["message"]
        if message_id in owners:
            self._check_owner(event, "message", message_id)
        else:
            owners[message_id] = event.subagent_run_id
        self._messages[message_id] = owners[message_id]

    def _text_content(self, event: Any) -> None:
        message_id = event.message_id
        if message_id not in self._messages:
            raise ProtocolError(
                f"Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message found with ID "
                f"'{message_id}'. Start a text message with 'TEXT_MESSAGE_START' first."
            )
        if event.subagent_run_id is not None:
            self._check_owner(event, "message", message_id)

    def _text_end(self, event: Any) -> None:
        message_id = event.message_id
        if message_id not in self._messages:
            raise ProtocolError(
                f"Cannot send 'TEXT_MESSAGE_END' event: No active text message found with ID "
                f"'{message_id}'. A 'TEXT_MESSAGE_START' event must be sent first."
            )
        self._check_owner(event, "message", message_id)
        del self._messages[message_id]

    # -- tool calls --------------------------------------------------------------------------

    def _tool_start(self, event: Any) -> None:
        tool_call_id = event.tool_call_id
        if tool_call_id in self._tool_calls:
            raise ProtocolError(
                f"Cannot send 'TOOL_CALL_START' event: A tool call with ID '{tool_call_id}' is already "
                "in progress. Complete it with 'TOOL_CALL_END' first."
            )
        tag = event.subagent_run_id
        parent_id = event.parent_message_id
        inherited: tuple[str | None] | None = None
        message_owners = self._owners["message"]
        if parent_id is not None and parent_id in message_owners:
            parent_owner = message_owners[parent_id]
            if tag is not None and tag != parent_owner:
                raise ProtocolError(
                    f"Cannot send 'TOOL_CALL_START': subagentRunId '{tag}' does not match its parent "
                    f"message '{parent_id}' owner {_who(parent_owner)}. A tool call belongs to the "
                    "message that carries it."
                )
            inherited = (parent_owner,)
        owners = self._owners["tool call"]
        if tool_call_id in owners:
            self._check_owner(event, "tool call", tool_call_id)
            if tag is None and inherited is not None and inherited[0] != owners[tool_call_id]:
                raise ProtocolError(
                    f"Cannot send 'TOOL_CALL_START': tool call '{tool_call_id}' is owned by "
                    f"{_who(owners[tool_call_id])} but its parent message '{parent_id}' is owned by "
                    f"{_who(inherited[0])}. A tool call belongs to the message that carries it."
                )
        else:
            owners[tool_call_id] = tag if tag is not None else (inherited[0] if inherited else None)
        self._tool_calls[tool_call_id] = owners[tool_call_id]

    def _tool_continue(self, event: Any) -> None:
        tool_call_id = event.tool_call_id
        if tool_call_id not in self._tool_calls:
            raise ProtocolError(
                f"Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID '{tool_call_id}'. "
                "Start a tool call with 'TOOL_CALL_START' first."
            )
        if event.subagent_run_id is not None:
            self._check_owner(event, "tool call", tool_call_id)

    def _tool_end(self, event: Any) -> None:
        tool_call_id = event.tool_call_id
        if tool_call_id not in self._tool_calls:
            raise ProtocolError(
                f"Cannot send 'TOOL_CALL_END' event: No active tool call found with ID '{tool_call_id}'. "
                "A 'TOOL_CALL_START' event must be sent first."
            )
        self._check_owner(event, "tool call", tool_call_id)
        del self._tool_calls[tool_call_id]

    def _tool_result(self, event: Any) -> None:
        # A result mints a tool message, so its id goes on record (newest mint wins: the
        # executor may differ from the caller).
        self._owners["message"][event.message_id] = event.subagent_run_id

    # -- steps -------------------------------------------------------------------------------

    def _step_started(self, event: Any) -> None:
        owner = event.subagent_run_id
        names = self._steps.setdefault(owner, {})
        if event.step_name in names:
            where = f" in subagent '{owner}'" if owner is not None else ""
            raise ProtocolError(f"Step \"{event.step_name}\" is already active for 'STEP_STARTED'{where}")
        names[event.step_name] = None

    def _step_finished(self, event: Any) -> None:
        owner = event.subagent_run_id
        name = event.step_name
        names = self._steps.get(owner)
        if names is None or name not in names:
            for other, other_names in self._steps.items():
                if other != owner and name in other_names:
                    mine = f"subagent '{owner}'" if owner is not None else "the parent agent"
                    theirs = f"subagent '{other}'" if other is not None else "the parent agent"
                    raise ProtocolError(
                        f"Cannot send 'STEP_FINISHED' for step \"{name}\" attributed to {mine}: that step "
                        f"is open under {theirs}. A step must be finished by whoever started it."
                    )
            raise ProtocolError(f"Cannot send 'STEP_FINISHED' for step \"{name}\" that was not started")
        del names[name]

    # -- activities --------------------------------------------------------------------------

    def _activity_snapshot(self, event: Any) -> None:
        owners = self._owners["activity"]
        if event.message_id not in owners or event.replace is not False:
            owners[event.message_id] = event.subagent_run_id

    def _activity_delta(self, event: Any) -> None:
        self._check_owner(event, "activity", event.message_id)

    # -- reasoning ---------------------------------------------------------------------------

    def _reasoning_open(self, event: Any) -> None:
        message_id = event.message_id
        span = event.type == EventType.REASONING_START
        open_set = self._reasoning_spans if span else self._reasoning_messages
        if message_id in open_set:
            if span:
                raise ProtocolError(
                    f"Cannot send 'REASONING_START' event: A reasoning span with ID '{message_id}' is "
                    "already in progress. Complete it with 'REASONING_END' first."
                )
            raise ProtocolError(
                f"Cannot send 'REASONING_MESSAGE_START' event: A reasoning message with ID '{message_id}' "
                "is already in progress. Complete it with 'REASONING_MESSAGE_END' first."
            )
        owners = self._owners["reasoning message"]
        if message_id in owners:
            self._check_owner(event, "reasoning message", message_id)
        else:
            owners[message_id] = event.subagent_run_id
        open_set[message_id] = owners[message_id]

    def _reasoning_continue(self, event: Any) -> None:
        message_id = event.message_id
        event_type = event.type
        span = event_type == EventType.REASONING_END
        open_set = self._reasoning_spans if span else self._reasoning_messages
        if message_id not in open_set:
            if span:
                raise ProtocolError(
                    f"Cannot send 'REASONING_END' event: No active reasoning span found with ID "
                    f"'{message_id}'. A 'REASONING_START' event must be sent first."
                )
            raise ProtocolError(
                f"Cannot send '{_name(event_type)}' event: No active reasoning message found with ID "
                f"'{message_id}'. Start a reasoning message with 'REASONING_MESSAGE_START' first."
            )
        self._check_owner(event, "reasoning message", message_id)
        if event_type != EventType.REASONING_MESSAGE_CONTENT:
            del open_set[message_id]

    def _encrypted_value(self, event: Any) -> None:
        entity_id = event.entity_id
        if event.subtype == "tool-call":
            self._check_owner(event, "tool call", entity_id)
        elif entity_id in self._owners["message"]:
            self._check_owner(event, "message", entity_id)
        else:
            self._check_owner(event, "reasoning message", entity_id)

    # -- subagents ---------------------------------------------------------------------------

    def _subagent_started(self, event: Any) -> None:
        subagent_run_id = event.subagent_run_id
        if subagent_run_id in self._subagents:
            raise ProtocolError(
                f"Cannot send 'SUBAGENT_STARTED': subagent '{subagent_run_id}' is already active. "
                "Finish it with 'SUBAGENT_FINISHED' first."
            )
        if subagent_run_id in self._closed_subagents:
            raise ProtocolError(
                f"Cannot send 'SUBAGENT_STARTED': subagent '{subagent_run_id}' has already finished in "
                "this run. Subagent IDs are per-invocation and cannot be reused."
            )
        parent = event.parent_subagent_run_id
        if parent is not None and parent not in self._subagents and parent not in self._closed_subagents:
            raise ProtocolError(
                f"Cannot send 'SUBAGENT_STARTED': parentSubagentRunId '{parent}' has not been started in this run."
            )
        self._subagents[subagent_run_id] = None

    def _subagent_terminal(self, event: Any) -> None:
        subagent_run_id = event.subagent_run_id
        if subagent_run_id not in self._subagents:
            raise ProtocolError(
                f"Cannot send '{_name(event.type)}': no active subagent found with ID '{subagent_run_id}'. "
                "A 'SUBAGENT_STARTED' event must be sent first."
            )
        del self._subagents[subagent_run_id]
        self._closed_subagents.add(subagent_run_id)

    # -- snapshots and run lifecycle ---------------------------------------------------------

    def _messages_snapshot(self, event: Any) -> None:
        self._seed_owners(event.messages, authoritative=True)

    def _run_started_event(self, event: Any) -> None:
        self._run_started = True
        self._run_id = event.run_id
        if event.input is not None:
            self._seed_owners(event.input.messages, authoritative=False)

    def _run_finished_event(self, event: Any) -> None:
        open_steps = [
            name if owner is None else f"{name} (subagent '{owner}')" for owner, names in self._steps.items() for name in names
        ]
        if open_steps:
            raise ProtocolError(f"Cannot send 'RUN_FINISHED' while steps are still active: {', '.join(open_steps)}")
        for what, open_set in (
            ("text messages", self._messages),
            ("reasoning messages", self._reasoning_messages),
            ("reasoning spans", self._reasoning_spans),
            ("tool calls", self._tool_calls),
            ("subagents", self._subagents),
        ):
            if open_set:
                raise ProtocolError(f"Cannot send 'RUN_FINISHED' while {what} are still active: {', '.join(open_set)}")
        self._run_finished = True

    def _run_error_event(self, event: Any) -> None:
        self._run_errored = True


# The handlers are looked up here, not kept as bound methods on each verifier: bound methods would
# make every verifier a reference cycle, freed only by the cyclic garbage collector.
_HANDLERS: dict[Any, Callable[[EventVerifier, Any], None]] = {
    EventType.TEXT_MESSAGE_START: EventVerifier._text_start,
    EventType.TEXT_MESSAGE_CONTENT: EventVerifier._text_content,
    EventType.TEXT_MESSAGE_END: EventVerifier._text_end,
    EventType.TOOL_CALL_START: EventVerifier._tool_start,
    EventType.TOOL_CALL_ARGS: EventVerifier._tool_continue,
    EventType.TOOL_CALL_END: EventVerifier._tool_end,
    EventType.TOOL_CALL_RESULT: EventVerifier._tool_result,
    EventType.STEP_STARTED: EventVerifier._step_started,
    EventType.STEP_FINISHED: EventVerifier._step_finished,
    EventType.ACTIVITY_SNAPSHOT: EventVerifier._activity_snapshot,
    EventType.ACTIVITY_DELTA: EventVerifier._activity_delta,
    EventType.REASONING_START: EventVerifier._reasoning_open,
    EventType.REASONING_MESSAGE_START: EventVerifier._reasoning_open,
    EventType.REASONING_MESSAGE_CONTENT: EventVerifier._reasoning_continue,
    EventType.REASONING_MESSAGE_END: EventVerifier._reasoning_continue,
    EventType.REASONING_END: EventVerifier._reasoning_continue,
    EventType.REASONING_ENCRYPTED_VALUE: EventVerifier._encrypted_value,
    EventType.SUBAGENT_STARTED: EventVerifier._subagent_started,
    EventType.SUBAGENT_FINISHED: EventVerifier._subagent_terminal,
    EventType.SUBAGENT_ERROR: EventVerifier._subagent_terminal,
    EventType.MESSAGES_SNAPSHOT: EventVerifier._messages_snapshot,
    EventType.RUN_STARTED: EventVerifier._run_started_event,
    EventType.RUN_FINISHED: EventVerifier._run_finished_event,
    EventType.RUN_ERROR: EventVerifier._run_error_event,
}


def _name(event_type: Any) -> str:
    return event_type.value if isinstance(event_type, EventType) else str(event_type)


def _quote(value: str | None) -> str:
    return f"'{value}'" if value is not None else "(unnamed)"
