"""A LangGraph graph's run (``create_agent`` agents included), and how a graph is set up for it.

The graph streams with ``astream(stream_mode=["messages", "updates", "values", "custom", "tasks"],
subgraphs=True)``: tokens, tool calls and results, a step per node, state, custom writes and
interrupts. With a checkpointer only the messages the checkpoint lacks are sent, and a run that
answers an interrupt resumes the graph with ``Command(resume=...)``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from ag_ui.core import BaseEvent
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import merge_configs
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.pregel import Pregel
from langgraph.types import Checkpointer, Command, StreamMode
from langgraph.types import Interrupt as LangGraphInterrupt

from .._base import Emitted, EventStream, new_id
from ._custom import custom_event
from ._interrupts import hitl_tool_call_id, report_interrupt, resume_value
from ._messages import new_messages_for, to_langchain
from ._run import LangChainRun
from ._state import INTERNAL_KEYS, StateTracker, shared_key_filter
from ._steps import Steps, is_middleware_node

if TYPE_CHECKING:
    from ag_ui.core import RunAgentInput
    from langgraph.types import TaskPayload, TaskResultPayload

    from ._agent import LangChainAgent
    from ._middleware import AGUIMiddleware

STREAM_MODES: list[StreamMode] = ["messages", "updates", "values", "custom", "tasks"]

AnyGraph = Pregel[Any, Any, Any, Any]
"""A compiled graph of any state, context and input (a bare ``Pregel`` is typed as taking no context)."""

CREATE_AGENT_NODES = frozenset({"model", "tools"})
"""``create_agent``'s own nodes: steps a chat does not show as progress (a graph of one's own
names its nodes for people, and those are shown)."""


class GraphRun(LangChainRun):
    """One run of the graph: its stream items mapped as they come, its interrupts put on the run
    at the end."""

    def __init__(self, agent: LangChainAgent, input: RunAgentInput, stream: EventStream) -> None:
        super().__init__(agent, input, stream)
        self.graph = agent.graph
        internal = CREATE_AGENT_NODES if is_create_agent(self.graph) else frozenset()
        self.steps = Steps(stream, self.options.emit_steps, internal=internal)
        self.shared = shared_key_filter(self.options)
        self.state: StateTracker  # set once the input is built: it copies the chat's state as the input_mapper left it
        self.values: dict[str, Any] = {}  # the graph's latest state
        self.task_calls: dict[str, str] = {}  # a running task's id -> the tool call it runs
        self.interrupt_calls: dict[str, str] = {}  # an interrupt's id -> the tool call that asked
        self.interrupts: dict[str, LangGraphInterrupt] = {}

    async def events(self) -> AsyncGenerator[Emitted, None]:
        config = self.run_config(thread_id=self.options.resolve_thread_id(self.input))
        if self.input.tools and self.agent.middleware is None and is_create_agent(self.graph):
            self.agent.warn_once(
                "agui-widget: this create_agent agent has no agui_middleware(), so the model is not offered the "
                "chat's frontend tools; add middleware=[agui_middleware()] to create_agent to offer them"
            )
        graph_input = await (self._resume_command(config) if self.input.resume else self._graph_input(config))
        self.state = StateTracker(self.stream, self.options.emit_state, self.input.state, self.shared)
        source = self.graph.astream(graph_input, config, context=self.agent.context, stream_mode=STREAM_MODES, subgraphs=True)
        async with aclosing(source) as items:  # type: ignore[type-var]  # LangGraph annotates an AsyncIterator; it is an async generator
            async for namespace, mode, payload in items:
                yield self._item(mode, payload, root=not namespace)
        yield self.mapper.end_all()
        yield self.state.finish()
        self._report_interrupts()

    # -- the stream ------------------------------------------------------------------------------

    def _item(self, mode: str, payload: Any, *, root: bool) -> list[BaseEvent]:
        """One item of the graph's stream; only the root graph's tasks and state are followed."""
        if mode == "messages":
            message, _metadata = payload
            return self.mapper.chunk(message) if isinstance(message, AIMessageChunk) else self.mapper.message(message)
        if mode == "tasks" and root:
            return self._task(payload)
        if mode == "updates":
            if isinstance(payload, dict) and "__interrupt__" in payload:
                for item in payload["__interrupt__"] or ():
                    self.interrupts.setdefault(getattr(item, "id", None) or new_id("interrupt"), item)
            return []
        if mode == "values" and root:
            if not isinstance(payload, dict):
                return []
            self.values = payload
            return self.state.update(payload)
        if mode == "custom" and self.options.emit_custom:
            return [custom_event(payload)]
        return []

    def _task(self, task: TaskPayload | TaskResultPayload) -> list[BaseEvent]:
        """A node's task starting or finishing: a step (middleware hooks are not steps), and which
        tool call a task runs, so an interrupt it raises is tied to that call."""
        name = task.get("name") or ""
        is_step = not is_middleware_node(name)
        if "result" not in task and "error" not in task:  # starting
            call_id = task_tool_call(task.get("input"))
            if call_id:
                self.task_calls[task.get("id", "")] = call_id
            return self.steps.start(name) if is_step else []
        call_id = self.task_calls.pop(task.get("id", ""), None)
        interrupts = task.get("interrupts")
        for item in interrupts if isinstance(interrupts, list) else ():
            interrupt_id = item.get("id") if isinstance(item, dict) else getattr(item, "id", None)
            if call_id and interrupt_id:
                self.interrupt_calls[interrupt_id] = call_id
        events = self.mapper.end_all()
        return events + self.steps.finish(name) if is_step else events

    def _report_interrupts(self) -> None:
        """The interrupts the graph stopped at, each tied to the tool call it concerns."""
        messages = self.values.get("messages")
        if not isinstance(messages, list):
            messages = []
        for interrupt_id, item in self.interrupts.items():
            asked_by = self.interrupt_calls.get(interrupt_id) or hitl_tool_call_id(getattr(item, "value", item), messages)
            report_interrupt(self.stream, item, interrupt_id=interrupt_id, tool_call_id=asked_by)

    # -- the input -------------------------------------------------------------------------------

    async def _graph_input(self, config: RunnableConfig) -> object:
        """The messages the graph lacks (all of them without a checkpointer) and the shared keys
        of the chat's state its input takes; or what the ``input_mapper`` makes of them."""
        transcript = to_langchain(self.input.messages)
        stored = await self._committed_messages(config) if self.graph.checkpointer else None
        messages = new_messages_for(stored, transcript) if stored is not None else transcript
        client_state = self.input.state if isinstance(self.input.state, dict) else {}
        if self.agent.input_mapper is not None:
            return self.agent.input_mapper(messages, client_state)
        input_keys = self.agent.input_keys
        graph_input = {
            key: value
            for key, value in client_state.items()
            if self.shared(key) and (key in input_keys or not input_keys) and key not in INTERNAL_KEYS
        }
        if self.agent.takes_messages:
            graph_input["messages"] = messages
        return graph_input

    async def _committed_messages(self, config: RunnableConfig) -> list[BaseMessage] | None:
        """The messages new input is applied to: the thread's committed checkpoint.

        ``aget_state`` also shows the writes of tasks that finished in a step a stop cut short
        (one tool returned, another was still running). LangGraph drops those writes when new
        input arrives, so the transcript is compared with the checkpoint without them; comparing
        with them would lose such a tool result, or remove a message the graph does not have.
        """
        snapshot = await self.graph.aget_state(config)
        checkpoint_id = ((snapshot.config or {}).get("configurable") or {}).get("checkpoint_id")
        if snapshot.tasks and checkpoint_id:  # a step was left unfinished: read it without its tasks' writes
            snapshot = await self.graph.aget_state(merge_configs(config, {"configurable": {"checkpoint_id": checkpoint_id}}))
        stored = snapshot.values.get("messages") if isinstance(snapshot.values, dict) else None
        return list(stored) if isinstance(stored, list) else None

    async def _resume_command(self, config: RunnableConfig) -> Command:
        """``Command(resume={interrupt id: value})`` for the run's resume entries."""
        if not self.graph.checkpointer:
            raise RuntimeError("Resuming an interrupt needs a checkpointer; this graph was compiled with checkpointer=False.")
        snapshot = await self.graph.aget_state(config)
        pending = {item.id: item for item in snapshot.interrupts}
        answers: dict[str, object] = {}
        for entry in self.input.resume or ():
            original = pending.get(entry.interrupt_id)
            if original is None:
                raise RuntimeError(
                    f"Interrupt {entry.interrupt_id!r} is not pending on LangGraph thread "
                    f"{config['configurable']['thread_id']!r} (pending: {sorted(pending) or 'none'}). "
                    "Was the graph's checkpointer replaced since the run that asked?"
                )
            answers[entry.interrupt_id] = resume_value(entry.payload, entry.status, original.value)
        return Command(resume=answers)


# -- setting a graph up ----------------------------------------------------------------------------


def with_checkpointer(graph: AnyGraph, checkpointer: Checkpointer) -> AnyGraph:
    """The graph with ``checkpointer``, or, when it has none, an in-memory one (interrupts need
    one), on a copy: the user's graph is not changed. ``checkpointer=False`` at compile stays."""
    if checkpointer is not None:
        return graph.copy(update={"checkpointer": checkpointer})
    if graph.checkpointer is None:
        return graph.copy(update={"checkpointer": memory_saver()})
    return graph


def memory_saver() -> BaseCheckpointSaver:
    """The in-memory checkpointer a graph without one gets. It keeps what msgpack cannot encode
    (a matplotlib Figure or a DataFrame a ``content_and_artifact`` tool returns as its artifact)
    by pickling it, in this process only, instead of failing the run."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return InMemorySaver(serde=JsonPlusSerializer(pickle_fallback=True))


def find_middleware(graph: Pregel) -> AGUIMiddleware | None:
    """The AGUIMiddleware a ``create_agent`` graph was built with, if any."""
    from ._middleware import AGUIMiddleware

    builder = getattr(graph, "builder", None)
    for name, spec in (getattr(builder, "nodes", None) or {}).items():
        if not name.startswith("AGUIMiddleware."):
            continue
        runnable = getattr(spec, "runnable", None)
        for attribute in ("func", "afunc"):
            owner = getattr(getattr(runnable, attribute, None), "__self__", None)
            if isinstance(owner, AGUIMiddleware):
                return owner
    return None


def is_create_agent(graph: Pregel) -> bool:
    metadata = (getattr(graph, "config", None) or {}).get("metadata") or {}
    return metadata.get("ls_integration") == "langchain_create_agent"


def task_tool_call(task_input: object) -> str | None:
    """The tool call a ``tools`` task runs (create_agent sends each call to the tool node alone)."""
    if isinstance(task_input, dict) and task_input.get("__type") == "tool_call_with_context":
        call = task_input.get("tool_call") or {}
        return call.get("id")
    if isinstance(task_input, list) and len(task_input) == 1 and isinstance(task_input[0], dict):
        return task_input[0].get("id") if task_input[0].get("type") == "tool_call" else None
    return None
