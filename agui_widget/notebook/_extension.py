"""``%load_ext agui_widget``: the ``chat`` magics and the error button, added to a shell and taken
back out.

Loading again is harmless (nothing is added twice). Unloading (``%unload_ext agui_widget``) removes
the error callback and puts back whatever ``chat`` magic the shell had before, or none.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass, field
from typing import Any

from ._errors import ErrorButtons
from ._magics import chat_magic

MAGIC = "chat"
_NONE = object()
"""Stands for "the shell had no such magic" among what loading replaced."""


@dataclass
class _Loaded:
    """What loading added to one shell, and what it replaced there."""

    magic: Any
    hook: ErrorButtons
    replaced: dict[str, Any] = field(default_factory=dict)
    """The shell's ``chat`` magic of each kind (line, cell) before, and its user-magics attribute."""


_loaded: weakref.WeakKeyDictionary[Any, _Loaded] = weakref.WeakKeyDictionary()


def load_ipython_extension(ip: Any) -> None:
    """Add ``%chat`` / ``%%chat`` and the "Ask the chat about this error" button to the shell ``ip``."""
    if ip in _loaded:
        return
    manager = ip.magics_manager
    replaced = {kind: manager.magics[kind].get(MAGIC, _NONE) for kind in ("line", "cell")}
    replaced["attribute"] = getattr(manager.user_magics, MAGIC, _NONE)
    magic = chat_magic(ip)
    hook = ErrorButtons(ip)
    ip.register_magic_function(magic, "line_cell", MAGIC)
    ip.events.register("post_run_cell", hook)
    _loaded[ip] = _Loaded(magic, hook, replaced)


def unload_ipython_extension(ip: Any) -> None:
    """Take out of ``ip`` what :func:`load_ipython_extension` added, and put back what it replaced."""
    loaded = _loaded.pop(ip, None)
    if loaded is None:
        return
    with contextlib.suppress(ValueError):  # unregistered by someone else meanwhile
        ip.events.unregister("post_run_cell", loaded.hook)
    manager = ip.magics_manager
    for kind in ("line", "cell"):
        table = manager.magics[kind]
        if table.get(MAGIC) is not loaded.magic:  # replaced since by another: it stays
            continue
        before = loaded.replaced[kind]
        if before is _NONE:
            del table[MAGIC]
        else:
            table[MAGIC] = before
    if getattr(manager.user_magics, MAGIC, None) is loaded.magic:
        before = loaded.replaced["attribute"]
        if before is _NONE:
            delattr(manager.user_magics, MAGIC)
        else:
            setattr(manager.user_magics, MAGIC, before)


__all__ = ["load_ipython_extension", "unload_ipython_extension"]
