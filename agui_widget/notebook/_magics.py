"""``%%chat`` and ``%chat``: a cell's text sent to a chat, its answer streaming into the cell's output.

``%%chat`` sends the cell's text to the chat shown last, ``%%chat NAME`` to the chat held in the
variable ``NAME`` (``NAME.attr`` too), and ``%chat text`` sends one line to the chat shown last.
The message goes through ``chat.send``, so the turn is in the chat's transcript like any other,
and the chat's views show it as it streams. The magic returns nothing: the answer is a display
kept in step with the run (``_answer``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..chat._shown import chat_shown_last
from ._answer import show_answer

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..chat._widget import AgentChat

_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")

NO_CHAT_SHOWN = "no chat has been shown yet: show one (a cell ending with the chat, or display(chat)), or name one: %%chat NAME"


def chat_magic(shell: InteractiveShell) -> Callable[..., None]:
    """The ``chat`` line and cell magic for ``shell``."""

    def chat(line: str, cell: str | None = None) -> None:
        """Send text to a chat; its answer streams into this cell's output.

        %%chat          the cell's text, to the chat shown last
        %%chat NAME     the cell's text, to the chat held in the variable NAME
        %chat TEXT      one line, to the chat shown last

        The turn is in the chat's transcript, as if typed in the chat.
        """
        if cell is None:
            text, target, usage = line, chat_shown_last(), "%chat"
        else:
            text, target, usage = cell, named_chat(shell, line), "%%chat"
        if target is None:
            raise UsageError(f"{usage}: {NO_CHAT_SHOWN}")
        if not text.strip():
            raise UsageError(f"{usage}: there is no text to send" + (" (%chat TEXT)" if cell is None else " (the cell is empty)"))
        try:
            run = target.send(text.strip() if cell is None else text.strip("\n").rstrip())
        except (ValueError, RuntimeError) as exc:
            raise UsageError(f"{usage}: {exc}") from None
        show_answer(run, shell)

    chat._ipython_magic_no_var_expand = True  # type: ignore[attr-defined]  # %chat's text is sent as typed
    return chat


def named_chat(shell: Any, line: str) -> AgentChat | None:
    """The chat ``%%chat NAME`` names (None for no name: the chat shown last)."""
    from ..chat._widget import AgentChat

    name = line.strip()
    if not name:
        return chat_shown_last()
    if not _NAME.fullmatch(name):
        raise UsageError(f"%%chat takes the name of a variable holding a chat (%%chat NAME), or nothing; not {name!r}")
    head, *attributes = name.split(".")
    namespace = shell.user_ns
    if head not in namespace:
        raise UsageError(f"%%chat: there is no variable {head!r} in the notebook")
    value = namespace[head]
    for attribute in attributes:
        if not hasattr(value, attribute):
            raise UsageError(f"%%chat: {name!r}: {type(value).__name__} has no attribute {attribute!r}")
        value = getattr(value, attribute)
    if not isinstance(value, AgentChat):
        raise UsageError(f"%%chat: {name!r} is not an AgentChat (its type is {type(value).__name__})")
    return value


__all__ = ["NO_CHAT_SHOWN", "chat_magic", "named_chat"]
