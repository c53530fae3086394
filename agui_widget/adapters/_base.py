"""One event-stream base for our own adapters: the AG-UI framing rules, written once.

An adapter maps its framework to AG-UI events and nothing else. The base guarantees what every
consumer relies on: RUN_STARTED (with protocolVersion) first; text closed before a tool call
starts; every START closed by its END, also when the adapter raises; RUN_ERROR with a message a
person can act on; RUN_FINISHED with the 1.0 ``outcome`` (pending tool calls or interrupts).
Cancellation cannot be framed here (a cancelled generator can no longer yield): the session closes
what is open from the consumer side.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, cast

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    EventType,
    Interrupt,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ..vocabulary._content import to_json_text
from ..vocabulary._display import tool_result_parts
from ..vocabulary._errors import describe_exception
from ..vocabulary._ids import new_id as new_id  # re-exported: the adapters build their ids with it
from ..vocabulary._marks import INTERNAL, marked

if TYPE_CHECKING:
    from ag_ui._generated.models import JsonPatch  # the generated models' alias; ag_ui.core does not export it

Emitted = BaseEvent | Iterable[BaseEvent]
"""What an adapter's ``_events`` yields: one event, or several at once."""


def json_patch(operations: list[dict[str, Any]]) -> JsonPatch:
    """RFC 6902 operations as plain dicts, typed as a delta event's ``delta``/``patch``: the event's
    validation turns them into operation models."""
    return cast("JsonPatch", operations)


INTERNAL_STEP = marked(**{INTERNAL: True})
"""The metadata of a step that is the framework's plumbing, not progress a person follows."""


class EventStream:
    """Builds one run's events and keeps the bookkeeping framing needs.

    Every helper returns a list of events; adapters yield those lists. Events an adapter builds by
    hand pass through :meth:`accept` when they are yielded, so the same rules hold for them.

    Build and yield in order: a helper sees the bookkeeping of what was yielded before it. A
    hand-built event and helper calls in one list (``[*text(..), start, *end_text()]``) can end up
    out of order; yield the hand-built event first, or pass it through :meth:`accept` yourself.
    """

    def __init__(self, input: RunAgentInput) -> None:
        self.input = input
        self.thread_id = input.thread_id
        self.run_id = input.run_id
        self.frontend_tool_names = frozenset(tool.name for tool in input.tools or ())
        self._text_id: str | None = None
        self._text_ids: list[str] = []
        self._open_tools: list[str] = []
        self._open_steps: list[str] = []
        self._reasoning: tuple[str, str] | None = None  # (span id, message id)
        self._unanswered: list[str] = []
        self._interrupts: list[Interrupt] = []
        self.last_text_id: str | None = None
        self.usage: list[TokenUsage] | None = None
        """The run's token usage, when the framework reports it: RUN_FINISHED carries it."""

    # -- run framing -------------------------------------------------------------------------

    def run_started(self) -> RunStartedEvent:
        return RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id, protocol_version=PROTOCOL_VERSION)

    def run_finished(self, result: Any = None) -> RunFinishedEvent:
        if self._interrupts:
            outcome: Any = RunFinishedInterruptOutcome(interrupts=list(self._interrupts))
        else:
            outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=list(self._unanswered) or None)
        return RunFinishedEvent(
            thread_id=self.thread_id, run_id=self.run_id, outcome=outcome, result=result, usage=self.usage or None
        )

    def run_error(self, exc: BaseException) -> RunErrorEvent:
        message, code = describe_exception(exc)
        return RunErrorEvent(message=message, code=code)

    def close_all(self) -> list[BaseEvent]:
        """END events for everything still open, innermost first."""
        events: list[BaseEvent] = []
        events += self.end_text()
        events += self.end_reasoning()
        for tool_call_id in list(self._open_tools):
            events += self.accept(ToolCallEndEvent(tool_call_id=tool_call_id))
        for step in reversed(self._open_steps):
            events += self.accept(StepFinishedEvent(step_name=step))
        return events

    def accept(self, event: BaseEvent) -> list[BaseEvent]:
        """Apply the framing rules around one outgoing event (idempotent bookkeeping)."""
        kind = event.type
        before: list[BaseEvent] = []
        if kind == EventType.TOOL_CALL_START:
            before = self.end_text() + self.end_reasoning()
            tool_call_id = event.tool_call_id  # type: ignore[attr-defined]
            if tool_call_id not in self._open_tools:
                self._open_tools.append(tool_call_id)
            if tool_call_id not in self._unanswered:
                self._unanswered.append(tool_call_id)
        elif kind == EventType.TOOL_CALL_END:
            tool_call_id = event.tool_call_id  # type: ignore[attr-defined]
            if tool_call_id in self._open_tools:
                self._open_tools.remove(tool_call_id)
        elif kind == EventType.TOOL_CALL_RESULT:
            tool_call_id = event.tool_call_id  # type: ignore[attr-defined]
            if tool_call_id in self._unanswered:
                self._unanswered.remove(tool_call_id)
            self.last_text_id = None  # what follows a result belongs to the model's next turn
        elif kind == EventType.TEXT_MESSAGE_START:
            message_id = event.message_id  # type: ignore[attr-defined]
            if self._text_id != message_id:
                before = self.end_text() + self.end_reasoning()
            self._text_id = self.last_text_id = message_id
        elif kind == EventType.TEXT_MESSAGE_END:
            if self._text_id == event.message_id:  # type: ignore[attr-defined]
                self._text_id = None
        elif kind == EventType.STEP_STARTED:
            self._open_steps.append(event.step_name)  # type: ignore[attr-defined]
        elif kind == EventType.STEP_FINISHED:
            name = event.step_name  # type: ignore[attr-defined]
            if name in self._open_steps:
                self._open_steps.remove(name)
        return [*before, event]

    @property
    def open_text_id(self) -> str | None:
        """The id of the assistant message being streamed, if one is open."""
        return self._text_id

    # -- text --------------------------------------------------------------------------------

    def text(self, delta: str, *, message_id: str | None = None) -> list[BaseEvent]:
        """Stream assistant text, opening a message when none is open."""
        events: list[BaseEvent] = []
        if self._text_id is None or (message_id is not None and message_id != self._text_id):
            events += self.end_text() + self.end_reasoning()
            self._text_id = self.last_text_id = message_id or new_id("msg")
            events.append(TextMessageStartEvent(message_id=self._text_id, role="assistant"))
        if delta:
            events.append(TextMessageContentEvent(message_id=self._text_id, delta=delta))
        return events

    def end_text(self, *, metadata: dict[str, Any] | None = None) -> list[BaseEvent]:
        if self._text_id is None:
            return []
        message_id, self._text_id = self._text_id, None
        return [TextMessageEndEvent(message_id=message_id, metadata=metadata)]

    # -- reasoning ---------------------------------------------------------------------------

    def reasoning(self, delta: str) -> list[BaseEvent]:
        events: list[BaseEvent] = []
        if self._reasoning is None:
            events += self.end_text()
            span, message = new_id("reasoning"), new_id("reasoning-msg")
            self._reasoning = (span, message)
            events += [ReasoningStartEvent(message_id=span), ReasoningMessageStartEvent(message_id=message)]
        if delta:
            events.append(ReasoningMessageContentEvent(message_id=self._reasoning[1], delta=delta))
        return events

    def end_reasoning(self) -> list[BaseEvent]:
        if self._reasoning is None:
            return []
        span, message = self._reasoning
        self._reasoning = None
        return [ReasoningMessageEndEvent(message_id=message), ReasoningEndEvent(message_id=span)]

    # -- tools -------------------------------------------------------------------------------

    def tool_call_start(
        self, name: str, *, tool_call_id: str | None = None, parent_message_id: str | None = None
    ) -> list[BaseEvent]:
        """A tool call; its parent is the message that made it (by default the text streaming now,
        or the last one)."""
        parent = parent_message_id or self._text_id or self.last_text_id
        return [ToolCallStartEvent(tool_call_id=tool_call_id or new_id("call"), tool_call_name=name, parent_message_id=parent)]

    def tool_call_args(self, tool_call_id: str, delta: str) -> list[BaseEvent]:
        return [ToolCallArgsEvent(tool_call_id=tool_call_id, delta=delta)] if delta else []

    def tool_call_end(self, tool_call_id: str) -> list[BaseEvent]:
        return [ToolCallEndEvent(tool_call_id=tool_call_id)]

    def tool_call(
        self, name: str, args: Any = None, *, tool_call_id: str | None = None, parent_message_id: str | None = None
    ) -> list[BaseEvent]:
        """A whole tool call at once: START, ARGS, END. Returns the events; the id is on START.
        ``args`` is a value (sent as JSON) or the arguments' JSON text."""
        events = self.tool_call_start(name, tool_call_id=tool_call_id, parent_message_id=parent_message_id)
        call_id = events[-1].tool_call_id  # type: ignore[attr-defined]
        events += self.tool_call_args(call_id, to_json_text({} if args is None else args))
        events += self.tool_call_end(call_id)
        return events

    def tool_result(
        self, tool_call_id: str, content: Any, *, message_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> list[ToolCallResultEvent]:
        """A tool's result. A rich object (a figure, a DataFrame, anything IPython can display) is
        shown in the chat: its MIME bundle goes in ``metadata.agui_widget.display`` and the model
        gets a text version as ``content``. ``message_id``: the framework's own id for the result
        (so a transcript matches its state); ``metadata``: marks of the adapter's own."""
        text, metadata = tool_result_parts(content, metadata)
        result = ToolCallResultEvent(
            message_id=message_id or new_id("tool"), tool_call_id=tool_call_id, content=text, role="tool", metadata=metadata
        )
        return [result]

    def is_frontend_tool(self, name: str) -> bool:
        return name in self.frontend_tool_names

    # -- state, steps, interrupts -----------------------------------------------------------

    def state_snapshot(self, state: Any) -> list[BaseEvent]:
        return [StateSnapshotEvent(snapshot=state)]

    def state_delta(self, patch: list[dict[str, Any]]) -> list[BaseEvent]:
        return [StateDeltaEvent(delta=json_patch(patch))] if patch else []

    def step_started(self, name: str, *, internal: bool = False) -> list[BaseEvent]:
        """A step; ``internal`` marks the framework's own plumbing (a graph's "model" node), which
        the event log keeps but a chat does not show as progress."""
        return [StepStartedEvent(step_name=name, metadata=INTERNAL_STEP if internal else None)]

    def step_finished(self, name: str, *, internal: bool = False) -> list[BaseEvent]:
        return [StepFinishedEvent(step_name=name, metadata=INTERNAL_STEP if internal else None)]

    def interrupt(
        self,
        reason: str,
        *,
        message: str | None = None,
        tool_call_id: str | None = None,
        response_schema: dict[str, Any] | None = None,
        interrupt_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Interrupt:
        """Ask for something from outside; the run then finishes with an interrupt outcome."""
        item = Interrupt(
            id=interrupt_id or new_id("interrupt"),
            reason=reason,
            message=message,
            tool_call_id=tool_call_id,
            response_schema=response_schema,
            metadata=metadata,
        )
        self._interrupts.append(item)
        return item


_UNFRAMED = frozenset({TextMessageContentEvent, ToolCallArgsEvent, ReasoningMessageContentEvent})
"""Events :meth:`EventStream.accept` passes as they are (no framing rule concerns a delta)."""


class AgentAdapter(ABC):
    """An AG-UI agent: ``run(RunAgentInput) -> AsyncIterator[BaseEvent]``, framed by this base.

    Subclasses implement :meth:`_events`, yielding events (or lists of them) built with the
    :class:`EventStream` they are given, and nothing else: the framing is here. Anything they raise
    becomes RUN_ERROR (:meth:`_run_error` may shape its message); token usage set on the stream
    goes on RUN_FINISHED. When the run is closed early (a stop), ``_events`` is closed at once, so
    the framework's own stream is closed with it.
    """

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        stream = EventStream(input)
        yield stream.run_started()
        try:
            async with aclosing(self._events(input, stream)) as produced:
                async for emitted in produced:
                    # (a list first: most of a stream is the one-delta lists of the helpers, and
                    # isinstance on a pydantic model class is the slow, ABC way)
                    events = emitted if type(emitted) is list else [emitted] if isinstance(emitted, BaseEvent) else emitted
                    for event in events:
                        if type(event) in _UNFRAMED:  # a delta: nothing to open, close or count
                            yield event
                            continue
                        for framed in stream.accept(event):
                            yield framed
        except Exception as exc:
            for event in stream.close_all():
                yield event
            yield self._run_error(exc, stream)
            return
        for event in stream.close_all():
            yield event
        yield stream.run_finished()

    def _run_error(self, exc: Exception, stream: EventStream) -> RunErrorEvent:
        """The RUN_ERROR for what ``_events`` raised: a message a person can act on. Override to
        shape it (how much detail a framework's error may show)."""
        return stream.run_error(exc)

    @abstractmethod
    def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Emitted, None]:
        """The framework's run, as AG-UI events."""
