"""``AGUICallbackHandler``: AG-UI events from code that runs a model or an agent itself.

Attach it to a call (``config={"callbacks": [handler]}``) or once to the object
(``agent.with_config(callbacks=[handler])``, so nothing is passed per call). Each top-level run
becomes one AG-UI run: RUN_STARTED, then the text, reasoning and tool-call events as tokens
arrive, TOOL_CALL_RESULT for each tool, STEP events around graph nodes, CUSTOM events, the shared
state when the agent has :func:`agui_middleware`, and RUN_FINISHED (or RUN_ERROR, also when the
run fails half-way: everything opened is closed first).

The handler declares itself a streaming handler, so models stream their tokens to it even under
``invoke``/``ainvoke`` (a plain callback handler on ``ainvoke`` gets no tokens). Failures of the
sink are logged, never raised into the agent.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any, TypeVar

from ag_ui.core import BaseEvent, EventType, RunAgentInput, Tool
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessageChunk, BaseMessage, ToolMessage
from langgraph.types import Interrupt as LangGraphInterrupt

from ...inputs._tools import FrontendTool, coerce_tools
from .._base import EventStream, new_id
from ._custom import custom_event
from ._events import MessageMapper
from ._interrupts import report_interrupt
from ._options import AGUIOptions, make_options
from ._run_error import shaped_error
from ._state import StateTracker, shared_key_filter
from ._steps import Steps, is_middleware_node

try:  # the marker that makes chat models stream under invoke (LangChain's own stream handlers use it)
    from langchain_core.tracers._streaming import (
        _StreamingCallbackHandler as _StreamingBase,
    )
except ImportError:  # pragma: no cover
    _StreamingBase = object  # type: ignore[assignment,misc]

log = logging.getLogger("agui_widget")
T = TypeVar("T")

Sink = Callable[[BaseEvent], Any] | asyncio.Queue[BaseEvent] | list[BaseEvent]


class AGUICallbackHandler(BaseCallbackHandler, _StreamingBase):
    """LangChain callbacks → AG-UI events, delivered to ``sink`` (or kept in ``events``).

    ``sink``: a function of one event, an ``asyncio.Queue`` or a list; ``None`` keeps them in
    :attr:`events`. ``thread_id`` (or the ``thread_id`` option): the AG-UI thread (default: the
    ``thread_id`` of the run's config, or a new one); the AG-UI run id is LangChain's root run id
    unless the ``run_id`` option gives one. ``frontend_tools``: named so a call to one is reported
    pending. One handler serves one run at a time.
    """

    run_inline = True
    raise_error = False

    def __init__(
        self,
        sink: Sink | None = None,
        options: AGUIOptions | dict[str, Any] | None = None,
        *,
        thread_id: str | None = None,
        frontend_tools: Iterable[FrontendTool | Tool | dict[str, Any]] = (),
        **option_kwargs: Any,
    ) -> None:
        super().__init__()
        self.options = make_options(options, **option_kwargs)
        self.sink = sink
        self.thread_id = thread_id
        self.frontend_tools = [t.to_agui() for t in coerce_tools(frontend_tools)]
        self.events: list[BaseEvent] = []
        self._reset()

    def _reset(self) -> None:
        self._root: uuid.UUID | None = None
        self._stream: EventStream | None = None
        self._mapper: MessageMapper | None = None
        self._steps: Steps | None = None
        self._state: StateTracker | None = None
        self._runs: dict[uuid.UUID, tuple[str, str]] = {}
        self._tool_calls: dict[uuid.UUID, str | None] = {}
        self._interrupts: dict[str, LangGraphInterrupt] = {}

    def dispose(self) -> None:
        """Forget any run in progress and the collected events."""
        self.events.clear()
        self._reset()

    # -- delivery -------------------------------------------------------------------------------

    def _deliver(self, event: BaseEvent) -> None:
        sink = self.sink
        try:
            if sink is None:
                self.events.append(event)
            elif isinstance(sink, asyncio.Queue):
                sink.put_nowait(event)
            elif isinstance(sink, list):
                sink.append(event)
            else:
                sink(event)
        except Exception:
            log.warning("agui-widget: the AG-UI sink failed; the event is dropped", exc_info=True)

    def _emit(self, events: Iterable[BaseEvent]) -> None:
        stream = self._stream
        if stream is None:
            return
        for event in events:
            for framed in stream.accept(event):
                self._deliver(framed)

    # -- run framing ----------------------------------------------------------------------------

    def _begin(self, run_id: uuid.UUID, metadata: dict[str, Any] | None) -> None:
        if self._root is not None:
            return
        metadata = metadata or {}
        fixed_thread = self.options.thread_id if isinstance(self.options.thread_id, str) else None
        fixed_run = self.options.run_id if isinstance(self.options.run_id, str) else None
        thread = self.thread_id or fixed_thread or metadata.get("thread_id") or new_id("thread")
        run_input = RunAgentInput(
            thread_id=str(thread),
            run_id=fixed_run or str(run_id),
            state={},
            messages=[],
            tools=self.frontend_tools,
            context=[],
            forwarded_props=None,
        )
        self._root = run_id
        self._stream = EventStream(run_input)
        self._mapper = MessageMapper(self._stream, self.options)
        self._steps = Steps(self._stream, self.options.emit_steps)
        self._deliver(self._stream.run_started())

    def _finish(self, outputs: Any) -> None:
        stream, mapper = self._stream, self._mapper
        if stream is None or mapper is None:
            return
        events = mapper.end_all()
        if self._state is not None:
            events += self._state.finish()
        self._emit(events)
        interrupts = dict(self._interrupts)
        for item in (outputs.get("__interrupt__") if isinstance(outputs, dict) else None) or ():
            interrupts.setdefault(getattr(item, "id", None) or new_id("interrupt"), item)
        for item in interrupts.values():
            report_interrupt(stream, item, interrupt_id=getattr(item, "id", None))
        for event in stream.close_all():
            self._deliver(event)
        stream.usage = mapper.usage()
        self._deliver(stream.run_finished())
        self._reset()

    def _fail(self, error: BaseException) -> None:
        stream = self._stream
        if stream is None:
            return
        for event in stream.close_all():
            self._deliver(event)
        self._deliver(shaped_error(error, self.options.error_detail))
        self._reset()

    # -- chains and graph nodes -----------------------------------------------------------------

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: uuid.UUID, parent_run_id: uuid.UUID | None = None,
                       tags: list[str] | None = None, metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:  # fmt: skip
        if parent_run_id is None:
            self._begin(run_id, metadata)
            return
        name = kwargs.get("name") or ""
        metadata = metadata or {}
        is_node = metadata.get("langgraph_node") == name and any(t.startswith("graph:step:") for t in tags or ())
        if is_node and self._steps is not None and not is_middleware_node(name) and "__start__" not in name:
            self._runs[run_id] = ("step", name)
            self._emit(self._steps.start(name))

    def on_chain_end(self, outputs: Any, *, run_id: uuid.UUID, parent_run_id: uuid.UUID | None = None, **kwargs: Any) -> None:
        if run_id == self._root:
            self._finish(outputs)
            return
        kind = self._runs.pop(run_id, None)
        if kind is not None and kind[0] == "step" and self._steps is not None and self._mapper is not None:
            self._emit([*self._mapper.end_all(), *self._steps.finish(kind[1])])

    def on_chain_error(
        self, error: BaseException, *, run_id: uuid.UUID, parent_run_id: uuid.UUID | None = None, **kwargs: Any
    ) -> None:
        if _is_interrupt(error):
            self._note_interrupts(error)
            if run_id == self._root:
                self._finish(None)
                return
        elif run_id == self._root:
            self._fail(error)
            return
        kind = self._runs.pop(run_id, None)
        if kind is not None and kind[0] == "step" and self._steps is not None:
            self._emit(self._steps.finish(kind[1]))

    # -- models -----------------------------------------------------------------------------------

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: uuid.UUID, parent_run_id: uuid.UUID | None = None,
                            tags: list[str] | None = None, metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:  # fmt: skip
        if parent_run_id is None:
            self._begin(run_id, metadata)
        if "nostream" in (tags or ()):
            self._runs[run_id] = ("hidden", "")
        else:
            self._runs[run_id] = ("model", f"lc_run--{run_id}")

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: uuid.UUID, parent_run_id: uuid.UUID | None = None,
                     tags: list[str] | None = None, metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:  # fmt: skip
        self.on_chat_model_start(serialized, prompts, run_id=run_id, parent_run_id=parent_run_id, tags=tags, metadata=metadata)

    def on_llm_new_token(
        self, token: str | list[str | dict[str, Any]], *, chunk: Any = None, run_id: uuid.UUID, **kwargs: Any
    ) -> None:
        kind = self._runs.get(run_id)
        if kind is None or kind[0] != "model" or self._mapper is None:
            return
        message = getattr(chunk, "message", None)
        if not isinstance(message, BaseMessage):
            message = AIMessageChunk(content=token)
        self._emit(self._mapper.chunk(message, fallback_id=kind[1]))

    def on_llm_end(self, response: Any, *, run_id: uuid.UUID, parent_run_id: uuid.UUID | None = None, **kwargs: Any) -> None:
        kind = self._runs.pop(run_id, None)
        if kind is not None and kind[0] == "model" and self._mapper is not None:
            try:
                message = response.generations[0][0].message
            except (AttributeError, IndexError):
                message = None
            events = self._mapper.message(message, fallback_id=kind[1]) if isinstance(message, BaseMessage) else []
            self._emit(events + self._mapper.end_all())
        if run_id == self._root:
            self._finish(None)

    def on_llm_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._runs.pop(run_id, None)
        if run_id == self._root:
            self._fail(error)

    # -- tools ------------------------------------------------------------------------------------

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: uuid.UUID, parent_run_id: uuid.UUID | None = None,
                      tags: list[str] | None = None, metadata: dict[str, Any] | None = None, inputs: Any = None,
                      **kwargs: Any) -> None:  # fmt: skip
        if parent_run_id is None:
            self._begin(run_id, metadata)
        self._tool_calls[run_id] = kwargs.get("tool_call_id")

    def on_tool_end(self, output: Any, *, run_id: uuid.UUID, parent_run_id: uuid.UUID | None = None, **kwargs: Any) -> None:
        call_id = self._tool_calls.pop(run_id, None)
        if self._mapper is not None:
            for message in _tool_messages(output):
                self._emit(
                    self._mapper.tool_result(
                        message.tool_call_id, message.content, message_id=message.id, artifact=message.artifact
                    )
                )
            if call_id and not self._mapper.has_result(call_id) and not _tool_messages(output):
                self._emit(self._mapper.tool_result(call_id, output))
        if run_id == self._root:
            self._finish(None)

    def on_tool_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._tool_calls.pop(run_id, None)
        if _is_interrupt(error):
            self._note_interrupts(error)
        elif run_id == self._root:
            self._fail(error)

    def _note_interrupts(self, error: BaseException) -> None:
        """A node or tool called ``interrupt()``: LangGraph raises it through the callbacks."""
        items = error.args[0] if error.args and isinstance(error.args[0], (list, tuple)) else ()
        for item in items:
            self._interrupts.setdefault(getattr(item, "id", None) or new_id("interrupt"), item)

    # -- custom events and state ----------------------------------------------------------------

    def on_custom_event(self, name: str, data: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        if self.options.emit_custom and self._stream is not None:
            self._emit([custom_event(data, name)])

    def agent_state(self, state: Any, phase: str, options: AGUIOptions | None = None) -> None:
        """The agent's state at ``phase`` (start, step, end), from :class:`AGUIMiddleware`."""
        if self._stream is None:
            return
        options = options or self.options
        values = dict(state) if isinstance(state, dict) else {}
        if self._state is None:
            self._state = StateTracker(self._stream, options.emit_state, {}, shared_key_filter(options))
        self._emit(self._state.update(values))

    # -- the streaming-handler protocol: pass the output through ---------------------------------

    def tap_output_aiter(self, run_id: uuid.UUID, output: AsyncIterator[T]) -> AsyncIterator[T]:
        return output

    def tap_output_iter(self, run_id: uuid.UUID, output: Iterator[T]) -> Iterator[T]:
        return output

    @property
    def run_events(self) -> list[list[BaseEvent]]:
        """:attr:`events` split into AG-UI runs."""
        runs: list[list[BaseEvent]] = []
        for event in self.events:
            if event.type == EventType.RUN_STARTED or not runs:
                runs.append([])
            runs[-1].append(event)
        return runs


def _is_interrupt(error: BaseException) -> bool:
    return any(cls.__name__ in ("GraphInterrupt", "NodeInterrupt") for cls in type(error).__mro__)


def _tool_messages(output: Any) -> list[ToolMessage]:
    """The ToolMessages a tool returned: itself, or those in a ``Command(update=...)``."""
    if isinstance(output, ToolMessage):
        return [output]
    update = getattr(output, "update", None)
    messages = update.get("messages") if isinstance(update, dict) else update if isinstance(update, list) else None
    return [m for m in messages or () if isinstance(m, ToolMessage)]
