"""What every agent of one AG-UI run shares: the adapter's settings, the input, the event stream,
the outbox that hooks and handlers post events to (from any thread), the shared state, and the
state hooks that follow the tools.

A single agent's run has one agent; a Task's run has one per agent of its task tree, all posting to
one outbox and changing one state, so a sub-agent's tool changes what the main agent sees.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import threading
from collections.abc import Mapping
from typing import Any, Protocol

from ag_ui.core import BaseEvent, RunAgentInput

from ...vocabulary._content import parse_json_text
from .._base import EventStream
from ._calls import Call
from ._hooks import RunState, StateContextBuilder, ToolBehavior, ToolCallContext, ToolResultContext

DONE = object()
"""Put in a queue when what feeds it has finished."""


class RunOptions(Protocol):
    """The settings of ``LangroidAgent`` a run follows (see its docstring)."""

    @property
    def tool_behaviors(self) -> Mapping[str, ToolBehavior]: ...

    @property
    def state_context_builder(self) -> StateContextBuilder | None: ...

    @property
    def max_turns(self) -> int: ...

    @property
    def tool_errors(self) -> str: ...

    @property
    def sync_tools_in_thread(self) -> bool: ...


class RunContext:
    """One AG-UI run's shared parts (see the module's docstring)."""

    def __init__(
        self,
        options: RunOptions,
        input: RunAgentInput,
        stream: EventStream,
        outbox: asyncio.Queue[Any] | None = None,
    ) -> None:
        self.options = options
        self.input = input
        self.stream = stream
        self.behaviors: Mapping[str, ToolBehavior] = options.tool_behaviors
        self.outbox: asyncio.Queue[Any] = outbox if outbox is not None else asyncio.Queue()
        """Events posted by hooks and handlers, waiting to go on the run's stream."""
        self.state = RunState(copy.deepcopy(input.state), self.post)
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    # -- events from hooks and handlers ------------------------------------------------------

    def post(self, events: list[BaseEvent]) -> None:
        """Queue events for the run's stream (from a hook, a handler, or a handler's thread)."""
        if threading.get_ident() == self._loop_thread:
            self.outbox.put_nowait(events)
        else:
            self._loop.call_soon_threadsafe(self.outbox.put_nowait, events)

    def drain(self) -> list[BaseEvent]:
        """The events waiting in the outbox, taken out."""
        events: list[BaseEvent] = []
        while not self.outbox.empty():
            item = self.outbox.get_nowait()
            if item is not DONE:
                events.extend(item)
        return events

    def input_now(self) -> RunAgentInput:
        """The run's input with the state as it is now (hooks and handlers see changes at once)."""
        return self.input.model_copy(update={"state": self.state.value})

    # -- the state hooks ---------------------------------------------------------------------

    async def state_from_args(self, name: str, args: Any, text: str, call_id: str | None, tool: Any, *, partial: bool) -> None:
        """The tool behavior's ``state_from_args`` for a call, while it streams or complete."""
        behavior = self.behaviors.get(name)
        if behavior is None or behavior.state_from_args is None:
            return
        context = ToolCallContext(
            input=self.input_now(),
            tool_name=name,
            tool_call_id=call_id,
            args=args,
            args_text=text,
            state=self.state.value,
            partial=partial,
            tool=tool,
        )
        self.state.apply(await _maybe_await(behavior.state_from_args(context)))

    async def state_from_result(self, call: Call, value: Any, text: str, message_id: str) -> None:
        """The tool behavior's ``state_from_result`` for a handled call, if it has one."""
        behavior = self.behaviors.get(call.name)
        if behavior is None or behavior.state_from_result is None:
            return
        context = ToolResultContext(
            input=self.input_now(),
            tool_name=call.name,
            tool_call_id=call.id,
            args=call.args,
            args_text=call.args_text,
            state=self.state.value,
            partial=False,
            tool=call.tool,
            result=parse_json_text(text) if value is None or isinstance(value, str) else value,
            result_text=text,
            message_id=message_id,
        )
        self.state.apply(await _maybe_await(behavior.state_from_result(context)))


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
