"""Errors ask the chat: under the traceback of a cell that raised, an "Ask the chat about this
error" button (``%load_ext agui_widget``).

The button comes from a ``post_run_cell`` callback reading ``result.error_in_exec`` (or
``error_before_exec``, a syntax error), not from ``set_custom_exc``: the callback runs once IPython
has shown its own traceback, so the button lands under it and the traceback is IPython's as ever
(and ``%pdb`` still works); callbacks chain, where a shell has one custom exception handler, which a
user's own would replace or be replaced by.

Clicking sends the chat shown last a short question, with the error (type, message, traceback as
IPython showed it, without ANSI codes) and the cell's source attached as text documents
(``error.txt``, ``cell.py``). Where no widget can show, the text that stands in for the button (a
plain IPython's console, a notebook converted without its widgets) names
:func:`ask_about_error`, which does the same from a cell.
"""

from __future__ import annotations

import logging
import sys
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..chat._shown import chat_shown_last
from ..inputs._attachments import data_part
from ..inputs._cell_capture import in_agent_cell
from ..inputs._namespace import fit
from ..vocabulary._display import strip_ansi
from ..vocabulary._loops import on_loop, running_loop
from ..vocabulary._marks import CONTEXT, with_mark

if TYPE_CHECKING:
    from IPython.core.interactiveshell import ExecutionResult, InteractiveShell

    from ..chat._widget import AgentChat
    from ..session._run import Run

log = logging.getLogger("agui_widget")

ASK = "Ask the chat about this error"
HINT = f"{ASK}: from agui_widget.notebook import ask_about_error; ask_about_error()"
"""What stands in for the button where no widget can show."""
NO_CHAT = "No chat is shown yet: show one (a cell ending with the chat), then click again"
SENT = "Sent to the chat"

MAX_TEXT = 20_000
"""Characters of a traceback or a cell's source sent at most (their middle is left out)."""


@dataclass(frozen=True)
class CellError:
    """An error a cell raised, as the chat is told about it."""

    ename: str
    evalue: str
    traceback: str
    """As IPython showed it, without ANSI codes."""
    source: str
    """The cell's source ("" when unknown)."""

    def question(self) -> str:
        first = self.evalue.strip().splitlines()[0] if self.evalue.strip() else ""
        raised = f"{self.ename}: {first}" if first else self.ename
        if len(raised) > 200:
            raised = raised[:199] + "…"
        return f"What went wrong? My cell raised {raised}"

    def error_text(self) -> str:
        return f"{self.ename}: {self.evalue}\n\n{self.traceback}".rstrip() + "\n"

    def attachments(self) -> list[dict[str, Any]]:
        """The error and the cell's source as AG-UI text document parts, marked as context: models
        read them as text (few providers read a text file), and no attachment policy counts them."""
        parts = [_context_part(self.error_text(), "error.txt", "error")]
        if self.source.strip():
            parts.append(_context_part(self.source, "cell.py", "cell"))
        return parts


def _context_part(text: str, filename: str, what: str) -> dict[str, Any]:
    part = data_part(text.encode("utf-8"), "text/plain", filename)
    part["metadata"] = with_mark(part.get("metadata"), CONTEXT, what)
    return part


def cell_error(shell: Any, error: BaseException, source: str) -> CellError:
    """``error`` as the chat is told about it: its traceback as ``shell`` showed it when it can
    tell (ipykernel keeps the one it sent), else as Python formats it."""
    shown = getattr(shell, "_last_traceback", None)
    text = "\n".join(str(line) for line in shown) if isinstance(shown, list) else ""
    text = strip_ansi(text)
    if type(error).__name__ not in text:  # not this error's: a handler of the user's showed it
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return CellError(type(error).__name__, fit(str(error), MAX_TEXT), fit(text, MAX_TEXT), fit(source, MAX_TEXT))


_last_error: list[CellError] = []
"""The error the last failing cell raised, once the extension is loaded."""


def send_error(chat: AgentChat, error: CellError) -> Run:
    """Send ``error`` to ``chat``: the question, with the texts attached as context (which a chat
    taking no files takes too)."""
    return chat.send(error.question(), attachments=error.attachments())


def ask_about_error(chat: AgentChat | None = None) -> Run:
    """Ask ``chat`` (by default the chat shown last) about the last error a cell raised, as the
    "Ask the chat about this error" button does; returns the run (``await`` it to wait)."""
    target = chat if chat is not None else chat_shown_last()
    if target is None:
        raise RuntimeError(
            "no chat has been shown yet: show one (a cell ending with the chat), or pass it: ask_about_error(chat)"
        )
    if _last_error:
        error = _last_error[0]
    else:
        raised = getattr(sys, "last_value", None)
        if raised is None:
            raise RuntimeError("no cell has raised an error yet")
        error = cell_error(None, raised, "")
    return send_error(target, error)


class ErrorButtons:
    """The ``post_run_cell`` callback: a cell that raised gets the button (or the hint)."""

    def __init__(self, shell: InteractiveShell) -> None:
        self._shell = shell

    def __call__(self, result: ExecutionResult) -> None:
        error = result.error_in_exec or result.error_before_exec
        if error is None or not _worth_asking(error) or in_agent_cell(self._shell):
            return  # the agent's own cell (run_python) answers the agent with its error instead
        try:
            info = getattr(result, "info", None)
            found = cell_error(self._shell, error, str(getattr(info, "raw_cell", "") or ""))
            _last_error[:] = [found]
            self._offer(found)
        except Exception:  # the user's cell has failed already; this must not add to it
            log.exception("agui-widget: offering to ask the chat about the error failed")

    def _offer(self, error: CellError) -> None:
        if getattr(self._shell, "kernel", None) is None:  # a console with no front end to show a widget
            print(HINT)
            return
        from IPython.display import display

        button = ErrorButton(error).button
        bundle = getattr(button, "_repr_mimebundle_", None)
        if not callable(bundle):
            display(button)
            return
        data = bundle()
        data = dict(data[0] if isinstance(data, tuple) else data)
        data["text/plain"] = HINT  # what a front end without widgets shows instead
        display(data, raw=True)


def _worth_asking(error: BaseException) -> bool:
    """A cell's own error: not a stop (KeyboardInterrupt, SystemExit) or a magic's usage error."""
    if not isinstance(error, Exception):
        return False
    from IPython.core.error import UsageError

    return not isinstance(error, UsageError)


class ErrorButton:
    """One error's button. Its clicks may arrive on another thread (a kernel subshell): what they
    do runs on the kernel's loop, where the chat's runs live."""

    def __init__(self, error: CellError) -> None:
        import ipywidgets  # type: ignore[import-untyped]

        self.error = error
        self._loop = running_loop()
        self.button = ipywidgets.Button(
            description=ASK,
            tooltip="Sends the chat shown last this error and the cell's source",
            layout=ipywidgets.Layout(width="auto"),
        )
        self.button.on_click(self._clicked)

    def _clicked(self, _button: Any) -> None:
        if not on_loop(self._loop, self.ask):  # the kernel's loop is gone: try from here
            self.ask()

    def ask(self) -> None:
        """Send the error to the chat shown last; the button says how that went, nothing raises."""
        button = self.button
        chat = chat_shown_last()
        if chat is None:
            button.description = NO_CHAT
            return
        try:
            send_error(chat, self.error)
        except Exception as exc:  # the chat refused it (busy switching threads, closed...): said, not raised
            button.description = f"The chat could not take it: {exc}"[:160]
            return
        with button.hold_sync():  # one update: a view never shows it sent yet clickable
            button.description = SENT
            button.disabled = True


__all__ = ["ASK", "HINT", "NO_CHAT", "SENT", "CellError", "ErrorButton", "ErrorButtons", "ask_about_error", "cell_error"]
