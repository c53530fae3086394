"""Langroid agents in AG-UI: :class:`LangroidAgent` and the hooks it takes.

Importing this package does not import Langroid (``import agui_widget`` stays fast); Langroid is
loaded when a ``LangroidAgent`` is created. ``agui_widget.adapters.langroid.mock`` (a scripted,
streaming stand-in for a model, for offline demos and tests) does import Langroid.
"""

from ..._tiktoken import seed_tiktoken_cache
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

__all__ = [
    "LangroidAgent",
    "StateContextBuilder",
    "StateUpdate",
    "ToolBehavior",
    "ToolCallContext",
    "ToolContext",
    "ToolResultContext",
    "current_tool_context",
    "seed_tiktoken_cache",
    "state_as_context",
    "tool_context",
]
