"""Coalescing events into few comm messages.

One ``widget.send`` costs about 0.2 ms of kernel time, so one message per token cannot keep up
with a fast model (DESIGN.md point 5). Events are collected for a short window and sent as one
``events`` message; consecutive deltas of one message or tool call are merged on the way, so the
bytes on the wire stay close to the streamed text. The Python event log keeps every event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from ._deltas import BY_NAME
from ._wire import events_message

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

    def event(self, wire_event: dict[str, Any], at: float) -> None:
        """Queue one camelCase event that arrived at ``at`` (epoch milliseconds); it goes out
        within ``window`` seconds."""
        batch = self._batch
        if batch and self._merge(batch[-1], wire_event):
            return
        batch.append(wire_event)
        self._times.append(at)
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
                self._timer = loop.call_later(wait, self.flush)

    def send(self, message: dict[str, Any]) -> None:
        """Send a non-event message, after the events queued before it."""
        self.flush()
        self._deliver(message)

    def flush(self) -> None:
        """Send what is queued now (run boundaries call this)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
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
