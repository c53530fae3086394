"""``LangChainAgent``: a chat model, a Runnable or a LangGraph graph as an AG-UI agent.

- **Chat models** (``BaseChatModel``, tools bound or not) get the transcript as LangChain messages
  and the frontend tools bound next to their own; they stream with ``astream``. A chat model runs
  no tools, so every tool call it makes is left pending for the chat to answer.
- **LangGraph graphs** (``create_agent`` agents included) stream with
  ``astream(stream_mode=["messages", "updates", "values", "custom", "tasks"])``: tokens, tool calls
  and results, a step per node, state, custom writes and interrupts.
- **Other Runnables** stream with ``astream_events``. Input convention: a Runnable whose first
  step is a chat model gets the message list; any other gets ``{"messages": [...]}`` plus the keys
  of the chat's state that its input schema names (a prompt template's variables). Or whatever
  ``input_mapper(messages, state)`` returns.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput, RunErrorEvent
from langchain_core.language_models import BaseChatModel, BaseLanguageModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import (
    Runnable,
    RunnableBinding,
    RunnableConfig,
    RunnableSequence,
)
from langchain_core.runnables.config import merge_configs
from langgraph.pregel import Pregel
from langgraph.types import Command

from .._base import AgentAdapter, Emitted, EventStream, new_id, to_json_text
from ._context import CONFIG_KEY, RunContext
from ._events import (
    INTERNAL_KEYS,
    MessageMapper,
    StateTracker,
    Steps,
    custom_event,
    hitl_tool_call_id,
    interrupt_fields,
    is_middleware_node,
    response_schema,
    resume_value,
    shaped_error,
    shared_key_filter,
)
from ._messages import (
    context_text,
    json_safe,
    new_messages_for,
    spec_name,
    to_langchain,
    tool_specs,
)
from ._options import AGUIOptions, make_options

log = logging.getLogger("agui_widget")

STREAM_MODES = ["messages", "updates", "values", "custom", "tasks"]

CREATE_AGENT_NODES = frozenset({"model", "tools"})
"""``create_agent``'s own nodes: steps a chat does not show as progress (a graph of one's own
names its nodes for people, and those are shown)."""

InputMapper = Callable[[list[BaseMessage], dict[str, Any]], Any]


class LangChainAgent(AgentAdapter):
    """An AG-UI agent for a LangChain chat model, Runnable or LangGraph graph.

    ``options`` (or their fields as keywords, validated here): see :class:`AGUIOptions`.
    ``config``: a ``RunnableConfig`` merged into every run (``recursion_limit``, ``callbacks``,
    ``tags``, ...). ``context``: the LangGraph runtime context for graphs with a
    ``context_schema``. ``checkpointer``: for graphs; a graph without one gets an in-memory
    ``InMemorySaver`` (interrupts need one), unless it was compiled with ``checkpointer=False``.
    ``input_mapper``: for Runnables, ``(messages, state) -> input``.
    """

    def __init__(
        self,
        target: Any,
        options: AGUIOptions | dict[str, Any] | None = None,
        *,
        config: RunnableConfig | None = None,
        context: Any = None,
        checkpointer: Any = None,
        input_mapper: InputMapper | None = None,
        **option_kwargs: Any,
    ) -> None:
        kind, inner, binding_config = _classify(target)
        self.kind = kind
        self.target = target
        self.config: RunnableConfig = merge_configs(binding_config, config or {})
        self.context = context
        self.input_mapper = input_mapper
        self._warned = False
        self.middleware = None
        explicit = options is not None or bool(option_kwargs)
        if kind == "graph":
            graph: Pregel = inner
            if checkpointer is not None:
                graph = graph.copy(update={"checkpointer": checkpointer})
            elif graph.checkpointer is None:
                graph = graph.copy(update={"checkpointer": _memory_saver()})
            self.graph = graph
            self.middleware = _find_middleware(graph)
            self._input_keys = _schema_keys(graph, "input")
            self._takes_messages = "messages" in self._input_keys or not self._input_keys
        elif kind == "chat_model":
            self.model = inner
            self._input_keys = set()
            self._takes_messages = True
        else:
            self.runnable = inner
            self._input_keys = _schema_keys(inner, "input") - {"messages"}
            self._takes_messages = _starts_with_a_model(inner)
        if explicit or self.middleware is None:
            self.options = make_options(options, **option_kwargs)
        else:
            self.options = self.middleware.options
        self._shared = shared_key_filter(self.options)

    def __repr__(self) -> str:
        return f"LangChainAgent({self.kind}: {type(self.target).__name__})"

    # -- the adapter contract -------------------------------------------------------------------

    def _run_error(self, exc: Exception, stream: EventStream) -> RunErrorEvent:
        """RUN_ERROR shaped by ``error_detail`` (how much of the framework's error a user sees)."""
        return shaped_error(exc, self.options.error_detail)

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncIterator[Emitted]:
        mapper = MessageMapper(stream, self.options)
        if self.kind == "graph":
            source = self._graph_events(input, stream, mapper)
        elif self.kind == "chat_model":
            source = self._model_events(input, stream, mapper)
        else:
            source = self._runnable_events(input, stream, mapper)
        async with aclosing(source) as events:
            async for item in events:
                yield item
        stream.usage = mapper.usage()

    def _run_config(self, input: RunAgentInput, **configurable: Any) -> RunnableConfig:
        run_context = RunContext(input.thread_id, input.run_id, tuple(input.tools or ()), tuple(input.context or ()))
        extra: dict[str, Any] = {
            "configurable": {CONFIG_KEY: run_context, **configurable},
            "metadata": {"agui_thread_id": input.thread_id, "agui_run_id": input.run_id},
        }
        run_id = self.options.resolve_run_id(input)
        if run_id:
            extra["run_id"] = _as_uuid(run_id)
        return merge_configs(self.config, extra)  # type: ignore[arg-type]

    # -- chat models ----------------------------------------------------------------------------

    def _model_with_tools(self, input: RunAgentInput) -> Runnable[Any, Any]:
        model = self.model
        binding = model if isinstance(model, RunnableBinding) else None
        base = binding.bound if binding is not None else model
        bound_tools = list((binding.kwargs.get("tools") if binding is not None else None) or ())
        bound_names = {n for n in map(spec_name, bound_tools) if n}
        clashes = bound_names.intersection(tool.name for tool in input.tools or ())
        if clashes and not self._warned:
            self._warned = True
            log.warning("agui-widget: frontend tools %s have the names of the model's tools; the model's tools win", sorted(clashes))
        specs = tool_specs(input.tools or (), exclude=bound_names)
        if not specs:
            return model
        try:
            kwargs = {k: v for k, v in (binding.kwargs.items() if binding is not None else ()) if k != "tools"}
            rebound = base.bind_tools([*bound_tools, *specs], **kwargs)
        except NotImplementedError:
            if not self._warned:
                self._warned = True
                log.warning("agui-widget: %s has no bind_tools; the chat's frontend tools are not offered", type(base).__name__)
            return model
        if binding is not None and binding.config:
            rebound = rebound.with_config(binding.config)
        return rebound

    async def _model_events(self, input: RunAgentInput, stream: EventStream, mapper: MessageMapper) -> AsyncIterator[Emitted]:
        model = self._model_with_tools(input)
        messages: list[BaseMessage] = to_langchain(input.messages)
        if input.context:
            messages.insert(0, SystemMessage(content=context_text(input.context)))
        steps = Steps(stream, self.options.emit_steps, internal=frozenset({"model"}))
        yield steps.start("model")
        fallback = new_id("msg")
        async with aclosing(model.astream(messages, self._run_config(input))) as chunks:
            async for chunk in chunks:
                yield mapper.chunk(chunk, fallback_id=fallback)
        yield mapper.end_all()
        yield steps.finish("model")

    # -- graphs ---------------------------------------------------------------------------------

    @property
    def _has_checkpointer(self) -> bool:
        return bool(self.graph.checkpointer)

    async def _graph_events(self, input: RunAgentInput, stream: EventStream, mapper: MessageMapper) -> AsyncIterator[Emitted]:
        config = self._run_config(input, thread_id=self.options.resolve_thread_id(input))
        if input.tools and self.middleware is None and not self._warned and _is_create_agent(self.graph):
            self._warned = True
            log.warning(
                "agui-widget: this create_agent agent has no agui_middleware(), so the model is not offered the "
                "chat's frontend tools; add middleware=[agui_middleware()] to create_agent to offer them"
            )
        graph_input = await (self._resume_command(input, config) if input.resume else self._graph_input(input, config))
        steps = Steps(stream, self.options.emit_steps, internal=CREATE_AGENT_NODES if _is_create_agent(self.graph) else frozenset())
        state = StateTracker(stream, self.options.emit_state, input.state, self._shared)
        task_calls: dict[str, str] = {}
        interrupt_calls: dict[str, str] = {}
        interrupts: dict[str, Any] = {}
        values: dict[str, Any] = {}
        source = self.graph.astream(graph_input, config, context=self.context, stream_mode=STREAM_MODES, subgraphs=True)
        async with aclosing(source) as items:
            async for namespace, mode, payload in items:
                root = not namespace
                if mode == "messages":
                    message, _metadata = payload
                    if isinstance(message, AIMessageChunk):
                        yield mapper.chunk(message)
                    else:
                        yield mapper.message(message)
                elif mode == "tasks" and root:
                    name = payload.get("name") or ""
                    if "result" in payload or "error" in payload:  # a task finished
                        call_id = task_calls.pop(payload.get("id", ""), None)
                        for item in payload.get("interrupts") or ():
                            interrupt_id = item.get("id") if isinstance(item, dict) else getattr(item, "id", None)
                            if call_id and interrupt_id:
                                interrupt_calls[interrupt_id] = call_id
                        yield mapper.end_all()
                        if not is_middleware_node(name):
                            yield steps.finish(name)
                    else:
                        call_id = _task_tool_call(payload.get("input"))
                        if call_id:
                            task_calls[payload.get("id", "")] = call_id
                        if not is_middleware_node(name):
                            yield steps.start(name)
                elif mode == "updates":
                    if isinstance(payload, dict) and "__interrupt__" in payload:
                        for item in payload["__interrupt__"] or ():
                            interrupts.setdefault(getattr(item, "id", None) or new_id("interrupt"), item)
                elif mode == "values" and root:
                    if isinstance(payload, dict):
                        values = payload
                        yield state.update(payload)
                elif mode == "custom" and self.options.emit_custom:
                    yield [custom_event(payload)]
        yield mapper.end_all()
        yield state.finish()
        messages = values.get("messages") if isinstance(values.get("messages"), list) else []
        for interrupt_id, item in interrupts.items():
            value = getattr(item, "value", item)
            fields = interrupt_fields(value)
            call_id = fields.get("tool_call_id") or interrupt_calls.get(interrupt_id) or hitl_tool_call_id(value, messages)
            stream.interrupt(
                fields["reason"],
                message=fields.get("message"),
                tool_call_id=call_id,
                response_schema=response_schema(item),
                interrupt_id=interrupt_id,
            )

    async def _graph_input(self, input: RunAgentInput, config: RunnableConfig) -> Any:
        transcript = to_langchain(input.messages)
        if self._has_checkpointer:
            stored = await self._committed_messages(config)
            messages = new_messages_for(stored, transcript) if stored is not None else transcript
        else:
            messages = transcript
        client_state = input.state if isinstance(input.state, dict) else {}
        if self.input_mapper is not None:
            return self.input_mapper(messages, client_state)
        graph_input = {
            key: value
            for key, value in client_state.items()
            if self._shared(key) and (key in self._input_keys or not self._input_keys) and key not in INTERNAL_KEYS
        }
        if self._takes_messages:
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

    async def _resume_command(self, input: RunAgentInput, config: RunnableConfig) -> Command:
        if not self._has_checkpointer:
            raise RuntimeError("Resuming an interrupt needs a checkpointer; this graph was compiled with checkpointer=False.")
        snapshot = await self.graph.aget_state(config)
        pending = {item.id: item for item in snapshot.interrupts}
        answers: dict[str, Any] = {}
        for entry in input.resume or ():
            original = pending.get(entry.interrupt_id)
            if original is None:
                raise RuntimeError(
                    f"Interrupt {entry.interrupt_id!r} is not pending on LangGraph thread "
                    f"{config['configurable']['thread_id']!r} (pending: {sorted(pending) or 'none'}). "
                    "Was the graph's checkpointer replaced since the run that asked?"
                )
            answers[entry.interrupt_id] = resume_value(entry.payload, entry.status, original.value)
        return Command(resume=answers)

    # -- other runnables ------------------------------------------------------------------------

    def _runnable_input(self, input: RunAgentInput) -> Any:
        messages: list[BaseMessage] = to_langchain(input.messages)
        if input.context:
            messages.insert(0, SystemMessage(content=context_text(input.context)))
        state = input.state if isinstance(input.state, dict) else {}
        if self.input_mapper is not None:
            return self.input_mapper(messages, state)
        if self._takes_messages:
            return messages
        data: dict[str, Any] = {key: state[key] for key in self._input_keys if key in state}
        data["messages"] = messages
        return data

    async def _runnable_events(self, input: RunAgentInput, stream: EventStream, mapper: MessageMapper) -> AsyncIterator[Emitted]:
        steps = Steps(stream, self.options.emit_steps)
        runs: dict[str, str] = {}
        tool_inputs: dict[str, Any] = {}
        models = 0
        root_message = new_id("msg")
        root_streamed = False
        final: Any = None
        source = self.runnable.astream_events(self._runnable_input(input), self._run_config(input), version="v2")
        async with aclosing(source) as events:
            async for event in events:
                kind = event["event"]
                run_id = event.get("run_id", "")
                tags = event.get("tags") or ()
                data = event.get("data") or {}
                if kind == "on_chat_model_start":
                    if "nostream" in tags:
                        continue
                    models += 1
                    runs[run_id] = event.get("name") or "model"
                    yield steps.start(runs[run_id])
                elif kind == "on_chat_model_stream" and run_id in runs:
                    yield mapper.chunk(data.get("chunk"), fallback_id=f"lc_run--{run_id}")
                elif kind == "on_chat_model_end" and run_id in runs:
                    output = data.get("output")
                    if isinstance(output, AIMessage):
                        yield mapper.message(output, fallback_id=f"lc_run--{run_id}")
                    yield mapper.end_all()
                    yield steps.finish(runs.pop(run_id))
                elif kind == "on_tool_start":
                    tool_inputs[run_id] = data.get("input")
                    yield steps.start(event.get("name") or "tool")
                elif kind == "on_tool_end":
                    yield self._tool_output(stream, mapper, event.get("name") or "tool", tool_inputs.pop(run_id, None), data.get("output"))
                    yield steps.finish(event.get("name") or "tool")
                elif kind == "on_custom_event" and self.options.emit_custom:
                    yield [custom_event(data, event.get("name"))]
                elif kind == "on_chain_stream" and not event.get("parent_ids") and not models:
                    chunk = data.get("chunk")
                    if isinstance(chunk, str) and chunk:
                        root_streamed = True
                        yield stream.text(chunk, message_id=root_message)
                    elif isinstance(chunk, BaseMessage):
                        root_streamed = True
                        yield mapper.chunk(chunk, fallback_id=root_message)
                elif kind == "on_chain_end" and not event.get("parent_ids"):
                    final = data.get("output")
        if not models and not root_streamed:
            yield self._final_output(stream, mapper, final, root_message, input)
        yield mapper.end_all()

    def _tool_output(self, stream: EventStream, mapper: MessageMapper, name: str, tool_input: Any, output: Any) -> list[BaseEvent]:
        if isinstance(output, ToolMessage) and output.tool_call_id:
            return mapper.tool_result(output.tool_call_id, output.content, message_id=output.id, artifact=output.artifact)
        # a tool the Runnable called on its own: show it as a call with its result (a raw rich
        # return, a figure or a DataFrame, is shown as it is)
        call_id, events = mapper.whole_call(name, tool_input)
        if isinstance(output, ToolMessage):
            return events + mapper.tool_result(call_id, output.content, artifact=output.artifact)
        return events + mapper.tool_result(call_id, output)

    def _final_output(self, stream: EventStream, mapper: MessageMapper, final: Any, message_id: str, input: RunAgentInput) -> list[BaseEvent]:
        if isinstance(final, str):
            return stream.text(final, message_id=message_id) if final else []
        if isinstance(final, BaseMessage):
            return mapper.message(final, fallback_id=message_id)
        if isinstance(final, dict) and isinstance(final.get("messages"), list):
            known = {m.id for m in input.messages}
            events: list[BaseEvent] = []
            for message in final["messages"]:
                if isinstance(message, BaseMessage) and message.id not in known:
                    events += mapper.message(message)
            return events
        if final is not None:
            return stream.text(to_json_text(json_safe(final)), message_id=message_id)
        return []


def langchain_agent(obj: Any) -> LangChainAgent:
    """The AG-UI agent for a LangChain chat model, Runnable or LangGraph graph (``as_agent`` uses it)."""
    return LangChainAgent(obj)


# -- helpers ----------------------------------------------------------------------------------------


def _classify(obj: Any) -> tuple[str, Any, RunnableConfig]:
    """(kind, the object to run, config carried by a binding around it)."""
    config: RunnableConfig = {}
    inner = obj
    while isinstance(inner, RunnableBinding):
        if isinstance(inner.bound, BaseChatModel):
            return "chat_model", inner, {}
        if isinstance(inner.bound, Pregel) and not inner.kwargs:
            config = merge_configs(inner.config or {}, config)
            inner = inner.bound
            continue
        break
    if isinstance(inner, Pregel):
        return "graph", inner, config
    if isinstance(inner, BaseChatModel) or _is_configurable_model(inner):
        return "chat_model", inner, {}
    if isinstance(inner, Runnable):
        return "runnable", inner, {}
    from .. import ACCEPTED

    raise TypeError(
        f"LangChainAgent takes a chat model, a Runnable or a LangGraph graph, not {type(obj).__name__}.\n\n" + ACCEPTED
    )


def _is_configurable_model(obj: Any) -> bool:
    """``init_chat_model()`` without a fixed model: a Runnable that stands for a chat model."""
    return any(cls.__name__ == "_ConfigurableModel" and cls.__module__.startswith("langchain") for cls in type(obj).__mro__)


def _starts_with_a_model(runnable: Any) -> bool:
    """A chain like ``model | parser`` takes the message list itself, not a dict."""
    step = runnable
    for _ in range(20):
        if isinstance(step, RunnableSequence):
            step = step.first
        elif isinstance(step, RunnableBinding):
            step = step.bound
        else:
            break
    return isinstance(step, BaseLanguageModel) or _is_configurable_model(step)


def _schema_keys(runnable: Any, which: str) -> set[str]:
    try:
        schema = runnable.get_input_jsonschema() if which == "input" else runnable.get_output_jsonschema()
    except Exception:
        return set()
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return set(properties) if isinstance(properties, dict) else set()


def _find_middleware(graph: Pregel) -> Any:
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


def _is_create_agent(graph: Pregel) -> bool:
    metadata = (getattr(graph, "config", None) or {}).get("metadata") or {}
    return metadata.get("ls_integration") == "langchain_create_agent"



def _task_tool_call(task_input: Any) -> str | None:
    """The tool call a ``tools`` task runs (create_agent sends each call to the tool node alone)."""
    if isinstance(task_input, dict) and task_input.get("__type") == "tool_call_with_context":
        call = task_input.get("tool_call") or {}
        return call.get("id")
    if isinstance(task_input, list) and len(task_input) == 1 and isinstance(task_input[0], dict):
        return task_input[0].get("id") if task_input[0].get("type") == "tool_call" else None
    return None


def _memory_saver() -> Any:
    """The in-memory checkpointer a graph without one gets. It keeps what msgpack cannot encode
    (a matplotlib Figure or a DataFrame a ``content_and_artifact`` tool returns as its artifact)
    by pickling it, in this process only, instead of failing the run."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return InMemorySaver(serde=JsonPlusSerializer(pickle_fallback=True))


def _as_uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        return uuid.uuid5(uuid.NAMESPACE_URL, value)


__all__ = ["LangChainAgent", "langchain_agent"]
