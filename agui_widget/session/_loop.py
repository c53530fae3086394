"""The queue of turns and the AG-UI client loop that drives each one.

Each user turn is a :class:`~agui_widget.session._run.Run`: an asyncio task on the kernel's loop,
so the kernel keeps serving comm messages and cells while the agent works. A turn's run builds
``RunAgentInput`` from the transcript, state and frontend tools and passes every event through the
client pipeline (:class:`~agui_widget.pipeline._consumer.EventConsumer`: normalise, verify,
reduce); a run that leaves something to answer waits, then continues with a follow-up run. When a
turn ends the next queued one starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
from collections import deque
from collections.abc import AsyncIterator
from time import perf_counter
from typing import TYPE_CHECKING, Any, Literal

from ag_ui.core import PROTOCOL_VERSION, BaseEvent, Context, ResumeEntry, RunAgentInput

from ..adapters import Agent
from ..inputs._live_context import ContextEntry, read_context
from ..pipeline._a2ui_surfaces import ToolResultSurfaces
from ..pipeline._eventlog import DELTA_FRAMING, revive
from ..vocabulary._errors import ProtocolError, describe_exception
from ..vocabulary._hooks import DEFAULT_REFUSAL, INPUT_REFUSED, ErrorInfo, Guard, check_guard
from ..vocabulary._ids import new_id
from ..vocabulary._marks import REFUSED, with_mark
from ._closing import uncancel
from ._run import Run, RunStatus
from ._usage import reported_usage, turn_usage, with_turn_usage
from ._waiting import AnswerWaiting

if TYPE_CHECKING:
    from ..pipeline._consumer import EventConsumer

log = logging.getLogger("agui_widget")

RunEnd = Literal["done", "wait", "error", "cancelled", "refused"]
"""How one AG-UI run of a turn ended: ``wait`` leaves something to answer before the next."""


class RunLoop(AnswerWaiting):
    """The queue of turns and the run loop (the part of
    :class:`~agui_widget.session._session.Session` above what runs wait for)."""

    agent: Agent
    guard: Guard | None
    context: list[ContextEntry]
    forwarded_props: dict[str, Any]
    setting_values: dict[str, Any]
    error: str
    queue: deque[Run]

    def _start_next(self) -> None:
        if self.active is not None or not self.queue:
            return
        run = self.queue.popleft()
        self.active = run
        self.error = ""
        self.status = "running"
        run.status = "running"
        self._append_messages(run.opening_messages())
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
            uncancel()
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

    def _finish_turn(self, run: Run, final: RunStatus) -> None:
        if run.done:
            return
        self._keep_usage(run)
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

    def _keep_usage(self, run: Run) -> None:
        """The turn's token usage, summed, marked on its last answer (before the thread is saved)."""
        marked = with_turn_usage(self.messages, run.user_message.get("id"), turn_usage(run.usage)) if run.usage else None
        if marked is not None:
            self.messages, index = marked
            self.listener.session_messages(index)

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

    async def _one_run(self, run: Run, resume: list[ResumeEntry] | None) -> RunEnd:
        """One AG-UI run: stream the agent's events through the pipeline into the transcript."""
        run_input, consumer = self._begin_run(run, resume)
        start_index = self._start_index
        stream: AsyncIterator[BaseEvent] | None = None
        try:
            await self._closed_before_next_run()
            stream = self.agent.run(run_input)
            await self._stream_events(run, consumer, stream)
        except asyncio.CancelledError:
            uncancel()
            if not run._stopped:  # cancelled from outside the session: close it as a stop would
                self._stop_turn(run)
            await self._unwind(stream)
            return "cancelled"
        except Exception as exc:
            return await self._run_failed(run, consumer, stream, start_index, exc)
        if run._stopped:
            await self._unwind(stream)
            return "cancelled"
        self._close_stream(stream)
        self._end_run(consumer, start_index)
        return self._run_ended(run, consumer, start_index)

    def _begin_run(self, run: Run, resume: list[ResumeEntry] | None) -> tuple[RunAgentInput, EventConsumer]:
        """The run's input, recorded and announced, and the pipeline its events go through."""
        self.listener.session_run_starting()
        run_input = RunAgentInput(
            thread_id=self.thread_id,
            run_id=new_id("run"),
            protocol_version=PROTOCOL_VERSION,
            state=copy.deepcopy(self.state),
            messages=[],
            tools=[tool.to_agui() for tool in self.tools],
            context=self._context_for_run(),
            forwarded_props={**self.forwarded_props, **self.setting_values, **(run.forwarded_props or {})} or None,
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
        self._start_index = len(self.messages)
        return run_input, consumer

    async def _stream_events(self, run: Run, consumer: EventConsumer, stream: AsyncIterator[BaseEvent]) -> None:
        """Deliver the agent's events until its run finishes or fails, the stream ends, or a stop."""
        # The hot path (a plain delta continuing what streams, most of a stream) in the loop
        # itself, with what it calls looked up once.
        plain, hooks = consumer.consume_plain_delta, self.hooks
        keep_in_turn, keep_in_chat = run.event_log.keep, self.event_log.add_one
        recording, tell_listener = self._recording, self.listener.session_delta
        surfaces = ToolResultSurfaces()  # A2UI surfaces a tool's result draws, as @ag-ui/a2ui-middleware makes them
        if recording is not None:
            recorded, recorded_at, clock = recording.records.append, recording.times.append, recording.clock
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
            delivered = consumer.consume(event)
            self._deliver(run, delivered)
            drawn = surfaces.after(delivered)
            if drawn:  # the kernel's own events: verified and reduced as the agent's, not recorded as its
                self._deliver(run, [done for snapshot in drawn for done in consumer.consume(snapshot)], recorded=False)
            if run._stopped or consumer.last_run_finished is not None or consumer.last_run_error is not None:
                break
        else:
            if not run._stopped:
                consumer.end_of_stream()
                if consumer.last_run_finished is None and consumer.last_run_error is None:
                    raise ProtocolError("the agent's event stream ended before any run started (no RUN_STARTED)")

    def _run_ended(self, run: Run, consumer: EventConsumer, start_index: int) -> RunEnd:
        """What the turn does after a run that ended on its own: fail, wait for answers, or end."""
        run.usage += reported_usage(consumer.last_run_finished or consumer.last_run_error)
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

    async def _refused(self, run: Run) -> bool:
        """Ask the input guard about the turn's message; a refused one is marked and not sent."""
        assert self.guard is not None
        reason = await check_guard(self.guard, run.user_message["content"])
        if reason is None or run._stopped:
            return False
        self._mark_refused(run, reason)
        return True

    def _mark_refused(self, run: Run, reason: str) -> None:
        """The turn's message was refused: it is marked so (and never sent again), and the views told.
        All the turn opened with is marked (an A2UI action's call goes with its result)."""
        run.refused = reason
        ids = {message["id"] for message in run.opening_messages()}
        messages = self.messages
        first: int | None = None
        for index in range(len(messages) - 1, -1, -1):
            if not ids:
                break
            message = messages[index]
            if message.get("id") in ids:
                ids.discard(message["id"])
                if first is None:
                    messages = list(messages)
                messages[index] = {**message, "metadata": with_mark(message.get("metadata"), REFUSED, reason)}
                first = index
        if first is not None:
            self.messages = messages
            self.listener.session_messages(first)
        self.listener.session_notice("warning", f"Not sent: {reason}")
