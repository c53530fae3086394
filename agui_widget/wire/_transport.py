"""Coalescing events into few comm messages.

Each comm message costs the kernel tens to hundreds of microseconds (``benchmarks/stream_cost.py``
measures it), so one message per token cannot keep up with a fast model. Events are collected for a short window and sent as one
``events`` message; consecutive deltas of one message or tool call are merged on the way, so the
bytes on the wire stay close to the streamed text. The Python event log keeps every event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from ..vocabulary._deltas import BY_NAME
from ._codec import events_message

log = logging.getLogger("agui_widget")

DEFAULT_WINDOW = 0.05
"""Seconds between two event messages at most (20 messages/s while streaming).

The first event after a quiet spell goes out at once, so the first token is not delayed; the
ones after it wait for company. Measured (benchmarks/stream_cost.py): at 1,000 tokens/s of about
5 characters, a 30 ms window spends more bytes on message framing than on text."""


def soon(callback: Callable[[], None]) -> asyncio.Handle | None:
    """Run ``callback`` on the running loop once the current burst of work is over, or at once
    (returning None) when no loop runs, as in a plain script."""
    try:
        return asyncio.get_running_loop().call_soon(callback)
    except RuntimeError:
        callback()
        return None


class BatchingTransport:
    """Sends view-bound messages through ``send``, batching AG-UI events per ``window``."""

    def __init__(self, send: Callable[[dict[str, Any]], None], window: float = DEFAULT_WINDOW) -> None:
        self._send = send
        self._window = window
        self._batch: list[dict[str, Any]] = []
        self._times: list[float] = []
        self._timer: asyncio.TimerHandle | None = None
        self._last_flush = float("-inf")
        self.messages_sent = 0
        self._open: tuple[str, str] | None = None
        """The kind and id of the plain delta that ends the batch, when one does (see :meth:`delta`)."""
        self._open_parts: list[str] = []
        self._after_flush: Callable[[], None] | None = None

    def after_flush(self, callback: Callable[[], None]) -> bool:
        """Have ``callback`` run once the batch that waits now has gone, on the batch's own timer
        (one wake-up for both); False, with nothing changed, when no batch waits. A batch sent
        early (:meth:`flush`) leaves the callback to run soon after, never inside the caller's
        call."""
        if self._timer is None:
            return False
        self._after_flush = callback
        return True

    def event(self, wire_event: dict[str, Any], at: float | None = None) -> None:
        """Queue one camelCase event that arrived at ``at`` (epoch milliseconds; now when not
        given); it goes out within ``window`` seconds."""
        self._close_open()
        batch = self._batch
        if batch and self._merge(batch[-1], wire_event):
            return
        self._queue(wire_event, at)

    def delta(self, kind: str, ident: str, delta: str, at: float | None = None) -> None:
        """Queue a plain delta (``kind`` names its event type, ``ident`` its message or tool
        call): the hot path, most of a stream. It joins the deltas before it of the same kind and
        id, so a batch carries one delta per message, not one per token; the pieces are joined
        once, when the batch goes (or another event follows)."""
        if self._open is not None and self._open[0] == kind and self._open[1] == ident:
            self._open_parts.append(delta)
            return
        self._close_open()
        batch = self._batch
        wire_event = {"type": kind, BY_NAME[kind].id_key: ident, "delta": delta}
        if batch and self._merge(batch[-1], wire_event):
            wire_event = batch[-1]
        else:
            self._queue(wire_event, at)
            if not self._batch:  # sent at once
                return
        self._open = (kind, ident)
        self._open_parts = [wire_event["delta"]]

    def _close_open(self) -> None:
        """Join the pieces of the plain delta that ends the batch into it."""
        if self._open is not None:
            self._batch[-1]["delta"] = "".join(self._open_parts)
            self._open = None
            self._open_parts = []

    def _queue(self, wire_event: dict[str, Any], at: float | None) -> None:
        self._batch.append(wire_event)
        self._times.append(round(time.time() * 1000) if at is None else at)  # a merged delta needs no time of its own
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.flush()
                return
            wait = self._last_flush + self._window - loop.time()
            if wait <= 0:
                self.flush()  # quiet until now: no reason to hold this one back
            else:
                self._timer = loop.call_later(wait, self._flush_on_time)

    def send(self, message: dict[str, Any]) -> None:
        """Send a non-event message, after the events queued before it."""
        self.flush()
        self._deliver(message)

    def _flush_on_time(self) -> None:
        self._timer = None
        callback, self._after_flush = self._after_flush, None
        self.flush()
        if callback is not None:
            callback()

    def flush(self) -> None:
        """Send what is queued now (run boundaries call this)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._after_flush is not None:
            callback, self._after_flush = self._after_flush, None
            soon(callback)
        self._close_open()
        if self._batch:
            batch, times, self._batch, self._times = self._batch, self._times, [], []
            self._deliver(events_message(batch, times))
            with contextlib.suppress(RuntimeError):
                self._last_flush = asyncio.get_running_loop().time()

    def _deliver(self, message: dict[str, Any]) -> None:
        try:
            self._send(message)
            self.messages_sent += 1
        except Exception:  # a closed comm must not break a run
            log.exception("agui-widget: could not send a %r message to the view", message.get("kind"))

    @staticmethod
    def _merge(last: dict[str, Any], new: dict[str, Any]) -> bool:
        """Fold ``new`` into ``last`` when both are plain deltas (type, id, delta) of the same id."""
        kind = BY_NAME.get(new["type"])
        if kind is None or len(new) != 3 or len(last) != 3 or last["type"] != new["type"]:
            return False
        if last.get(kind.id_key) != new.get(kind.id_key):
            return False
        last["delta"] += new["delta"]
        return True
