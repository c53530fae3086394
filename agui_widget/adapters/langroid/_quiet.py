"""Keep Langroid from printing into the notebook while a run streams.

Langroid echoes what it streams to stdout (and writes a colour code to stdout before every
streamed response, even in its quiet mode) and prints responses through ``rich``, which in Jupyter
shows up as output of whichever cell happens to be running. During a run we (1) switch on
Langroid's quiet mode for the kernel's thread and (2) drop what is written to ``sys.stdout`` from
inside the run's model calls only: the stream is wrapped by a proxy that consults a context
variable, so a cell that prints at the same time, or a tool handler that prints, is not silenced.
Both are reference-counted: the last run to end restores everything.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Awaitable
from contextlib import ExitStack
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_MUTED: ContextVar[bool] = ContextVar("agui_widget_langroid_muted", default=False)


class MutingStream:
    """A stand-in for ``sys.stdout`` that swallows writes made where the run is muted."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def write(self, text: str) -> int:
        if _MUTED.get():
            return len(text)
        return self._target.write(text)

    def writelines(self, lines: Any) -> None:
        if _MUTED.get():
            return
        self._target.writelines(lines)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


_lock = threading.Lock()
_proxy_users = 0
_proxy: MutingStream | None = None
_local = threading.local()


def acquire() -> None:
    """Start being quiet (pairs with :func:`release`; nests)."""
    global _proxy_users, _proxy
    depth = getattr(_local, "depth", 0)
    if depth == 0:
        from langroid.utils.configuration import quiet_mode

        stack = ExitStack()
        stack.enter_context(quiet_mode(True))
        _local.stack = stack
    _local.depth = depth + 1
    with _lock:
        if _proxy_users == 0 and not isinstance(sys.stdout, MutingStream):
            _proxy = MutingStream(sys.stdout)
            sys.stdout = _proxy
        _proxy_users += 1


def release() -> None:
    global _proxy_users, _proxy
    depth = getattr(_local, "depth", 0)
    if depth <= 0:
        return
    _local.depth = depth - 1
    if depth == 1:
        stack: ExitStack = _local.stack
        _local.stack = None
        stack.close()
    with _lock:
        _proxy_users -= 1
        if _proxy_users == 0:
            if _proxy is not None and sys.stdout is _proxy:
                sys.stdout = _proxy._target
            _proxy = None


async def muted(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable`` with its stdout writes dropped (run it as its own task)."""
    token = _MUTED.set(True)
    try:
        return await awaitable
    finally:
        _MUTED.reset(token)
