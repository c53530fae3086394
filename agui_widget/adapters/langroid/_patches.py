"""Attributes set on Langroid objects for one run and put back afterwards, however it ends: a Task
is observed through seams it calls through, never changed for good. Needs no Langroid."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any


class Patches:
    """Attributes set for the run, put back afterwards (instance attributes removed again)."""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []

    def set(self, obj: Any, name: str, value: Any) -> None:
        had = name in getattr(obj, "__dict__", {})
        old = obj.__dict__.get(name) if had else None

        def undo() -> None:
            if had:
                setattr(obj, name, old)
            else:
                with contextlib.suppress(AttributeError):
                    delattr(obj, name)

        setattr(obj, name, value)
        self._undo.append(undo)

    def item(self, mapping: dict[Any, Any], key: Any, value: Any) -> None:
        """Set ``mapping[key]`` for the run."""
        old = mapping[key]
        mapping[key] = value
        self._undo.append(lambda: mapping.__setitem__(key, old))

    def restore(self) -> None:
        while self._undo:
            self._undo.pop()()
