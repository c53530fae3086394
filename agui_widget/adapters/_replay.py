"""Playing a recording back as an agent: no model, no key, no network (docs/recordings.md).

A teacher records a session with a real model once (``AgentChat(record=path)`` or
``chat.save_recording(path)``); ``AgentChat(ReplayAgent(path))`` then answers each user message
with the recorded turn, streaming its events with their recorded timing. Frontend tools and
interrupts wait for an answer as they did live; the run after the answer is the recorded one.

Events are replayed as recorded but for their ids: the thread and run are the live ones, and every
message, tool call and interrupt id gets a fresh id (the same one each time it is mentioned), so
a recording can be replayed any number of times in one chat.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any, Literal

from ag_ui.core import BaseEvent, EventType, RunAgentInput, RunErrorEvent, RunStartedEvent
from pydantic import BaseModel, ConfigDict, create_model

from ..inputs._tools import FrontendTool, PythonTool, coerce_tools
from ..pipeline._recording import Recording, read_recording, user_count, user_text
from ..vocabulary._ids import new_id

MISMATCH = "replay_mismatch"
"""The RUN_ERROR code of a message the recording has no turn for."""

_KEEP = frozenset({"threadId", "runId"})
_PROMPTS_LISTED = 8


def _normalized(text: str) -> str:
    return " ".join(text.casefold().split())


def _clip(text: str, limit: int = 60) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


class ReplayAgent:
    """An agent that plays a recording back.

    ``recording``: a path, an open file, or a :class:`Recording`. ``match``: ``"order"`` (the
    default) answers the n-th user message of the conversation with the recording's n-th turn,
    whatever it says; ``"text"`` finds the turn whose user message has the same text (case and
    spacing aside). ``speed``: 1 plays at the recorded pace, 2 twice as fast, None at once.
    """

    def __init__(
        self,
        recording: str | os.PathLike[str] | Recording | Any,
        *,
        match: Literal["order", "text"] = "order",
        speed: float | None = 1.0,
    ) -> None:
        if match not in ("order", "text"):
            raise ValueError(f"match must be 'order' or 'text', not {match!r}")
        if speed is not None and (isinstance(speed, bool) or not isinstance(speed, (int, float)) or not speed > 0):
            raise ValueError(f"speed must be a positive number (or None to play at once), not {speed!r}")
        self.recording = recording if isinstance(recording, Recording) else read_recording(recording)
        self.match = match
        self.speed = speed
        self.name = "replay"
        runs = self.recording.runs
        self._turns = [index for index, run in enumerate(runs) if not run.is_continuation]
        self._played: dict[str, int] = {}
        """thread id -> the index of the recorded run played last in it"""
        self._ids: dict[tuple[str, str], str] = {}
        """(thread id, recorded id) -> the live id that stands for it"""
        self._kernel_answers: dict[str, deque[Any]] = {}
        """A Python tool's name -> the recorded results of its calls, in the order they come."""

    # -- what a chat reads ----------------------------------------------------------------------

    @property
    def prompts(self) -> list[str]:
        """The user messages the recording answers, in order (e.g. for suggestions)."""
        return [user_text(self.recording.runs[index].input) for index in self._turns]

    @property
    def frontend_tools(self) -> list[FrontendTool]:
        """The recorded chat's notebook tools, so a replaying chat offers the same cards: the
        browser and user tools as they were, and Python tools answered with their recorded results."""
        tools: list[FrontendTool] = []
        for spec in self.recording.tools:
            name = spec.get("name")
            if not isinstance(name, str) or not name:
                continue
            if spec.get("ui") == "kernel":
                tools.append(self._recorded_python_tool(spec))
                continue
            try:
                tools.extend(
                    coerce_tools(
                        [{key: spec[key] for key in ("name", "description", "parameters", "ui", "handler") if key in spec}]
                    )
                )
            except (TypeError, ValueError):
                continue  # a tool this version cannot offer: its calls wait for a plain answer
        return tools

    def _recorded_python_tool(self, spec: Mapping[str, Any]) -> PythonTool:
        name = str(spec["name"])

        def recorded_result() -> Any:
            answers = self._kernel_answers.get(name)
            if not answers:
                return f"(the recording holds no result for this call of {name})"
            return answers.popleft()

        arguments: type[BaseModel] = create_model(f"{name}_arguments", __config__=ConfigDict(extra="allow"))
        return PythonTool(
            name=name,
            description=str(spec.get("description", "")),
            parameters=dict(spec.get("parameters") or {"type": "object", "properties": {}}),
            fn=recorded_result,
            approve=bool(spec.get("approve", False)),
            arguments=arguments,
        )

    # -- the agent ------------------------------------------------------------------------------

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        index, problem = self._choose(input)
        if index is None:
            yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
            yield RunErrorEvent(message=problem, code=MISMATCH)
            return
        self._played[input.thread_id] = index
        recorded = self.recording.runs[index]
        if not recorded.is_continuation:
            self._new_turn(input, recorded.input)
        self._queue_kernel_answers(index)
        loop = asyncio.get_running_loop()
        start = loop.time()
        for at, event in recorded.events:
            if self.speed is not None:
                delay = start + at / self.speed - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)  # at once, yet the kernel stays responsive
            yield self._live(event, input)

    def _choose(self, input: RunAgentInput) -> tuple[int | None, str]:
        """The recorded run that answers ``input``, or None and why there is none."""
        runs = self.recording.runs
        thread = input.thread_id
        last = input.messages[-1] if input.messages else None
        if input.resume or (last is not None and last.role == "tool"):
            played = self._played.get(thread)
            following = None if played is None else played + 1
            if following is None or following >= len(runs) or not runs[following].is_continuation:
                return None, (
                    "The recording does not go on here: in the recorded session nothing followed this answer. "
                    "Replay the turns in the recorded order (or send the next recorded message)."
                )
            return following, ""
        if not self._turns:
            return None, f"The recording {self.recording.source} holds no user turns to replay."
        if self.match == "order":
            turn = max(0, user_count(input) - user_count(runs[self._turns[0]].input))
            if turn >= len(self._turns):
                return None, (
                    f"The recording holds {len(self._turns)} turn{'s' if len(self._turns) != 1 else ''} and this is turn "
                    f"{turn + 1}. {self._listing()}"
                )
            return self._turns[turn], ""
        wanted = _normalized(user_text(input))
        matching = [index for index in self._turns if _normalized(user_text(runs[index].input)) == wanted]
        if not matching:
            return None, f"The recording has no turn for {_clip(user_text(input))!r}. {self._listing()}"
        played = self._played.get(thread, -1)
        return next((index for index in matching if index > played), matching[0]), ""

    def _listing(self) -> str:
        prompts = self.prompts
        listed = "; ".join(f"{number}. {_clip(text)!r}" for number, text in enumerate(prompts[:_PROMPTS_LISTED], start=1))
        more = f"; and {len(prompts) - _PROMPTS_LISTED} more" if len(prompts) > _PROMPTS_LISTED else ""
        return f"Its turns: {listed}{more}."

    def _new_turn(self, live: RunAgentInput, recorded: RunAgentInput) -> None:
        """Fresh ids for what this turn makes (a turn replayed twice makes new messages), while
        the history it was recorded after keeps the ids it has in this chat; and the recorded user
        message stands for the live one, so a snapshot that names it keeps the live id."""
        thread = live.thread_id
        history = {message.id for message in recorded.messages}
        self._ids = {key: value for key, value in self._ids.items() if key[0] != thread or key[1] in history}
        live_user = next((m for m in reversed(live.messages) if m.role == "user"), None)
        recorded_user = next((m for m in reversed(recorded.messages) if m.role == "user"), None)
        if live_user is not None and recorded_user is not None:
            self._ids[(live.thread_id, recorded_user.id)] = live_user.id

    def _queue_kernel_answers(self, index: int) -> None:
        """The recorded results of the Python tools this run calls, for their stand-ins to give."""
        runs = self.recording.runs
        if index + 1 >= len(runs) or not runs[index + 1].is_continuation:
            return
        kernel = {str(spec.get("name")) for spec in self.recording.tools if spec.get("ui") == "kernel"}
        calls = {
            event.tool_call_id: event.tool_call_name  # type: ignore[attr-defined]
            for _at, event in runs[index].events
            if event.type == EventType.TOOL_CALL_START
        }
        for message in runs[index + 1].input.messages:
            name = calls.get(getattr(message, "tool_call_id", None) or "")
            if message.role == "tool" and name in kernel:
                self._kernel_answers.setdefault(name, deque()).append(message.content)

    # -- ids ------------------------------------------------------------------------------------

    def _live(self, event: BaseEvent, input: RunAgentInput) -> BaseEvent:
        data = event.model_dump(mode="json", by_alias=True, exclude={"raw_event"})
        thread = input.thread_id
        for key, value in list(data.items()):
            if key == "threadId":
                data[key] = thread
            elif key == "runId":
                data[key] = input.run_id
            elif key == "input" and event.type == EventType.RUN_STARTED:
                del data[key]  # the recorded input is not this run's
            elif key.endswith("Id") and key not in _KEEP and isinstance(value, str):
                data[key] = self._id(thread, value)
        if event.type == EventType.MESSAGES_SNAPSHOT:
            data["messages"] = [self._live_message(thread, message) for message in data.get("messages") or ()]
        elif event.type == EventType.RUN_FINISHED and isinstance(data.get("outcome"), dict):
            outcome = data["outcome"]
            for item in outcome.get("interrupts") or ():
                self._live_ids(thread, item, ("id", "toolCallId"))
            for key, ids in outcome.items():
                if key.endswith("Ids") and isinstance(ids, list):
                    outcome[key] = [self._id(thread, value) if isinstance(value, str) else value for value in ids]
        return type(event).model_validate(data)

    def _live_message(self, thread: str, message: Any) -> Any:
        if isinstance(message, dict):
            self._live_ids(thread, message, ("id", "toolCallId"))
            for call in message.get("toolCalls") or ():
                if isinstance(call, dict):
                    self._live_ids(thread, call, ("id",))
        return message

    def _live_ids(self, thread: str, item: dict[str, Any], keys: Iterable[str]) -> None:
        for key in keys:
            if isinstance(item.get(key), str):
                item[key] = self._id(thread, item[key])

    def _id(self, thread: str, recorded: str) -> str:
        key = (thread, recorded)
        live = self._ids.get(key)
        if live is None:
            prefix = re.match(r"[A-Za-z]+(?=[-_])", recorded)
            live = self._ids[key] = new_id(prefix.group(0) if prefix else "replay")
        return live

    def __repr__(self) -> str:
        turns = len(self._turns)
        return f"ReplayAgent({self.recording.source!r}, {turns} turn{'s' if turns != 1 else ''}, match={self.match!r}, speed={self.speed})"


__all__ = ["MISMATCH", "ReplayAgent"]
