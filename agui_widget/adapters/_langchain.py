"""LangChain chat models, Runnables and LangGraph graphs as AG-UI agents."""

from __future__ import annotations

from typing import Any


def langchain_agent(obj: Any) -> Any:
    """The AG-UI agent for a LangChain chat model, Runnable or LangGraph graph."""
    from . import ACCEPTED

    raise TypeError(
        "LangChain objects are not supported by this version of agui-widget yet; ag-ui-langgraph's "
        "LangGraphAgent(graph=...) works today.\n\n" + ACCEPTED
    )
