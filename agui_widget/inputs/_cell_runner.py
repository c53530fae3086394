"""Running code the way a notebook cell runs, for the agent (``run_python``) and for the view's
"Run in kernel": through IPython's own cell machinery, so the code lands in ``In`` and ``Out``,
magics work and inline figures are made, but in a worker thread, so the kernel keeps serving the
chat and its comms while it runs.

What the cell prints and shows is captured (``_cell_capture``) rather than shown under whichever
cell the front end is running: the answer carries a text for the model (output, result, traceback,
bounded) and a MIME bundle for the tool's card. A cell that fails is an answer with ``error`` set.
A stop or a timeout interrupts the thread where Python can (a ``KeyboardInterrupt`` raised in it
between two bytecodes; code waiting inside C, a ``time.sleep`` say, notices when it returns).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import html
import threading
from dataclasses import dataclass, field
from typing import Any

from ..vocabulary._display import bundle_text, display_bundle, strip_ansi
from ..vocabulary._marks import DISPLAY, with_mark
from ._cell_capture import CellOutput, capture, mark_tool_cell, release
from ._namespace import fit, ipython_shell
from ._python_tools import failed

INTERRUPT_GRACE = 2.0
"""Seconds a stopped or timed-out cell is given to end once interrupted, before the answer says it
may still be running."""
CARD_TEXT_LIMIT = 20_000
"""Characters of one printed output, result or traceback the card shows."""
CARD_IMAGE_LIMIT = 5_000_000
"""Base64 characters of one image the card shows (a larger one is named, not shown)."""
ERROR_LIMIT = 300
"""Characters of the one-line error a failed cell's answer carries (the traceback is in its text)."""


@dataclass
class _Ran:
    """What the cell did, as far as it got."""

    execution_count: int | None
    items: list[tuple[str, Any]]
    result: dict[str, Any] | None
    error: tuple[Any, Any, list[str]] | None
    problem: str | None = None
    """Why the cell did not end by itself (stopped, timed out, IPython failed)."""
    shown: list[dict[str, Any] | None] = field(default_factory=list)


async def run_cell_code(code: str, *, timeout: float | None, max_chars: int) -> dict[str, Any]:
    """Run ``code`` as a notebook cell and return the parts of the tool message answering it:
    ``content`` (the text for the model, at most ``max_chars``), ``metadata`` (the card's bundle)
    and ``error`` when the cell failed, was stopped or took longer than ``timeout`` seconds."""
    shell = ipython_shell()
    if shell is None or not callable(getattr(shell, "run_cell", None)):
        return failed("running code needs an IPython kernel (a notebook); this Python is not running one")
    if not isinstance(code, str) or not code.strip():
        return failed("there is no code to run")
    cell = _CellThread(shell, code, asyncio.get_running_loop())
    cell.start()
    try:
        await asyncio.wait_for(asyncio.shield(cell.finished), timeout)
    except asyncio.TimeoutError:
        return await cell.stop(f"did not finish within {timeout:g} s", max_chars)
    except asyncio.CancelledError:
        return await cell.stop("was stopped", max_chars)
    return cell.answer(max_chars)


class _CellThread:
    """One cell running in its own thread, its output captured until the thread ends."""

    def __init__(self, shell: Any, code: str, loop: asyncio.AbstractEventLoop) -> None:
        self.shell = shell
        self.code = code
        self.loop = loop
        self.finished: asyncio.Future[None] = loop.create_future()
        self.thread = threading.Thread(target=self._work, name="agui-widget cell", daemon=True)
        self.output = CellOutput()
        self.result: Any = None
        self.crash: BaseException | None = None
        self._in_cell = self._started = self._cancelled = False
        self._lock = threading.Lock()

    def start(self) -> None:
        capture(self.shell, self.thread, self.output)
        self.thread.start()

    def _work(self) -> None:
        try:
            try:
                with self._lock:
                    if self._cancelled:
                        return
                    self._in_cell = self._started = True
                count = self.shell.execution_count
                self.output.execution_count = count
                mark_tool_cell(self.shell, count)
                self.result = self.shell.run_cell(self.code, store_history=True)
            finally:
                with self._lock:
                    self._in_cell = False
        except BaseException as exc:  # an interrupt that landed outside the code, or IPython failing
            self.crash = exc
        finally:
            release(self.shell, self.thread)
            with contextlib.suppress(RuntimeError):  # the kernel's loop is closed: nobody waits any more
                self.loop.call_soon_threadsafe(self._settle)

    def _settle(self) -> None:
        if not self.finished.done():
            self.finished.set_result(None)

    def interrupt(self) -> bool:
        """Raise KeyboardInterrupt in the cell's thread while it runs the cell (a cell that has not
        started yet never will); False when there was nothing to interrupt."""
        with self._lock:
            self._cancelled = True
            ident = self.thread.ident
            if not self._in_cell or ident is None:
                return False
            changed = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(KeyboardInterrupt))
            return bool(changed == 1)

    async def stop(self, why: str, max_chars: int) -> dict[str, Any]:
        """Interrupt the cell, give it a moment to end, and answer with what it did so far."""
        if self.interrupt():
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self.finished), INTERRUPT_GRACE)
        if self._ended_by_itself():
            return self.answer(max_chars)  # it ended just as it was stopped
        if not self._started:
            problem = f"the code {why} before it started; it did not run"
        elif self.finished.done() or not self.thread.is_alive():
            problem = f"the code {why}; it was interrupted"
        else:
            problem = f"the code {why}; it could not be interrupted and may still be running (its output is not shown)"
        return self.answer(max_chars, problem)

    def _ended_by_itself(self) -> bool:
        error = self.output.error
        raised = error[1] if error is not None else self.crash
        return self.result is not None and not isinstance(raised, KeyboardInterrupt)

    def answer(self, max_chars: int, problem: str | None = None) -> dict[str, Any]:
        output = self.output
        if problem is None and self.crash is not None:
            problem = f"IPython could not run the cell ({type(self.crash).__name__}: {self.crash})"
        ran = _Ran(output.execution_count, output.snapshot(), output.result, output.error, problem)
        return cell_answer(ran, max_chars)


def cell_answer(ran: _Ran, max_chars: int) -> dict[str, Any]:
    """The tool message's parts for what a cell did: the model's text and the card's bundle."""
    ran.shown = [_clean(value["data"]) if kind == "display" else None for kind, value in ran.items]
    text = fit(_model_text(ran), max_chars)
    message: dict[str, Any] = {"content": text, "metadata": with_mark(None, DISPLAY, _card_bundle(ran, text))}
    error = ran.problem or (_error_line(ran.error) if ran.error is not None else None)
    if error is not None:
        message["error"] = fit(error, ERROR_LIMIT)
    return message


def _clean(data: Any) -> dict[str, Any] | None:
    try:
        return display_bundle(data) if isinstance(data, dict) and data else None
    except Exception:
        return None


def _error_line(error: tuple[Any, Any, list[str]]) -> str:
    etype, value, _ = error
    name = getattr(etype, "__name__", None) or type(value).__name__
    try:
        message = str(value)
    except Exception:
        message = ""
    return f"{name}: {message}" if message else name


def _label(ran: _Ran) -> str:
    return f"In [{ran.execution_count}]" if ran.execution_count is not None else "The cell"


def _traceback_text(error: tuple[Any, Any, list[str]]) -> str:
    return strip_ansi("\n".join(error[2])) if error[2] else _error_line(error)


def _model_text(ran: _Ran) -> str:
    """What the model reads: how the cell ended, its output in order, its result, its traceback."""
    if ran.problem is not None:
        parts = [f"{_label(ran)}: {ran.problem}."]
    elif ran.error is not None:
        parts = [f"{_label(ran)} failed with {_error_line(ran.error)}"]
    else:
        parts = [f"{_label(ran)} ran" + ("." if ran.items or ran.result else ", with no output.")]
    for (kind, value), shown in zip(ran.items, ran.shown, strict=True):
        if kind == "stdout":
            parts.append(value.rstrip("\n"))
        elif kind == "stderr":
            parts.append("[stderr]\n" + value.rstrip("\n"))
        else:
            parts.append("[display] " + (bundle_text(shown) if shown else "(an output only a notebook can show)"))
    if ran.result is not None:
        parts.append(f"Out[{ran.execution_count}]: {_result_text(ran.result)}")
    if ran.error is not None:
        parts.append(_traceback_text(ran.error))
    return "\n".join(parts)


def _result_text(result: dict[str, Any]) -> str:
    plain = result.get("text/plain")
    return plain if isinstance(plain, str) else "(a value only a notebook can show)"


def _card_bundle(ran: _Ran, text: str) -> dict[str, Any]:
    """The card's MIME bundle: a lone display or result as itself (a chart stays a chart), else
    HTML stacking the printed output, the displays (images as data: URIs), the result and the
    traceback, in the order they came. The view sanitises the HTML."""
    lone = _lone_output(ran)
    if lone is not None and set(lone) != {"text/plain"}:
        return {**lone, "text/plain": text}
    blocks = []
    for (kind, value), shown in zip(ran.items, ran.shown, strict=True):
        if kind in ("stdout", "stderr"):
            blocks.append(_pre(f"agui-cell-{kind}", value))
        else:
            blocks.append(_display_html(shown))
    if ran.result is not None:
        result = _clean(ran.result)
        blocks.append(f'<div class="agui-cell-result"><small>Out[{ran.execution_count}]:</small>{_display_html(result)}</div>')
    if ran.error is not None:
        blocks.append(_pre("agui-cell-error", _traceback_text(ran.error)))
    if ran.problem is not None:
        blocks.append(f'<p class="agui-cell-problem">{html.escape(ran.problem)}</p>')
    if not blocks:
        blocks.append('<p class="agui-cell-empty">(no output)</p>')
    return {"text/html": '<div class="agui-cell">' + "".join(blocks) + "</div>", "text/plain": text}


def _lone_output(ran: _Ran) -> dict[str, Any] | None:
    """The bundle of a cell whose only output is one display or its result."""
    if ran.error is not None or ran.problem is not None:
        return None
    if ran.result is not None:
        return _clean(ran.result) if not ran.items else None
    if len(ran.items) == 1 and ran.items[0][0] == "display":
        return ran.shown[0]
    return None


def _pre(kind: str, text: str) -> str:
    return f'<pre class="{kind}">{html.escape(fit(text, CARD_TEXT_LIMIT))}</pre>'


def _display_html(bundle: dict[str, Any] | None) -> str:
    """One display output as HTML the view's sanitiser keeps."""
    if not bundle:
        return '<p class="agui-cell-note">(an output only a notebook can show)</p>'
    alt = html.escape(fit(bundle_text(bundle), 300), quote=True)
    for mime in ("image/png", "image/jpeg"):
        image = bundle.get(mime)
        if isinstance(image, str) and len(image) <= CARD_IMAGE_LIMIT:
            return f'<div class="agui-cell-display"><img src="data:{mime};base64,{"".join(image.split())}" alt="{alt}"></div>'
    markup = bundle.get("text/html")
    if isinstance(markup, str) and len(markup) <= CARD_TEXT_LIMIT * 10:
        return f'<div class="agui-cell-display">{markup}</div>'
    return _pre("agui-cell-display", bundle_text(bundle))


__all__ = ["run_cell_code"]
