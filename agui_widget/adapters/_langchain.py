"""LangChain chat models, Runnables and LangGraph graphs as AG-UI agents.

``as_agent`` imports this module only when it is given a LangChain or LangGraph object; the
implementation lives in :mod:`agui_widget.adapters.langchain`.
"""

from __future__ import annotations

from .langchain import LangChainAgent, langchain_agent

__all__ = ["LangChainAgent", "langchain_agent"]
