"""AG-UI tools as the tool specs LangChain binds, and the name of a tool in any of its shapes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ag_ui.core import Tool

ToolSpec = dict[str, Any]
"""An OpenAI-style function tool: ``{"type": "function", "function": {name, description, parameters}}``."""


def tool_specs(tools: Iterable[Tool], *, exclude: Iterable[str] = ()) -> list[ToolSpec]:
    """AG-UI tools as OpenAI-style function tools, which every LangChain ``bind_tools`` accepts.
    A tool named in ``exclude`` is left out: a tool of the agent's own has that name, and wins."""
    skip = set(exclude)
    specs = []
    for tool in tools:
        if tool.name in skip:
            continue
        parameters = tool.parameters if isinstance(tool.parameters, dict) else {"type": "object", "properties": {}}
        specs.append(
            {"type": "function", "function": {"name": tool.name, "description": tool.description or "", "parameters": parameters}}
        )
    return specs


def spec_name(spec: object) -> str | None:
    """The name of a tool in any of the shapes LangChain passes around (a spec dict, or anything
    with a ``name``, such as a ``BaseTool``); None when it has none."""
    if isinstance(spec, dict):
        function = spec.get("function")
        if isinstance(function, dict):
            return function.get("name")
        return spec.get("name")
    return getattr(spec, "name", None)
