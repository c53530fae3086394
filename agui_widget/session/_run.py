"""A turn (``Run``) and what a turn waits for (``Pending``, gathered in ``Waiting``): the session's
records, which hooks, the widget and cells read.

A module of their own so that what reads them (hooks, the widget) does not import the session.
"""

from __future__ import annotations

import asyncio
import copy
import json
import sys
from collections.abc import Generator, Iterable
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal

from ag_ui.core import BaseEvent, EventType, Interrupt, TokenUsage

from ..pipeline._eventlog import TurnLog
from ..vocabulary._ids import new_id
from ..wire import _codec

if TYPE_CHECKING:
    from ..inputs._tools import PythonTool

RunStatus = Literal["queued", "running", "waiting", "finished", "error", "cancelled", "refused"]

Status = Literal["idle", "running", "waiting", "error"]
"""The session's: no turn, a turn's run streaming, a turn waiting for answers, or the last turn failed."""


class Run:
    """One user turn: the agent's run and any follow-up runs after frontend tools or approvals.

    Awaitable: ``await chat.send("hi")`` returns this Run once everything is over. Awaiting never
    hands out the turn's own future: an awaiter that is cancelled (a kernel interrupt, a
    ``wait_for`` timeout) stops waiting and leaves the turn alone; ``chat.stop()`` ends it. Where
    the kernel holds a view's messages until the running cell ends (ipykernel < 7.4), a cell
    awaiting a turn that waits on the browser gets a ``RuntimeError`` saying so, not a wait
    without end; the turn goes on.
    """

    def __init__(
        self,
        text: str,
        user_message: dict[str, Any],
        loop: asyncio.AbstractEventLoop,
        forwarded_props: dict[str, Any] | None = None,
    ) -> None:
        self.id = new_id("turn")
        self.forwarded_props = forwarded_props
        """This turn's own ``RunAgentInput.forwardedProps``, over the chat's (``chat.send(..., forwarded_props=)``)."""
        self.text = text
        self.user_message = user_message
        self.event_log = TurnLog()
        self.error: str | None = None
        self.refused: str | None = None
        """The input guard's reason when it refused this turn's message."""
        self.status: RunStatus = "queued"
        self.run_ids: list[str] = []
        self.usage: list[TokenUsage] = []
        """The token usage this turn's runs reported (``RUN_FINISHED.usage``), one entry per run and model."""
        self._future: asyncio.Future[Run] = loop.create_future()
        self._over = False
        self._stopped = False
        """Set by a stop: the session has already closed this turn; its task only unwinds."""
        self._deaf_cells: list[asyncio.Future[Run]] = []
        """What cells awaiting this turn wait on, in a kernel that hears no view while they do."""
        self._waits_on_views: str | None = None
        """What this turn waits for a view (or Python) to answer, while it does."""

    def opening_messages(self) -> list[dict[str, Any]]:
        """What the turn adds to the transcript as it starts: the user's message (a turn that
        carries a user's action on an A2UI surface adds the call and result that report it)."""
        return [self.user_message]

    @property
    def done(self) -> bool:
        """True once the turn is over (finished, failed or cancelled)."""
        return self._over

    @property
    def events(self) -> list[BaseEvent]:
        """The AG-UI events of this turn, in order."""
        return self.event_log.events()

    @property
    def reply(self) -> str:
        """The text of the messages this turn streamed, one paragraph per message."""
        texts: dict[str, list[str]] = {}
        for event in self.event_log:
            if event.type == EventType.TEXT_MESSAGE_CONTENT:
                texts.setdefault(event.message_id, []).append(event.delta)  # type: ignore[attr-defined]
        return "\n\n".join("".join(parts) for parts in texts.values())

    def __await__(self) -> Generator[Any, None, Run]:
        if not self._over and not views_reach_an_awaiting_cell() and _awaited_in_a_cell():
            return self._deaf_cell_waiter().__await__()
        return asyncio.shield(self._future).__await__()

    def _deaf_cell_waiter(self) -> asyncio.Future[Run]:
        """What a cell awaits where the kernel holds the views' messages until it ends: this turn,
        or an error at once when the turn waits on a view (which could never answer)."""
        waiter: asyncio.Future[Run] = self._future.get_loop().create_future()
        if self._waits_on_views is not None:
            waiter.set_exception(RuntimeError(_cell_would_hang(self._waits_on_views)))
        else:
            self._deaf_cells.append(waiter)
        return waiter

    def _waiting_on_views(self, items: Iterable[Pending]) -> None:
        """The session waits for answers to ``items`` (none: it waits no more). Cells awaiting the
        turn where no view can answer meanwhile get the error instead of a wait without end."""
        what = ", ".join(_describe(item) for item in items)
        self._waits_on_views = what or None
        if what:
            waiters, self._deaf_cells = self._deaf_cells, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_exception(RuntimeError(_cell_would_hang(what)))

    def _finish(self, status: RunStatus) -> None:
        self.status = status
        self._over = True
        self._waits_on_views = None
        if not self._future.done():
            self._future.set_result(self)
        waiters, self._deaf_cells = self._deaf_cells, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(self)

    def __repr__(self) -> str:
        return f"<Run {self.id} {self.status} text={self.text[:40]!r} events={len(self.event_log)}>"


class Pending:
    """Something the chat waits for: a frontend tool call or an interrupt."""

    def __init__(
        self,
        kind: Literal["tool", "interrupt"],
        id: str,
        name: str | None = None,
        args_text: str = "",
        interrupt: Interrupt | None = None,
    ) -> None:
        self.kind = kind
        self.id = id
        self.name = name
        self.args_text = args_text
        self.interrupt = interrupt
        self.answer: Any = None
        self.answered = False
        self.claimed_by: str | None = None
        """The view that runs this frontend tool's handler (so two tabs do not both run it)."""
        self.kernel: Literal["approve", "running"] | None = None
        """A Python tool's call: waiting for approval, or running in the kernel (None: not one)."""

    @property
    def args(self) -> Any:
        try:
            return json.loads(self.args_text) if self.args_text else {}
        except ValueError:
            return self.args_text

    def to_wire(self) -> dict[str, Any]:
        """The entry of the ``pending`` trait (declared in wire/_payloads.py)."""
        if self.kind == "tool":
            return _codec.pending_tool(self.id, self.name or "", self.args, self.args_text, self.claimed_by, self.kernel)
        item = self.interrupt
        assert item is not None
        return _codec.pending_interrupt(
            self.id,
            item.reason,
            item.message,
            item.tool_call_id,
            self.name,
            self.args if self.args_text else None,
            copy.deepcopy(item.response_schema),
        )


class Waiting:
    """Everything a turn waits for between two of its runs: the pending calls and interrupts (by
    id), and the Python tool calls the kernel runs meanwhile."""

    def __init__(self) -> None:
        self.items: dict[str, Pending] = {}
        self.wake = asyncio.Event()
        self.python_tools: dict[str, PythonTool] = {}
        """The Python tool each kernel-run call (by id) calls."""
        self.tasks: set[asyncio.Task[None]] = set()
        """Python tool calls running now."""

    def cancel(self) -> None:
        """Stop waiting for the Python tool calls that run (a sync function's thread runs on;
        its result is dropped)."""
        for task in self.tasks:
            task.cancel()
        self.tasks.clear()


# -- awaiting a turn in a cell ----------------------------------------------------------------------

VIEWS_REACH_AN_AWAITING_CELL = (7, 4)
"""The ipykernel that handles comm messages (a view's answers) while a cell awaits."""


def views_reach_an_awaiting_cell() -> bool:
    """Whether a view's answer reaches the chat while a cell awaits a run.

    ipykernel 7.4 handles comm messages while a cell awaits; an earlier one queues them until the
    cell ends, so a cell awaiting a run that waits on the browser would wait forever. True outside
    ipykernel (marimo, a script), where no cell holds the views' messages back.
    """
    ipykernel = sys.modules.get("ipykernel")
    if ipykernel is None:
        return True
    version = tuple(getattr(ipykernel, "version_info", ())[:2])
    return not version or version >= VIEWS_REACH_AN_AWAITING_CELL


def _awaited_in_a_cell() -> bool:
    """Whether the code awaiting now is a cell's: IPython's ``run_code`` is on the stack."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "run_code" and frame.f_globals.get("__name__") == "IPython.core.interactiveshell":
            return True
        frame = frame.f_back
    return False


def _describe(item: Pending) -> str:
    if item.kind == "interrupt":
        return f"an answer to the interrupt of {item.name}" if item.name else "an answer to an interrupt"
    if item.kernel == "approve":
        return f"approval of the Python tool {item.name}"
    return f"the frontend tool {item.name}"


def _cell_would_hang(what: str) -> str:
    version = getattr(sys.modules.get("ipykernel"), "__version__", "?")
    return (
        f"This cell awaits a run that now waits for the browser ({what}), but ipykernel {version} hands the "
        "browser's messages to the kernel only after the running cell ends, so this await would never end. "
        "The run goes on: answer in the chat (or with chat.respond / chat.resume in a later cell) and it "
        "continues once this cell is over. To await such a run in a cell, upgrade ipykernel to 7.4 or later "
        '(pip install -U "ipykernel>=7.4", then restart the kernel); or do not await it: run = chat.send(...), '
        "then read run.status in a later cell."
    )
