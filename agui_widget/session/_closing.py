"""Closing a run that did not end on its own: on a stop, or on an error.

A stop closes the run from the session's side at once (open messages and tool calls ended, marked
as stopped, RUN_FINISHED with a cancelled outcome) and cancels the agent's task without waiting for
it; an error closes it with RUN_ERROR. Either way every tool call left without a result is answered
as cancelled, so the history the next run sends never holds a dangling call; and the agent's stream
gets a bounded time to close before the next run starts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Literal

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    EventType,
    RunAgentInput,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageEndEvent,
)

from ..vocabulary._content import answer_dangling_calls
from ..vocabulary._errors import ProtocolError, describe_exception
from ..vocabulary._hooks import ErrorInfo
from ..vocabulary._ids import new_id
from ..vocabulary._marks import STOPPED, marked
from ._run import Run, RunStatus, Waiting
from ._transcript import SessionTranscript

if TYPE_CHECKING:
    from ..pipeline._consumer import EventConsumer

log = logging.getLogger("agui_widget")

STOPPED_METADATA = marked(**{STOPPED: True})
"""Merged into a message that a stop cut short, so views and cells can mark it."""


STOP_GRACE = 2.0
"""Seconds a stopped agent gets to unwind (its cleanup may await) before the turn ends without it.

The stop itself is closed at once on the consumer side (views see the run end); the turn ends,
and the next queued message starts, when the agent's task is done, so two runs never share an
agent. An agent that ignores the cancellation for longer is left behind, with a warning. The same
bound holds for the close of a run's stream after it finished, which the next run waits for."""


class RunClosing(SessionTranscript):
    """Stopping a turn, closing a run on a stop or an error, and letting the agent's stream close
    (the part of :class:`~agui_widget.session._session.Session` above the transcript)."""

    thread_id: str
    run_id: str
    _task: asyncio.Task[None] | None
    _waiting: Waiting
    _run_input: RunAgentInput | None
    _start_index: int
    _closing: asyncio.Task[None] | None

    if TYPE_CHECKING:

        def _finish_turn(self, run: Run, final: RunStatus) -> None:
            """End the turn (the run loop's): the session idles, or starts the next queued turn."""

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
        self._waiting = Waiting()
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

    async def _run_failed(
        self, run: Run, consumer: EventConsumer, stream: AsyncIterator[BaseEvent] | None, start_index: int, exc: Exception
    ) -> Literal["error", "cancelled"]:
        """The run's stream raised ``exc``: the run is closed with RUN_ERROR (or, when a stop closed
        it meanwhile, the stream is only let close)."""
        if run._stopped:
            await self._unwind(stream)
            return "cancelled"
        self._close_stream(stream)
        if isinstance(exc, ProtocolError):
            self._deliver(run, exc.delivered)
            message, code = f"The agent broke the AG-UI protocol: {exc}", "protocol_error"
        else:
            message, code = describe_exception(exc)
        self._close_with_error(run, consumer, message, code, exc)
        self._end_run(consumer, start_index)
        self._answer_dangling_tool_calls()
        return "error"

    def _close_with_error(
        self, run: Run, consumer: EventConsumer, message: str, code: str, exception: BaseException | None = None
    ) -> None:
        self._consume_closing(run, consumer, consumer.error_closing(self.thread_id, self.run_id, message, code))
        run.error = message
        self.hooks.error(ErrorInfo(message, code, run, exception))

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


def uncancel() -> None:
    """The current task, cancelled and handling it, is not cancelled any more (it goes on to close
    the turn itself)."""
    task = asyncio.current_task()
    if task is not None and hasattr(task, "uncancel"):
        task.uncancel()


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no loop runs in this thread
        return None
