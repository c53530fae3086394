"""``agui_middleware()``: AG-UI inside a ``create_agent`` agent, with the agent's own hooks.

- ``wrap_model_call`` gives the model the frontend tools of the AG-UI run (``RunAgentInput.tools``)
  next to the agent's own, the application's context in the system prompt, and the run's call
  settings (``temperature``, ``max_tokens``, ``top_p``, ``stop`` from its forwarded props) in the
  request's ``model_settings``, where another middleware's entries win;
- ``after_model`` / ``before_model`` end the run when the model called a frontend tool, so the
  call stays pending for the UI (the AG-UI standard flow: the chat answers, then runs the agent
  again with the result); ``wrap_tool_call`` keeps the tool node from failing on those calls;
- ``wrap_tool_call`` also lets a tool return a rich object (a matplotlib Figure, a pandas
  DataFrame, anything IPython can display): LangChain would send the model ``str(obj)``; here the
  model gets the object's text (a DataFrame's table) and the ToolMessage's ``artifact`` its MIME
  bundle, which the chat shows;
- ``before_agent`` ... ``after_agent`` map the agent's state keys to AG-UI state when the agent
  runs under an :class:`~agui_widget.adapters.langchain.AGUICallbackHandler` (code that runs the
  agent itself). Under :class:`~agui_widget.adapters.langchain.LangChainAgent` (``AgentChat``)
  the adapter reads the state from the graph's stream instead.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from ag_ui.core import Tool
from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
    hook_config,
)
from langchain_core.callbacks import BaseCallbackManager
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.messages.tool import ToolOutputMixin
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.tools import Tool as SimpleTool

from ...inputs._tools import FrontendTool, coerce_tools
from ...vocabulary._display import rich_output
from ._context import RunContext, run_context
from ._options import AGUIOptions, make_options
from ._settings import call_settings
from ._tool_specs import spec_name

log = logging.getLogger("agui_widget")


class AGUIMiddleware(AgentMiddleware):
    """Frontend tools, pending calls and shared state for a ``create_agent`` agent.

    ``options``: :class:`AGUIOptions` (or its fields as keywords); an adapter running this agent
    without options of its own uses these. ``frontend_tools``: tools offered on every run even
    when no AG-UI run supplies them (for code that runs the agent itself).
    """

    def __init__(
        self,
        options: AGUIOptions | dict[str, Any] | None = None,
        *,
        frontend_tools: Iterable[FrontendTool | Tool | dict[str, Any]] = (),
        **option_kwargs: Any,
    ) -> None:
        super().__init__()
        self.options = make_options(options, **option_kwargs)
        self.frontend_tools: tuple[Tool, ...] = tuple(t.to_agui() for t in coerce_tools(frontend_tools))
        self._backend_names: set[str] = set()
        self._warned: set[str] = set()
        self._showing: dict[int, tuple[BaseTool, BaseTool]] = {}

    # -- the run's frontend tools ---------------------------------------------------------------

    def _context(self) -> RunContext:
        found = run_context()
        if not self.frontend_tools:
            return found or RunContext()
        if found is None:
            return RunContext(tools=self.frontend_tools)
        names = found.tool_names
        extra = tuple(t for t in self.frontend_tools if t.name not in names)
        return dataclasses.replace(found, tools=(*found.tools, *extra))

    def _frontend_names(self) -> frozenset[str]:
        return self._context().tool_names - self._backend_names

    def _request(self, request: ModelRequest) -> ModelRequest:
        context = self._context()
        backend = {name for name in (spec_name(t) for t in request.tools) if name}
        self._backend_names |= backend
        overrides: dict[str, Any] = {}
        clashes = (context.tool_names & backend) - self._warned
        if clashes:
            self._warned |= clashes
            log.warning("agui-widget: frontend tools %s have the names of backend tools; the backend tools win", sorted(clashes))
        specs = [spec for spec in context.tool_specs() if spec_name(spec) not in backend]
        if specs:
            overrides["tools"] = [*request.tools, *specs]
        text = context.context_text()
        if text:
            current = request.system_message.text if request.system_message is not None else ""
            overrides["system_message"] = SystemMessage(content=f"{current}\n\n{text}" if current else text)
        settings = call_settings(context.model_settings, taken=request.model_settings)
        if settings:
            overrides["model_settings"] = {**request.model_settings, **settings}
        return request.override(**overrides) if overrides else request

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return handler(self._request(request))

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> Any:
        return await handler(self._request(request))

    # -- ending the run with frontend calls pending ---------------------------------------------

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        if request.tool is None and request.tool_call["name"] in self._context().tool_names:
            return []  # no result: the chat answers this call
        return handler(self._showing_rich(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        if request.tool is None and request.tool_call["name"] in self._context().tool_names:
            return []
        return await handler(self._showing_rich(request))

    # -- rich tool returns ------------------------------------------------------------------------

    def _showing_rich(self, request: Any) -> Any:
        """The request with its tool swapped for one whose rich returns are shown (see
        :func:`_rich_returns`); tools of other kinds, and ``content_and_artifact`` ones, run as they are."""
        tool = request.tool
        if not isinstance(tool, (StructuredTool, SimpleTool)) or tool.response_format != "content":
            return request
        cached = self._showing.get(id(tool))
        if cached is None or cached[0] is not tool:
            cached = self._showing[id(tool)] = (tool, _rich_returns(tool))
        return request.override(tool=cached[1])

    def _pending_frontend_calls(self, state: Any, *, only_frontend: bool) -> bool:
        messages = state.get("messages") if isinstance(state, dict) else getattr(state, "messages", None)
        if not messages:
            return False
        frontend = self._frontend_names()
        if not frontend:
            return False
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if isinstance(message, AIMessage):
                calls = message.tool_calls
                if not calls:
                    return False
                answered = {m.tool_call_id for m in messages[index + 1 :] if isinstance(m, ToolMessage)}
                pending = [c for c in calls if c.get("id") not in answered]
                if only_frontend:
                    return bool(pending) and all(c["name"] in frontend for c in pending)
                return any(c["name"] in frontend for c in pending)
        return False

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        _emit_state(state, "step", self.options)
        if self._pending_frontend_calls(state, only_frontend=True):
            return {"jump_to": "end"}
        return None

    @hook_config(can_jump_to=["end"])
    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.after_model(state, runtime)

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        _emit_state(state, "step", self.options)
        if self._pending_frontend_calls(state, only_frontend=False):
            return {"jump_to": "end"}  # backend tools ran; the frontend ones wait for the chat
        return None

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.before_model(state, runtime)

    # -- state, for code that runs the agent under an AGUICallbackHandler -------------------------

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        _emit_state(state, "start", self.options)
        return None

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.before_agent(state, runtime)

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        _emit_state(state, "end", self.options)
        return None

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.after_agent(state, runtime)


def _rich_returns(tool: StructuredTool | SimpleTool) -> BaseTool:
    """A copy of ``tool`` that answers ``(text for the model, MIME bundle)`` when its function
    returns a rich object, and ``(value, None)`` otherwise, so LangChain builds the same
    ToolMessage as before with the bundle as its ``artifact`` (JSON-ready, so any checkpointer
    stores it)."""

    def split(value: Any) -> tuple[Any, Any]:
        if isinstance(value, ToolOutputMixin):
            return value, None
        output = rich_output(value)
        return (value, None) if output is None else (output[1], output[0])

    update: dict[str, Any] = {"response_format": "content_and_artifact"}
    func, coroutine = tool.func, tool.coroutine
    if func is not None:

        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
            return split(func(*args, **kwargs))

        update["func"] = run
    if coroutine is not None and inspect.iscoroutinefunction(coroutine):

        @functools.wraps(coroutine)
        async def arun(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
            return split(await coroutine(*args, **kwargs))

        update["coroutine"] = arun
    elif coroutine is not None:
        return tool  # an unusual awaitable factory: left alone
    return tool.model_copy(update=update)


def _emit_state(state: Any, phase: str, options: AGUIOptions) -> None:
    """Hand the agent's state to the AG-UI callback handlers of this run, if any."""
    try:
        from langchain_core.runnables.config import var_child_runnable_config

        config = var_child_runnable_config.get() or {}
    except Exception:  # pragma: no cover
        return
    callbacks = config.get("callbacks")
    handlers = callbacks.handlers if isinstance(callbacks, BaseCallbackManager) else callbacks or ()
    from ._callbacks import AGUICallbackHandler

    for handler in handlers:
        if isinstance(handler, AGUICallbackHandler):
            handler.agent_state(state, phase, options)


def agui_middleware(
    options: AGUIOptions | dict[str, Any] | None = None,
    *,
    frontend_tools: Iterable[FrontendTool | Tool | dict[str, Any]] = (),
    **option_kwargs: Any,
) -> AGUIMiddleware:
    """The AG-UI middleware for your own ``create_agent(..., middleware=[agui_middleware()])``.

    Options are validated here, when the agent is built: ``agui_middleware(emit_state="final")``.
    """
    return AGUIMiddleware(options, frontend_tools=frontend_tools, **option_kwargs)


def create_agui_agent(
    model: Any,
    tools: Sequence[Any] | None = None,
    *,
    middleware: Sequence[AgentMiddleware] = (),
    agui: AGUIOptions | dict[str, Any] | None = None,
    sink: Any = None,
    **kwargs: Any,
) -> Any:
    """``create_agent`` with the AG-UI middleware added (once); every other argument is LangChain's.

    ``AgentChat(create_agui_agent("openai:gpt-4o-mini", tools=[...]))``. ``agui``: the options.
    ``sink``: for code that runs the agent itself, an :class:`AGUICallbackHandler` delivering to
    it is bound to the agent (``with_config``), so every ``invoke``/``stream`` call emits AG-UI
    events with nothing passed per call.
    """
    found = next((m for m in middleware if isinstance(m, AGUIMiddleware)), None)
    agui_mw = found or AGUIMiddleware(agui)
    extra = [] if found else [agui_mw]
    agent = create_agent(model, tools, middleware=[*middleware, *extra], **kwargs)
    if sink is None:
        return agent
    from ._callbacks import AGUICallbackHandler

    handler = AGUICallbackHandler(sink, agui_mw.options, frontend_tools=agui_mw.frontend_tools)
    return agent.with_config(callbacks=[handler])
