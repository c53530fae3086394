"""The chat shown last: where ``%%chat`` and the "Ask the chat about this error" button send when
no chat is named (``agui_widget.notebook``).

``AgentChat._ipython_display_`` notes each chat as it is shown, whether by ``display(chat)`` or as a
cell's last expression: IPython's formatter calls ``_ipython_display_`` first in both cases, so
``_repr_mimebundle_`` is never reached for a chat in a kernel. The reference is weak, so noting a
chat never keeps it alive, and a chat closed since (``chat.close()``) is no longer the one.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._widget import AgentChat

_last: list[weakref.ref[AgentChat]] = []
"""The chat shown last, as a weak reference (empty until one is shown)."""


def note_shown(chat: AgentChat) -> None:
    """``chat`` was just shown in an output."""
    _last[:] = [weakref.ref(chat)]


def chat_shown_last() -> AgentChat | None:
    """The chat most recently shown in an output, while it lives and is open; None otherwise."""
    chat = _last[0]() if _last else None
    if chat is None or getattr(chat, "comm", None) is None:
        return None
    return chat


__all__ = ["chat_shown_last", "note_shown"]
