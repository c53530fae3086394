"""CUSTOM events for what LangChain code writes on the side: ``get_stream_writer()(data)`` in a
graph, ``adispatch_custom_event(name, data)`` in a Runnable."""

from __future__ import annotations

from ag_ui.core import CustomEvent

from ._values import json_safe


def custom_event(data: object, name: str | None = None) -> CustomEvent:
    """A custom write as CUSTOM: an unnamed write of ``{"name": ..., "value": ...}`` names itself,
    any other is ``name="custom"``."""
    if name is None:
        if isinstance(data, dict) and isinstance(data.get("name"), str) and set(data) <= {"name", "value"}:
            return CustomEvent(name=data["name"], value=json_safe(data.get("value")))
        return CustomEvent(name="custom", value=json_safe(data))
    return CustomEvent(name=name, value=json_safe(data))
