"""The agents an app serves, each under a name that is its URL segment.

``create_app`` takes what ``AgentChat`` takes, or a dict of them by name; this turns either into
the served agents, refusing a name no URL could carry before any route exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..adapters import Agent, as_agent

__all__ = ["DEFAULT_NAME", "DEMO_DESCRIPTION", "ServedAgent", "served_agents"]

DEFAULT_NAME = "agent"
"""The name a single agent is listed under when it has none of its own."""

DEMO_DESCRIPTION = "The built-in demo agent: scripted, offline; say help."


@dataclass
class ServedAgent:
    """One agent of the app: its name (its URL segment), a description, and what runs."""

    name: str
    description: str
    agent: Agent


def served_agents(agent_or_agents: Any, descriptions: Mapping[str, str]) -> dict[str, ServedAgent]:
    """Name → agent; every value goes through ``as_agent`` (so the same things are accepted)."""
    if isinstance(agent_or_agents, Mapping):
        if not agent_or_agents:
            raise ValueError("create_app({}) has no agent to serve")
        served: dict[str, ServedAgent] = {}
        for name, obj in agent_or_agents.items():
            if not isinstance(name, str) or not name or "/" in name:
                raise ValueError(f"agent names are URL segments: {name!r} is not a usable name")
            served[name] = ServedAgent(name, descriptions.get(name) or _description(obj), as_agent(obj))
        return served
    agent = as_agent(agent_or_agents)
    if agent_or_agents is None:
        name, description = "demo", DEMO_DESCRIPTION
    else:
        name = getattr(agent, "name", None)
        name = name if isinstance(name, str) and name and "/" not in name else DEFAULT_NAME
        description = _description(agent_or_agents) or _description(agent)
    return {name: ServedAgent(name, descriptions.get(name) or description, agent)}


def _description(obj: Any) -> str:
    text = getattr(obj, "description", None)
    return text if isinstance(text, str) else ""
