"""What the chat shows for a tool's output: the text the model received, cut for the UI only when
it is long, and the MIME bundle of a rich output or artifact (a figure, a DataFrame)."""

from __future__ import annotations

from typing import Any

from ...vocabulary._content import to_json_text
from ...vocabulary._display import bundle_text, rich_output
from ...vocabulary._marks import DISPLAY, TRUNCATED, marked, with_mark
from ._values import json_safe, langchain_content_text

Metadata = dict[str, Any]


def shown_result(content: object, artifact: object, limit: int | None) -> tuple[str, Metadata | None]:
    """The content and metadata of a TOOL_CALL_RESULT for a tool's output.

    A rich ``artifact`` (``content_and_artifact`` tools), else a rich raw ``content``, is shown:
    its bundle goes in ``metadata.agui_widget.display``. The content stays what the model received
    (for raw rich content: the bundle's text), cut to ``limit`` characters.
    """
    bundle = rich_display(artifact)
    if bundle is None:
        bundle = rich_display(content)
        if bundle is not None:
            content = bundle_text(bundle)
    text, metadata = ui_payload(tool_output_text(content), limit)
    if bundle is not None:
        metadata = with_mark(metadata, DISPLAY, bundle)
    return text, metadata


def ui_payload(text: str, limit: int | None) -> tuple[str, Metadata | None]:
    """``text`` cut to ``limit`` characters for display, with a note saying how much was cut."""
    if limit is None or len(text) <= limit:
        return text, None
    cut = len(text) - limit
    note = (
        f"\n\n[… {cut:,} of {len(text):,} characters not shown here. "
        "The agent received the whole result; only this view is shortened.]"
    )
    return text[:limit] + note, marked(**{TRUNCATED: {"shown": limit, "total": len(text), "cut": cut}})


def rich_display(value: object) -> dict[str, Any] | None:
    """The MIME bundle the chat shows for a tool's rich output or artifact (a figure, a DataFrame,
    anything IPython can display), or None for plain values and for objects that fail to render."""
    output = rich_output(value)
    return None if output is None else output[0]


def tool_output_text(content: object) -> str:
    """A tool's output as text: a string, text blocks joined, anything else as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text") for b in content
    ):
        return langchain_content_text(content)
    return to_json_text(json_safe(content))
