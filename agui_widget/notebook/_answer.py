"""A turn's answer in the output of the cell that asked for it (``%%chat``).

A magic is synchronous and the run needs the kernel's event loop, which the cell holds until it
returns, so the cell cannot wait for the answer. It shows a display at once; a task on the kernel's
loop then follows the run (``Run.event_log``, read where it stopped last) and updates that display
by its id, at most every :data:`UPDATE_INTERVAL` seconds and only when events came, until the turn
ends and the display holds the whole answer: its Markdown, the tool calls, and how the turn ended
(an error, a stop, a refusal).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ag_ui.core import BaseEvent, EventType

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import DisplayHandle

    from ..session._run import Run

log = logging.getLogger("agui_widget")

UPDATE_INTERVAL = 0.2
"""Seconds between two updates of the cell's display while the answer streams."""

ARGS_SHOWN = 200
"""Characters of a tool call's arguments the cell shows (the chat's card has them all)."""

_following: set[asyncio.Task[None]] = set()
"""The tasks following runs (the loop keeps only weak references to tasks)."""


class AnswerSoFar:
    """What a turn streamed, in order: its text messages and its tool calls, read from its events."""

    def __init__(self) -> None:
        self._blocks: list[dict[str, Any]] = []
        self._texts: dict[str, dict[str, Any]] = {}
        self._calls: dict[str, dict[str, Any]] = {}

    def take(self, events: Iterable[BaseEvent]) -> None:
        for event in events:
            kind = event.type
            if kind in (EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_CONTENT):
                text = self._text(event.message_id)  # type: ignore[attr-defined]
                if kind == EventType.TEXT_MESSAGE_CONTENT:
                    text["parts"].append(event.delta)  # type: ignore[attr-defined]
            elif kind in (EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_RESULT):
                self._call_event(event)

    def _text(self, message_id: str) -> dict[str, Any]:
        if message_id not in self._texts:
            self._texts[message_id] = {"kind": "text", "parts": []}
            self._blocks.append(self._texts[message_id])
        return self._texts[message_id]

    def _call_event(self, event: Any) -> None:
        call = self._calls.get(event.tool_call_id)
        if call is None:
            call = {"kind": "tool", "name": getattr(event, "tool_call_name", None) or "a tool", "args": [], "done": False}
            self._calls[event.tool_call_id] = call
            self._blocks.append(call)
        if event.type == EventType.TOOL_CALL_ARGS:
            call["args"].append(event.delta)
        elif event.type == EventType.TOOL_CALL_RESULT:
            call["done"] = True

    def markdown(self) -> str:
        """The answer so far as Markdown: each text message, and a line for each tool call."""
        shown = []
        for block in self._blocks:
            if block["kind"] == "text":
                text = "".join(block["parts"])
                if text.strip():
                    shown.append(text)
            else:
                shown.append(_tool_line(block["name"], "".join(block["args"]), block["done"]))
        return "\n\n".join(shown)


def _tool_line(name: str, args: str, done: bool) -> str:
    with contextlib.suppress(ValueError):  # shown as streamed when not JSON
        args = json.dumps(json.loads(args), ensure_ascii=False) if args.strip() else ""
    if len(args) > ARGS_SHOWN:
        args = args[: ARGS_SHOWN - 1] + "…"
    called = f"*Tool call* {_code(name)}" + (f" {_code(args)}" if args else "")
    return called + (" — done" if done else "")


def _code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def ending(run: Run) -> str:
    """What the display says below the answer about where the turn stands."""
    status = run.status
    if status == "queued":
        return "*Queued: the chat answers its current turn first.*"
    if status == "running":
        return ""
    if status == "waiting":
        return "*Waiting for you in the chat: an approval, or an answer to a tool.*"
    if status == "error":
        return f"**Error:** {run.error or 'the run failed'}"
    if status == "cancelled":
        return "*Stopped.*"
    if status == "refused":
        return f"*Refused:* {run.refused or 'the chat did not take this message'}"
    return ""


class CellAnswer:
    """The display in the asking cell's output, kept in step with one run."""

    def __init__(self, run: Run, shell: InteractiveShell) -> None:
        from IPython.display import display

        self._run = run
        self._answer = AnswerSoFar()
        self._read = 0
        self._publisher = getattr(shell, "display_pub", None)
        self._cell = _parent_header(self._publisher)
        """The asking cell's request: later updates are addressed to it, whatever cell runs then."""
        self._handle: DisplayHandle | None = display(self._bundle(), raw=True, display_id=True)
        """None where IPython shows nothing (no shell): then there is nothing to update."""

    def _bundle(self) -> dict[str, str]:
        run = self._run
        answer = self._answer.markdown()
        if not answer and not run.done and run.status != "queued":
            answer = "*Waiting for the answer…*"
        elif not answer and run.status == "finished":
            answer = "*The agent answered with no text.*"
        text = "\n\n".join(part for part in (answer, ending(run)) if part)
        return {"text/markdown": text, "text/plain": text}

    def refresh(self, force: bool = False) -> None:
        """Show the events that came since the last look (and the turn's status)."""
        kept = self._run.event_log
        fresh = len(kept) - self._read
        if fresh <= 0 and not force:
            return
        if fresh > 0:
            self._answer.take(kept.tail(fresh))
            self._read += fresh
        if self._handle is None:
            return
        with _addressed_to(self._publisher, self._cell):
            self._handle.update(self._bundle(), raw=True)

    async def follow(self, interval: float = UPDATE_INTERVAL) -> None:
        """Update the display as the run streams, then once more when it has ended."""
        ended = asyncio.ensure_future(_ended(self._run))
        status = self._run.status
        try:
            while not ended.done():
                await asyncio.wait({ended}, timeout=interval)
                self.refresh(force=self._run.status != status)
                status = self._run.status
        finally:
            ended.cancel()
        self.refresh(force=True)


def show_answer(run: Run, shell: InteractiveShell) -> CellAnswer:
    """Show ``run``'s answer in the running cell's output, and keep it in step on the kernel's loop."""
    answer = CellAnswer(run, shell)
    task = asyncio.get_running_loop().create_task(_follow(answer), name=f"agui-widget answer of {run.id}")
    _following.add(task)
    task.add_done_callback(_following.discard)
    return answer


async def _follow(answer: CellAnswer) -> None:
    try:
        await answer.follow()
    except Exception:  # the display failing must not go unnoticed, nor reach the loop
        log.exception("agui-widget: showing the answer in the cell's output failed")


async def _ended(run: Run) -> Run:
    return await run


# -- addressing the asking cell ------------------------------------------------------------------


def _parent_header(publisher: Any) -> dict[str, Any]:
    header = getattr(publisher, "parent_header", None)
    return dict(header) if isinstance(header, dict) else {}


@contextlib.contextmanager
def _addressed_to(publisher: Any, header: dict[str, Any]) -> Iterator[None]:
    """Display messages sent meanwhile belong to ``header``'s cell.

    ipykernel 7 keeps the parent per context (this task's is the asking cell's already); ipykernel
    6 keeps one for the whole kernel, which is the cell running now, so an update sent with it
    would reach a front end as that cell's and update nothing.
    """
    if not header or publisher is None:
        yield
        return
    set_thread_parent = getattr(publisher, "set_thread_parent", None)
    if callable(set_thread_parent):
        token = set_thread_parent(header)
        try:
            yield
        finally:
            publisher.reset_thread_parent(token)
        return
    before = publisher.parent_header
    publisher.parent_header = header
    try:
        yield
    finally:
        publisher.parent_header = before


__all__ = ["UPDATE_INTERVAL", "AnswerSoFar", "CellAnswer", "ending", "show_answer"]
