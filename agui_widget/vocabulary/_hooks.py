"""Hooks around a chat's runs, and the input guard.

Hooks are for logging and metrics: each may be a plain function or a coroutine function, and an
exception in one is logged and never reaches the run. A coroutine hook runs as a task of its own,
so a slow hook does not hold up the stream either. ``on_event`` costs one attribute check per batch
of events when it is not set.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ag_ui.core import BaseEvent, RunAgentInput

if TYPE_CHECKING:
    from ..session._run import Run

log = logging.getLogger("agui_widget")

Hook = Callable[..., Awaitable[None] | None]
Guard = Callable[[Any], bool | str | Awaitable[bool | str | None] | None]
"""``guard(content) -> None | True`` lets the message through; ``False`` or a string refuses it
(the string is the reason shown in the chat). ``content`` is the text, or the content parts."""

DEFAULT_REFUSAL = "This message was not sent to the agent."

INPUT_REFUSED = "input_refused"
"""The ``RUN_ERROR`` code of a turn an input guard refused before the agent saw it: a served
app's guard (``create_app(guard=...)``) answers so, and a chat shows such a turn as refused."""


class RunRecord(Protocol):
    """What ``on_run_end`` and ``on_error`` read of a run: a chat's ``Run``, or a served app's
    ``ServedRun`` (the same names)."""

    @property
    def id(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def error(self) -> str | None: ...

    @property
    def refused(self) -> str | None: ...

    @property
    def events(self) -> list[BaseEvent]: ...

    @property
    def reply(self) -> str: ...


@dataclass(frozen=True)
class ErrorInfo:
    """What ``on_error`` receives: the message and class shown to the user, and what caused it."""

    message: str
    code: str
    run: Run | RunRecord
    """The notebook's turn, or the served run (``create_app``)."""
    exception: BaseException | None = None


class Hooks:
    """The callbacks a chat calls; any may be None."""

    def __init__(
        self,
        on_run_start: Hook | None = None,
        on_event: Hook | None = None,
        on_run_end: Hook | None = None,
        on_error: Hook | None = None,
    ) -> None:
        for name, hook in (
            ("on_run_start", on_run_start),
            ("on_event", on_event),
            ("on_run_end", on_run_end),
            ("on_error", on_error),
        ):
            if hook is not None and not callable(hook):
                raise TypeError(f"{name} must be a function (or None), not {type(hook).__name__}")
        self.on_run_start = on_run_start
        self.on_event = on_event
        self.on_run_end = on_run_end
        self.on_error = on_error

    def run_start(self, run_input: RunAgentInput) -> None:
        if self.on_run_start is not None:
            call_hook("on_run_start", self.on_run_start, run_input)

    def run_end(self, run: Run | RunRecord) -> None:
        if self.on_run_end is not None:
            call_hook("on_run_end", self.on_run_end, run)

    def error(self, info: ErrorInfo) -> None:
        if self.on_error is not None:
            call_hook("on_error", self.on_error, info)

    def events(self, events: list[BaseEvent]) -> None:
        hook = self.on_event
        if hook is None:
            return
        for event in events:
            call_hook("on_event", hook, event)


def call_hook(name: str, hook: Hook, *args: Any) -> None:
    """Call a hook; log (never raise) what it throws, and run a coroutine it returns as a task."""
    try:
        result = hook(*args)
    except Exception:
        log.exception("agui-widget: the %s hook failed (the run goes on)", name)
        return
    if inspect.isawaitable(result):
        try:
            task = asyncio.get_running_loop().create_task(_guarded(name, result))
        except RuntimeError:  # no loop: nothing can run the coroutine
            _close(result)
            log.warning("agui-widget: the async %s hook was not run (no event loop)", name)
            return
        _TASKS.add(task)
        task.add_done_callback(_TASKS.discard)


_TASKS: set[asyncio.Task[None]] = set()
"""Hook tasks in flight (the loop only keeps weak references to tasks)."""


async def _guarded(name: str, awaitable: Awaitable[Any]) -> None:
    try:
        await awaitable
    except Exception:
        log.exception("agui-widget: the %s hook failed (the run goes on)", name)


def _close(awaitable: Any) -> None:
    close = getattr(awaitable, "close", None)
    if close is not None:
        close()


async def check_guard(guard: Guard, content: Any) -> str | None:
    """The reason the guard refuses ``content``, or None when it lets it through.

    A guard that raises refuses too (with its error as the reason): a broken guard must not let
    everything through unseen.
    """
    try:
        verdict = guard(content)
        if inspect.isawaitable(verdict):
            verdict = await verdict
    except Exception as exc:
        log.exception("agui-widget: the input guard failed; the message was not sent")
        return f"The input guard failed: {type(exc).__name__}: {exc}"
    if verdict is None or verdict is True:
        return None
    if verdict is False:
        return DEFAULT_REFUSAL
    if isinstance(verdict, str):
        return verdict.strip() or DEFAULT_REFUSAL
    log.warning("agui-widget: the input guard returned %r; expected None, a bool or a reason", verdict)
    return f"The input guard returned {type(verdict).__name__}, not None, a bool or a reason; the message was not sent."


__all__ = ["DEFAULT_REFUSAL", "INPUT_REFUSED", "ErrorInfo", "Guard", "Hook", "Hooks", "call_hook", "check_guard"]
