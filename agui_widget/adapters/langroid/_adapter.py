"""``LangroidAgent``: a Langroid ``ChatAgent`` or ``Task`` as an AG-UI agent.

Importing this module does not import Langroid; creating a ``LangroidAgent`` does (it is given a
Langroid object, so Langroid is loaded by then anyway).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from typing import Any, Literal

from ag_ui.core import RunAgentInput

from .._base import AgentAdapter, Emitted, EventStream
from ._hooks import StateContextBuilder, ToolBehavior
from ._tiktoken import seed_tiktoken_cache

# Which adapter runs each agent object itself (the others run copies): weak, so nothing is kept
# alive by it.
_owners: weakref.WeakKeyDictionary[Any, weakref.ref[LangroidAgent]] = weakref.WeakKeyDictionary()


class LangroidAgent(AgentAdapter):
    """Runs a Langroid ``ChatAgent`` (or a ``Task``'s agent) as an AG-UI agent.

    ``AgentChat(agent)`` wraps a ChatAgent or Task in this automatically; create it yourself to pass
    options, or to serve the agent elsewhere (``run(RunAgentInput)`` is the whole contract).

    Args:
        agent: a ``langroid.ChatAgent``, or a ``langroid.Task`` (run by Langroid's own loop, sub-tasks
            and done conditions included; see docs/langroid.md).
        tool_behaviors: per tool name (or ToolMessage class), how the shared state follows the tool:
            ``ToolBehavior(state_from_args=..., state_from_result=...)``.
        state_context_builder: ``(input, user_message) -> str``, to put the current state (or
            anything else) into the latest user message as the model sees it, e.g.
            :func:`state_as_context`.
        max_threads: how many conversation threads keep an agent of their own; the least recently
            used is dropped beyond that (its history is rebuilt from the transcript if it returns).
        max_turns: model calls per run at most (each tool round is one; for a Task, the calls of all
            its agents), against tool loops.
        tool_errors: ``"result"`` tells the model a tool handler failed (as the tool's result) and
            lets it carry on; ``"raise"`` ends the run with RUN_ERROR instead.
        sync_tools_in_thread: run synchronous tool handlers in a worker thread, so a slow one does
            not block the kernel (they must then be thread-safe).
    """

    def __init__(
        self,
        agent: Any,
        *,
        tool_behaviors: Mapping[Any, ToolBehavior] | None = None,
        state_context_builder: StateContextBuilder | None = None,
        max_threads: int = 16,
        max_turns: int = 20,
        tool_errors: Literal["result", "raise"] = "result",
        sync_tools_in_thread: bool = False,
        name: str | None = None,
        description: str = "",
    ) -> None:
        seed_tiktoken_cache()  # before Langroid is imported, for machines that are offline
        from ._agents import unwrap

        if max_threads < 1 or max_turns < 1:
            raise ValueError("max_threads and max_turns must be at least 1")
        if tool_errors not in ("result", "raise"):
            raise ValueError("tool_errors must be 'result' or 'raise'")
        self.task, self.agent = unwrap(agent)
        self.name = name or getattr(self.task, "name", None) or self.agent.config.name
        self.display_name: str | None = self.name if self.name != "LLM-Agent" else None
        """The name people see over the agent's messages: none for Langroid's default name."""
        self.description = description
        self.tool_behaviors: dict[str, ToolBehavior] = {_tool_name(k): v for k, v in (tool_behaviors or {}).items()}
        for key, behavior in self.tool_behaviors.items():
            if not isinstance(behavior, ToolBehavior):
                raise TypeError(f"tool_behaviors[{key!r}] must be a ToolBehavior, not {type(behavior).__name__}")
        self.state_context_builder = state_context_builder
        self.max_threads = max_threads
        self.max_turns = max_turns
        self.tool_errors = tool_errors
        self.sync_tools_in_thread = sync_tools_in_thread
        self._threads: OrderedDict[str, Any] = OrderedDict()
        self._clones = 0

    def __repr__(self) -> str:
        return f"<LangroidAgent {self.name!r} threads={len(self._threads)}>"

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Emitted, None]:
        if self.task is not None:
            # A Task runs as Langroid runs it (its loop, sub-tasks and done conditions); its agents
            # start every run from the transcript, so the threads share it, in turns.
            self._threads[input.thread_id] = self.task
            self._threads.move_to_end(input.thread_id)
            self._evict()
            from . import _task_run

            async with aclosing(_task_run.run(self, self.task, input, stream)) as task_events:
                async for emitted in task_events:
                    yield emitted
            return
        from . import _agent_run

        agent = self._agent_for(input.thread_id)
        async with aclosing(_agent_run.run(self, agent, input, stream)) as agent_events:
            async for emitted in agent_events:
                yield emitted

    # -- threads ----------------------------------------------------------------------------

    def agent_for_thread(self, thread_id: str) -> Any | None:
        """The Langroid agent that runs ``thread_id`` (its ``message_history`` is the last model call's;
        for a Task, its main agent)."""
        agent = self._threads.get(thread_id)
        return agent.agent if self.task is not None and agent is self.task else agent

    @property
    def threads(self) -> list[str]:
        """The threads that have an agent, least recently used first."""
        return list(self._threads)

    def _agent_for(self, thread_id: str) -> Any:
        from ._agents import clone_agent

        agent = self._threads.get(thread_id)
        if agent is not None:
            self._threads.move_to_end(thread_id)
            return agent
        owner = _owners.get(self.agent)
        free = owner is None or owner() is None or (owner() is self and self.agent not in self._threads.values())
        if free:
            _owners[self.agent] = weakref.ref(self)
            agent = self.agent
        else:
            self._clones += 1
            try:
                agent = clone_agent(self.agent, self._clones)
            except Exception:  # a subclass that cannot be rebuilt from its config: share it, in turns
                agent = self.agent
        self._threads[thread_id] = agent
        self._evict()
        return agent

    def _evict(self) -> None:
        from ._agents import forget_agent, lock_for

        while len(self._threads) > self.max_threads:
            idle = next((thread_id for thread_id, agent in self._threads.items() if not lock_for(agent).locked()), None)
            if idle is None:
                return  # every thread is running; try again later
            agent = self._threads.pop(idle)
            if agent is self.agent:
                if self.agent not in self._threads.values():
                    owner = _owners.get(self.agent)
                    if owner is not None and owner() is self:
                        del _owners[self.agent]
            elif agent is not self.task and agent not in self._threads.values():
                forget_agent(agent)


def _tool_name(key: Any) -> str:
    if isinstance(key, str):
        return key
    default_value = getattr(key, "default_value", None)
    if callable(default_value):
        name = default_value("request")
        if isinstance(name, str) and name:
            return name
    raise TypeError(f"tool_behaviors keys are tool names or ToolMessage classes, not {key!r}")
