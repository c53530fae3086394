"""LangChain and LangGraph as AG-UI agents: chat models, Runnables and ``create_agent`` graphs.

Importing this package imports LangChain; ``agui_widget`` itself only does so when a LangChain
object is handed to ``AgentChat``. What is here:

- :class:`LangChainAgent`: the adapter ``AgentChat`` uses for any LangChain object;
- :func:`agui_middleware` / :class:`AGUIMiddleware`: frontend tools, pending calls and shared
  state inside your own ``create_agent(...)``; :func:`create_agui_agent` adds it for you;
- :class:`AGUICallbackHandler`: AG-UI events from code that runs a model or agent itself;
- :class:`AGUIOptions`: the options, validated when any of the above is created;
- :func:`frontend_tools`: the current run's frontend tools, for your own graph nodes;
- :class:`ScriptedChatModel`: an offline chat model that streams text, reasoning and tool calls.
"""

from ._agent import LangChainAgent, langchain_agent
from ._callbacks import AGUICallbackHandler
from ._context import RunContext, frontend_tools, run_context
from ._fake import ScriptedChatModel
from ._middleware import AGUIMiddleware, agui_middleware, create_agui_agent
from ._options import AGUIOptions

agent_for = langchain_agent
"""The AG-UI agent for a LangChain chat model, Runnable or LangGraph graph (what ``AgentChat(obj)`` runs)."""

__all__ = [
    "AGUICallbackHandler",
    "AGUIMiddleware",
    "AGUIOptions",
    "LangChainAgent",
    "RunContext",
    "ScriptedChatModel",
    "agent_for",
    "agui_middleware",
    "create_agui_agent",
    "frontend_tools",
    "langchain_agent",
    "run_context",
]
