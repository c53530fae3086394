"""Langroid agents and tasks as AG-UI agents."""

from __future__ import annotations

from typing import Any


def langroid_agent(obj: Any) -> Any:
    """The AG-UI agent for a Langroid ``ChatAgent`` or ``Task``."""
    from . import ACCEPTED

    raise TypeError(
        "Langroid agents are not supported by this version of agui-widget yet. Meanwhile, wrap your agent "
        "in a function: AgentChat(lambda messages: agent.llm_response(messages[-1]['content']).content).\n\n" + ACCEPTED
    )
