"""Langroid agents and tasks as AG-UI agents.

``as_agent`` imports this module only when it is given a Langroid object; the implementation and
its hooks live in :mod:`agui_widget.adapters.langroid`.
"""

from __future__ import annotations

from typing import Any

from .langroid import LangroidAgent


def langroid_agent(obj: Any) -> LangroidAgent:
    """The AG-UI agent for a Langroid ``ChatAgent`` or ``Task`` (what ``AgentChat(obj)`` runs)."""
    if isinstance(obj, LangroidAgent):
        return obj
    try:
        return LangroidAgent(obj)
    except TypeError as exc:
        from . import ACCEPTED

        raise TypeError(f"{exc}.\n\n{ACCEPTED}") from None


__all__ = ["LangroidAgent", "langroid_agent"]
