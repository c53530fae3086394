"""A Langroid ``Task`` as an AG-UI run: Langroid's own loop (``Task.run_async``), observed.

The task runs as Langroid runs it: its responders (agent, model, user, sub-tasks) take their turns,
and Langroid decides who answers, where a message goes (``TO[name]:``, recipient tools, ``PASS``,
``SEND_TO``) and when the task is done (``DONE``, done tools, ``done_if_tool``,
``done_if_response``, ``done_sequences``, ``single_round``, turns, a stalled loop). For one AG-UI
run the adapter only *observes* that loop, by wrapping, on each task of the tree and for the run
only:

* the model responder of each task: Langroid's streaming callback hands over every token (text,
  reasoning, tool arguments) as it arrives; the finished response gives the tool calls, with ids;
* ``handle_tool_message_async`` of each agent: a tool call's result, live, with ``tool_context()``
  and the state hooks, as for a single agent;
* the user responder: in a chat the user answers in the next run, so when Langroid would ask the
  user (an interactive task, or a message addressed to the user) the run ends there;
* ``run_async`` of each sub-task: ``SUBAGENT_STARTED`` / ``SUBAGENT_FINISHED`` (or
  ``SUBAGENT_ERROR``) around it, and every event of its agents carries its ``subagentRunId``.
* with a ``state_context_builder``, the main agent's ``llm_response_messages_async``: the model
  gets the current state in the latest user message it is sent.

Everything wrapped is put back when the run ends, however it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentFinishedSuccessOutcome,
    SubagentFinishedSuspendedOutcome,
    SubagentStartedEvent,
)
from langroid.agent.chat_agent import ChatAgent
from langroid.agent.chat_document import ChatDocument
from langroid.agent.task import Task
from langroid.agent.tool_message import ToolMessage
from langroid.language_models.base import Role, StreamEventType
from langroid.mytypes import Entity
from langroid.utils.object_registry import ObjectRegistry

from .._base import EventStream, new_id
from . import _quiet
from ._agents import check_ready, lock_for, tasks_of
from ._calls import NO_RESULT, Call, has_done_tool, result_text
from ._driver import AgentDriver, Step
from ._frontend import AgentSetup
from ._history import transcript_of
from ._lanes import LaneOutbox, current_lane, in_lane, tag
from ._patches import Patches
from ._run_context import DONE, RunContext, RunOptions

log = logging.getLogger("agui_widget")
_TASK_LOG = logging.getLogger("langroid.agent.task")

NOT_RUN = "(not run: the task ended before this tool call was handled)"


class StallNotice(logging.Filter):
    """Langroid warns when a task stops because nobody had anything to add ("stuck"); in a chat
    that is how a task without a done signal ends its turn, so the warning would print into the
    notebook on every turn. It goes to this package's debug log instead."""

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.prefixes = tuple(f"Task {name} stuck for" for name in names)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith(self.prefixes):
            log.debug("agui-widget: %s", record.getMessage())
            return False
        return True


class Stop(Exception):
    """Ends Langroid's loop from inside: the user is to answer, or a frontend tool call waits."""


@dataclass
class OpenCall:
    """A tool call the model made that has no result yet."""

    call: Call
    agent: ChatAgent
    lane: str | None


async def run(options: RunOptions, task: Task, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Any, None]:
    """The run's events, once the task is free (runs on one task take turns). Closing it closes the
    run at once, so the task is put back before another run can take it."""
    async with lock_for(task), contextlib.aclosing(TaskRun(options, task, input, stream).events()) as events:
        async for emitted in events:
            yield emitted


class TaskRun:
    """One run of a task tree (see the module's docstring)."""

    def __init__(self, options: RunOptions, task: Task, input: RunAgentInput, stream: EventStream) -> None:
        self.options = options
        self.task = task
        self.input = input
        self.stream = stream
        self.tasks = tasks_of(task)
        self.outbox: asyncio.Queue[Any] = LaneOutbox()
        self.run_context = RunContext(options, input, stream, self.outbox)
        self.main = AgentDriver(self.run_context, task.agent)
        self.drivers: dict[int, AgentDriver] = {id(task.agent): self.main}
        for t in self.tasks[1:]:
            if id(t.agent) not in self.drivers:
                self.drivers[id(t.agent)] = AgentDriver(self.run_context, t.agent)
        self.open: OrderedDict[str, OpenCall] = OrderedDict()
        self.waiting: list[str] = []  # frontend tool calls the client is to answer
        self.model_calls = 0
        self.last_text: dict[str | None, str] = {}  # per lane, the latest assistant text
        self.last_message: dict[str | None, str] = {}  # per lane, the id of the latest assistant message

    # -- plumbing --------------------------------------------------------------------------

    def _emit(self, events: Sequence[BaseEvent]) -> None:
        if events:
            self.outbox.put_nowait(list(events))  # a list: the outbox tags a sub-task's lists

    # -- the run ---------------------------------------------------------------------------

    async def events(self) -> AsyncGenerator[Any, None]:
        task, agent = self.task, self.task.agent
        for t in self.tasks:
            check_ready(t.agent)
        setup = AgentSetup(agent)
        patches = Patches()
        trigger: ChatDocument | None = None
        stall_notice = StallNotice([t.name for t in self.tasks])
        _TASK_LOG.addFilter(stall_notice)
        _quiet.acquire()
        try:
            setup.apply(self.input)
            self.main.frontend = setup.frontend
            for t in self.tasks:
                self._observe(t, patches)
            for sub in task.sub_tasks:
                sub.reset_all_sub_tasks()  # sub-agents start from nothing, as in Langroid's own runs
            trigger = self.main.history(transcript_of(self.input), with_state=False)
            if self.options.state_context_builder is not None:
                patches.set(agent, "llm_response_messages_async", self._with_state(agent.llm_response_messages_async))
            patches.set(task, "human_tried", True)  # the user has just spoken: the chat's turn
            runner = asyncio.ensure_future(self._run_task())
            runner.add_done_callback(lambda _: self.outbox.put_nowait(DONE))
            try:
                while True:
                    item = await self.outbox.get()
                    if item is DONE:
                        break
                    if item:
                        yield item
                result = runner.result()
            finally:
                if not runner.done():  # stopped: Langroid's loop ends before its patches are undone
                    runner.cancel()
                    with contextlib.suppress(BaseException):
                        await asyncio.wait({runner}, timeout=2)
            rest = self.run_context.drain()
            if rest:
                yield rest
            yield self._unanswered_results()
            if result is not None:
                yield self._final_answer(result)
        finally:
            patches.restore()
            setup.undo()
            _quiet.release()
            if trigger is not None:
                ObjectRegistry.remove(trigger.id())
            _forget_documents(self.tasks)
            _TASK_LOG.removeFilter(stall_notice)

    async def _run_task(self) -> ChatDocument | None:
        try:
            result = await self.task.run_async(None, allow_restart=False)
        except Stop:
            return None
        return result if isinstance(result, ChatDocument) else None

    def _unanswered_results(self) -> list[BaseEvent]:
        """Backend calls the task never ran (it ended first) get a result saying so: the transcript
        stays well formed, and only frontend calls are left for the client."""
        events: list[BaseEvent] = []
        for call_id, entry in list(self.open.items()):
            if entry.call.frontend:
                continue
            del self.open[call_id]
            events += [tag(event, entry.lane) for event in self.stream.tool_result(call_id, NOT_RUN)]
        return events

    def _final_answer(self, result: ChatDocument) -> list[BaseEvent]:
        """The task's result, when it is not what the main agent's model last said (a done tool's
        content, a handler's answer): it is the answer, so it is shown as one."""
        try:
            text = result_text(result)
            if not text or text in self.last_text.get(None, ""):
                return []
            events = self.stream.text(text, message_id=new_id("msg")) + self.stream.end_text()
            self.last_text[None] = text
            return events
        finally:
            ObjectRegistry.remove(result.id())

    # -- observing a task ------------------------------------------------------------------

    def _observe(self, task: Task, patches: Patches) -> None:
        agent = task.agent
        driver = self.drivers[id(agent)]
        patches.set(task.config, "enable_loggers", False)  # Langroid's loggers write files into the cwd
        patches.set(task.config, "enable_html_logging", False)
        responders = task._entity_responder_async_map
        if Entity.LLM in responders:
            patches.item(responders, Entity.LLM, self._model_responder(task, driver, responders[Entity.LLM]))
        if Entity.AGENT in responders:
            patches.item(responders, Entity.AGENT, self._agent_responder(agent, responders[Entity.AGENT]))
        if Entity.USER in responders:
            patches.item(responders, Entity.USER, self._user_responder())
        if "handle_tool_message_async" not in agent.__dict__:
            patches.set(agent, "handle_tool_message_async", self._tool_handler(agent, driver))
        if task is not self.task:
            patches.set(task, "run_async", self._sub_task_runner(task, task.run_async))

    def _model_responder(self, task: Task, driver: AgentDriver, original: Callable[..., Any]) -> Callable[..., Any]:
        agent = task.agent

        async def respond(msg: Any = None) -> ChatDocument | None:
            self.model_calls += 1
            if self.model_calls > self.options.max_turns:
                raise RuntimeError(
                    f"the task called its models {self.options.max_turns} times in one run; stopped to avoid a "
                    "loop (LangroidAgent(max_turns=...) allows more)"
                )
            lane = current_lane()
            step = Step()
            content_tools = driver.content_tools
            screen = driver.text_screen(driver.screens_text)

            async def streamer(token: Any = "", event_type: Any = StreamEventType.TEXT, *a: Any, **k: Any) -> None:
                self._emit(await driver.on_token(step, screen, event_type, token))

            async def start_stream(*a: Any, **k: Any) -> Callable[..., Any]:
                return streamer

            saved = agent.callbacks.start_llm_stream_async
            agent.callbacks.start_llm_stream_async = start_stream
            try:
                response = await _quiet.muted(original(msg))
            finally:
                agent.callbacks.start_llm_stream_async = saved
            if response is None:
                return None
            self._emit(driver.after_call(step, screen, response))
            text = "".join(step.text)
            if text:
                self.last_text[lane] = text
                self.last_message[lane] = step.message_id
            calls = driver.calls(response, content_tools)
            for call in calls:
                self._emit(call.events(self.stream, step.message_id))
                self.open[call.id] = OpenCall(call, agent, lane)
                await self.run_context.state_from_args(call.name, call.args, call.args_text, call.id, call.tool, partial=False)
            return response

        return respond

    def _with_state(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """The main agent's model calls see the current state: ``state_context_builder`` rewrites
        the latest user message of what is sent (Langroid's history keeps the message as it was)."""
        builder = self.options.state_context_builder
        assert builder is not None

        async def call(messages: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(messages, list):
                messages = list(messages)
                for index in range(len(messages) - 1, -1, -1):
                    message = messages[index]
                    if message.role == Role.USER:
                        content = builder(self.run_context.input_now(), message.content or "")
                        messages[index] = message.model_copy(update={"content": content})
                        break
            return await original(messages, *args, **kwargs)

        return call

    def _agent_responder(self, agent: ChatAgent, original: Callable[..., Any]) -> Callable[..., Any]:
        async def respond(msg: Any = None) -> ChatDocument | None:
            result = await original(msg)
            if self.waiting:
                raise Stop("a frontend tool call waits for the client")
            if result is not None:
                # Calls Langroid answered as a whole (bad arguments, an unknown tool, one tool at a
                # time): its answer is each one's result.
                text = result_text(result) or NO_RESULT
                for call_id, entry in list(self.open.items()):
                    if entry.agent is agent and not entry.call.frontend and entry.lane == current_lane():
                        del self.open[call_id]
                        self._emit(self.stream.tool_result(call_id, text))
            return result

        return respond

    def _user_responder(self) -> Callable[..., Any]:
        async def respond(msg: Any = None) -> ChatDocument | None:
            raise Stop("the user is to answer")

        return respond

    # -- tools -----------------------------------------------------------------------------

    def _match(self, agent: ChatAgent, tool: ToolMessage) -> OpenCall | None:
        """The open call a tool message Langroid is about to handle came from."""
        name = tool.default_value("request")
        tool_id = getattr(tool, "id", "") or ""
        if tool_id and tool_id in self.open:
            return self.open.pop(tool_id)
        for call_id, entry in self.open.items():
            if entry.agent is agent and entry.call.name == name:
                return self.open.pop(call_id)
        return None

    def _tool_handler(self, agent: ChatAgent, driver: AgentDriver) -> Callable[..., Any]:
        original = agent.handle_tool_message_async

        async def handle(tool: ToolMessage, chat_doc: ChatDocument | None = None) -> Any:
            entry = self._match(agent, tool)
            if entry is None:  # not a call the model made in this run (e.g. relayed by a sub-task)
                return await original(tool, chat_doc=chat_doc)
            call = entry.call
            if call.frontend:
                self.open[call.id] = entry
                self.waiting.append(call.id)
                return None
            result, handled = await driver.invoke(call, tool, chat_doc, original)
            text = result_text(result) if result is not None else NO_RESULT
            answer = result if isinstance(result, ChatDocument) and not has_done_tool(result) else None
            if answer is not None and not text:
                text = NO_RESULT
            shown = driver.result_event(call, tool, answer.content_any if answer is not None else None, text, handled)
            if shown.metadata:  # shown as a bundle: Langroid would hand ``str(obj)`` on to the model
                assert isinstance(shown.content, str)  # EventStream.tool_result writes text
                text = result.content = shown.content
            self._emit([shown])
            if handled:
                value = result.content_any if isinstance(result, ChatDocument) else result
                await self.run_context.state_from_result(call, value, text, shown.message_id)
            return result

        return handle

    # -- sub-tasks -------------------------------------------------------------------------

    def _sub_task_runner(self, task: Task, original: Callable[..., Any]) -> Callable[..., Any]:
        async def run_async(msg: Any = None, *args: Any, **kwargs: Any) -> Any:
            parent = current_lane()
            name = task.name or task.agent.config.name or "task"
            lane = f"{parent}/{_slug(name)}-{uuid.uuid4().hex[:8]}" if parent else f"{_slug(name)}-{uuid.uuid4().hex[:8]}"
            answering = self._calls_answered_by(msg, parent)
            description = getattr(task.agent.config, "system_message", "") or None
            with in_lane(None):  # the lifecycle events themselves are the parent's
                self._emit(self._close_lane())
                self._emit(
                    [
                        SubagentStartedEvent(
                            subagent_run_id=lane,
                            name=name,
                            description=_first_line(description),
                            parent_subagent_run_id=parent,
                            parent_tool_call_id=answering[0] if answering else None,
                            parent_message_id=None if answering else self.last_message.get(parent),
                        )
                    ]
                )
            try:
                with in_lane(lane):
                    result = await original(msg, *args, **kwargs)
                    self._emit(self._close_lane())
                    text = result_text(result) if isinstance(result, ChatDocument) else ""
                    if text and text not in self.last_text.get(lane, ""):
                        # The sub-task's result is not what its model last said (a done tool's
                        # content, a handler's answer): shown, so the chat and the history have it.
                        self._emit(self.stream.text(text, message_id=new_id("msg")) + self.stream.end_text())
                        self.last_text[lane] = text
            except Stop:
                with in_lane(lane):
                    self._emit(self._close_lane())
                self._emit([SubagentFinishedEvent(subagent_run_id=lane, outcome=SubagentFinishedSuspendedOutcome())])
                raise
            except BaseException as error:
                with in_lane(lane):
                    self._emit(self._close_lane())
                self._emit([SubagentErrorEvent(subagent_run_id=lane, message=f"{type(error).__name__}: {error}")])
                raise
            self._emit(
                [
                    SubagentFinishedEvent(
                        subagent_run_id=lane,
                        result=text or None,
                        outcome=SubagentFinishedSuccessOutcome(),
                    )
                ]
            )
            for call_id in answering:  # the sub-task handled the parent's tool call: its result is the call's
                entry = self.open.pop(call_id, None)
                if entry is not None:
                    with in_lane(entry.lane):
                        self._emit(self.stream.tool_result(call_id, text or NO_RESULT))
            return result

        return run_async

    def _calls_answered_by(self, msg: Any, lane: str | None) -> list[str]:
        """The parent's open tool calls the message given to a sub-task carries (it handles them)."""
        if not isinstance(msg, ChatDocument):
            return []
        ids = [c.id for c in msg.oai_tool_calls or () if c.id]
        ids = [i for i in ids if i in self.open and not self.open[i].call.frontend]
        if ids:
            return ids
        names = {t.default_value("request") for t in msg.tool_messages or ()}
        if msg.function_call is not None:
            names.add(msg.function_call.name)
        return [
            call_id
            for call_id, entry in self.open.items()
            if entry.lane == lane and entry.call.name in names and not entry.call.frontend
        ][:1]

    def _close_lane(self) -> list[BaseEvent]:
        return self.stream.end_text() + self.stream.end_reasoning()


def _forget_documents(tasks: list[Task]) -> None:
    """Let go of the run's messages in Langroid's object registry (which keeps every ChatDocument
    until told otherwise): the next run starts from the transcript, not from them."""
    for task in tasks:
        for message in task.agent.message_history:
            if message.chat_document_id:
                ChatDocument.delete_id(message.chat_document_id)


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name) or "task"


def _first_line(text: str | None) -> str | None:
    if not text:
        return None
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:200] or None
