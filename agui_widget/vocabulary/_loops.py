"""The chat's event loop, reached from other threads.

Runs, futures and timers live on the loop a chat was made on (the kernel's). Some callbacks come
on another thread: JupyterLab may deliver comm messages, a widget's change or a button's click, on
a kernel subshell's thread (ipykernel >= 7). They are handed to the loop rather than run there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def on_loop(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., Any], *args: Any) -> bool:
    """Call ``fn(*args)`` on ``loop``: here and now when this thread runs it (or there is none),
    else handed to it. False, with nothing called, when ``loop`` is closed."""
    if loop is None or running_loop() is loop:
        fn(*args)
        return True
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:  # that loop is closed
        return False
    return True


__all__ = ["on_loop", "running_loop"]
