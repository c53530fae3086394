"""What users plug into a LangroidAgent: per-tool state behaviours, the state-in-prompt hook, and the
context a tool handler sees. Nothing here imports Langroid.

Shared state travels as AG-UI STATE_SNAPSHOT / STATE_DELTA events. A hook or a handler never builds
those by hand (it may): it says what the state should become, and the run turns that into the
smallest event (a JSON Patch of what changed) and keeps its own copy of the state up to date, so
the next hook, handler and model call see the change.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Union

import jsonpatch
from ag_ui.core import (
    BaseEvent,
    EventType,
    RunAgentInput,
    StateDeltaEvent,
    StateSnapshotEvent,
)

from .._base import json_patch

StateUpdate = Union[None, Mapping[str, Any], list[dict[str, Any]], BaseEvent]
"""What a state hook returns. ``None``: no change. A mapping: top-level keys to set (merged into the
state). A list: RFC 6902 JSON Patch operations. A ``StateSnapshotEvent`` (replace the whole state) or
a ``StateDeltaEvent``: used as it is."""

MaybeAwaitable = Union[Any, Awaitable[Any]]


@dataclass
class ToolCallContext:
    """What ``state_from_args`` gets: a tool call, while its arguments stream and once complete.

    ``partial`` is True while the arguments are still arriving; ``args`` is then the best reading
    of the JSON so far, and ``tool_call_id`` may still be None (in OpenAI tools mode the id is
    known only when the model's response is complete). The last call has ``partial=False``, the
    real ``tool_call_id`` and ``tool``, the validated Langroid ``ToolMessage``.
    """

    input: RunAgentInput
    tool_name: str
    tool_call_id: str | None
    args: Any
    args_text: str
    state: Any
    partial: bool = False
    tool: Any = None

    # The names ag-ui-langroid's hooks used.
    @property
    def input_data(self) -> RunAgentInput:
        return self.input

    @property
    def args_str(self) -> str:
        return self.args_text

    @property
    def tool_input(self) -> Any:
        return self.tool


@dataclass
class ToolResultContext(ToolCallContext):
    """What ``state_from_result`` gets: the call (as above, complete) and the handler's result.

    ``result`` is the result parsed as JSON when it is JSON (a handler that returns a dict gives
    that dict), else its text; ``result_text`` is the text the model sees.
    """

    result: Any = None
    result_text: str = ""
    message_id: str = ""

    @property
    def result_data(self) -> Any:
        return self.result


@dataclass(frozen=True)
class ToolBehavior:
    """How the run follows one tool in the shared state.

    ``state_from_args(ToolCallContext)`` runs while the arguments stream (``partial=True``; errors
    are ignored then, as the arguments are incomplete) and once they are complete;
    ``state_from_result(ToolResultContext)`` runs after the handler. Either may be async and returns
    a :data:`StateUpdate`.
    """

    state_from_args: Callable[[ToolCallContext], MaybeAwaitable] | None = None
    state_from_result: Callable[[ToolResultContext], MaybeAwaitable] | None = None


StateContextBuilder = Callable[[RunAgentInput, str], str]
"""``(input, user_message) -> user_message``: rewrites the latest user message as the model sees it
(the transcript keeps what the user typed). ``input.state`` is the current state: it is called
again before every model call of a run, so the model sees what tools changed."""


def state_as_context(input: RunAgentInput, user_message: str) -> str:
    """A ready ``state_context_builder``: the current state as JSON, before the user's message."""
    state = input.state
    if state in (None, {}, []):
        return user_message
    shown = json.dumps(state, ensure_ascii=False, indent=1, default=str)
    return f"Current shared state (JSON, also shown to the user):\n{shown}\n\nUser message: {user_message}"


class RunState:
    """The run's copy of the shared state, and the events that keep the client's copy equal to it."""

    def __init__(self, state: Any, sink: Callable[[list[BaseEvent]], None]) -> None:
        self.value: Any = {} if state is None else state
        self._sink = sink

    def set(self, new: Any) -> None:
        """Make the state ``new``: a JSON Patch of the difference, or a snapshot when none fits."""
        new = copy.deepcopy(new)
        old = self.value
        if isinstance(old, (dict, list)) and isinstance(new, (dict, list)) and type(old) is type(new):
            patch = jsonpatch.make_patch(old, new).patch
            if not patch:
                return
            self.value = new
            self._sink([StateDeltaEvent(delta=json_patch(patch))])
        else:
            self.value = new
            self._sink([StateSnapshotEvent(snapshot=new)])

    def update(self, keys: Mapping[str, Any]) -> None:
        base = self.value if isinstance(self.value, dict) else {}
        self.set({**base, **keys})

    def patch(self, operations: list[dict[str, Any]]) -> None:
        operations = [dict(op) for op in operations]
        if not operations:
            return
        self.value = jsonpatch.apply_patch(self.value, operations, in_place=False)
        self._sink([StateDeltaEvent(delta=json_patch(operations))])

    def apply(self, update: StateUpdate) -> None:
        """Apply what a hook returned (see :data:`StateUpdate`)."""
        if update is None:
            return
        if isinstance(update, BaseEvent):
            if update.type == EventType.STATE_SNAPSHOT:
                self.value = copy.deepcopy(update.snapshot)  # type: ignore[attr-defined]
                self._sink([update])
            elif update.type == EventType.STATE_DELTA:
                patch = update.model_dump(mode="json", by_alias=True)["delta"]
                self.value = jsonpatch.apply_patch(self.value, patch, in_place=False)
                self._sink([update])
            else:
                self._sink([update])
            return
        if isinstance(update, Mapping):
            self.update(update)
        elif isinstance(update, list):
            self.patch(update)
        else:
            raise TypeError(
                f"a state hook returned a {type(update).__name__}; return None, a dict of keys to set, "
                "a list of JSON Patch operations, or a StateSnapshotEvent/StateDeltaEvent"
            )

    def observe(self, event: BaseEvent) -> None:
        """Follow a state event emitted by other means (e.g. ``ToolContext.emit``)."""
        if event.type == EventType.STATE_SNAPSHOT:
            self.value = copy.deepcopy(event.snapshot)  # type: ignore[attr-defined]
        elif event.type == EventType.STATE_DELTA:
            patch = event.model_dump(mode="json", by_alias=True)["delta"]
            self.value = jsonpatch.apply_patch(self.value, patch, in_place=False)


@dataclass
class ToolContext:
    """What a Langroid tool handler sees of the AG-UI run it belongs to: :func:`tool_context`.

    ``state`` is the current shared state (read it; change it through the methods, which also tell
    the client). Changes are sent at once, so a long-running handler can show progress. ``emit``
    sends any other AG-UI event (a STEP_STARTED, a CUSTOM event, ...).
    """

    input: RunAgentInput
    tool_name: str
    tool_call_id: str
    args: Any
    agent: Any = None
    _state: RunState | None = field(default=None, repr=False)
    _emit: Callable[[list[BaseEvent]], None] | None = field(default=None, repr=False)

    @property
    def thread_id(self) -> str:
        return self.input.thread_id

    @property
    def run_id(self) -> str:
        return self.input.run_id

    @property
    def state(self) -> Any:
        assert self._state is not None
        return self._state.value

    def set_state(self, state: Any) -> None:
        """Replace the state (only the difference travels)."""
        assert self._state is not None
        self._state.set(state)

    def update_state(self, keys: Mapping[str, Any] | None = None, /, **more: Any) -> None:
        """Set some top-level keys of a dict state."""
        assert self._state is not None
        self._state.update({**(keys or {}), **more})

    def patch_state(self, operations: list[dict[str, Any]]) -> None:
        """Apply RFC 6902 JSON Patch operations to the state."""
        assert self._state is not None
        self._state.patch(operations)

    def emit(self, *events: BaseEvent) -> None:
        """Send AG-UI events now (state events also update ``state``)."""
        assert self._emit is not None and self._state is not None
        for event in events:
            self._state.observe(event)
        self._emit(list(events))


_CURRENT: ContextVar[ToolContext | None] = ContextVar("agui_widget_langroid_tool", default=None)


def tool_context() -> ToolContext:
    """The :class:`ToolContext` of the tool call being handled, inside a Langroid tool handler.

    Works in every kind of handler (``handle``, ``handle_async``, ``response``, an agent method
    named after the tool) when the agent runs behind ``LangroidAgent`` (e.g. in ``AgentChat``)::

        class SaveRecipe(lr.ToolMessage):
            request: str = "save_recipe"
            purpose: str = "Save the <recipe>."
            recipe: dict

            def handle(self) -> str:
                tool_context().update_state(recipe=self.recipe)
                return "saved"
    """
    current = _CURRENT.get()
    if current is None:
        raise RuntimeError(
            "tool_context() is only available inside a tool handler while LangroidAgent runs the agent "
            "(e.g. in AgentChat); outside of it there is no AG-UI run to read the state of"
        )
    return current


def current_tool_context() -> ToolContext | None:
    """Like :func:`tool_context`, but None outside of a run (for handlers that also run elsewhere)."""
    return _CURRENT.get()


@contextlib.contextmanager
def handling_tool(
    input: RunAgentInput,
    tool_name: str,
    tool_call_id: str,
    args: Any,
    agent: Any,
    state: RunState,
    emit: Callable[[list[BaseEvent]], None],
) -> Iterator[ToolContext]:
    """The :class:`ToolContext` of one handler call, current (what :func:`tool_context` returns)
    while the handler runs. Made here, as its ``_state`` and ``_emit`` fields are this module's."""
    context = ToolContext(
        input=input, tool_name=tool_name, tool_call_id=tool_call_id, args=args, agent=agent, _state=state, _emit=emit
    )
    token = _CURRENT.set(context)
    try:
        yield context
    finally:
        _CURRENT.reset(token)
