"""Tools the server runs: ``create_app(..., tools=[...])``.

The app offers these tools in every run's ``tools``, after the client's own. When the agent's run
ends with calls to them pending, the server runs them (as a notebook's kernel runs a Python tool:
``run_python_tool``, so a raise or a timeout is an answer the model reads), streams a
``TOOL_CALL_RESULT`` for each and runs the agent again with the results, all in the one response.
The client sees one run: the follow-up runs' own ``RUN_STARTED`` and ``RUN_FINISHED`` are folded
here, before the events reach the stream's pipeline, which holds the result to the usual framing
rules (:func:`~agui_widget.server._stream.served_chunks`). Calls to the client's own tools stay
pending for the client, as without server tools.

A tool made with ``approve=True`` asks the client first, with an AG-UI interrupt: the run finishes
with an ``interrupt`` outcome naming the call (``toolCallId``), and the client's next request
answers it in ``resume`` (``{"approved": bool}``, what a chat's approval card sends). The server
keeps nothing between the two requests: the call is in the transcript the client sends back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    Interrupt,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    Tool,
    ToolCallResultEvent,
)
from ag_ui.core.events import RunFinishedInterruptOutcome, RunFinishedSuccessOutcome
from ag_ui.core.version import PROTOCOL_VERSION
from fastapi import FastAPI
from pydantic import ValidationError

from ..adapters import Agent
from ..inputs._live_context import LiveContext, read_context
from ..inputs._tools import PythonTool, coerce_tools
from ..pipeline._consumer import EventConsumer
from ..vocabulary._content import to_json_text
from ..vocabulary._ids import new_id

log = logging.getLogger("agui_widget")

__all__ = ["APPROVAL_REASON", "DEFAULT_MAX_TOOL_ROUNDS", "TOOL_ROUNDS_CODE", "ServerTools", "ToolRounds", "server_tools"]

DEFAULT_MAX_TOOL_ROUNDS = 10
"""How many times one request runs the server's tools and asks the agent again, by default."""

TOOL_ROUNDS_CODE = "tool_rounds"
"""The ``RUN_ERROR`` code of a run stopped because the agent kept calling the server's tools."""

Lifespan = Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]

APPROVAL_REASON = "approval"
"""The ``reason`` of the interrupt asking to approve a call (as the LangChain adapter's)."""

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean", "description": "Run the call (true) or not (false)."}},
    "required": ["approved"],
}

MOVED_ON = "The user sent a new message instead of answering; the function did not run."
"""The answer to a call that asked for approval when the client's next request did not say."""


def server_tools(tools: Iterable[Any] | None, max_rounds: int) -> ServerTools | None:
    """``create_app``'s ``tools``, checked: only what a server can run (None when there are none)."""
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise ValueError(f"max_tool_rounds must be a positive number of rounds, not {max_rounds!r}")
    if tools is None:
        return None
    if isinstance(tools, (str, Mapping)) or not isinstance(tools, Iterable):
        raise TypeError(f"create_app(tools=...) takes a list of functions or python_tool()s, not {type(tools).__name__}")
    coerced = coerce_tools(list(tools))
    for tool in coerced:
        if not isinstance(tool, PythonTool):
            raise TypeError(
                f"create_app(tools=...): {tool.name!r} is a tool a chat's page answers (ui={tool.ui!r}); a server "
                "has no page to answer it. Give it to the client instead (AgentChat(tools=[...])); a server "
                "runs Python functions, python_tool()s and mcp_tools()."
            )
    return ServerTools(coerced, max_rounds) if coerced else None  # type: ignore[arg-type]


class ServerTools:
    """The tools an app runs itself, by name, and how many rounds of them one request may take."""

    def __init__(self, tools: Sequence[PythonTool], max_rounds: int) -> None:
        self.by_name: dict[str, PythonTool] = {tool.name: tool for tool in tools}
        self.specs: list[Tool] = [tool.to_agui() for tool in tools]
        self.max_rounds = max_rounds
        self.asks = any(tool.approve for tool in tools)
        """Whether any of them asks for approval (else a request has no answers to look for)."""
        self.context: list[LiveContext] = list(
            {id(entry): entry for tool in tools for entry in getattr(tool, "context", ())}.values()
        )
        """The context entries the tools bring (an MCP server's resources), read at each run's start."""
        for tool in tools:
            hold = getattr(tool, "hold", None)  # an MCP server's tool: its server runs while the app does
            if callable(hold):
                hold(self)

    def release(self) -> None:
        """The app shut down: the MCP servers its tools come from stop unless a chat still uses them."""
        for tool in self.by_name.values():
            release = getattr(tool, "release", None)
            if callable(release):
                release(self)

    def lifespan(self, inner: Lifespan) -> Lifespan:
        """The app's lifespan ``inner``, then the tools' servers released at shutdown."""

        @contextlib.asynccontextmanager
        async def with_tools(app: FastAPI) -> AsyncIterator[None]:
            try:
                async with inner(app):
                    yield
            finally:
                self.release()

        return with_tools

    def clash(self, run_input: RunAgentInput) -> str | None:
        """Why the request cannot run: it offers a tool of its own under a name the server's tool has."""
        clashing = sorted({tool.name for tool in run_input.tools or ()} & self.by_name.keys())
        if not clashing:
            return None
        names = ", ".join(repr(name) for name in clashing)
        return (
            f"The request offers a tool named {names}, which this server runs itself: the agent could not tell "
            "the two apart. Rename the client's tool (or leave it out)."
        )

    async def offered(self, run_input: RunAgentInput) -> RunAgentInput:
        """``run_input`` with the server's tools after the client's own, and the context they bring
        (an MCP server's resources, ``mcp_tools(resources=True)``) read now, after the client's."""
        update: dict[str, Any] = {"tools": [*(run_input.tools or ()), *self.specs]}
        if self.context:
            read = await asyncio.to_thread(read_context, self.context, _log_notice)
            update["context"] = [*(run_input.context or ()), *(entry for entry in read if entry is not None)]
        return run_input.model_copy(update=update)

    def rounds(self, agent: Agent, consumer: EventConsumer) -> ToolRounds:
        """``agent`` run again after each round of the server's tools, as one run (``consumer``: the
        stream's pipeline, read for the transcript, the state and the calls left pending)."""
        return ToolRounds(agent, self, consumer)


@dataclass
class _Call:
    id: str
    name: str | None
    args: str


@dataclass
class _Pending:
    """Calls without a result, sorted: the server runs ``run``, asks about ``ask``, answers
    ``answers`` as they are, and leaves ``theirs`` to the client."""

    run: list[_Call] = field(default_factory=list)
    ask: list[_Call] = field(default_factory=list)
    answers: list[tuple[_Call, dict[str, Any]]] = field(default_factory=list)
    theirs: list[_Call] = field(default_factory=list)


class ToolRounds:
    """An agent whose runs go on while they end with calls to the server's tools; one run to the client.

    It sits between the agent and the stream's pipeline, and reads that pipeline
    (``consumer``) when a round ends: every event it yields has been consumed by the time the next
    is asked for, so the transcript and state there are the round's.
    """

    def __init__(self, agent: Agent, tools: ServerTools, consumer: EventConsumer) -> None:
        self.agent = agent
        self.tools = tools
        self.consumer = consumer

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        """The client's run: first the answers its request brings to calls that asked for approval,
        then the agent's rounds."""
        opening, resume = self._opening(input)
        if not (opening.run or opening.ask or opening.answers):
            async for event in self._rounds(input, input, started=False):
                yield event
            return
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id, protocol_version=PROTOCOL_VERSION)
        async for event in self._answer(opening):
            yield event
        if opening.ask:
            yield self._asking(input, opening.ask)
            return
        async for event in self._rounds(input, self._next_input(input, input.run_id, resume), started=True):
            yield event

    async def _rounds(self, input: RunAgentInput, current: RunAgentInput, *, started: bool) -> AsyncIterator[BaseEvent]:
        """The agent's runs, each after the server's tools answered the last one's calls."""
        usage: list[Any] = []
        for round_number in range(self.tools.max_rounds + 1):
            held: list[RunFinishedEvent] = []
            agent_round = self._round(current, held, fold_start=started or round_number > 0)
            async with contextlib.aclosing(agent_round):  # a round's stream is closed before the next starts
                async for event in agent_round:
                    yield event
            if not held:
                return  # the round failed or broke off: the pipeline frames it
            finished = held[0]
            usage.extend(finished.usage or ())
            pending = self._pending(finished)
            if not (pending.run or pending.ask):
                yield _as_run(finished, input, usage, rewrite=started or round_number > 0)
                return
            if round_number == self.tools.max_rounds:
                for event in self._limit_reached([*pending.run, *pending.ask]):
                    yield event
                return
            async for event in self._answer(pending):
                yield event
            if pending.theirs:  # the client answers its own calls; the server asks about its own after
                outcome = RunFinishedSuccessOutcome(type="success", pending_tool_call_ids=[c.id for c in pending.theirs])
                yield _as_run(finished.model_copy(update={"outcome": outcome}), input, usage, rewrite=True)
                return
            if pending.ask:
                yield self._asking(input, pending.ask, usage)
                return
            current = self._next_input(input, new_id("run"), None)

    async def _round(
        self, run_input: RunAgentInput, held: list[RunFinishedEvent], *, fold_start: bool
    ) -> AsyncGenerator[Any, None]:
        """One run of the agent: its events, but its RUN_FINISHED held back in ``held`` (and its
        RUN_STARTED left out when ``fold_start``: the client's run started already)."""
        stream = self.agent.run(run_input)
        try:
            async for event in stream:
                kind = _type_of(event)
                if kind == EventType.RUN_STARTED and fold_start:
                    continue
                if kind == EventType.RUN_FINISHED:
                    finished = _finished(event)
                    if finished is not None:
                        held.append(finished)
                        return
                yield event
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    def _opening(self, input: RunAgentInput) -> tuple[_Pending, list[ResumeEntry]]:
        """What the request answers before the agent runs: calls to the server's tools that asked
        for approval, by the resume entries naming them; and the resume entries left for the agent."""
        from ..inputs._python_tools import DENIED

        if not self.tools.asks:
            return _Pending(), list(input.resume or ())
        entries = {entry.interrupt_id: entry for entry in input.resume or ()}
        messages = self.consumer.messages
        opening = _Pending()
        moved_on = bool(messages) and messages[-1].get("role") == "user"
        for call in _open_calls(messages):
            tool = self.tools.by_name.get(call.name or "")
            if tool is None or not tool.approve:
                continue  # a call the server does not ask about is not the server's to answer now
            entry = entries.pop(_approval_id(call.id), None)
            if entry is not None:
                if _approved(entry):
                    opening.run.append(call)
                else:
                    opening.answers.append((call, {"content": to_json_text(DENIED)}))
            elif moved_on:
                opening.answers.append((call, {"content": to_json_text({"approved": False, "reason": MOVED_ON})}))
            else:
                opening.ask.append(call)
        return opening, list(entries.values())

    def _pending(self, finished: RunFinishedEvent) -> _Pending:
        """The calls the round left without a result, sorted into the server's and the client's."""
        outcome = finished.outcome
        if outcome is not None and outcome.type != "success":
            return _Pending()  # an interrupt or a cancelled run goes to the client as it is
        if outcome is not None and outcome.pending_tool_call_ids:
            ids = set(outcome.pending_tool_call_ids)
        else:
            ids = set(self.consumer.pending_tool_call_ids())  # the round's RUN_FINISHED is not consumed yet
        pending = _Pending()
        for call in _open_calls(self.consumer.messages):
            if call.id not in ids:
                continue
            tool = self.tools.by_name.get(call.name or "")
            (pending.theirs if tool is None else pending.ask if tool.approve else pending.run).append(call)
        return pending

    async def _answer(self, pending: _Pending) -> AsyncIterator[BaseEvent]:
        """The answers given as they are, then each call run at once, its TOOL_CALL_RESULT sent as
        it finishes; unfinished ones are cancelled if the client leaves."""
        from ..inputs._python_tools import failed, run_python_tool

        for call, message in pending.answers:
            yield _result(call.id, message)

        async def answer(call: _Call) -> tuple[_Call, dict[str, Any]]:
            tool = self.tools.by_name[call.name or ""]
            try:
                return call, await run_python_tool(tool, call.args)
            except Exception as exc:  # a bug of ours: the call is still answered
                return call, failed(f"{type(exc).__name__}: {exc}")

        tasks = [asyncio.ensure_future(answer(call)) for call in pending.run]
        try:
            for next_done in asyncio.as_completed(tasks):
                call, message = await next_done
                yield _result(call.id, message)
        finally:
            for task in tasks:
                task.cancel()

    def _asking(self, input: RunAgentInput, calls: list[_Call], usage: list[Any] | None = None) -> RunFinishedEvent:
        """The end of a run that asks the client to approve ``calls``: one interrupt each."""
        interrupts = [
            Interrupt(
                id=_approval_id(call.id),
                reason=APPROVAL_REASON,
                message=f"Run {call.name} with {call.args or '{}'}?",
                tool_call_id=call.id,
                response_schema=APPROVAL_SCHEMA,
            )
            for call in calls
        ]
        return RunFinishedEvent(
            thread_id=input.thread_id,
            run_id=input.run_id,
            outcome=RunFinishedInterruptOutcome(type="interrupt", interrupts=interrupts),
            usage=usage or None,
        )

    def _limit_reached(self, calls: list[_Call]) -> list[BaseEvent]:
        """The end of a run that asked for the server's tools once too often: the calls answered as
        not run (so the transcript holds no dangling call), then a RUN_ERROR the user reads."""
        from ..inputs._python_tools import failed

        limit = self.tools.max_rounds
        note = f"not run: this request reached the server's limit of {limit} rounds of tool calls"
        events: list[BaseEvent] = [_result(call.id, failed(note)) for call in calls]
        message = (
            f"The agent called the server's tools {limit} times in a row without answering, so the run was "
            "stopped. Ask again (perhaps more precisely); the server's limit is create_app(max_tool_rounds=...)."
        )
        events.append(RunErrorEvent(message=message, code=TOOL_ROUNDS_CODE))
        return events

    def _next_input(self, input: RunAgentInput, run_id: str, resume: list[ResumeEntry] | None) -> RunAgentInput:
        """The next round's input: the transcript and state so far; a follow-up has a run id of its
        own under the client's run."""
        data = input.model_dump(mode="json", by_alias=True, exclude_none=True)
        data.update(runId=run_id, messages=self.consumer.messages, state=self.consumer.state)
        if run_id != input.run_id:
            data["parentRunId"] = input.run_id
        data.pop("resume", None)
        if resume:
            data["resume"] = [entry.model_dump(mode="json", by_alias=True, exclude_none=True) for entry in resume]
        return self.consumer.outgoing_input(data)


def _log_notice(level: str, text: str) -> None:
    """What reading the tools' context has to say (a resource that could not be read), for the log."""
    log.log(logging.WARNING if level != "info" else logging.INFO, "agui-widget: %s", text)


def _approval_id(call_id: str) -> str:
    return f"approval-{call_id}"


def _approved(entry: ResumeEntry) -> bool:
    """A resume entry approving a call: resolved, with ``{"approved": true}`` (or ``true``)."""
    from ..inputs._python_tools import approval_of

    if entry.status != "resolved":
        return False
    try:
        return approval_of(entry.payload)
    except ValueError:
        return False


def _type_of(event: Any) -> Any:
    return event.get("type") if isinstance(event, Mapping) else getattr(event, "type", None)


def _finished(event: Any) -> RunFinishedEvent | None:
    """A RUN_FINISHED as a typed event (None when malformed: the pipeline says what is wrong)."""
    if isinstance(event, RunFinishedEvent):
        return event
    try:
        return RunFinishedEvent.model_validate(event)
    except ValidationError:
        return None


def _as_run(finished: RunFinishedEvent, input: RunAgentInput, usage: list[Any], *, rewrite: bool) -> RunFinishedEvent:
    """The RUN_FINISHED the client gets: the last round's, as the client's own run, with every
    round's token usage (unchanged when the agent's first run was the only one)."""
    if not rewrite:
        return finished
    return finished.model_copy(update={"thread_id": input.thread_id, "run_id": input.run_id, "usage": usage or None})


def _result(call_id: str, message: dict[str, Any]) -> ToolCallResultEvent:
    return ToolCallResultEvent(
        message_id=new_id("tool"),
        tool_call_id=call_id,
        content=message["content"],
        role="tool",
        metadata=message.get("metadata"),
    )


def _open_calls(messages: list[dict[str, Any]]) -> list[_Call]:
    """The tool calls in ``messages`` that no tool message answers, in order."""
    answered = {message.get("toolCallId") for message in messages if message.get("role") == "tool"}
    calls: list[_Call] = []
    for message in messages:
        for call in message.get("toolCalls") or ():
            if call.get("id") not in answered:
                function = call.get("function") or {}
                calls.append(_Call(call.get("id"), function.get("name"), function.get("arguments") or ""))
    return calls
