"""The chat's frontend tools (``RunAgentInput.tools``) as Langroid tools, installed on the agent for
one run and taken off again, however the run ends, so the agent is left as it was found; the run's
model settings (from ``RunAgentInput.forwardedProps``, see ``_settings``) likewise.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
from typing import Any

from ag_ui.core import RunAgentInput, Tool
from langroid.agent.chat_agent import ChatAgent
from langroid.agent.tool_message import ToolMessage
from langroid.language_models.base import LLMFunctionSpec

from ._patches import Patches
from ._settings import apply_model_settings, model_settings

log = logging.getLogger("agui_widget")


def frontend_tool_class(tool: Tool) -> type[ToolMessage]:
    """A Langroid ToolMessage class for an AG-UI tool: the model gets its JSON schema as given."""
    key = json.dumps(
        {"name": tool.name, "description": tool.description, "parameters": tool.parameters}, sort_keys=True, default=str
    )
    return _frontend_tool_class(key)


@functools.lru_cache(maxsize=256)
def _frontend_tool_class(key: str) -> type[ToolMessage]:
    spec = json.loads(key)
    name: str = spec["name"]
    description: str = spec.get("description") or f"The {name} tool."
    parameters = spec.get("parameters")
    schema: dict[str, Any] = parameters if isinstance(parameters, dict) else {}
    schema = {"type": "object", "properties": {}, **schema}

    class FrontendTool(ToolMessage):
        __agui_frontend__ = True  # installed on an agent for one run only
        request: str = name
        purpose: str = description

        @classmethod
        def llm_function_schema(cls, request: bool = False, defaults: bool = True) -> LLMFunctionSpec:
            params = copy.deepcopy(schema)
            if request:
                params["properties"] = {"request": {"type": "string", "enum": [name]}, **params.get("properties", {})}
                params["required"] = [*params.get("required", []), "request"]
            return LLMFunctionSpec(name=name, description=description, parameters=params)

    FrontendTool.__name__ = FrontendTool.__qualname__ = f"FrontendTool_{name}"
    FrontendTool.__doc__ = description
    return FrontendTool


class AgentSetup:
    """What a run changes on the agent (its frontend tools, its model settings, the streaming
    callback), undone when the run ends, however it ends."""

    def __init__(self, agent: ChatAgent) -> None:
        self.agent = agent
        self.force = agent.llm_function_force
        self.callback = agent.callbacks.start_llm_stream_async
        """The agent's own streaming callback, put back after every model call and at the end."""
        self.added: list[str] = []
        self.frontend: set[str] = set()
        """The names of the frontend tools installed (the calls the client is to answer)."""
        self._patches = Patches()
        """The run's model settings on the agent (see ``_settings``)."""

    def apply(self, input: RunAgentInput) -> None:
        agent = self.agent
        for tool in input.tools or ():
            if tool.name in agent.llm_tools_map:
                log.warning(
                    "agui-widget: the frontend tool %r has the name of one of the agent's own tools; the agent's is used",
                    tool.name,
                )
                continue
            self.added.append(tool.name)
            agent.enable_message(frontend_tool_class(tool), use=True, handle=True)
            agent.disable_strict_tools_set.add(tool.name)  # an arbitrary schema may not meet strict mode
            self.frontend.add(tool.name)
        agent.llm_function_force = self.force  # enable_message resets a forced tool
        apply_model_settings(agent, model_settings(input.forwarded_props), self._patches)

    def undo(self) -> None:
        agent = self.agent
        self._patches.restore()
        for name in self.added:
            agent.llm_tools_map.pop(name, None)
            agent.llm_functions_map.pop(name, None)
            for group in (
                agent.llm_tools_known,
                agent.llm_tools_handled,
                agent.llm_tools_usable,
                agent.llm_functions_handled,
                agent.llm_functions_usable,
                agent.disable_strict_tools_set,
            ):
                group.discard(name)
        if self.added:
            agent._update_tool_instructions()
        agent.llm_function_force = self.force
        agent.callbacks.start_llm_stream_async = self.callback
