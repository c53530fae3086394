"""Live widgets in answers: an ipywidget a tool returns is shown as itself, tied to the kernel.

A rich result's bundle keeps Jupyter's ``application/vnd.jupyter.widget-view+json`` part (the
widget's model id) besides a static text, and the kernel keeps the widget until it is closed, so
a view that reconnects later (a page reload) finds its model again. A view with a widget manager
(JupyterLab, Notebook 7, VS Code) shows the widget live; any other view, and every export, shows
the static part. Only widgets that exist in this kernel are shown live: a model id in a bundle
that came from elsewhere (a remote agent, a saved conversation) is dropped unless it names one.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import threading
from collections.abc import Mapping
from typing import Any

log = logging.getLogger("agui_widget")

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
"""Jupyter's MIME type for a view of a widget model: ``{"model_id": ..., "version_major": 2, ...}``."""

_TEXT_LIMIT = 500
_OBJECT_REPR = re.compile(r"<[\w.]+ object(?: at 0x[0-9a-f]+)?>")


class _HeldWidgets:
    """The widgets answers show, by model id, held until they are closed (a widget the kernel
    dropped would close its comm, and the answer would show a dead control)."""

    def __init__(self) -> None:
        self._widgets: dict[str, Any] = {}
        self._lock = threading.Lock()

    def hold(self, widget: Any) -> None:
        model_id = widget.model_id
        with self._lock:
            if model_id in self._widgets:
                return
            self._widgets[model_id] = widget
        try:
            widget.observe(self._on_comm, names="comm")
        except Exception:  # a widget without traitlets' observe is still held, until the kernel ends
            log.debug("agui-widget: cannot watch %s for its closing", type(widget).__name__, exc_info=True)

    def get(self, model_id: str) -> Any:
        with self._lock:
            return self._widgets.get(model_id)

    def ids(self) -> set[str]:
        with self._lock:
            return set(self._widgets)

    def _on_comm(self, change: Mapping[str, Any]) -> None:
        if change.get("new") is not None:
            return
        widget: Any = change.get("owner")
        with self._lock:
            for model_id, held in list(self._widgets.items()):
                if held is widget:
                    del self._widgets[model_id]
        with contextlib.suppress(Exception):  # already not watched: nothing to stop
            widget.unobserve(self._on_comm, names="comm")


HELD = _HeldWidgets()
"""The widgets the chat's answers show, for the life of the kernel or until each is closed."""


def is_live_widget(obj: Any) -> bool:
    """True for an ipywidget that has a view (a slider, a FigureWidget, a map, an anywidget) and
    is open (its comm not closed); False for the chat itself, which would show itself inside."""
    widgets = sys.modules.get("ipywidgets")
    base = getattr(widgets, "DOMWidget", None)
    if base is None or not isinstance(obj, base):
        return False
    if any(cls.__module__.startswith("agui_widget.") for cls in type(obj).__mro__):
        return False  # a chat, or a subclass of one
    return getattr(obj, "comm", None) is not None and isinstance(getattr(obj, "model_id", None), str)


def widget_bundle(widget: Any) -> dict[str, Any]:
    """The bundle an answer shows for an open widget: its view (the model id) and a static text,
    and the widget is held so the view finds it as long as the kernel runs."""
    HELD.hold(widget)
    return {WIDGET_VIEW: widget_view(widget.model_id), "text/plain": _widget_text(widget)}


def widget_view(model_id: str) -> dict[str, Any]:
    """The widget-view part for a model id (what ipywidgets 8 writes)."""
    return {"version_major": 2, "version_minor": 0, "model_id": model_id}


def live_view(value: Any) -> dict[str, Any] | None:
    """A bundle's widget-view part, kept only when it names a widget of this kernel (which is then
    held); None otherwise, and the bundle keeps only its static parts."""
    model_id = value.get("model_id") if isinstance(value, Mapping) else None
    if not isinstance(model_id, str) or not model_id:
        return None
    widget = HELD.get(model_id) or _open_widget(model_id)
    if widget is None:
        return None
    HELD.hold(widget)
    return widget_view(model_id)


def without_widget_view(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """A bundle's static parts: what an export keeps (a widget lives only with its kernel)."""
    return {mime: data for mime, data in bundle.items() if mime != WIDGET_VIEW}


def _open_widget(model_id: str) -> Any:
    """The open widget with this model id, if this kernel has one (ipywidgets' own registry)."""
    module = sys.modules.get("ipywidgets.widgets.widget")
    if module is None:
        return None
    registry = getattr(module, "_instances", None)
    if registry is None:  # ipywidgets 7
        registry = getattr(getattr(module, "Widget", None), "widgets", None)
    widget = registry.get(model_id) if isinstance(registry, Mapping) else None
    return widget if widget is not None and is_live_widget(widget) else None


def _widget_text(widget: Any) -> str:
    """What a model is told, and what a view without a widget manager shows: the widget's repr
    (``IntSlider(value=3)``), else its class's name (an anywidget's repr is its address)."""
    try:
        text = repr(widget)
    except Exception:
        text = ""
    if not text or _OBJECT_REPR.fullmatch(text):
        text = f"A {type(widget).__name__} widget"
    if len(text) > _TEXT_LIMIT:
        text = text[: _TEXT_LIMIT - 1] + "…"
    return text


__all__ = ["HELD", "WIDGET_VIEW", "is_live_widget", "live_view", "widget_bundle", "without_widget_view"]
