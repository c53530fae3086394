"""What the lessons use to show the wire and to stand in for a person: published by ``agui_widget.teaching``.

``events_table`` turns a run's AG-UI events into a table a student can read (one row per event, the
streamed deltas folded), and ``answer_from_python`` answers what a chat waits for (a frontend tool
call, an approval, an interrupt) from a cell, so a lesson also runs headless, where no person and
no browser can click, while leaving anything a view answers to that view.
"""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ag_ui.core import BaseEvent

from ..session._session import AlreadyAnswered

if TYPE_CHECKING:
    from ..chat._widget import AgentChat
    from ..session._run import Run

__all__ = ["EventTable", "answer_from_python", "events_table"]

# Keys every event of a kind carries, or ids: they say nothing a reader of one run needs.
_NOISE = ("type", "timestamp", "threadId", "runId", "messageId", "toolCallId", "parentMessageId", "protocolVersion", "role")
_WIDTH = 72  # characters of detail shown before the text is cut with "…"


class EventTable:
    """AG-UI events as a table: ``rows`` of ``(type, count, detail)``, printed as fixed-width text
    and shown in JupyterLab as an HTML table (every cell escaped: the detail is the agent's text)."""

    def __init__(self, rows: list[tuple[str, int, str]]) -> None:
        self.rows = rows

    def shown(self) -> list[tuple[str, int, str]]:
        """The rows as the table shows them: the detail on one line, cut after 72 characters."""
        shown = []
        for kind, count, detail in self.rows:
            detail = " ".join(detail.split())
            shown.append((kind, count, detail[:_WIDTH] + "…" if len(detail) > _WIDTH + 1 else detail))
        return shown

    def __str__(self) -> str:
        lines = [f"{'event':<24} {'n':>3}  detail"]
        lines += [f"{kind:<24} {count:>3}  {detail}" for kind, count, detail in self.shown()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        cell = "<td style='text-align:left'>{}</td>"
        body = "".join(
            "<tr>"
            + cell.format(f"<code>{html.escape(kind)}</code>")
            + f"<td style='text-align:right'>{count}</td>"
            + cell.format(html.escape(detail))
            + "</tr>"
            for kind, count, detail in self.shown()
        )
        head = "<tr><th style='text-align:left'>event</th><th style='text-align:right'>n</th><th style='text-align:left'>detail</th></tr>"
        return f"<table class='agui-events-table'><thead>{head}</thead><tbody>{body}</tbody></table>"

    def __len__(self) -> int:
        return len(self.rows)


def events_table(events: Iterable[BaseEvent | Mapping[str, Any]]) -> EventTable:
    """A table of AG-UI events (``run.events``, ``chat.events``, ``ag_ui.core`` events or their JSON
    dicts): one row per event, consecutive string deltas of one kind folded into one row (their
    count and their joined text), ids and timestamps left out, and a rich result's display bundle
    named by its MIME types, since the bundle itself is for the chat, not for reading."""
    rows: list[tuple[str, int, list[str]]] = []  # the text of folded deltas as parts, joined once at the end
    for event in events:
        if isinstance(event, BaseEvent):
            data = event.model_dump(mode="json", by_alias=True, exclude_none=True)
        elif isinstance(event, Mapping):
            data = {key: value for key, value in event.items() if value is not None}
        else:
            raise TypeError(f"events_table takes AG-UI events or their JSON dicts, not {type(event).__name__}")
        kind = str(data.get("type", "?"))
        delta = data.get("delta") if isinstance(data.get("delta"), str) else None
        if delta is not None and rows and rows[-1][0] == kind:
            _, count, parts = rows[-1]
            parts.append(delta)
            rows[-1] = (kind, count + 1, parts)
            continue
        metadata = data.pop("metadata", None)
        ours = metadata.get("agui_widget") if isinstance(metadata, Mapping) else None
        display = ours.get("display") if isinstance(ours, Mapping) else None
        if display:
            data["display"] = " + ".join(sorted(display))  # a MIME bundle for the chat (lesson 03)
        for noise in _NOISE:
            data.pop(noise, None)
        rows.append((kind, 1, [delta if delta is not None else (json.dumps(data, ensure_ascii=False) if data else "")]))
    return EventTable([(kind, count, "".join(parts)) for kind, count, parts in rows])


Answer = Callable[[dict[str, Any]], Any]


async def answer_from_python(
    chat: AgentChat,
    run: Run,
    answer: Answer | Any,
    *,
    interrupts: bool = False,
    timeout: float | None = 60.0,
    grace: float = 2.0,
    echo: bool = True,
) -> Run:
    """Answer from Python what ``run`` makes the chat wait for, unless a view answers it, then wait
    for the run to end and return it.

    Why: a lesson's cell must work both when a person clicks in the chat and when nobody can (the
    notebook runs headless, under the tests). It waits until the chat asks (or the run ends), then
    answers each pending frontend tool call with ``chat.respond`` (``interrupts=True``: each
    interrupt with ``chat.resume``). ``answer`` is the answer, or a function of the pending item
    (its dict as in ``chat.pending_tool_calls`` / ``chat.interrupts``) returning it; for a Python
    tool waiting for approval, ``True`` approves and ``False`` denies.

    A call the browser runs by itself (a ``js_tool``) gets ``grace`` seconds for a view to take it,
    and a call a view has taken is left to that view: nothing is answered twice. ``timeout``
    bounds the whole wait (``None``: no bound); when it passes, ``TimeoutError`` says what was
    still waiting. ``echo`` prints a line for each answer given from Python.
    """
    deadline = None if timeout is None else time.monotonic() + timeout

    def asking() -> list[dict[str, Any]]:
        return list(chat.interrupts if interrupts else chat.pending_tool_calls)

    async def tick() -> None:
        if deadline is not None and time.monotonic() >= deadline:
            raise TimeoutError(_timed_out(chat, run, timeout, asking()))
        await asyncio.sleep(0.05)

    while not run.done and not asking():
        if not interrupts and chat.interrupts:
            raise RuntimeError("answer_from_python: the run waits for an interrupt, not a tool call; pass interrupts=True")
        if interrupts and chat.pending_tool_calls:
            raise RuntimeError(
                "answer_from_python: the run waits for a tool call's answer, not an interrupt; leave out interrupts=True"
            )
        await tick()
    if not interrupts and not run.done:
        by_browser = _handler_tools(chat)
        grace_ends = time.monotonic() + grace
        while not run.done and any(
            item.get("claimedBy") or (item.get("name") in by_browser and time.monotonic() < grace_ends) for item in asking()
        ):
            await tick()
    for item in asking():  # empty when a view answered first
        value = answer(item) if callable(answer) else answer
        try:
            if interrupts:
                chat.resume(item["interruptId"], value)
            else:
                chat.respond(item["toolCallId"], value)
        except AlreadyAnswered:  # a view's answer came in meanwhile: it stands
            continue
        if echo:
            print(*_echo(item, value, interrupts))
    if run.done:
        return run
    remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
    try:
        return await asyncio.wait_for(_wait(run), remaining)
    except asyncio.TimeoutError:
        raise TimeoutError(_timed_out(chat, run, timeout, asking())) from None


async def _wait(run: Run) -> Run:
    return await run


def _handler_tools(chat: AgentChat) -> set[str]:
    """The frontend tools a browser showing the chat runs on its own (``js_tool``)."""
    return {tool.name for tool in getattr(chat, "tools", ()) if getattr(tool, "ui", None) == "handler"}


def _echo(item: Mapping[str, Any], value: Any, interrupts: bool) -> list[Any]:
    """What is printed for an answer given from Python."""
    if interrupts and not item.get("name"):
        return ["answered from Python:", repr(item.get("message") or item.get("reason")), "->", value]
    if item.get("kernel") == "approve":
        return ["answered from Python:", item.get("name"), item.get("args"), "->", "approve" if value else "deny"]
    return ["answered from Python:", item.get("name"), item.get("args"), "->", value]


def _timed_out(chat: AgentChat, run: Run, timeout: float | None, waiting: list[dict[str, Any]]) -> str:
    what = ", ".join(
        f"{item.get('name') or item.get('message') or '?'}"
        + (f" (taken by view {item['claimedBy']})" if item.get("claimedBy") else "")
        for item in waiting
    )
    return (
        f"answer_from_python: the run is still {run.status} after {timeout:g} s"
        + (f", waiting for {what}" if what else "")
        + ". Is the agent slow, or is a view that took the call gone? Pass a longer timeout=, or answer with"
        " chat.respond / chat.resume; chat.stop() ends the run."
    )
