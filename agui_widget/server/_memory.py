"""Giving a worker's memory back once its runs are over.

A run holds its whole transcript while it streams (an AG-UI client sends it with every run), so a
burst of runs with long transcripts raises a worker's memory by their sum. When they end, two
things keep the worker at that height. Measured with ``benchmarks/serve_load.py --streams 50
--workers 1 --history 8000 --rounds 3`` (50 clients, each sending an 8 MB transcript three times;
the worker idles at 80 MB, peaks at 722 MB, and is at 676 MB once the load is over):

- objects that only a reference cycle keeps alive wait for the cyclic garbage collector. A run's
  own pipeline makes none, but asyncio's socket transport refers to itself (one per connection,
  on Python 3.11), and agents' frameworks make plenty. Each is small, but they were allocated amid
  the transcripts, and Python's allocator gives an arena back only when nothing in it is alive: a
  full collection (269 such objects) took the worker from 676 MB to 523 MB;
- glibc's allocator keeps what is freed: a transcript is many medium-sized blocks (message
  strings, dicts) spread over the heap, and glibc returns memory from the top of its heap only.
  Of those 523 MB, 399 MB were free inside glibc: ``malloc_trim(0)`` gave them back in 32 ms
  (124 MB after).

So when a worker's last run ends and a second passes without a new one, it runs a full garbage
collection, then (on glibc) ``malloc_trim(0)``: at most once every 10 seconds. That takes an
idle worker some 40 ms on a 2-core machine (the collection walks its 90,000 objects; the trim
takes well under 1 ms when there is little to give back): a request arriving meanwhile waits that
long, no stream ever does (a worker that is streaming never does it), and a worker that is never
idle needs the memory anyway.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import logging
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["IDLE_RELEASE", "IdleRelease"]

log = logging.getLogger("agui_widget")

IDLE_DELAY = 1.0
"""Seconds a worker stays without a run before its memory is given back."""

MIN_INTERVAL = 10.0
"""Seconds at least between two releases."""


def glibc_trim() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)``, or None where the C library is another (musl, macOS, Windows)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the process's own symbols: glibc's when it is the C library
    except OSError:
        return None
    malloc_trim = getattr(libc, "malloc_trim", None)
    if malloc_trim is None:
        return None
    malloc_trim.argtypes = [ctypes.c_size_t]
    malloc_trim.restype = ctypes.c_int
    return lambda: malloc_trim(0)


class IdleRelease:
    """Counts a process's served runs while they stream; once none is left, gives memory back.

    ``trim`` returns the allocator's free memory to the system (None: this platform cannot; the
    garbage collection still runs); ``collect`` is the full garbage collection.
    """

    def __init__(
        self,
        trim: Callable[[], object] | None,
        *,
        collect: Callable[[], int] = gc.collect,
        idle_delay: float = IDLE_DELAY,
        min_interval: float = MIN_INTERVAL,
    ) -> None:
        self.trim = trim
        self.collect = collect
        self.idle_delay = idle_delay
        self.min_interval = min_interval
        self.active = 0
        self.releases = 0
        self._last = -float("inf")
        self._timer: asyncio.TimerHandle | None = None
        self._timer_loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def run_started(self) -> None:
        with self._lock:
            self.active += 1

    def run_ended(self) -> None:
        with self._lock:
            self.active -= 1
            idle = self.active <= 0
        if idle:
            self._schedule(self.idle_delay)

    def _schedule(self, delay: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on an asyncio loop (another backend): nothing is scheduled
            return
        if self._timer is not None and self._timer_loop is loop:
            return  # one is due already
        self._timer = loop.call_later(delay, self._due)
        self._timer_loop = loop

    def _due(self) -> None:
        self._timer = self._timer_loop = None
        if self.active > 0:
            return  # a run started meanwhile: its end schedules the next
        wait = self._last + self.min_interval - time.monotonic()
        if wait > 0:
            self._schedule(wait)
            return
        self.release()

    def release(self) -> None:
        """Collect reference cycles, then give the allocator's free memory back to the system."""
        self._last = time.monotonic()
        started = time.perf_counter()
        found = self.collect()
        collected = time.perf_counter()
        if self.trim is not None:
            self.trim()
        self.releases += 1
        log.debug(
            "agui-widget: idle, memory given back (%d objects in cycles collected in %.1f ms, trimmed in %.1f ms)",
            found,
            (collected - started) * 1000,
            (time.perf_counter() - collected) * 1000,
        )


IDLE_RELEASE = IdleRelease(glibc_trim())
"""This process's: served runs count themselves in and out of it (:func:`~._stream.served_chunks`)."""
