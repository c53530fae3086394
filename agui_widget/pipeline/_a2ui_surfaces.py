"""A tool result that holds A2UI operations becomes the A2UI surfaces they draw, as
``@ag-ui/a2ui-middleware`` (0.0.10) makes them.

The middleware sits between a client and its agent; in a notebook the kernel stands there, so it
does the same: a ``TOOL_CALL_RESULT`` whose content parses (JSON, or JSON inside a JSON string) as
an object with an ``a2ui_operations`` array is followed by one ``ACTIVITY_SNAPSHOT`` per surface
those operations name (activity type ``a2ui-surface``, content ``{"a2ui_operations": [that
surface's operations]}``, ``replace`` true). The snapshot's message id is
``a2ui-surface-<toolCallId>`` for one surface and ``a2ui-surface-<surfaceId>-<toolCallId>`` for
several, where the call is the last one the run started that is not one of A2UI's own tools (the
middleware's "outer" call; usually the one the result answers). The names and rules here are the
middleware's ``tryParseA2UIOperations``, ``getOperationSurfaceId``, ``createA2UIActivityEvents``
and the ``TOOL_CALL_RESULT`` branch of ``processStream``, held to it by
js/test/a2ui-middleware.test.ts through js/test/a2ui-middleware.json.

Not done here (the middleware's other paths): surfaces streamed from a ``render_a2ui`` tool's
arguments, and its recovery statuses (``building``, ``retrying``, ``failed``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from ag_ui.core import ActivitySnapshotEvent, BaseEvent, EventType

ACTIVITY_TYPE = "a2ui-surface"
"""The activity type of the messages that carry A2UI surfaces."""
OPERATIONS_KEY = "a2ui_operations"
"""The key of an A2UI activity's content (and of a tool result) that holds the A2UI messages."""
LOG_EVENT_TOOL = "log_a2ui_event"
"""The tool call that reports a user's action to the agent in the history."""
RENDER_TOOL = "render_a2ui"
"""The middleware's own tool for drawing a surface from streamed arguments (not handled here)."""

_OWN_TOOLS = frozenset({RENDER_TOOL, LOG_EVENT_TOOL})
_OPERATION_KINDS = ("createSurface", "updateComponents", "updateDataModel", "deleteSurface")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # JSON.parse refuses NaN and Infinity


def _parsed(text: str) -> Any:
    """``JSON.parse(text)``, or a ValueError where it would throw."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _operations_of(value: Any) -> list[dict[str, Any]] | None:
    if isinstance(value, dict) and isinstance(value.get(OPERATIONS_KEY), list):
        return [op for op in value[OPERATIONS_KEY] if isinstance(op, dict)]
    return None


def operations_in(content: Any) -> list[dict[str, Any]] | None:
    """The A2UI operations a tool result's text holds (the objects of its ``a2ui_operations``
    array), or None when it holds none: the middleware's ``tryParseA2UIOperations``."""
    if not isinstance(content, str):
        return None
    if OPERATIONS_KEY not in content and "\\u" not in content:
        return None  # no such key, however escaped: not worth parsing (a large result costs milliseconds)
    try:
        value = _parsed(content)
    except ValueError:
        return None
    operations = _operations_of(value)
    if operations is not None or not isinstance(value, str):
        return operations
    try:
        return _operations_of(_parsed(value))
    except ValueError:
        return None


def surface_id_of(operation: dict[str, Any]) -> Any:
    """The surface an operation is about (its kind's ``surfaceId``), or None: ``getOperationSurfaceId``."""
    for kind in _OPERATION_KINDS:
        body = operation.get(kind)
        found = body.get("surfaceId") if isinstance(body, dict) else None
        if found is not None:
            return found
    return None


def _js_string(value: Any) -> str:
    """``String(value)`` for the JSON values a surface id may be."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value == int(value) and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, list):
        return ",".join("" if item is None else _js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _group_key(surface_id: Any) -> Any:
    """A key that groups operations as the middleware's ``Map`` does: by value for a string, number
    or boolean, by identity for an object or array."""
    if isinstance(surface_id, (dict, list)):
        return ("object", id(surface_id))
    if isinstance(surface_id, bool):
        return ("boolean", surface_id)
    if isinstance(surface_id, (int, float)):
        return ("number", float(surface_id))
    return ("string", surface_id)


def surfaces(operations: Iterable[dict[str, Any]], call_id: str | None) -> list[tuple[str, list[dict[str, Any]]]]:
    """Each surface's message id and operations, in the order the surfaces first appear:
    ``createA2UIActivityEvents`` (an operation that names no surface goes to ``default``)."""
    groups: dict[Any, tuple[Any, list[dict[str, Any]]]] = {}
    for operation in operations:
        surface = surface_id_of(operation)
        if surface is None:
            surface = "default"
        groups.setdefault(_group_key(surface), (surface, []))[1].append(operation)
    made: list[tuple[str, list[dict[str, Any]]]] = []
    for surface, ops in groups.values():
        if call_id:
            message_id = f"a2ui-surface-{call_id}" if len(groups) == 1 else f"a2ui-surface-{_js_string(surface)}-{call_id}"
        else:
            message_id = f"a2ui-surface-{_js_string(surface)}"
        made.append((message_id, ops))
    return made


def surface_snapshots(operations: list[dict[str, Any]], call_id: str | None) -> list[ActivitySnapshotEvent]:
    """The ``ACTIVITY_SNAPSHOT`` events that draw ``operations``' surfaces."""
    return [
        ActivitySnapshotEvent(message_id=message_id, activity_type=ACTIVITY_TYPE, content={OPERATIONS_KEY: ops}, replace=True)
        for message_id, ops in surfaces(operations, call_id)
    ]


def surface_messages(operations: list[dict[str, Any]], call_id: str) -> list[dict[str, Any]]:
    """The activity messages those snapshots would add to a transcript (for a tool result the
    kernel appends itself, outside any run's stream)."""
    return [
        {"id": message_id, "role": "activity", "activityType": ACTIVITY_TYPE, "content": {OPERATIONS_KEY: ops}}
        for message_id, ops in surfaces(operations, call_id)
    ]


_START = EventType.TOOL_CALL_START
_RESULT = EventType.TOOL_CALL_RESULT
_WATCHED = frozenset({_START, _RESULT})


class ToolResultSurfaces:
    """The middleware's step for one run's stream: after each delivered event, the surfaces a tool
    result draws (nothing for any other event)."""

    __slots__ = ("_outer",)

    def __init__(self) -> None:
        self._outer: str | None = None
        """The last tool call started that is not A2UI's own (the middleware's ``h``)."""

    def after(self, events: list[BaseEvent]) -> list[BaseEvent]:
        """The snapshots to deliver after ``events`` (the events one agent event became)."""
        added: list[BaseEvent] = []
        for event in events:
            kind = event.type
            if kind not in _WATCHED:
                continue
            if kind == _START:
                if event.tool_call_name not in _OWN_TOOLS:  # type: ignore[attr-defined]
                    self._outer = event.tool_call_id  # type: ignore[attr-defined]
                continue
            call_id: str = event.tool_call_id  # type: ignore[attr-defined]
            operations = operations_in(event.content)  # type: ignore[attr-defined]
            if operations:
                added.extend(surface_snapshots(operations, self._outer if self._outer is not None else call_id))
            if self._outer == call_id:
                self._outer = None
        return added
