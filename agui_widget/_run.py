"""A turn (``Run``) and what a turn waits for (``Pending``): the session's records, which hooks,
the widget and cells read.

A module of their own so that what reads them (hooks, the widget) does not import the session.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Generator
from typing import Any, Literal

from ag_ui.core import BaseEvent, EventType, Interrupt

from . import _wire
from ._eventlog import TurnLog
from ._ids import new_id

RunStatus = Literal["queued", "running", "waiting", "finished", "error", "cancelled", "refused"]


class Run:
    """One user turn: the agent's run and any follow-up runs after frontend tools or approvals.

    Awaitable: ``await chat.send("hi")`` returns this Run once everything is over. Awaiting never
    hands out the turn's own future: an awaiter that is cancelled (a kernel interrupt, a
    ``wait_for`` timeout) stops waiting and leaves the turn alone; ``chat.stop()`` ends it.
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
        self._future: asyncio.Future[Run] = loop.create_future()
        self._over = False
        self._stopped = False
        """Set by a stop: the session has already closed this turn; its task only unwinds."""

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
        return asyncio.shield(self._future).__await__()

    def _finish(self, status: RunStatus) -> None:
        self.status = status
        self._over = True
        if not self._future.done():
            self._future.set_result(self)

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
        """The entry of the ``pending`` trait (declared in _wire_payloads)."""
        if self.kind == "tool":
            return _wire.pending_tool(self.id, self.name or "", self.args, self.args_text, self.claimed_by, self.kernel)
        item = self.interrupt
        assert item is not None
        return _wire.pending_interrupt(
            self.id,
            item.reason,
            item.message,
            item.tool_call_id,
            self.name,
            self.args if self.args_text else None,
            copy.deepcopy(item.response_schema),
        )
