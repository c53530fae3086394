"""Rich output for the chat: Python objects as MIME bundles the view renders safely.

A tool renderer's return value, a state renderer's, and a backend tool's rich result all become a
MIME bundle (``{"image/png": base64, "text/plain": ...}``), the same shape Jupyter uses for cell
outputs. The view renders a few known types and sanitizes HTML and SVG (docs/generative-ui.md).
"""

from __future__ import annotations

import base64
import functools
import html
import io
import json
import logging
import re
import sys
from collections.abc import Mapping
from typing import Any

from ._content import to_json_text
from ._live_widgets import WIDGET_VIEW, is_live_widget, live_view, widget_bundle
from ._marks import DISPLAY, with_mark

log = logging.getLogger("agui_widget")

_OBJECT_REPR = r"<[\w.]+ object(?: at 0x[0-9a-f]+)?>"
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

KNOWN_MIME_TYPES = (
    "application/vnd.vegalite.v6+json",
    "application/vnd.vegalite.v5+json",
    "application/vnd.vegalite.v4+json",
    "image/png",
    "image/jpeg",
    "image/svg+xml",
    "text/html",
    "text/markdown",
    "application/json",
    "text/plain",
)
"""The types a bundle keeps (others are dropped: the view could not show them)."""


class HTML:
    """HTML for the chat. The view sanitizes it: no scripts, no event handlers, no styles."""

    def __init__(self, data: str) -> None:
        if not isinstance(data, str):
            raise TypeError(f"HTML takes a string, not {type(data).__name__}")
        self.data = data

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": self.data, "text/plain": _html_text(self.data)}

    def __repr__(self) -> str:
        return f"HTML({self.data[:60]!r})"


class Markdown:
    """Markdown for the chat, rendered like agent text."""

    def __init__(self, data: str) -> None:
        if not isinstance(data, str):
            raise TypeError(f"Markdown takes a string, not {type(data).__name__}")
        self.data = data

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/markdown": self.data, "text/plain": self.data}

    def __repr__(self) -> str:
        return f"Markdown({self.data[:60]!r})"


def display_bundle(obj: Any) -> dict[str, Any] | None:
    """The MIME bundle the chat shows for ``obj``, or None when there is nothing to show.

    A ``str`` is Markdown; :class:`HTML`/:class:`Markdown` (ours or IPython's), a matplotlib
    Figure, a pandas DataFrame, an Altair chart and anything with ``_repr_mimebundle_`` or
    ``_repr_html_``/``_repr_png_``/``_repr_svg_``... give their own bundle; a dict whose keys are all
    MIME types is taken as a bundle already. Only JSON-ready values of known types are kept. An
    ipywidget (a slider, a FigureWidget, an anywidget) keeps its model id: a view with a widget
    manager shows it live (agui_widget/vocabulary/_live_widgets.py).
    """
    if obj is None:
        return None
    if is_live_widget(obj):
        return widget_bundle(obj)
    if isinstance(obj, str):
        return {"text/markdown": obj, "text/plain": obj}
    if _is_mime_dict(obj):
        return _clean(dict(obj))
    if _is_figure(obj):
        return _figure_bundle(obj)
    if _is_altair_chart(obj):
        return _altair_bundle(obj)
    return _clean(_formatted(obj))


def is_rich(obj: Any) -> bool:
    """True for objects that should be shown rather than sent as JSON (not str, numbers, lists...)."""
    if obj is None or isinstance(obj, (str, bytes, int, float, bool, list, tuple)):
        return False
    if isinstance(obj, Mapping):
        return _is_mime_dict(obj)
    if is_live_widget(obj):  # an ipywidget 7 has no _repr_mimebundle_
        return True
    return _is_figure(obj) or any(
        callable(getattr(obj, name, None))
        for name in ("_repr_mimebundle_", "_repr_html_", "_repr_png_", "_repr_svg_", "_repr_jpeg_", "_repr_markdown_")
    )


def rich_output(value: Any) -> tuple[dict[str, Any], str] | None:
    """For a rich object (:func:`is_rich`) an agent returned: the bundle the chat shows and the text
    a model gets instead. None for plain values, and for objects that give nothing to show or fail
    to render (logged): the caller then uses the value as it is."""
    if not is_rich(value):
        return None
    try:
        bundle = display_bundle(value)
    except Exception:
        log.warning("agui-widget: a %s could not be shown; its text is used", type(value).__name__, exc_info=True)
        return None
    return None if bundle is None else (bundle, bundle_text(bundle))


def tool_result_parts(value: Any, metadata: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any] | None]:
    """A tool's return value as a tool message's ``content`` text and ``metadata``.

    A rich value (a figure, a DataFrame, anything IPython can display) is shown in the chat: its
    MIME bundle goes in the display mark and the model gets its text. Other objects that only
    look rich are sent as their repr; structured values as JSON."""
    rich = rich_output(value)
    if rich is not None:
        bundle, value = rich
        metadata = with_mark(metadata, DISPLAY, bundle)
    elif is_rich(value):
        value = repr(value)
    return to_json_text(value), (dict(metadata) if metadata is not None else None)


def bundle_text(bundle: Mapping[str, Any]) -> str:
    """A text version of a bundle, for a model: its Markdown, else its plain text."""
    markdown, plain, markup = bundle.get("text/markdown"), bundle.get("text/plain"), bundle.get("text/html")
    if isinstance(markdown, str) and markdown:
        return markdown
    if isinstance(markup, str) and markup and (not isinstance(plain, str) or re.fullmatch(_OBJECT_REPR, plain)):
        return _html_text(markup)  # IPython's HTML(...) has only "<... object>" as its plain text
    if isinstance(plain, str) and plain:
        return plain
    if "application/json" in bundle:
        return json.dumps(bundle["application/json"], ensure_ascii=False, default=str)
    return "(a rich result was shown to the user)"


def render_value(fn: Any, *args: Any) -> tuple[dict[str, Any] | None, str | None]:
    """Call a renderer and turn what it returns into a bundle; an exception becomes a short error."""
    try:
        return display_bundle(fn(*args)), None
    except Exception as exc:
        name = getattr(fn, "__name__", "renderer")
        log.exception("agui-widget: the renderer %s failed", name)
        return None, f"{name} failed: {type(exc).__name__}: {exc}"


def steps_checklist(steps: Any) -> HTML | None:
    """A checklist of steps: ``[{"description" | "title": str, "status": "pending" | "running" | ...}]``.

    Use it as a state renderer: ``chat.render_state(steps_checklist, key="steps")``.
    """
    if not isinstance(steps, list) or not steps:
        return None
    marks = {
        "completed": "✔", "complete": "✔", "done": "✔", "success": "✔",
        "running": "➜", "in_progress": "➜", "executing": "➜", "active": "➜",
        "failed": "✘", "error": "✘", "cancelled": "✘", "skipped": "–",
    }  # fmt: skip
    items = []
    for step in steps:
        if isinstance(step, Mapping):
            text = step.get("description") or step.get("title") or step.get("name") or ""
            status = str(step.get("status") or "pending").lower()
        else:
            text, status = step, "pending"
        mark = marks.get(status, "○")
        items.append(
            f'<li class="agui-step agui-step-{html.escape(status.replace("_", "-"))}">'
            f'<span class="agui-step-mark">{mark}</span> {html.escape(str(text))}'
            f' <small class="agui-step-status">{html.escape(status)}</small></li>'
        )
    return HTML(f'<ul class="agui-steps">{"".join(items)}</ul>')


# -- internals -------------------------------------------------------------------------------


def release_figure(obj: Any) -> None:
    """Close a pyplot figure the chat has shown, so the inline backend does not show it again
    under whichever cell runs next (pyplot keeps every figure it made until it is closed)."""
    if not _is_figure(obj):
        return
    pyplot = sys.modules.get("matplotlib.pyplot")
    number = getattr(obj, "number", None)
    if pyplot is not None and number is not None and pyplot.fignum_exists(number):
        pyplot.close(obj)


def _is_mime_dict(obj: Any) -> bool:
    return isinstance(obj, Mapping) and bool(obj) and all(isinstance(k, str) and "/" in k for k in obj)


def _is_figure(obj: Any) -> bool:
    cls = type(obj)
    return cls.__module__.startswith("matplotlib.") and hasattr(obj, "savefig") and hasattr(obj, "get_axes")


def _is_altair_chart(obj: Any) -> bool:
    return type(obj).__module__.startswith("altair.") and callable(getattr(obj, "to_dict", None))


def _altair_bundle(chart: Any) -> dict[str, Any] | None:
    """The chart's Vega-Lite spec (data inline), whatever Altair renderer is active: the default
    one gives HTML that loads vega from a CDN, which the chat neither runs nor fetches."""
    spec = chart.to_dict()
    version = re.search(r"/vega-lite/v(\d+)", str(spec.get("$schema", "")))
    mime = f"application/vnd.vegalite.v{version.group(1) if version else 5}+json"
    marks = spec.get("mark")
    mark = marks.get("type") if isinstance(marks, dict) else marks
    text = f"A Vega-Lite chart{f' ({mark})' if isinstance(mark, str) else ''} shown to the user"
    title = spec.get("title")
    if isinstance(title, str) and title:
        text += f", titled {title!r}"
    return _clean({mime: spec, "text/plain": text + "."})


def _figure_bundle(figure: Any) -> dict[str, Any]:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return {
        "image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
        "text/plain": _figure_text(figure),
    }


def _figure_text(figure: Any) -> str:
    """What a model is told about a figure it cannot see: its titles, axis labels and legends."""
    parts = []
    suptitle = getattr(figure, "_suptitle", None)
    if suptitle is not None and suptitle.get_text():
        parts.append(f"titled {suptitle.get_text()!r}")
    for axes in figure.get_axes():
        described = [
            f"{label} {text!r}"
            for label, text in (("title", axes.get_title()), ("x axis", axes.get_xlabel()), ("y axis", axes.get_ylabel()))
            if text
        ]
        legend = axes.get_legend()
        if legend is not None:
            entries = [t.get_text() for t in legend.get_texts() if t.get_text()]
            if entries:
                described.append("legend " + ", ".join(repr(e) for e in entries))
        if described:
            parts.append("a plot with " + ", ".join(described))
    width, height = (round(v) for v in figure.get_size_inches() * figure.dpi)
    summary = f"A chart ({width}x{height} px) shown to the user"
    return summary + (": " + "; ".join(parts) if parts else "") + "."


def _formatted(obj: Any) -> dict[str, Any]:
    """What IPython's display machinery makes of ``obj`` (its ``_repr_*_`` methods)."""
    data, _metadata = _formatter().format(obj)
    return dict(data)


@functools.lru_cache(maxsize=1)
def _formatter() -> Any:
    """One formatter for the process: a new one costs more than the formatting (state renderers
    run on every state change)."""
    from IPython.core.formatters import DisplayFormatter

    return DisplayFormatter()


def _clean(bundle: dict[str, Any]) -> dict[str, Any] | None:
    """Known types only, with JSON-ready values (bytes become base64); a widget view only when it
    names a widget of this kernel."""
    out: dict[str, Any] = {}
    view = live_view(bundle.get(WIDGET_VIEW))
    if view is not None:
        out[WIDGET_VIEW] = view
    for mime in KNOWN_MIME_TYPES:
        if mime not in bundle:
            continue
        value = bundle[mime]
        if isinstance(value, bytes):
            value = (
                base64.b64encode(value).decode("ascii")
                if mime.startswith("image/") and mime != "image/svg+xml"
                else value.decode("utf-8", "replace")
            )
        elif isinstance(value, list) and mime.startswith("text/"):
            value = "".join(str(v) for v in value)
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            log.warning("agui-widget: dropped the %s part of a display bundle: not JSON", mime)
            continue
        out[mime] = value
    return out or None


def _html_text(markup: str) -> str:
    """HTML's text for a model (tags dropped, entities decoded)."""
    from html.parser import HTMLParser

    parts: list[str] = []

    class _Text(HTMLParser):
        def handle_data(self, data: str) -> None:
            parts.append(data)

    parser = _Text()
    parser.feed(markup)
    parser.close()
    return " ".join(" ".join(parts).split())


def strip_ansi(text: str) -> str:
    """``text`` without terminal colour and cursor codes (IPython colours its tracebacks)."""
    return _ANSI.sub("", text)


__all__ = [
    "HTML",
    "Markdown",
    "bundle_text",
    "display_bundle",
    "is_rich",
    "render_value",
    "rich_output",
    "steps_checklist",
    "strip_ansi",
]
