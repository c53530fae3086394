"""Langroid agents in AG-UI: :class:`LangroidAgent` and the hooks it takes.

Importing this package does not import Langroid (``import agui_widget`` stays fast); Langroid is
loaded when a ``LangroidAgent`` is created. ``agui_widget.adapters.langroid.mock`` (a scripted,
streaming stand-in for a model, for offline demos and tests) does import Langroid.
"""

from typing import Any

from ._adapter import LangroidAgent
from ._hooks import (
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
from ._tiktoken import seed_tiktoken_cache


def agent_for(obj: Any) -> LangroidAgent:
    """The AG-UI agent for a Langroid ``ChatAgent`` or ``Task`` (what ``AgentChat(obj)`` runs)."""
    if isinstance(obj, LangroidAgent):
        return obj
    try:
        return LangroidAgent(obj)
    except TypeError as exc:
        from .. import ACCEPTED

        raise TypeError(f"{exc}.\n\n{ACCEPTED}") from None


__all__ = [
    "LangroidAgent",
    "StateContextBuilder",
    "StateUpdate",
    "ToolBehavior",
    "ToolCallContext",
    "ToolContext",
    "ToolResultContext",
    "agent_for",
    "current_tool_context",
    "seed_tiktoken_cache",
    "state_as_context",
    "tool_context",
]
