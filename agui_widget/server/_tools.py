"""Tools the server runs: ``create_app(..., tools=[...])``.

The app offers these tools in every run's ``tools``, after the client's own. When the agent's run
ends with calls to them pending, the server runs them (as a notebook's kernel runs a Python tool:
``run_python_tool``, so a raise or a timeout is an answer the model reads), streams a
``TOOL_CALL_RESULT`` for each and runs the agent again with the results, all in the one response.
The client sees one run: the follow-up runs' own ``RUN_STARTED`` and ``RUN_FINISHED`` are folded
here, before the events reach the stream's pipeline, which holds the result to the usual framing
rules (:func:`~agui_widget.server._stream.served_chunks`). Calls to the client's own tools stay
pending for the client, as without server tools.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    Tool,
    ToolCallResultEvent,
)
from ag_ui.core.events import RunFinishedSuccessOutcome
from pydantic import ValidationError

from ..adapters import Agent
from ..inputs._tools import PythonTool, coerce_tools
from ..pipeline._consumer import EventConsumer
from ..vocabulary._ids import new_id

__all__ = ["DEFAULT_MAX_TOOL_ROUNDS", "TOOL_ROUNDS_CODE", "ServerTools", "server_tools"]

DEFAULT_MAX_TOOL_ROUNDS = 10
"""How many times one request runs the server's tools and asks the agent again, by default."""

TOOL_ROUNDS_CODE = "tool_rounds"
"""The ``RUN_ERROR`` code of a run stopped because the agent kept calling the server's tools."""


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
        if tool.approve:
            raise ValueError(
                f"create_app(tools=...): {tool.name!r} asks for approval before each call (approve=True), and "
                "nobody can approve a call on a server. Serve it without approve=True, or give it to the "
                "client (AgentChat(tools=[...])), whose user approves it."
            )
    return ServerTools(coerced, max_rounds) if coerced else None  # type: ignore[arg-type]


class ServerTools:
    """The tools an app runs itself, by name, and how many rounds of them one request may take."""

    def __init__(self, tools: Sequence[PythonTool], max_rounds: int) -> None:
        self.by_name: dict[str, PythonTool] = {tool.name: tool for tool in tools}
        self.specs: list[Tool] = [tool.to_agui() for tool in tools]
        self.max_rounds = max_rounds

    def clash(self, run_input: RunAgentInput) -> str | None:
        """Why the request cannot run: it offers a tool of its own under a name the server's tool has."""
        clashing = sorted({tool.name for tool in run_input.tools} & self.by_name.keys())
        if not clashing:
            return None
        names = ", ".join(repr(name) for name in clashing)
        return (
            f"The request offers a tool named {names}, which this server runs itself: the agent could not tell "
            "the two apart. Rename the client's tool (or leave it out)."
        )

    def offered(self, run_input: RunAgentInput) -> RunAgentInput:
        """``run_input`` with the server's tools after the client's own."""
        return run_input.model_copy(update={"tools": [*run_input.tools, *self.specs]})

    def rounds(self, agent: Agent, consumer: EventConsumer) -> ToolRounds:
        """``agent`` run again after each round of the server's tools, as one run (``consumer``: the
        stream's pipeline, read for the transcript, the state and the calls left pending)."""
        return ToolRounds(agent, self, consumer)


@dataclass
class _Call:
    id: str
    name: str | None
    args: str


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
        current = input
        usage: list[Any] = []
        for round_number in range(self.tools.max_rounds + 1):
            held: list[RunFinishedEvent] = []
            agent_round = self._round(current, held, fold_start=round_number > 0)
            async with contextlib.aclosing(agent_round):  # a round's stream is closed before the next starts
                async for event in agent_round:
                    yield event
            if not held:
                return  # the round failed or broke off: the pipeline frames it
            finished = held[0]
            usage.extend(finished.usage or ())
            ours, theirs = self._pending(finished)
            if not ours:
                yield _as_run(finished, input, usage, rewrite=round_number > 0)
                return
            if round_number == self.tools.max_rounds:
                for event in self._limit_reached(ours):
                    yield event
                return
            async for event in self._run_calls(ours):
                yield event
            if theirs:  # the client answers its own calls; their next request carries both results
                outcome = RunFinishedSuccessOutcome(type="success", pending_tool_call_ids=[call.id for call in theirs])
                yield _as_run(finished.model_copy(update={"outcome": outcome}), input, usage, rewrite=True)
                return
            current = self._follow_up(input)

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

    def _pending(self, finished: RunFinishedEvent) -> tuple[list[_Call], list[_Call]]:
        """The calls the round left without a result: the server's, then everyone else's."""
        outcome = finished.outcome
        if outcome is not None and outcome.type != "success":
            return [], []  # an interrupt or a cancelled run goes to the client as it is
        if outcome is not None and outcome.pending_tool_call_ids:
            ids = list(outcome.pending_tool_call_ids)
        else:
            ids = self.consumer.pending_tool_call_ids()  # the round's RUN_FINISHED is not consumed yet
        messages = self.consumer.messages
        answered = {m.get("toolCallId") for m in messages if m.get("role") == "tool"}
        calls = [_find_call(messages, call_id) for call_id in ids if call_id not in answered]
        ours = [call for call in calls if call.name in self.tools.by_name]
        return ours, [call for call in calls if call.name not in self.tools.by_name]

    async def _run_calls(self, calls: list[_Call]) -> AsyncIterator[BaseEvent]:
        """Each call run at once, its TOOL_CALL_RESULT sent as it finishes; unfinished ones are
        cancelled if the client leaves."""
        from ..inputs._python_tools import failed, run_python_tool

        async def answer(call: _Call) -> tuple[_Call, dict[str, Any]]:
            tool = self.tools.by_name[call.name or ""]
            try:
                return call, await run_python_tool(tool, call.args)
            except Exception as exc:  # a bug of ours: the call is still answered
                return call, failed(f"{type(exc).__name__}: {exc}")

        tasks = [asyncio.ensure_future(answer(call)) for call in calls]
        try:
            for next_done in asyncio.as_completed(tasks):
                call, message = await next_done
                yield _result(call.id, message)
        finally:
            for task in tasks:
                task.cancel()

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

    def _follow_up(self, input: RunAgentInput) -> RunAgentInput:
        """The next round's input: the transcript and state so far, a run id of its own under the
        client's run."""
        data = input.model_dump(mode="json", by_alias=True, exclude_none=True)
        data.update(
            runId=new_id("run"),
            parentRunId=input.run_id,
            messages=self.consumer.messages,
            state=self.consumer.state,
        )
        data.pop("resume", None)  # the client's answers went to the first round
        return self.consumer.outgoing_input(data)


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
    round's token usage (unchanged when the first round was the only one)."""
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


def _find_call(messages: list[dict[str, Any]], call_id: str) -> _Call:
    for message in reversed(messages):
        for call in message.get("toolCalls") or ():
            if call.get("id") == call_id:
                function = call.get("function") or {}
                return _Call(call_id, function.get("name"), function.get("arguments") or "")
    return _Call(call_id, None, "")
