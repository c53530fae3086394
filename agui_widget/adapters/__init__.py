"""Adapters: anything that turns a ``RunAgentInput`` into AG-UI events.

The contract is one method, ``run(input: RunAgentInput) -> AsyncIterator[BaseEvent]`` (ag_ui.core
types). ag-ui-langgraph's ``LangGraphAgent``, ag-ui-adk's ``ADKAgent`` and ag-ui-langroid's
``LangroidAgent`` already have it and plug in unchanged. :func:`as_agent` recognises what a user
hands to ``AgentChat`` and wraps it when it needs wrapping.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import AsyncIterator, Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from ag_ui.core import BaseEvent, RunAgentInput

from ._base import AgentAdapter, EventStream
from ._callable import CallableAgent
from ._demo import DemoAgent

if TYPE_CHECKING:
    from ._remote import RemoteAgent
    from ._replay import ReplayAgent


@runtime_checkable
class Agent(Protocol):
    """What the session runs: an AG-UI event producer."""

    def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]: ...


class FunctionAgent:
    """An AG-UI agent from a function ``input -> AsyncIterator[BaseEvent]``.

    The one-line wrap for producers that are functions rather than objects, e.g. pydantic-ai::

        AgentChat(FunctionAgent(lambda input: AGUIAdapter(agent=my_agent, run_input=input).run_stream()))
    """

    def __init__(self, fn: Callable[[RunAgentInput], AsyncIterator[BaseEvent]]) -> None:
        self.fn = fn

    def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        return self.fn(input)


ACCEPTED = """AgentChat(agent) accepts:
  - nothing (None): the built-in demo agent;
  - a Langroid ChatAgent or Task;
  - a LangChain chat model, Runnable, or LangGraph graph (create_agent agents included);
  - any object with run(input: RunAgentInput) -> AsyncIterator[BaseEvent] (an AG-UI agent, e.g.
    ag-ui-langgraph's LangGraphAgent or ag-ui-adk's ADKAgent), or FunctionAgent(fn) for a function
    that returns such an iterator;
  - the URL of an AG-UI endpoint ("http://host:port/path"), or RemoteAgent(url, headers=..., timeout=...);
  - a plain callable of the transcript: def f(messages) -> str, an async function, or a sync or
    async generator yielding text chunks."""


class Framework(NamedTuple):
    """A framework whose objects ``AgentChat`` runs through an adapter of ours.

    Adding a framework is one entry in :data:`FRAMEWORKS` (and its adapter package, which defines
    ``agent_for(obj)``). The adapter is imported only when an object of the framework is given,
    or one of its ``exports`` is read from this package: frameworks take seconds to import.
    """

    name: str
    packages: tuple[str, ...]
    """Where its classes live: module name prefixes (a user's subclass counts through its bases)."""
    exports: tuple[str, ...] = ()
    """What ``agui_widget.adapters`` offers from the adapter package."""

    def adapter(self) -> ModuleType:
        return importlib.import_module(f".{self.name}", __name__)


FRAMEWORKS = (
    Framework(
        "langroid",
        ("langroid",),
        (
            "LangroidAgent", "ToolBehavior", "ToolCallContext", "ToolResultContext", "ToolContext",
            "tool_context", "current_tool_context", "state_as_context",
        ),
    ),
    Framework(
        "langchain",
        ("langchain", "langgraph"),
        ("LangChainAgent", "agui_middleware", "AGUIMiddleware", "create_agui_agent", "AGUICallbackHandler", "AGUIOptions"),
    ),
)  # fmt: skip


def as_agent(obj: Any) -> Agent:
    """The agent to run for what the user passed, or a TypeError that lists what is accepted."""
    if obj is None:
        return DemoAgent()
    for framework in FRAMEWORKS:
        if _comes_from(obj, *framework.packages):
            agent: Agent = framework.adapter().agent_for(obj)
            return agent
    if isinstance(obj, str):
        if obj.startswith(("http://", "https://")):
            from ._remote import RemoteAgent

            return RemoteAgent(obj)
        raise TypeError(f"AgentChat({obj!r}): a string must be the http(s):// URL of an AG-UI endpoint.\n\n" + ACCEPTED)
    if isinstance(obj, type):
        raise TypeError(f"AgentChat got the class {obj.__name__}; pass an instance.\n\n" + ACCEPTED)
    run = getattr(obj, "run", None)
    if callable(run) and (isinstance(obj, AgentAdapter) or _looks_like_event_producer(run)):
        return obj
    if callable(obj):
        return CallableAgent(obj)
    raise TypeError(f"AgentChat cannot run a {type(obj).__name__}.\n\n" + ACCEPTED)


def _comes_from(obj: Any, *packages: str) -> bool:
    """Whether ``obj``'s class or any base class is defined in one of ``packages``.

    Looked up by module name, so nothing is imported; a user's own subclass (say a chat model
    defined in the notebook) counts through its bases.
    """
    if isinstance(obj, (AgentAdapter, type)):
        return False
    for cls in type(obj).__mro__:
        module = getattr(cls, "__module__", "") or ""
        if module.startswith(packages):  # langchain, langchain_core, langchain_openai, ...
            return True
    return False


def _looks_like_event_producer(run: Callable[..., Any]) -> bool:
    """``run`` of an AG-UI agent takes one input and returns an async iterator."""
    if inspect.isasyncgenfunction(run):
        return True
    try:
        signature = inspect.signature(run)
    except (TypeError, ValueError):
        return True
    params = [p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(params) >= 1


def __getattr__(name: str) -> Any:
    """The framework adapters' names, and the remote and replay agents, imported on first use."""
    if name == "RemoteAgent":
        from ._remote import RemoteAgent

        return RemoteAgent
    if name == "ReplayAgent":
        from ._replay import ReplayAgent

        return ReplayAgent
    for framework in FRAMEWORKS:
        if name in framework.exports:
            return getattr(framework.adapter(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ACCEPTED",
    "FRAMEWORKS",
    "Agent",
    "AgentAdapter",
    "CallableAgent",
    "DemoAgent",
    "EventStream",
    "Framework",
    "FunctionAgent",
    "RemoteAgent",
    "ReplayAgent",
    "as_agent",
]
