"""``LangChainAgent``: a chat model, a Runnable or a LangGraph graph as an AG-UI agent.

The agent looks at its target once, when it is made, and runs each AG-UI run with the run class
of the target's kind:

- **chat models** (``BaseChatModel``, tools bound or not): :class:`ChatModelRun`, ``astream`` over
  the transcript, the frontend tools bound next to the model's own;
- **LangGraph graphs** (``create_agent`` agents included): :class:`GraphRun`, ``astream`` with the
  messages, updates, values, custom and tasks stream modes;
- **other Runnables**: :class:`RunnableRun`, ``astream_events``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, cast

from ag_ui.core import RunAgentInput, RunErrorEvent
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import merge_configs
from langgraph.types import Checkpointer

from .._base import AgentAdapter, Emitted, EventStream
from ._chat_model_run import ChatModelRun
from ._graph_run import AnyGraph, GraphRun, find_middleware, with_checkpointer
from ._kinds import Kind, classify, input_keys, starts_with_a_model
from ._options import AGUIOptions, make_options
from ._run import LangChainRun
from ._run_error import shaped_error
from ._runnable_run import RunnableRun

if TYPE_CHECKING:
    from ._middleware import AGUIMiddleware

log = logging.getLogger("agui_widget")

InputMapper = Callable[[list[BaseMessage], dict[str, Any]], object]
"""``(messages, the chat's state) -> the input`` of a Runnable or a graph."""

RUNS: dict[Kind, type[LangChainRun]] = {"chat_model": ChatModelRun, "graph": GraphRun, "runnable": RunnableRun}


class LangChainAgent(AgentAdapter):
    """An AG-UI agent for a LangChain chat model, Runnable or LangGraph graph.

    ``options`` (or their fields as keywords, validated here): see :class:`AGUIOptions`.
    ``config``: a ``RunnableConfig`` merged into every run (``recursion_limit``, ``callbacks``,
    ``tags``, ...). ``context``: the LangGraph runtime context for graphs with a
    ``context_schema``. ``checkpointer``: for graphs; a graph without one gets an in-memory
    ``InMemorySaver`` (interrupts need one), unless it was compiled with ``checkpointer=False``.
    ``input_mapper``: for Runnables, ``(messages, state) -> input``.

    A run's forwarded props ``model``, ``temperature``, ``max_tokens``, ``top_p`` and ``stop`` are
    its model settings: in ``config["configurable"]`` for every kind of target, and bound to the
    call of a chat model (``model`` aside); see ``docs/langchain.md``.
    """

    graph: AnyGraph
    """A graph target, with the checkpointer it runs with."""
    model: Runnable
    """A chat model target (a binding keeps the tools bound to it)."""
    runnable: Runnable
    """Any other Runnable target."""

    def __init__(
        self,
        target: object,
        options: AGUIOptions | dict[str, Any] | None = None,
        *,
        config: RunnableConfig | None = None,
        context: object = None,
        checkpointer: Checkpointer = None,
        input_mapper: InputMapper | None = None,
        **option_kwargs: Any,
    ) -> None:
        kind, inner, binding_config = classify(target)
        self.kind: Kind = kind
        self.target = target
        self.config: RunnableConfig = merge_configs(binding_config, config or {})
        self.context = context
        self.input_mapper = input_mapper
        self.middleware: AGUIMiddleware | None = None
        self.input_keys: frozenset[str] = frozenset()
        """The keys of the chat's state the target's input takes (for a graph, none: all shared keys)."""
        self.takes_messages = True
        """Whether the target's input takes the transcript (as the input, or as its ``messages``)."""
        if kind == "graph":
            self.graph = with_checkpointer(cast("AnyGraph", inner), checkpointer)
            self.middleware = find_middleware(self.graph)
            self.input_keys = input_keys(self.graph)
            self.takes_messages = "messages" in self.input_keys or not self.input_keys
        elif kind == "chat_model":
            self.model = inner
        else:
            self.runnable = inner
            self.input_keys = input_keys(inner) - {"messages"}
            self.takes_messages = starts_with_a_model(inner)
        explicit = options is not None or bool(option_kwargs)
        if explicit or self.middleware is None:
            self.options = make_options(options, **option_kwargs)
        else:
            self.options = self.middleware.options
        self._run_kind = RUNS[kind]
        self._warned: set[str] = set()

    @property
    def display_name(self) -> str | None:
        """The graph's name when it was given one (``create_agent(..., name="Ada")``)."""
        name = getattr(self.graph, "name", None) if self.kind == "graph" else None
        return name if isinstance(name, str) and name and name != "LangGraph" else None

    @property
    def context_window(self) -> int | None:
        """A chat model's input window as its LangChain profile gives it (``max_input_tokens``);
        None for a graph or a Runnable, or a model without a profile: never guessed."""
        profile = getattr(self.target, "profile", None) if self.kind == "chat_model" else None
        window = profile.get("max_input_tokens") if isinstance(profile, dict) else None
        return window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None

    def __repr__(self) -> str:
        return f"LangChainAgent({self.kind}: {type(self.target).__name__})"

    def warn_once(self, message: str, *args: object) -> None:
        """Log a problem with how the agent is set up on the first run that meets it, not on every run."""
        if message not in self._warned:
            self._warned.add(message)
            log.warning(message, *args)

    # -- the adapter contract -------------------------------------------------------------------

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Emitted, None]:
        run = self._run_kind(self, input, stream)
        async with aclosing(run.events()) as events:
            async for emitted in events:
                yield emitted
        stream.usage = run.mapper.usage()

    def _run_error(self, exc: Exception, stream: EventStream) -> RunErrorEvent:
        """RUN_ERROR shaped by ``error_detail`` (how much of the framework's error a user sees)."""
        return shaped_error(exc, self.options.error_detail)


def langchain_agent(obj: object) -> LangChainAgent:
    """The AG-UI agent for a LangChain chat model, Runnable or LangGraph graph (``as_agent`` uses it)."""
    return LangChainAgent(obj)


__all__ = ["LangChainAgent", "langchain_agent"]
