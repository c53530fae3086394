"""STEP_STARTED/STEP_FINISHED for model calls, tools and graph nodes."""

from __future__ import annotations

import re

from ag_ui.core import BaseEvent

from .._base import EventStream

_MIDDLEWARE_NODE = re.compile(r"\.(before|after)_(agent|model)$")


def is_middleware_node(name: str) -> bool:
    """``SomeMiddleware.before_model`` and friends: plumbing, not steps a person cares about."""
    return bool(_MIDDLEWARE_NODE.search(name))


class Steps:
    """STEP_STARTED/FINISHED by name; parallel tasks of one name share one step.

    ``internal``: names that are the framework's own nodes (``create_agent``'s "model" and
    "tools"); their steps are marked so a chat does not show them as progress."""

    def __init__(self, stream: EventStream, enabled: bool = True, internal: frozenset[str] = frozenset()) -> None:
        self.stream = stream
        self.enabled = enabled
        self.internal = internal
        self._count: dict[str, int] = {}

    def start(self, name: str) -> list[BaseEvent]:
        if not self.enabled:
            return []
        count = self._count.get(name, 0)
        self._count[name] = count + 1
        return self.stream.step_started(name, internal=name in self.internal) if count == 0 else []

    def finish(self, name: str) -> list[BaseEvent]:
        count = self._count.get(name, 0)
        if count <= 0:
            return []
        self._count[name] = count - 1
        return self.stream.step_finished(name, internal=name in self.internal) if count == 1 else []
