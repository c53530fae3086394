"""What the agent is told about the notebook: ``chat.context``, fixed or read at each run's start.

An entry is an AG-UI ``Context`` (a description and a text), or a :class:`LiveContext` whose value
is a function the session calls when a run starts: a DataFrame's current summary, the variables a
user chose to share. A function that fails, or a value too large to send, never breaks the run:
the entry is left out (or cut) and the user reads a notice saying why.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ag_ui.core import Context

from ..vocabulary._content import to_json_text
from ..vocabulary._errors import describe_exception
from ..wire._codec import CONTEXT_PREVIEW_CHARS

MAX_CONTEXT_CHARS = 20_000
"""Most characters one context entry sends an agent; a longer value is cut, with a note."""

Notify = Callable[[Literal["info", "warning", "error"], str], None]


@dataclass(frozen=True)
class LiveContext:
    """A context entry whose value is read when each run starts: ``source()`` returns text, or
    any JSON value (sent as JSON)."""

    description: str
    source: Callable[[], Any]

    def __post_init__(self) -> None:
        if not callable(self.source):
            raise TypeError(f"a live context entry needs a function, not {type(self.source).__name__}")


ContextEntry = Context | LiveContext


def coerce_context(entries: Iterable[Any] | None) -> list[ContextEntry]:
    """``chat.context`` entries from what a user writes: ``Context``, ``LiveContext``,
    ``{"description", "value"}`` (a value that is a function is read at each run), or a bare
    function (described by its docstring's first line, or its name)."""
    if entries is None:
        return []
    if isinstance(entries, (str, Mapping)) or not isinstance(entries, Iterable):
        raise TypeError("context takes a list of entries: {'description', 'value'} dicts, Context, or functions")
    out: list[ContextEntry] = []
    for entry in entries:
        if isinstance(entry, (Context, LiveContext)):
            out.append(entry)
        elif isinstance(entry, Mapping):
            unknown = set(entry) - {"description", "value"}
            if unknown:
                raise TypeError(f"a context entry has unknown keys {sorted(unknown)}; allowed: ['description', 'value']")
            description, value = entry.get("description"), entry.get("value")
            if not isinstance(description, str) or not description.strip():
                raise ValueError(f"a context entry needs a 'description' (a non-empty string): {dict(entry)!r}")
            if callable(value):
                out.append(LiveContext(description, value))
            else:
                out.append(Context(description=description, value=to_json_text(value)))
        elif callable(entry):
            out.append(LiveContext(_described(entry), entry))
        else:
            raise TypeError(
                f"a context entry is a {{'description', 'value'}} dict, a Context or a function, not {type(entry).__name__}"
            )
    return out


def _described(source: Callable[[], Any]) -> str:
    doc = inspect.getdoc(source)
    if doc:
        return doc.strip().splitlines()[0]
    return getattr(source, "__name__", None) or type(source).__name__


def read_context(entries: Iterable[ContextEntry], notify: Notify) -> list[Context | None]:
    """What each entry sends a run, in order: live entries read now, each at most
    ``MAX_CONTEXT_CHARS``; None for an entry that could not be read (the user is told)."""
    out: list[Context | None] = []
    for entry in entries:
        if isinstance(entry, Context):
            out.append(_bounded(entry.description, entry.value, notify))
            continue
        try:
            value = entry.source()
            text = to_json_text(value)
        except Exception as exc:
            message, _code = describe_exception(exc)
            notify("warning", f"The context {entry.description!r} could not be read, so the agent did not get it: {message}")
            out.append(None)
            continue
        out.append(_bounded(entry.description, text, notify))
    return out


def summaries(entries: Iterable[ContextEntry], read: list[Context | None] | None = None) -> list[dict[str, Any]]:
    """The ``agent_context`` trait: each entry's description, the start of its text and its
    length; a live entry's from ``read`` (what the last run was sent), else empty."""
    out: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        live = isinstance(entry, LiveContext)
        sent = entry if isinstance(entry, Context) else (read[index] if read is not None and index < len(read) else None)
        text = sent.value if sent is not None else ""
        out.append({"description": entry.description, "preview": text[:CONTEXT_PREVIEW_CHARS], "length": len(text), "live": live})
    return out


def _bounded(description: str, text: str, notify: Notify) -> Context:
    if len(text) <= MAX_CONTEXT_CHARS:
        return Context(description=description, value=text)
    cut = len(text) - MAX_CONTEXT_CHARS
    notify(
        "warning",
        f"The context {description!r} is {len(text):,} characters long; the agent got its first "
        f"{MAX_CONTEXT_CHARS:,}. Share less of it, or a summary.",
    )
    kept = text[:MAX_CONTEXT_CHARS] + f"\n[… {cut:,} more characters not sent]"
    return Context(description=description, value=kept)
