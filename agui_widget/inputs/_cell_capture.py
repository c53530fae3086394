"""Capturing what a cell the agent runs prints and shows, so it lands in the tool's card instead of
under whichever cell the front end is running.

The agent's cell runs in a worker thread. While one runs, the shell's output paths are routed by
thread: ``sys.stdout``/``sys.stderr``, the display publisher (``display()``, inline figures), the
displayhook's sending of an ``execute_result`` (``Out`` and ``_`` are still set) and the showing
of a traceback. Writes from the worker go to its :class:`CellOutput`; every other thread's go
where they always went. The routes are put in place when the first capture starts and taken away
when the last one ends.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections import deque
from collections.abc import Callable
from itertools import groupby
from typing import Any

from ..vocabulary._display import strip_ansi

STREAM_LIMIT = 200_000
"""Characters of printed output a capture keeps from a cell's start; past them only the last
:data:`STREAM_TAIL` are kept, so a cell printing in a loop cannot fill the kernel's memory."""
STREAM_TAIL = 20_000


class CellOutput:
    """What one cell printed and displayed, in order, with its result and its traceback."""

    def __init__(self) -> None:
        self.execution_count: int | None = None
        """The cell's number (``In[n]``), once it started."""
        self._items: list[tuple[str, Any]] = []
        """``("stdout" | "stderr", [pieces])`` and ``("display", data)`` in the order they came: a
        stream's writes are kept as pieces, joined once in :meth:`snapshot` (a cell printing in a
        loop makes thousands of writes, and growing one string would copy it each time)."""
        self.result: dict[str, Any] | None = None
        """The ``execute_result``'s MIME data (what ``Out[n]`` shows)."""
        self.error: tuple[type[BaseException], BaseException, list[str]] | None = None
        """The exception's type and value, and its traceback as IPython formatted it."""
        self.cut = 0
        """Characters of printed output dropped in the middle (past :data:`STREAM_LIMIT`)."""
        self._kept = 0
        self._tail: deque[tuple[str, str]] = deque()
        self._tail_chars = 0
        self._lock = threading.Lock()

    def write(self, stream: str, text: str) -> None:
        if not text:
            return
        with self._lock:
            room = STREAM_LIMIT - self._kept
            if room > 0:
                self._append(stream, text[:room])
                self._kept += min(room, len(text))
                text = text[room:]
            if text:
                self._keep_tail(stream, text)

    def _append(self, stream: str, text: str) -> None:
        if self._items and self._items[-1][0] == stream:
            self._items[-1][1].append(text)
        else:
            self._items.append((stream, [text]))

    def _keep_tail(self, stream: str, text: str) -> None:
        self._tail.append((stream, text))
        self._tail_chars += len(text)
        while self._tail_chars - len(self._tail[0][1]) >= STREAM_TAIL:
            self.cut += len(self._tail[0][1])
            self._tail_chars -= len(self._tail.popleft()[1])

    def display(self, data: Any, transient: Any = None, update: bool = False) -> None:
        """A ``display()`` (an update of a display with an id replaces what it showed)."""
        if not isinstance(data, dict):
            return
        display_id = transient.get("display_id") if isinstance(transient, dict) else None
        with self._lock:
            if update and display_id is not None:
                for index, (kind, value) in enumerate(self._items):
                    if kind == "display" and value.get("display_id") == display_id:
                        self._items[index] = ("display", {"data": dict(data), "display_id": display_id})
                        return
            self._items.append(("display", {"data": dict(data), "display_id": display_id}))

    def clear(self) -> None:
        """``clear_output()``: what the cell showed so far goes."""
        with self._lock:
            self._items.clear()
            self._tail.clear()
            self._tail_chars = self._kept = self.cut = 0

    def snapshot(self) -> list[tuple[str, Any]]:
        """``("stdout" | "stderr", text)`` and ``("display", data)`` so far, in order, the kept end
        of a long output included (with a note of the cut); a stream's consecutive writes are one."""
        with self._lock:
            items = [(kind, "".join(value) if kind != "display" else value) for kind, value in self._items]
            if self._tail:
                items.append(("stdout", f"\n… [{self.cut:,} characters of output cut] …\n"))
                for stream, pieces in groupby(self._tail, key=lambda piece: piece[0]):
                    items.append((stream, "".join(text for _, text in pieces)))
            return items


class _Routes:
    """One shell's output paths, routed by thread while captures are running."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.captures: dict[threading.Thread, CellOutput] = {}
        self._undo: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def current(self) -> CellOutput | None:
        captures = self.captures
        return captures.get(threading.current_thread()) if captures else None

    def add(self, thread: threading.Thread, output: CellOutput) -> None:
        with self._lock:
            if not self.captures:
                self._install()
            self.captures = {**self.captures, thread: output}

    def remove(self, thread: threading.Thread) -> None:
        with self._lock:
            self.captures = {t: o for t, o in self.captures.items() if t is not thread}
            if not self.captures:
                self._uninstall()

    def _install(self) -> None:
        shell = self.shell
        for name in ("stdout", "stderr"):
            self._route_stream(name)
        self._patch(shell.display_pub, "publish", self._publish)
        self._patch(shell.display_pub, "clear_output", lambda output, wait=False: output.clear())
        hook = shell.displayhook
        for name in ("start_displayhook", "write_output_prompt", "finish_displayhook"):
            self._patch(hook, name, lambda output, *args, **kwargs: None)
        self._patch(hook, "write_format_data", self._result)
        self._patch(shell, "_showtraceback", self._traceback)
        payloads = getattr(shell, "payload_manager", None)
        if payloads is not None:
            self._patch(payloads, "write_payload", self._payload)

    def _uninstall(self) -> None:
        undo, self._undo = self._undo, []
        for step in reversed(undo):
            with contextlib.suppress(Exception):  # an object that changed under us: the others are still restored
                step()

    def _route_stream(self, name: str) -> None:
        original = getattr(sys, name)
        routed = _RoutedStream(self, original, name)
        setattr(sys, name, routed)

        def restore() -> None:
            if getattr(sys, name) is routed:
                setattr(sys, name, original)

        self._undo.append(restore)

    def _patch(self, owner: Any, name: str, captured: Callable[..., Any]) -> None:
        """``owner.name`` calls ``captured(output, ...)`` in a capturing thread, else what it called."""
        original = getattr(owner, name)
        own = vars(owner)
        had, saved = name in own, own.get(name)

        def routed(*args: Any, **kwargs: Any) -> Any:
            output = self.current()
            return original(*args, **kwargs) if output is None else captured(output, *args, **kwargs)

        setattr(owner, name, routed)

        def restore() -> None:
            if vars(owner).get(name) is routed:
                if had:
                    setattr(owner, name, saved)
                else:
                    delattr(owner, name)

        self._undo.append(restore)

    def _publish(self, output: CellOutput, data: Any, metadata: Any = None, *args: Any, **kwargs: Any) -> None:
        output.display(data, kwargs.get("transient"), bool(kwargs.get("update")))
        _record_history(self.shell, output.execution_count, data)

    def _result(self, output: CellOutput, format_dict: Any, md_dict: Any = None) -> None:
        if isinstance(format_dict, dict):
            output.result = dict(format_dict)

    def _traceback(self, output: CellOutput, etype: Any, evalue: Any, stb: Any) -> None:
        output.error = (etype, evalue, [str(line) for line in stb or ()])

    def _payload(self, output: CellOutput, data: Any, *args: Any, **kwargs: Any) -> None:
        """A pager's text (``obj?``) is output; other payloads (set_next_input...) are the front end's."""
        if isinstance(data, dict) and data.get("source") == "page":
            shown = data.get("data")
            text = shown.get("text/plain") if isinstance(shown, dict) else None
            if isinstance(text, str):
                output.write("stdout", strip_ansi(text) + "\n")


class _RoutedStream:
    """``sys.stdout`` or ``sys.stderr`` while captures run: a capturing thread's writes go to its
    capture, everyone else's to the stream that was there."""

    def __init__(self, routes: _Routes, original: Any, name: str) -> None:
        self._routes = routes
        self._original = original
        self._name = name

    def write(self, text: str) -> int:
        output = self._routes.current()
        if output is None:
            return int(self._original.write(text) or 0)
        output.write(self._name, str(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._routes.current() is None:
            self._original.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


def _record_history(shell: Any, execution_count: int | None, data: Any) -> None:
    """Keep a display in IPython's record of the cell's outputs (IPython 9 keeps one; older ones don't)."""
    history = getattr(shell, "history_manager", None)
    outputs = getattr(history, "outputs", None)
    if outputs is None or execution_count is None or not isinstance(data, dict):
        return
    try:
        from IPython.core.history import HistoryOutput

        outputs[execution_count].append(HistoryOutput(output_type="display_data", bundle=data))
    except Exception:
        pass


_ROUTES: dict[int, _Routes] = {}
"""Each shell's routes, by the shell's id (a kernel has one shell, for the life of the process)."""
_ROUTES_LOCK = threading.Lock()


def routes_of(shell: Any) -> _Routes:
    """The routes of ``shell``'s output paths (one set per shell)."""
    with _ROUTES_LOCK:
        routes = _ROUTES.get(id(shell))
        if routes is None or routes.shell is not shell:
            routes = _ROUTES[id(shell)] = _Routes(shell)
        return routes


def capture(shell: Any, thread: threading.Thread, output: CellOutput) -> None:
    """Send what ``thread`` prints and shows through ``shell`` to ``output``; :func:`release` ends it."""
    routes_of(shell).add(thread, output)


def release(shell: Any, thread: threading.Thread) -> None:
    routes_of(shell).remove(thread)


def in_agent_cell(shell: Any) -> bool:
    """True on the thread of a cell the agent is running: what the shell's hooks show there would
    land in the tool's card, not under the user's cell."""
    with _ROUTES_LOCK:
        routes = _ROUTES.get(id(shell))
    return routes is not None and routes.shell is shell and routes.current() is not None


# -- the cells the agent ran ----------------------------------------------------------------------

_TOOL_CELLS: dict[int, set[int]] = {}
"""The numbers of the cells the agent ran, by the id of the shell that ran them."""


def mark_tool_cell(shell: Any, execution_count: int) -> None:
    """Remember that cell ``execution_count`` was run by the agent (``run_python``), not the user."""
    with _ROUTES_LOCK:
        _TOOL_CELLS.setdefault(id(shell), set()).add(execution_count)


def is_tool_cell(shell: Any, execution_count: int) -> bool:
    with _ROUTES_LOCK:
        return execution_count in _TOOL_CELLS.get(id(shell), ())


__all__ = ["CellOutput", "capture", "in_agent_cell", "is_tool_cell", "mark_tool_cell", "release"]
