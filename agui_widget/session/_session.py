"""The session: one chat's transcript, state and runs, and the AG-UI client loop.

Each user turn is a :class:`Run`: an asyncio task on the kernel's loop, so the kernel keeps serving
comm messages and cells while the agent works. The session builds ``RunAgentInput`` from the
transcript, state and frontend tools, passes every event through the client pipeline
(:class:`~agui_widget.pipeline._consumer.EventConsumer`: normalise, verify, reduce) and tells its listener
(the widget) what changed. A run that ends with frontend tool calls pending, or with an interrupt,
waits for answers (from a view or from Python) and continues with a follow-up run.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import json
import logging
import operator
import typing
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any, Literal

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    Context,
    EventType,
    Message,
    ResumeEntry,
    RunAgentInput,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageEndEvent,
    UserMessage,
)

from ..adapters import Agent
from ..inputs._attachments import AttachmentPolicy
from ..inputs._live_context import ContextEntry, read_context
from ..inputs._tools import FrontendTool, PythonTool
from ..pipeline._eventlog import DELTA_FRAMING, MAX_EVENT_BYTES, MAX_EVENTS, EventLog, Record, records_of, revive
from ..vocabulary._content import answer_dangling_calls, to_json_text
from ..vocabulary._errors import ProtocolError, describe_exception
from ..vocabulary._hooks import DEFAULT_REFUSAL, INPUT_REFUSED, ErrorInfo, Guard, Hooks, check_guard
from ..vocabulary._ids import new_id
from ..vocabulary._marks import DISPLAY, REFUSED, STOPPED, mark_of, marked, with_mark, without_mark
from ..vocabulary._state_patch import apply_patch, diff, json_copy
from ..vocabulary._unicode import has_surrogate, lone_surrogate_path
from ._run import Pending, Run, RunStatus

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from ..pipeline._consumer import EventConsumer
    from ..pipeline._recording import RunRecording, RunRecordings
    from ..pipeline._reducer import TranscriptIndex

log = logging.getLogger("agui_widget")

Status = Literal["idle", "running", "waiting", "error"]

STOPPED_METADATA = marked(**{STOPPED: True})
"""Merged into a message that a stop cut short, so views and cells can mark it."""


STOP_GRACE = 2.0
"""Seconds a stopped agent gets to unwind (its cleanup may await) before the turn ends without it.

The stop itself is closed at once on the consumer side (views see the run end); the turn ends,
and the next queued message starts, when the agent's task is done, so two runs never share an
agent. An agent that ignores the cancellation for longer is left behind, with a warning. The same
bound holds for the close of a run's stream after it finished, which the next run waits for."""


@functools.cache
def _messages_adapter() -> TypeAdapter[list[Message]]:
    """Built when messages are first validated: a chat made without any does not pay for it."""
    from pydantic import TypeAdapter

    return TypeAdapter(list[Message])


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


class _Waiting:
    def __init__(self) -> None:
        self.items: dict[str, Pending] = {}
        self.wake = asyncio.Event()
        self.python_tools: dict[str, PythonTool] = {}
        """The Python tool each kernel-run call (by id) calls."""
        self.tasks: set[asyncio.Task[None]] = set()
        """Python tool calls running now."""

    def cancel(self) -> None:
        """Stop waiting for the Python tool calls that run (a sync function's thread runs on;
        its result is dropped)."""
        for task in self.tasks:
            task.cancel()
        self.tasks.clear()


class AlreadyAnswered(KeyError):
    """An answer for a call or interrupt that was answered already (in another view, say)."""


ANSWERED_KEPT = 500
"""How many answered ids a session remembers, to tell a late second answer from a wrong id."""


class Session:
    """One chat: transcript, state, event log, and at most one active turn."""

    def __init__(
        self,
        agent: Agent,
        *,
        tools: Sequence[FrontendTool] = (),
        thread_id: str | None = None,
        state: Any = None,
        messages: Sequence[dict[str, Any]] = (),
        context: Sequence[ContextEntry] = (),
        listener: SessionListener | None = None,
        max_events: int = MAX_EVENTS,
        max_event_bytes: int = MAX_EVENT_BYTES,
        hooks: Hooks | None = None,
        guard: Guard | None = None,
        attachment_policy: AttachmentPolicy | None = None,
    ) -> None:
        self.agent = agent
        self.attachment_policy = attachment_policy or AttachmentPolicy()
        """What a user message may carry as attachments (checked for every message, whoever sent it)."""
        self.hooks = hooks or Hooks()
        self.guard = guard
        self.tools = list(tools)
        self.thread_id = thread_id or new_id("thread")
        self._state: Any = {} if state is None else copy.deepcopy(state)
        self._input_messages = InputMessages()
        self._messages: list[dict[str, Any]] = [dict(m) for m in messages]
        self._carried: TranscriptIndex | None = None
        """The reducer's index of the last run's transcript, for the next run to extend."""
        self._checked: list[dict[str, Any]] = _private_copies(self._messages)
        """Private copies of the messages last validated (by :meth:`replace_messages`; those a
        session starts from or loads count as such), by position: what an assigned message equal
        to one of them needs no second validation against. Seeded at once, so the first assignment
        after a chat is made (a cell appending one message) costs what is new too."""
        self.context: list[ContextEntry] = list(context)
        """What the agent is told beside the transcript; live entries are read as each run starts."""
        self.forwarded_props: dict[str, Any] = {}
        """Sent with every run as ``RunAgentInput.forwardedProps`` (model settings an agent may read)."""
        self.listener = listener or SessionListener()
        self.event_log = EventLog(max_events, max_event_bytes)
        """The newest ``max_events`` events, and no more than about ``max_event_bytes`` of JSON."""
        self._recordings: RunRecordings | None = None
        self._recording: RunRecording | None = None
        self.status: Status = "idle"
        self.error = ""
        self.run_id = ""
        self.queue: deque[Run] = deque()
        self.active: Run | None = None
        self._task: asyncio.Task[None] | None = None
        self._waiting = _Waiting()
        self._consumer: EventConsumer | None = None
        """The streaming run's pipeline (None between runs)."""
        self._run_input: RunAgentInput | None = None
        self._start_index = 0
        self._answered_ids: deque[str] = deque(maxlen=ANSWERED_KEPT)
        self._closing: asyncio.Task[None] | None = None
        """The last run's event stream being closed: the next run waits for it (bounded)."""

    @property
    def recordings(self) -> RunRecordings:
        """The newest runs, each with its input and its events' times (recordings, the inspector);
        the recordings' module loads with the first run."""
        if self._recordings is None:
            from ..pipeline._recording import RunRecordings

            self._recordings = RunRecordings()
        return self._recordings

    # While a run streams, its consumer holds the live transcript and state; reading them from it
    # (rather than copying them out per event) keeps the per-token path short.

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self._consumer.messages if self._consumer is not None else self._messages

    @messages.setter
    def messages(self, messages: list[dict[str, Any]]) -> None:
        if self._consumer is not None:
            raise RuntimeError("the transcript cannot change while a run streams")
        self._messages = messages

    @property
    def events(self) -> list[BaseEvent]:
        """The event log as ``ag_ui.core`` objects, oldest first."""
        return self.event_log.events()

    @property
    def state(self) -> Any:
        return self._consumer.state if self._consumer is not None else self._state

    @state.setter
    def state(self, state: Any) -> None:
        self._state = state
        if self._consumer is not None:
            self._consumer.state = state

    # -- what the user does -------------------------------------------------------------------

    def send(self, content: str | list[dict[str, Any]], forwarded_props: Mapping[str, Any] | None = None) -> Run:
        """Queue a user turn; it starts at once when no other turn is active.

        ``content`` is text, or AG-UI content parts (text, image, audio, video, document);
        ``forwarded_props`` go to this turn's runs, over the session's own.
        """
        props = checked_props(forwarded_props, "chat.send(forwarded_props=...)")
        if isinstance(content, str):
            if not content.strip():
                raise ValueError("chat.send() needs some text")
            text = content
            if has_surrogate(text):
                raise ValueError(
                    "chat.send() got text holding a lone UTF-16 surrogate (half of an emoji's pair), "
                    "which cannot be sent to an agent or a view"
                )
        else:
            checked = UserMessage.model_validate({"id": "check", "content": content}).model_dump(mode="json", by_alias=True)
            parts: list[dict[str, Any]] = checked["content"]  # the parts validated, in their JSON form
            content = parts
            text = " ".join(p["text"] for p in parts if p.get("type") == "text")
            if not content:
                raise ValueError("chat.send() needs some content")
            self.attachment_policy.check(parts)
            where = lone_surrogate_path(content)
            if where is not None:
                raise ValueError(f"chat.send() got content holding a lone UTF-16 surrogate at {where}")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "chat.send() needs a running event loop: call it from a notebook cell or inside asyncio.run()"
            ) from None
        message = {"id": new_id("user"), "role": "user", "content": content}
        run = Run(text, message, loop, props)
        self.queue.append(run)
        self._changed_status()
        self._start_next()
        return run

    def stop(self) -> None:
        """End the active turn now; what it produced so far stays, closed and marked as stopped.

        The session closes the run itself (open messages and tool calls ended, RUN_FINISHED with
        a cancelled outcome, every unanswered tool call answered as cancelled) and cancels the
        agent's task without waiting for it, so an agent that ignores the cancellation cannot keep
        the chat busy. Queued messages run next.
        """
        run = self.active
        if run is not None and not run.done:
            self._stop_turn(run)

    def respond(self, id: str, result: Any = None) -> None:
        """Answer a pending frontend tool call (or an interrupt, approving with ``result``).

        A Python tool's call that asks for approval takes ``True``/``False`` (or
        ``{"approved": bool}``): approved, it runs; denied, the agent is told so."""
        item = self._waiting.items.get(id)
        if item is None or item.answered:
            self._not_pending(id)
        if item.kind == "interrupt":
            self.resume(id, result)
            return
        if item.kernel == "running":
            raise AlreadyAnswered(f"tool call {id!r} runs in the kernel ({item.name}); the function's return value answers it")
        if item.kernel == "approve":
            from ..inputs._python_tools import DENIED, approval_of  # loaded with the first Python tool's call

            if approval_of(result):
                item.kernel = "running"
                self._start_python_tool(self._waiting, item)
                self._changed_status()
            else:
                self._answer_call(item, {"content": to_json_text(DENIED)}, result)
            return
        content = _answer_text(f"the result for tool call {id!r}", result)  # refused whole, before anything changes
        self._answer_call(item, {"content": content}, result)

    def _answer_call(self, item: Pending, message: dict[str, Any], answer: Any) -> None:
        """The tool message answering a pending call (``message``: its content, error, metadata)."""
        item.answered = True
        item.answer = answer
        self._answered_ids.append(item.id)
        self._append_messages([{"id": new_id("tool"), "role": "tool", "toolCallId": item.id, **message}])
        self._after_answer()

    def resume(self, interrupt_id: str, payload: Any = None, status: Literal["resolved", "cancelled"] = "resolved") -> None:
        """Answer a pending interrupt; the run continues with ``RunAgentInput.resume``."""
        item = self._waiting.items.get(interrupt_id)
        if item is None or item.kind != "interrupt" or item.answered:
            if interrupt_id in self._answered_ids:
                raise AlreadyAnswered(f"interrupt {interrupt_id!r} was answered already")
            pending = [p.id for p in self._waiting.items.values() if p.kind == "interrupt" and not p.answered]
            raise KeyError(f"no pending interrupt has id {interrupt_id!r}; pending: {pending or 'nothing'}")
        _answer_text(f"the answer to interrupt {interrupt_id!r}", payload)  # the next RunAgentInput must hold it
        item.answered = True
        self._answered_ids.append(interrupt_id)
        item.answer = ResumeEntry(interrupt_id=interrupt_id, status=status, payload=payload)
        self._after_answer()

    def claim(self, id: str, view_id: str, *, take_over: bool = False) -> None:
        """A view will run this frontend tool call's handler; others leave it to that view
        (``take_over``: this view runs it after all, as when the claiming tab was closed)."""
        item = self._waiting.items.get(id)
        if item is None or item.answered or item.kind != "tool":
            self._not_pending(id)
        if item.claimed_by is None or take_over:
            item.claimed_by = view_id
            self._changed_status()

    def _not_pending(self, id: str) -> typing.NoReturn:
        if id in self._answered_ids:
            raise AlreadyAnswered(f"{id!r} was answered already")
        pending = [p.id for p in self._waiting.items.values() if not p.answered]
        raise KeyError(f"nothing pending has id {id!r}; pending: {pending or 'nothing'}")

    @property
    def pending(self) -> list[Pending]:
        return [p for p in self._waiting.items.values() if not p.answered]

    def set_state(self, state: Any) -> None:
        """Replace the state (from Python or a view); views get only the difference.

        The session keeps its own copy, so later in-place changes to ``state`` by the caller do
        not make the views and the agent silently disagree with the kernel.
        """
        if not _patchable(self.state, state):
            state = copy.deepcopy(state)
            self.state = state
            self.listener.session_state([{"op": "replace", "path": "", "value": state}])
            return
        # What changed, copied (and nothing else): the rest of the session's state is kept as it is.
        patch = [{**op, "value": json_copy(op["value"])} if "value" in op else op for op in diff(self.state, state)]
        if patch:
            self.state = apply_patch(self.state, patch)
            self.listener.session_state(patch)

    def apply_state_patch(self, patch: list[dict[str, Any]]) -> None:
        """Apply an RFC 6902 patch to the state (a view's edit); raises on a patch that does not
        apply (and then nothing changes). The patch is the caller's to give away."""
        self.state = apply_patch(self.state, patch)
        self.listener.session_state(patch)

    def replace_messages(self, messages: Iterable[Mapping[str, Any]]) -> None:
        """Replace the transcript (validated as AG-UI messages); only while no turn is active.

        Raises (pydantic's ValidationError) with nothing changed when a message is not one. The
        cost grows with what changed: a leading message equal (``==``, in C) both to the one the
        session holds at its place and to the private copy of what was validated there last time
        is kept as the session's own object, without a second validation; the rest is validated
        and copied. The private copy is what makes an in-place edit seen: a dict of
        ``chat.messages`` changed in place (the session's own) no longer equals it, so it is
        validated again and the views are sent the transcript from there. The session never keeps
        the caller's dicts. ``==`` has ``True == 1 == 1.0``: such a flip inside an otherwise equal
        message goes unseen (as in the shared state).
        """
        if self.active is not None:
            raise RuntimeError("the transcript cannot be replaced while a run is active; call chat.stop() first")
        proposed = list(messages)
        old = self.messages
        keep = min(_common_prefix(self._checked, proposed), _common_prefix(old, proposed))
        validated = _messages_adapter().validate_python(proposed[keep:])
        tail = [m.model_dump(mode="json", by_alias=True) for m in validated]
        self._checked = [*self._checked[:keep], *_private_copies(tail)]
        self.messages = [*old[:keep], *tail]
        self.listener.session_messages(keep)

    def clear(self) -> None:
        """Forget the conversation (stops an active run first); the state stays."""
        self.queue.clear()
        self.stop()
        self.messages = []
        self._forget_indexes()
        self.error = ""
        self.listener.session_messages(0)
        self._changed_status()

    def load_thread(self, thread_id: str, messages: Sequence[dict[str, Any]], state: Any, agent: Agent | None = None) -> None:
        """Continue another thread (and, given one, with another agent); only while nothing runs."""
        self.check_idle("switching threads or agents")
        normalized = normalize_messages(messages)
        self.thread_id = thread_id
        if agent is not None:
            self.agent = agent
        self._waiting = _Waiting()
        self.error = ""
        self.messages = normalized
        self._forget_indexes()
        self._checked = _private_copies(normalized)
        self.listener.session_messages(0)
        self.set_state({} if state is None else state)
        self._changed_status()

    def _forget_indexes(self) -> None:
        """Drop what is kept to make the next run and assignment cost what is new (the old
        transcript's index and validated copies), so a forgotten transcript is freed."""
        self._carried = None
        self._checked = []
        self._input_messages = InputMessages()

    def check_idle(self, doing: str) -> None:
        """Raise unless no run is active or queued (``doing`` says what had to wait)."""
        if self.active is not None or self.queue:
            raise RuntimeError(f"a run is active: stop it (chat.stop()) or wait for it to end before {doing}")

    def truncate_and_send(self, index: int, content: str | list[dict[str, Any]]) -> Run:
        """Drop the transcript from ``index`` on and send ``content`` (edit and regenerate)."""
        if self.active is not None:
            raise RuntimeError("wait for the active run to end, or stop it, before editing the conversation")
        self.messages = self.messages[:index]
        self.listener.session_messages(index)
        return self.send(content)

    # -- the client loop ----------------------------------------------------------------------

    def _start_next(self) -> None:
        if self.active is not None or not self.queue:
            return
        run = self.queue.popleft()
        self.active = run
        self.error = ""
        self.status = "running"
        run.status = "running"
        self._append_messages([run.user_message])
        self._task = asyncio.get_running_loop().create_task(self._drive(run), name=f"agui-widget {run.id}")
        self._task.add_done_callback(lambda task: self._task_done(run, task))

    async def _drive(self, run: Run) -> None:
        """The turn: its runs, and the waits for answers between them. Once a stop has closed the
        turn (``run._stopped``), this only unwinds: it touches the session no more."""
        final: RunStatus = "finished"
        resume: list[ResumeEntry] | None = None
        try:
            if self.guard is not None and await self._refused(run):
                final = "refused"
                return
            while not run._stopped:
                ended = await self._one_run(run, resume)
                resume = None
                if ended == "cancelled":
                    final = "cancelled"
                    break
                if ended in ("error", "refused"):
                    final = ended
                    break
                if ended == "wait":
                    answers = await self._wait_for_answers(run)
                    if answers is None:
                        final = "cancelled"
                        break
                    resume = answers or None
                    continue
                break
        except asyncio.CancelledError:
            _uncancel()
            if not run._stopped:  # cancelled by someone else than stop() (the loop closing)
                self._stop_turn(run)
        except Exception as exc:  # a bug of ours must still end the turn cleanly
            if run._stopped:
                return
            log.exception("agui-widget: the run loop failed")
            message, code = describe_exception(exc)
            run.error = message
            final = "error"
            if self._consumer is not None:
                self._end_run(self._consumer, self._start_index)
            self._answer_dangling_tool_calls()
            self.hooks.error(ErrorInfo(message, code, run, exc))
        finally:
            if not run._stopped:
                self._finish_turn(run, final)

    def _stop_turn(self, run: Run) -> None:
        """Close ``run`` as cancelled from the session's side, whatever its task is doing now.

        The closing events, the stopped marks and the cancelled answers are in at once; the turn
        ends when the cancelled task has unwound (or after :data:`STOP_GRACE` seconds)."""
        if run._stopped:
            return
        run._stopped = True
        consumer = self._consumer
        if consumer is not None:
            assert self._run_input is not None
            self._close_as_stopped(run, consumer, self._run_input)
            self._end_run(consumer, self._start_index)
        elif not run.run_ids:  # stopped before the agent was asked: the turn still ends as a cancelled run
            self._record_cancelled_run(run)
        self._waiting.cancel()
        self._waiting = _Waiting()
        self._answer_dangling_tool_calls()
        task = self._task
        if task is None or task.done():
            self._finish_turn(run, "cancelled")
            return
        from_inside = task is _current_task()  # a stop from inside the run (a hook) unwinds as it returns
        if not from_inside:
            task.cancel()
        try:
            task.get_loop().call_later(STOP_GRACE, self._leave_behind, run, task)
        except RuntimeError:  # the loop is closed: nothing will unwind
            self._finish_turn(run, "cancelled")

    def _leave_behind(self, run: Run, task: asyncio.Task[None]) -> None:
        """The stopped agent is still running after the grace: end the turn without it."""
        if run.done:
            return
        log.warning(
            "agui-widget: the agent of %s is still running %.0f s after it was stopped (it ignores "
            "cancellation); the chat goes on without it",
            run.id,
            STOP_GRACE,
        )
        self._finish_turn(run, "cancelled")

    def _record_cancelled_run(self, run: Run) -> None:
        """RUN_STARTED and RUN_FINISHED (cancelled) for a turn stopped before its run began."""
        run_id = new_id("run")
        run.run_ids.append(run_id)
        consumer = self._pipeline()
        self._consume_closing(
            run,
            consumer,
            [
                RunStartedEvent(thread_id=self.thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION),
                RunFinishedEvent(thread_id=self.thread_id, run_id=run_id, outcome=RunFinishedCancelledOutcome()),
            ],
        )

    def _finish_turn(self, run: Run, final: RunStatus) -> None:
        if run.done:
            return
        self.active = None
        self._task = None
        self._run_input = None
        self.run_id = ""
        self.status = "error" if final == "error" else "idle"
        self.error = run.error or ""
        run._finish(final)
        self._changed_status()
        self.hooks.run_end(run)
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self._start_next()

    def _task_done(self, run: Run, task: asyncio.Task[None]) -> None:
        """A stopped turn ends when its task has unwound; a task cancelled before it ever ran
        skips its own cleanup, so it is done here."""
        if run.done or self.active is not run:
            return
        if run._stopped:
            self._finish_turn(run, "cancelled")
        elif task.cancelled():
            self._stop_turn(run)

    def _context_for_run(self) -> list[Context]:
        read = read_context(self.context, self.listener.session_notice)
        self.listener.session_context(read)
        return [entry for entry in read if entry is not None]

    async def _one_run(
        self, run: Run, resume: list[ResumeEntry] | None
    ) -> Literal["done", "wait", "error", "cancelled", "refused"]:
        """One AG-UI run: stream the agent's events through the pipeline into the transcript."""
        self.listener.session_run_starting()
        run_input = RunAgentInput(
            thread_id=self.thread_id,
            run_id=new_id("run"),
            protocol_version=PROTOCOL_VERSION,
            state=copy.deepcopy(self.state),
            messages=[],
            tools=[tool.to_agui() for tool in self.tools],
            context=self._context_for_run(),
            forwarded_props={**self.forwarded_props, **(run.forwarded_props or {})} or None,
            resume=resume,
        )
        # Set after validation: the models are validated already (a message once), and pydantic
        # would walk every one of them again, which grows with the transcript.
        run_input.messages = self._input_messages(self.messages)
        run.run_ids.append(run_input.run_id)
        self._recording = self.recordings.start(run_input)
        self.hooks.run_start(run_input)
        run.status = "running"
        self.run_id = run_input.run_id
        self.status = "running"
        self._changed_status()
        consumer = self._pipeline()  # it logs its own warnings
        consumer.reset_changes()
        self._consumer = consumer
        self._run_input = run_input
        self._start_index = start_index = len(self.messages)
        stream: AsyncIterator[BaseEvent] | None = None
        # The hot path (a plain delta continuing what streams, most of a stream) in the loop
        # itself, with what it calls looked up once.
        plain, hooks = consumer.consume_plain_delta, self.hooks
        keep_in_turn, keep_in_chat = run.event_log.keep, self.event_log.add_one
        recording, tell_listener = self._recording, self.listener.session_delta
        if recording is not None:
            recorded, recorded_at, clock = recording.records.append, recording.times.append, recording.clock
        try:
            await self._closed_before_next_run()
            stream = self.agent.run(run_input)
            async for event in stream:
                if run._stopped:
                    log.warning(
                        "agui-widget: the agent went on after it was stopped (it ignored the cancellation); what it sends now is dropped"
                    )
                    break
                record = plain(event)
                if record is not None:
                    size = DELTA_FRAMING + len(record[2])
                    keep_in_turn(record)
                    keep_in_chat(record, size)
                    if recording is not None:  # RunRecording.add_one, inline
                        recorded(record)
                        recorded_at(perf_counter() - clock)
                    tell_listener(record, size)
                    if hooks.on_event is not None:
                        hooks.events([revive(record)])
                    if run._stopped:  # a listener or hook stopped the turn
                        break
                    continue
                self._deliver(run, consumer.consume(event))
                if run._stopped or consumer.last_run_finished is not None or consumer.last_run_error is not None:
                    break
            else:
                if not run._stopped:
                    consumer.end_of_stream()
                    if consumer.last_run_finished is None and consumer.last_run_error is None:
                        raise ProtocolError("the agent's event stream ended before any run started (no RUN_STARTED)")
        except asyncio.CancelledError:
            _uncancel()
            if not run._stopped:  # cancelled from outside the session: close it as a stop would
                self._stop_turn(run)
            await self._unwind(stream)
            return "cancelled"
        except ProtocolError as exc:
            if run._stopped:
                await self._unwind(stream)
                return "cancelled"
            self._close_stream(stream)
            self._deliver(run, exc.delivered)
            self._close_with_error(run, consumer, f"The agent broke the AG-UI protocol: {exc}", "protocol_error", exc)
            self._end_run(consumer, start_index)
            self._answer_dangling_tool_calls()
            return "error"
        except Exception as exc:
            if run._stopped:
                await self._unwind(stream)
                return "cancelled"
            self._close_stream(stream)
            message, code = describe_exception(exc)
            self._close_with_error(run, consumer, message, code, exc)
            self._end_run(consumer, start_index)
            self._answer_dangling_tool_calls()
            return "error"
        if run._stopped:
            await self._unwind(stream)
            return "cancelled"
        self._close_stream(stream)
        self._end_run(consumer, start_index)
        if consumer.last_run_error is not None:
            error = consumer.last_run_error
            if error.code == INPUT_REFUSED and len(run.run_ids) == 1 and len(self.messages) == start_index:
                # a served app's guard refused the message before its agent saw it: as a guard here would
                self._mark_refused(run, error.message or DEFAULT_REFUSAL)
                return "refused"
            run.error = error.message or "the run failed"
            self.hooks.error(ErrorInfo(run.error, error.code or "agent_error", run))
            self._answer_dangling_tool_calls()
            return "error"
        return "wait" if self._collect_pending(consumer) else "done"

    def _pipeline(self) -> EventConsumer:
        """A pipeline for the transcript, extending the index the last one left."""
        consumer = _new_pipeline(self._messages, self._state, self._carried)
        self._carried = consumer.carried_index
        return consumer

    def _deliver(self, run: Run, events: list[BaseEvent]) -> None:
        if not events:
            return
        records = records_of(events)
        run.event_log.add(records)
        self.event_log.add(records)
        if self._recording is not None:
            self._recording.add(records)
        self.listener.session_events(events, records)
        if self.hooks.on_event is not None:
            self.hooks.events(events)

    def _close_as_stopped(self, run: Run, consumer: EventConsumer, run_input: RunAgentInput) -> None:
        """Close what the stop cut short, mark it stopped, and finish the run as cancelled."""
        closing: list[BaseEvent] = []
        started = consumer.run_active
        if not started:
            closing.append(
                RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id, protocol_version=PROTOCOL_VERSION)
            )
        for event in consumer.open_events():
            if event.type == EventType.TEXT_MESSAGE_END:
                event = TextMessageEndEvent(message_id=event.message_id, metadata=STOPPED_METADATA)  # type: ignore[attr-defined]
            closing.append(event)
        closing.append(
            RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id, outcome=RunFinishedCancelledOutcome())
        )
        self._consume_closing(run, consumer, closing)

    def _close_with_error(
        self, run: Run, consumer: EventConsumer, message: str, code: str, exception: BaseException | None = None
    ) -> None:
        self._consume_closing(run, consumer, consumer.error_closing(self.thread_id, self.run_id, message, code))
        run.error = message
        self.hooks.error(ErrorInfo(message, code, run, exception))

    async def _refused(self, run: Run) -> bool:
        """Ask the input guard about the turn's message; a refused one is marked and not sent."""
        assert self.guard is not None
        reason = await check_guard(self.guard, run.user_message["content"])
        if reason is None or run._stopped:
            return False
        self._mark_refused(run, reason)
        return True

    def _mark_refused(self, run: Run, reason: str) -> None:
        """The turn's message was refused: it is marked so (and never sent again), and the views told."""
        run.refused = reason
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.get("id") == run.user_message["id"]:
                refused = {**message, "metadata": with_mark(message.get("metadata"), REFUSED, reason)}
                self.messages = [*self.messages[:index], refused, *self.messages[index + 1 :]]
                self.listener.session_messages(index)
                break
        self.listener.session_notice("warning", f"Not sent: {reason}")

    def _consume_closing(self, run: Run, consumer: EventConsumer, closing: list[BaseEvent]) -> None:
        for event in closing:
            try:
                self._deliver(run, consumer.consume(event))
            except ProtocolError as exc:
                self._deliver(run, exc.delivered)
                # The stream is already broken; record the closing event so views still see it.
                log.warning("agui-widget: could not close the run cleanly at %s", event.type)
                self._deliver(run, [event])

    def _answer_dangling_tool_calls(self) -> None:
        """After a stop or a failure: answer every tool call left without a result as cancelled,
        right after the message that made it, so the history the next run sends to a model never
        holds a dangling call."""
        repaired, first = answer_dangling_calls(self.messages, lambda call_id: new_id("tool"))
        if first is not None:
            self.messages = repaired
            self.listener.session_messages(first)

    def _close_stream(self, stream: AsyncIterator[BaseEvent] | None) -> None:
        """Let the adapter's generator run its cleanup while the run's end is shown; the next run
        waits for it (:meth:`_closed_before_next_run`), so it never starts on an agent that is
        still tidying up the last one (an agent that keeps per-run state on its instance)."""
        if getattr(stream, "aclose", None) is None:
            return
        self._closing = asyncio.get_running_loop().create_task(self._unwind(stream))

    async def _closed_before_next_run(self) -> None:
        """Wait for the last run's stream to have closed (bounded by :meth:`_unwind`). Waiting
        does not cancel the close: a stop of this run leaves the last one's cleanup alone."""
        closing, self._closing = self._closing, None
        if closing is not None and not closing.done():
            await asyncio.wait((closing,))

    async def _unwind(self, stream: AsyncIterator[BaseEvent] | None) -> None:
        """Let the agent's generator run its cleanup (bounded by :data:`STOP_GRACE`), so the next
        run never starts on an agent that is still tidying up."""
        aclose = getattr(stream, "aclose", None)
        if aclose is None:
            return
        try:
            await asyncio.wait_for(aclose(), timeout=STOP_GRACE)
        except (Exception, asyncio.CancelledError):
            log.debug("agui-widget: the agent's stream did not close cleanly", exc_info=True)

    def _end_run(self, consumer: EventConsumer, start_index: int) -> None:
        self._consumer = None
        if self._recording is not None:
            recording, self._recording = self._recording, None
            try:
                self.recordings.ended(recording)
            except OSError as exc:  # a full disk or a removed folder must not break the chat
                log.warning("agui-widget: could not write the run to the recording: %s", exc)
                self.listener.session_notice("warning", f"The run was not recorded: {exc}")
        self._messages = consumer.messages
        self._state = consumer.state
        changed = consumer.changed_from
        start = min(start_index, changed) if changed is not None else start_index
        self.listener.session_run_ended(start)

    # -- waiting for answers ------------------------------------------------------------------

    def _collect_pending(self, consumer: EventConsumer) -> bool:
        """What the run left for the application to answer; True when there is something."""
        waiting = _Waiting()
        interrupts = consumer.interrupts()
        for item in interrupts:
            name, args = _find_call(self.messages, item.tool_call_id) if item.tool_call_id else (None, "")
            waiting.items[item.id] = Pending("interrupt", item.id, name=name, args_text=args, interrupt=item)
        if not interrupts:
            for call_id in consumer.pending_tool_call_ids():
                if _has_result(self.messages, call_id):
                    continue
                name, args = _find_call(self.messages, call_id)
                call = waiting.items[call_id] = Pending("tool", call_id, name=name, args_text=args)
                tool = next((t for t in self.tools if t.name == name), None)
                if isinstance(tool, PythonTool):
                    waiting.python_tools[call_id] = tool
                    call.kernel = "approve" if tool.approve else "running"
        self._waiting = waiting
        return bool(waiting.items)

    async def _wait_for_answers(self, run: Run) -> list[ResumeEntry] | None:
        """Wait until everything pending is answered; None when the turn was stopped meanwhile."""
        run.status = "waiting"
        self.status = "waiting"
        waiting = self._waiting
        for item in waiting.items.values():
            if item.kernel == "running":
                self._start_python_tool(waiting, item)
        self._changed_status()
        run._waiting_on_views(p for p in waiting.items.values() if not p.answered and p.kernel != "running")
        try:
            while any(not p.answered for p in waiting.items.values()):
                waiting.wake.clear()
                await waiting.wake.wait()
            run._waiting_on_views(())
        except asyncio.CancelledError:
            _uncancel()
            if not run._stopped:
                self._stop_turn(run)
            return None
        if run._stopped:
            return None
        self._waiting = _Waiting()
        return [p.answer for p in waiting.items.values() if p.kind == "interrupt"]

    def _start_python_tool(self, waiting: _Waiting, item: Pending) -> None:
        """Run a Python tool's call in the kernel; its result answers the call (unless a stop
        ended the wait first)."""
        from ..inputs._python_tools import failed, run_python_tool  # loaded with the first Python tool's call

        tool = waiting.python_tools[item.id]

        async def call() -> None:
            try:
                message = await run_python_tool(tool, item.args_text)
            except Exception as exc:  # a bug of ours: the call is still answered
                log.exception("agui-widget: running the python tool %s failed", tool.name)
                message = failed(f"{type(exc).__name__}: {exc}")
            if self._waiting is waiting and not item.answered:
                self._answer_call(item, message, None)

        task = asyncio.get_running_loop().create_task(call(), name=f"agui-widget tool {tool.name}")
        waiting.tasks.add(task)
        task.add_done_callback(waiting.tasks.discard)

    def _after_answer(self) -> None:
        self._changed_status()
        if all(p.answered for p in self._waiting.items.values()):
            self._waiting.wake.set()

    # -- helpers ------------------------------------------------------------------------------

    def _append_messages(self, messages: list[dict[str, Any]], notify_status: bool = True) -> None:
        if not messages:
            return
        start = len(self.messages)
        self.messages = [*self.messages, *messages]
        self.listener.session_messages(start)
        if notify_status:
            self._changed_status()

    def _changed_status(self) -> None:
        self.listener.session_status()


def normalize_messages(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """AG-UI messages validated (raises ValidationError) and as the camelCase dicts a transcript holds."""
    validated = _messages_adapter().validate_python(list(messages))
    return [m.model_dump(mode="json", by_alias=True) for m in validated]


class InputMessages:
    """The transcript as an agent gets it, as AG-UI models: a message the input guard refused is
    never sent, and a rich result's MIME bundle is for the view (the model gets the text in
    ``content``).

    Each message is validated once: the very dict seen under its id last time gets the same model
    again, so a run's cost grows with what is new, not with the whole transcript. The session
    replaces a message's dict when it changes (the reducer copies on write; an assignment to
    ``chat.messages`` gives every changed message a new dict), so identity tells what is unchanged,
    and it is the only safe test: the dicts seen last time are the chat's own, which a cell may
    have changed in place before assigning, so an equal dict is no proof the model still fits.
    When the transcript starts with the messages of the last one (the usual case: a run adds at the
    end; an identity check of the lists, in C), that prefix's models are reused as a list and only
    the new messages are looked at. Agents get these models in ``RunAgentInput.messages`` to read: an agent must not
    change them in place (the next run would send the change), as AG-UI agents do not.
    """

    def __init__(self) -> None:
        self._known: dict[str, tuple[dict[str, Any], Message]] = {}
        self._last: list[dict[str, Any]] = []
        """The transcript of the last call (a copy of the list), and its models below."""
        self._models: list[Message] = []

    def __call__(self, messages: list[dict[str, Any]]) -> list[Message]:
        last = self._last
        if last and len(last) <= len(messages) and all(map(operator.is_, last, messages)):
            models = [*self._models, *self._convert(messages[len(last) :], self._known)]
        else:
            kept: dict[str, tuple[dict[str, Any], Message]] = {}
            models = self._convert(messages, kept)
            self._known = kept  # only what this transcript holds: nothing is kept for a message that went
        self._last = list(messages)
        self._models = models
        return list(models)

    def _convert(self, messages: list[dict[str, Any]], kept: dict[str, tuple[dict[str, Any], Message]]) -> list[Message]:
        """The models of ``messages``, recording each id's first message and model in ``kept``
        (which holds the transcript's earlier ids: an id seen there is not reused)."""
        known = self._known
        models: list[Message | None] = []
        new: list[tuple[int, dict[str, Any]]] = []
        for message in messages:
            if "metadata" in message and mark_of(message, REFUSED) is not None:
                continue
            key = message.get("id")
            entry = known.get(key) if isinstance(key, str) else None
            if entry is not None and entry[0] is message and key not in kept:
                kept[key] = (message, entry[1])  # type: ignore[index]
                models.append(entry[1])
            else:
                new.append((len(models), message))
                models.append(None)
        if new:
            validated = _messages_adapter().validate_python([without_mark(message, DISPLAY) for _, message in new])
            for (index, message), model in zip(new, validated, strict=True):
                models[index] = model
                key = message.get("id")
                if isinstance(key, str) and key not in kept:
                    kept[key] = (message, model)
        return models  # type: ignore[return-value]


def _private_copies(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Deep copies of JSON messages, made in C (a JSON round trip: about 1.7 µs a message, a
    third of a second ``model_dump``); none for messages JSON cannot hold (no copy: the next
    assignment validates them)."""
    try:
        copied: list[dict[str, Any]] = json.loads(json.dumps(messages, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return []
    return copied


def _input_messages(messages: list[dict[str, Any]]) -> list[Message]:
    """The transcript as an agent gets it, validated afresh (see :class:`InputMessages`)."""
    return InputMessages()(messages)


def _answer_text(what: str, value: Any) -> str:
    """``value`` as the text a tool message (or resume entry) carries, or ValueError saying why it
    cannot be sent; checked before anything is marked answered, so a refusal loses nothing."""
    try:
        text = to_json_text(value)
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply to be sent to the agent; it is still pending") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} cannot be sent to the agent ({exc}); it is still pending") from None
    if has_surrogate(text):
        raise ValueError(f"{what} holds a lone UTF-16 surrogate, which cannot be sent; it is still pending")
    return text


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no loop runs in this thread
        return None


def _new_pipeline(messages: list[dict[str, Any]], state: Any, carried: TranscriptIndex | None = None) -> EventConsumer:
    """A run's pipeline; its module loads with a chat's first run, not with the package (the AG-UI
    event tables it builds are a good part of ``import agui_widget``)."""
    from ..pipeline._consumer import EventConsumer

    return EventConsumer(messages, state, carried=carried)


def _uncancel() -> None:
    task = asyncio.current_task()
    if task is not None and hasattr(task, "uncancel"):
        task.uncancel()


def _has_result(messages: list[dict[str, Any]], call_id: str) -> bool:
    return any(m.get("role") == "tool" and m.get("toolCallId") == call_id for m in reversed(messages))


def _find_call(messages: list[dict[str, Any]], call_id: str | None) -> tuple[str | None, str]:
    for message in reversed(messages):
        for call in message.get("toolCalls") or ():
            if call.get("id") == call_id:
                function = call.get("function") or {}
                return function.get("name"), function.get("arguments") or ""
    return None, ""


def _common_prefix(old: list[Any], new: list[Any]) -> int:
    """How many leading items ``old`` and ``new`` share by ``==``: compared in C (a list's ``==``
    checks identity first), halving the range that holds the first difference."""
    low, high = 0, min(len(old), len(new))
    try:
        if old[:high] == new[:high]:
            return high
        while high - low > 16:  # old[:low] == new[:low], and the first difference is before high
            middle = (low + high) // 2
            if old[low:middle] == new[low:middle]:
                low = middle
            else:
                high = middle
        while low < high and old[low] == new[low]:
            low += 1
    except Exception:  # an item whose == raises (an array, say) counts as a difference
        return 0
    return low


def _patchable(old: Any, new: Any) -> bool:
    return isinstance(old, (dict, list)) and isinstance(new, (dict, list)) and type(old) is type(new)


def checked_props(props: Mapping[str, Any] | None, where: str) -> dict[str, Any] | None:
    """``forwardedProps`` as an agent gets them: a JSON object, checked before anything is queued."""
    if props is None:
        return None
    if not isinstance(props, Mapping):
        raise TypeError(f"{where} takes a dict, not {type(props).__name__}")
    try:
        plain = json.loads(json.dumps(dict(props), ensure_ascii=False, allow_nan=False))
    except RecursionError:
        raise ValueError(f"{where} is nested too deeply to send") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where} must be plain JSON (strings, numbers, lists, dicts): {exc}") from None
    where_surrogate = lone_surrogate_path(plain)
    if where_surrogate is not None:
        raise ValueError(f"{where} holds a lone UTF-16 surrogate at {where_surrogate}")
    return typing.cast(dict[str, Any], plain)
