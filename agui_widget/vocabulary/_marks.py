"""The marks agui-widget puts on messages and events, in one place.

They live under ``metadata.agui_widget``, apart from a producer's own metadata, travel with the
message (a thread store, an HTTP client and a view see them) and are read by the view through
``widgetMark`` (js/src/mirror/messages.ts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NAMESPACE = "agui_widget"

STOPPED = "stopped"
"""On a message a stop cut short (True)."""

REFUSED = "refused"
"""On a user message the input guard refused: the reason shown to the user; never sent to an agent."""

DISPLAY = "display"
"""On a tool message (or a text end): a rich result's MIME bundle, for the view; the model gets the text."""

INTERNAL = "internal"
"""On a step that is the framework's plumbing (a graph's "model" node), not progress to show (True)."""

TRUNCATED = "truncated"
"""On a tool result cut short for the view: how much was shown."""

CONTEXT = "context"
"""On a content part of a user message: context the kernel made ("variable": an ``@`` mention's
summary), not a file the user attached, so the attachment policy does not count it."""

CODE_RUN = "code_run"
"""On an assistant message whose ``run_python`` call the user started from a code block ("Run in
kernel"), not the agent: ``"running"`` while the code runs, then ``"done"``."""

FEEDBACK = "feedback"
"""On an assistant message a person rated: ``{"rating": "up" | "down", "comment"?: str}``
(``vocabulary._feedback``)."""

MCP = "mcp"
"""On a tool message answering an MCP server's tool: ``{"result": CallToolResult as JSON, "tool":
the server's name for the tool}``, what an MCP App in the card reads."""

USAGE = "usage"
"""On the last assistant message of a turn: the tokens its runs reported (``RUN_FINISHED.usage``),
summed per provider and model, as a list of AG-UI ``TokenUsage`` dicts (camelCase)."""


def marked(**marks: Any) -> dict[str, Any]:
    """Metadata holding only these marks: ``marked(stopped=True)``."""
    return {NAMESPACE: dict(marks)}


def mark_of(holder: Mapping[str, Any] | None, key: str) -> Any:
    """The mark ``key`` of a message or event dict (its ``metadata``), or None."""
    metadata = holder.get("metadata") if isinstance(holder, Mapping) else None
    ours = metadata.get(NAMESPACE) if isinstance(metadata, Mapping) else None
    return ours.get(key) if isinstance(ours, Mapping) else None


def with_mark(metadata: Mapping[str, Any] | None, key: str, value: Any) -> dict[str, Any]:
    """``metadata`` (a copy) with one more mark; the producer's own keys are kept."""
    merged = dict(metadata or {})
    ours = merged.get(NAMESPACE)
    merged[NAMESPACE] = {**(ours if isinstance(ours, Mapping) else {}), key: value}
    return merged


def without_mark(message: dict[str, Any], key: str) -> dict[str, Any]:
    """``message`` without the mark ``key`` (the same dict when it has none); empty metadata goes."""
    metadata = message.get("metadata")
    if not isinstance(metadata, Mapping):
        return message
    ours = metadata.get(NAMESPACE)
    if not isinstance(ours, Mapping) or key not in ours:
        return message
    rest = {k: v for k, v in ours.items() if k != key}
    kept = {k: v for k, v in metadata.items() if k != NAMESPACE}
    if rest:
        kept[NAMESPACE] = rest
    stripped = {k: v for k, v in message.items() if k != "metadata"}
    if kept:
        stripped["metadata"] = kept
    return stripped
