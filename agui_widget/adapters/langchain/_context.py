"""What one AG-UI run hands to the LangChain code it runs: the frontend tools, the context and the
forwarded props.

The adapter puts a :class:`RunContext` into ``config["configurable"]["agui"]``; LangChain and
LangGraph pass the config down to every node, model call and tool, where :func:`run_context`
finds it. Nothing about the UI is stored in the agent's state or its checkpoints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import Context, Tool
from langchain_core.runnables import RunnableConfig

from ...vocabulary._content import context_text
from ._tool_specs import ToolSpec, tool_specs

CONFIG_KEY = "agui"


@dataclass(frozen=True)
class RunContext:
    """The AG-UI side of one run: ids, the frontend tools, the application's context, and the
    run's ``forwardedProps`` (all of them, for your own nodes and tools to read) with the model
    settings the adapter took from them (``model``, ``temperature``, ``max_tokens``, ``top_p``,
    ``stop``: the checked values it applies)."""

    thread_id: str = ""
    run_id: str = ""
    tools: Sequence[Tool] = field(default_factory=tuple)
    context: Sequence[Context] = field(default_factory=tuple)
    forwarded_props: Mapping[str, Any] = field(default_factory=dict)
    model_settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def tool_names(self) -> frozenset[str]:
        return frozenset(tool.name for tool in self.tools)

    def tool_specs(self, exclude: Sequence[str] = ()) -> list[ToolSpec]:
        return tool_specs(self.tools, exclude=exclude)

    def context_text(self) -> str | None:
        return context_text(self.context) if self.context else None


def run_context(config: RunnableConfig | None = None) -> RunContext | None:
    """The current AG-UI run's context, from ``config`` or from the LangGraph/LangChain context."""
    if config is None:
        try:
            from langchain_core.runnables.config import var_child_runnable_config

            config = var_child_runnable_config.get()
        except Exception:  # pragma: no cover - outside any runnable
            config = None
    if not isinstance(config, dict):
        return None
    found = (config.get("configurable") or {}).get(CONFIG_KEY)
    return found if isinstance(found, RunContext) else None


def frontend_tools(config: RunnableConfig | None = None) -> list[ToolSpec]:
    """The frontend tools of the current AG-UI run, as tool dicts any ``bind_tools`` accepts.

    For your own graph nodes: ``model.bind_tools([*my_tools, *frontend_tools(config)])``. When the
    model calls one, end the run (route to ``END``); the chat answers it and runs the agent again.
    """
    context = run_context(config)
    return context.tool_specs() if context else []
