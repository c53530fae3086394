"""Langroid agents and tasks as AG-UI agents (the adapter lives in ``adapters/langroid/``)."""

from __future__ import annotations

from typing import Any

from .langroid import (
    LangroidAgent,
    StateContextBuilder,
    StateUpdate,
    ToolBehavior,
    ToolCallContext,
    ToolContext,
    ToolResultContext,
    current_tool_context,
    state_as_context,
    tool_context,
)


def langroid_agent(obj: Any) -> LangroidAgent:
    """The AG-UI agent for a Langroid ``ChatAgent`` or ``Task`` (what ``AgentChat(obj)`` runs)."""
    if isinstance(obj, LangroidAgent):
        return obj
    try:
        return LangroidAgent(obj)
    except TypeError as exc:
        from . import ACCEPTED

        raise TypeError(f"{exc}.\n\n{ACCEPTED}") from None


__all__ = [
    "LangroidAgent",
    "StateContextBuilder",
    "StateUpdate",
    "ToolBehavior",
    "ToolCallContext",
    "ToolContext",
    "ToolResultContext",
    "current_tool_context",
    "langroid_agent",
    "state_as_context",
    "tool_context",
]
