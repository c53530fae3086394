"""The agent's shared state keys as AG-UI state: STATE_SNAPSHOT and STATE_DELTA per ``emit_state``."""

from __future__ import annotations

import copy
from collections.abc import Callable

import jsonpatch
from ag_ui.core import BaseEvent

from .._base import EventStream
from ._options import AGUIOptions, EmitState
from ._values import json_safe

INTERNAL_KEYS = frozenset({"messages", "jump_to", "remaining_steps", "structured_response"})
"""State keys that are LangChain's own business, never shared with the UI by default."""

KeyFilter = Callable[[str], bool]
State = dict[str, object]


def shared_key_filter(options: AGUIOptions) -> KeyFilter:
    """Which state keys are shared: ``options.state_keys``, or all but LangChain's internal ones."""
    if options.state_keys is not None:
        return frozenset(options.state_keys).__contains__
    return lambda key: key not in INTERNAL_KEYS and not key.startswith("__")


class StateTracker:
    """The agent's shared keys as AG-UI state, merged over the state the chat sent.

    Keys the agent does not own are kept as the chat sent them, so a snapshot never wipes them.
    """

    def __init__(self, stream: EventStream, mode: EmitState, client_state: object, keys: KeyFilter) -> None:
        self.stream = stream
        self.mode = mode
        self.client: State = copy.deepcopy(client_state) if isinstance(client_state, dict) else {}
        self.keys = keys
        self.current: State | None = None
        self._sent: State = self.client

    def document(self, values: State) -> State:
        doc = dict(self.current if self.current is not None else self.client)
        for key, value in values.items():
            if self.keys(key):
                doc[key] = json_safe(value)
        return doc

    def update(self, values: object) -> list[BaseEvent]:
        """The graph's state after a step."""
        if not isinstance(values, dict):
            return []
        first = self.current is None
        self.current = self.document(values)
        if self.mode == "initial" and first:
            self._sent = self.current
            return self.stream.state_snapshot(copy.deepcopy(self.current))
        if self.mode != "all":
            return []
        if first and self.current != self.client:
            self._sent = self.current
            return self.stream.state_snapshot(copy.deepcopy(self.current))
        patch = jsonpatch.make_patch(self._sent, self.current).patch
        self._sent = self.current
        return self.stream.state_delta(patch)

    def finish(self) -> list[BaseEvent]:
        if self.mode == "final" and self.current is not None:
            return self.stream.state_snapshot(copy.deepcopy(self.current))
        return []
