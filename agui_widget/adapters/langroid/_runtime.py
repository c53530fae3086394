"""The Langroid half of :class:`LangroidAgent`. It imports Langroid, so it loads only with an agent.

One AG-UI run drives the agent through Langroid's async API, step by step:

1. rebuild ``agent.message_history`` from the transcript (``_history``), with the application's
   context and the current state in the prompt;
2. ``await agent.llm_response_async(...)`` as a task, while Langroid's streaming callback hands
   every token over a queue: text becomes TEXT_MESSAGE_CONTENT (with tool JSON held back in JSON
   mode), reasoning becomes REASONING events, streamed tool arguments feed ``state_from_args``;
3. every tool call in the response becomes TOOL_CALL_START/ARGS/END with the response's ids;
   backend tools run through Langroid's own dispatch (``handle_tool_message_async``), each giving
   TOOL_CALL_RESULT; frontend tools (``RunAgentInput.tools``) end the run with the call pending;
4. repeat until the model answers without tools.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import inspect
import json
import logging
import threading
import weakref
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    Tool,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from langroid.agent.base import SearchForTools
from langroid.agent.chat_agent import ChatAgent
from langroid.agent.chat_document import ChatDocMetaData, ChatDocument
from langroid.agent.task import Task
from langroid.agent.tool_message import ToolMessage, handler_name
from langroid.agent.tools.orchestration import AgentDoneTool, DoneTool
from langroid.agent.xml_tool_message import XMLToolMessage
from langroid.language_models.base import (
    LLMFunctionSpec,
    LLMMessage,
    Role,
    StreamEventType,
)
from langroid.mytypes import Entity
from langroid.parsing.parse_json import extract_top_level_json
from langroid.utils.object_registry import ObjectRegistry
from pydantic import ValidationError

from ..._content import parse_json_text
from ..._display import is_rich
from .._base import EventStream, new_id
from . import _quiet
from ._history import json_tool_text, parse_args, reasoning_metadata, to_llm_messages, tool_mode
from ._hooks import (
    _CURRENT,
    RunState,
    ToolBehavior,
    ToolCallContext,
    ToolContext,
    ToolResultContext,
)
from ._text import ToolJsonFilter, ToolXmlFilter, parse_partial_json, tool_name_of

if TYPE_CHECKING:
    from ._adapter import LangroidAgent

log = logging.getLogger("agui_widget")

NO_RESULT = "(the tool returned no result)"
_DONE = object()


# -- what was given ---------------------------------------------------------------------------


def unwrap(obj: Any) -> tuple[Task | None, ChatAgent]:
    """The Task (if one was given) and the ChatAgent to run."""
    if isinstance(obj, Task):
        from ._task import check_task

        check_task(obj)
        return obj, obj.agent
    if isinstance(obj, ChatAgent):
        return None, obj
    hint = ""
    if type(obj).__name__.endswith("Config"):
        hint = " (for a config, create the agent first: langroid.ChatAgent(config))"
    raise TypeError(f"LangroidAgent takes a langroid.ChatAgent or a langroid.Task, not a {type(obj).__name__}{hint}")


# -- one agent per conversation thread ------------------------------------------------------


_locks: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


def lock_for(agent: Any) -> asyncio.Lock:
    """Runs on one agent object take turns (its history, callbacks and tools are per run)."""
    lock = _locks.get(agent)
    if lock is None:
        lock = _locks[agent] = asyncio.Lock()
    return lock


def clone_agent(agent: ChatAgent, index: int) -> ChatAgent:
    """A copy of ``agent`` for another thread, with its tools and handlers intact.

    ``ChatAgent.clone`` shares the tool sets with the original (enabling a tool on the copy would
    enable it on both) and loses the handlers ``enable_message`` created from a tool's ``handle``,
    ``handle_async`` or ``response`` methods, which live on the original instance. It also builds
    the LLM from the config, replacing a custom LLM object installed on the original. Frontend
    tools that a run of the original has installed at this moment are not copied.
    """
    new = agent.clone(index)
    run_only = {name for name, cls in agent.llm_tools_map.items() if getattr(cls, "__agui_frontend__", False)}
    for name in ("llm_tools_map", "llm_functions_map"):
        setattr(new, name, {k: v for k, v in getattr(agent, name).items() if k not in run_only})
    for name in (
        "llm_tools_known",
        "llm_tools_handled",
        "llm_tools_usable",
        "llm_functions_handled",
        "llm_functions_usable",
        "disable_strict_tools_set",
    ):
        setattr(new, name, set(getattr(agent, name)) - run_only)
    new._update_tool_instructions()
    for tool_class in list(new.llm_tools_map.values()):
        new._get_tool_list(tool_class)  # creates the handlers the copy lacks, bound to the copy
    new.system_message = agent.system_message
    new.user_message = agent.user_message
    if agent.llm is not None and type(new.llm) is not type(agent.llm):
        new.llm = type(agent.llm)(new.config.llm)  # type: ignore[call-arg]
    return new


def forget_agent(agent: ChatAgent) -> None:
    """Drop a thread's copy from Langroid's object registry, so it can be freed."""
    ObjectRegistry.remove(agent.id)


# -- frontend tools as Langroid tools ------------------------------------------------------


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


def frontend_tool_class(tool: Tool) -> type[ToolMessage]:
    """A Langroid ToolMessage class for an AG-UI tool: the model gets its JSON schema as given."""
    key = json.dumps(
        {"name": tool.name, "description": tool.description, "parameters": tool.parameters}, sort_keys=True, default=str
    )
    return _frontend_tool_class(key)


class _AgentSetup:
    """What a run changes on the agent (its frontend tools, the streaming callback), undone when the
    run ends, however it ends."""

    def __init__(self, agent: ChatAgent) -> None:
        self.agent = agent
        self.force = agent.llm_function_force
        self.callback = agent.callbacks.start_llm_stream_async
        self.added: list[str] = []
        self.frontend: set[str] = set()

    def apply(self, input: RunAgentInput) -> None:
        agent = self.agent
        for tool in input.tools or ():
            if tool.name in agent.llm_tools_map:
                log.warning(
                    "agui-widget: the frontend tool %r has the name of one of the agent's own tools; "
                    "the agent's is used",
                    tool.name,
                )
                continue
            self.added.append(tool.name)
            agent.enable_message(frontend_tool_class(tool), use=True, handle=True)
            agent.disable_strict_tools_set.add(tool.name)  # an arbitrary schema may not meet strict mode
            self.frontend.add(tool.name)
        agent.llm_function_force = self.force  # enable_message resets a forced tool

    def undo(self) -> None:
        agent = self.agent
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


# -- a run -----------------------------------------------------------------------------------


@dataclass
class _Call:
    id: str
    name: str
    args: Any
    tool: ToolMessage | None = None
    error: str | None = None
    frontend: bool = False

    @property
    def args_text(self) -> str:
        return json.dumps(self.args, ensure_ascii=False, default=str)

    def events(self, parent_message_id: str) -> list[BaseEvent]:
        """The call as the model made it: START, its whole arguments, END."""
        return [
            ToolCallStartEvent(tool_call_id=self.id, tool_call_name=self.name, parent_message_id=parent_message_id),
            ToolCallArgsEvent(tool_call_id=self.id, delta=self.args_text),
            ToolCallEndEvent(tool_call_id=self.id),
        ]


class _Step:
    """One model call: its assistant message id and what it streamed."""

    def __init__(self) -> None:
        self.message_id = new_id("msg")
        self.text: list[str] = []
        self.text_seen = False
        self.reasoning_seen = False
        self.tool_stream: list[list[str]] = []  # [name, args so far] per streamed call
        self.partial_seen: dict[str, Any] = {}
        self.response: ChatDocument | None = None


async def run(
    adapter: LangroidAgent, agent: ChatAgent, input: RunAgentInput, stream: EventStream
) -> AsyncIterator[Any]:
    async with lock_for(agent):
        async for emitted in _Run(adapter, agent, input, stream).events():
            yield emitted


class _Run:
    def __init__(self, adapter: LangroidAgent, agent: ChatAgent, input: RunAgentInput, stream: EventStream) -> None:
        self.adapter = adapter
        self.agent = agent
        self.input = input
        self.stream = stream
        self.loop = asyncio.get_running_loop()
        self.loop_thread = threading.get_ident()
        self.outbox: asyncio.Queue[Any] = asyncio.Queue()
        self.state = RunState(copy.deepcopy(input.state), self._post)
        self.transcript = [m.model_dump(mode="json", by_alias=True) for m in input.messages]
        self.behaviors: dict[str, ToolBehavior] = adapter.tool_behaviors
        self.frontend: set[str] = set()
        self.saved_callback = agent.callbacks.start_llm_stream_async

    # -- plumbing --------------------------------------------------------------------------

    def _post(self, events: list[BaseEvent]) -> None:
        """Queue events for the run's stream (from a hook, a handler, or a handler's thread)."""
        if threading.get_ident() == self.loop_thread:
            self.outbox.put_nowait(events)
        else:
            self.loop.call_soon_threadsafe(self.outbox.put_nowait, events)

    def _drain(self) -> list[BaseEvent]:
        events: list[BaseEvent] = []
        while not self.outbox.empty():
            item = self.outbox.get_nowait()
            if item is not _DONE:
                events.extend(item)
        return events

    def _input_now(self) -> RunAgentInput:
        return self.input.model_copy(update={"state": self.state.value})

    def _write_call(self, name: str, args: dict[str, Any]) -> str:
        """A tool call as the model writes it in JSON-tool mode (XML for Langroid's XML tools)."""
        tool_class = self.agent.llm_tools_map.get(name)
        if isinstance(tool_class, type) and issubclass(tool_class, XMLToolMessage):
            try:
                return tool_class.model_validate({**args, "request": name}).format_example()
            except Exception:
                pass
        return json_tool_text(name, args)

    def _xml_tool_classes(self) -> list[type[XMLToolMessage]]:
        usable = [self.agent.llm_tools_map.get(name) for name in self.agent.llm_tools_usable]
        return [c for c in usable if isinstance(c, type) and issubclass(c, XMLToolMessage)]

    def _is_xml_tool(self, candidate: str) -> bool:
        """Whether an XML fragment of the reply is a call of one of the agent's tools."""
        try:
            return self.agent._get_one_tool_message(candidate, is_json=False, from_llm=True) is not None
        except ValidationError:
            return True  # a tool call with bad fields: the model is told, the text does not show it
        except Exception:
            return False

    def _known_tool(self, name: str) -> bool:
        return name in self.agent.all_llm_tools_known or name in self.frontend

    # -- the loop --------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[Any]:
        agent = self.agent
        check_ready(agent)
        setup = _AgentSetup(agent)
        _quiet.acquire()
        try:
            setup.apply(self.input)
            self.frontend = setup.frontend
            self.saved_callback = setup.callback
            async for emitted in self._turns():
                yield emitted
        finally:
            setup.undo()
            _quiet.release()

    async def _turns(self) -> AsyncIterator[Any]:
        """Model calls and tool rounds until the model answers (or a frontend tool must)."""
        agent = self.agent
        mode = tool_mode(agent)
        # Langroid looks for tools written into the reply; the text is screened for them while it
        # streams when the model was told about any (a plain chat streams untouched).
        content_tools = SearchForTools.CONTENT.value in agent.search_for_tools and bool(agent.llm_tools_known)
        screen = content_tools and bool(agent.llm_tools_usable)
        for _ in range(self.adapter.max_turns):
            step = _Step()
            async for emitted in self._model_call(step, mode, screen):
                yield emitted
            response = step.response
            assert response is not None
            try:
                calls = self._calls(response, content_tools)
                self.transcript.append(
                    {
                        "id": step.message_id,
                        "role": "assistant",
                        "content": "".join(step.text),
                        **(
                            {"metadata": reasoning_metadata(response.content_with_reasoning)}
                            if response.content_with_reasoning
                            else {}
                        ),
                        "toolCalls": [
                            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args_text}}
                            for c in calls
                        ],
                    }
                )
                if not calls:
                    return
                for call in calls:
                    yield call.events(step.message_id)
                    await self._state_from_args(call.name, call.args, call.args_text, call.id, call.tool, partial=False)
                    yield self._drain()
                done_text: str | None = None
                for call in calls:
                    if call.frontend:
                        continue
                    outcome: list[Any] = []
                    async for emitted in self._handle(call, response, outcome):
                        yield emitted
                    result_text, done = outcome
                    self.transcript.append(
                        {"id": new_id("tool"), "role": "tool", "toolCallId": call.id, "content": result_text}
                    )
                    if done is not None:
                        done_text = done
            finally:
                ObjectRegistry.remove(response.id())  # Langroid registers every response; let it go
            if any(call.frontend for call in calls):
                return  # the client answers them; the follow-up run continues from there
            if done_text is not None:
                if done_text:
                    yield self.stream.text(done_text, message_id=new_id("msg"))
                    yield self.stream.end_text()
                return
        raise RuntimeError(
            f"the agent kept calling tools for {self.adapter.max_turns} model calls in a row without answering; "
            "stopped to avoid a loop (LangroidAgent(max_turns=...) allows more)"
        )

    # -- the model call --------------------------------------------------------------------

    def _history(self, mode: str, with_state: bool = True) -> ChatDocument:
        """Put the transcript into ``message_history``; returns the message to respond to.

        ``with_state``: let ``state_context_builder`` rewrite the latest user message (a Task's
        run does it for each model call instead, see ``_task``)."""
        agent = self.agent
        history = [agent._create_system_and_tools_message()]
        if self.input.context:
            lines = "\n".join(f"- {item.description}: {item.value}" for item in self.input.context)
            history.append(LLMMessage(role=Role.SYSTEM, content=f"Context from the application:\n{lines}"))
        if agent.user_message:
            history.append(LLMMessage(role=Role.USER, content=agent.user_message))
        history += to_llm_messages(self.transcript, mode, self._write_call)  # type: ignore[arg-type]
        last = history[-1]
        text = last.content or "" if last.role == Role.USER else ""
        builder = self.adapter.state_context_builder
        if builder is not None and with_state:
            for message in reversed(history):
                if message.role == Role.USER:
                    message.content = builder(self._input_now(), message.content or "")
                    break
        # Langroid appends the message it is asked to respond to unless it is already the last
        # entry of the history (matched by ChatDocument id): so the whole transcript goes in the
        # history, and the trigger document names its last entry. Its text (what the user typed)
        # is for agents that override llm_response_async, e.g. to retrieve documents.
        trigger = ChatDocument(content=text, metadata=ChatDocMetaData(sender=Entity.USER if text else Entity.AGENT))
        if text and agent.try_get_tool_messages(trigger):
            # Tool JSON typed by the user must not stop the model from answering.
            ObjectRegistry.remove(trigger.id())
            trigger = ChatDocument(content="", metadata=ChatDocMetaData(sender=Entity.AGENT))
        last.chat_document_id = trigger.id()
        agent.message_history = history
        agent.tool_error = False
        return trigger

    async def _model_call(self, step: _Step, mode: str, screen: bool) -> AsyncIterator[Any]:
        agent = self.agent
        tokens: asyncio.Queue[Any] = asyncio.Queue()

        async def streamer(token: Any = "", event_type: Any = StreamEventType.TEXT, *args: Any, **kwargs: Any) -> None:
            tokens.put_nowait((event_type, token))

        async def start_stream(*args: Any, **kwargs: Any) -> Callable[..., Any]:
            return streamer

        trigger = self._history(mode)
        agent.callbacks.start_llm_stream_async = start_stream
        filter = self._text_filter(screen)
        task = asyncio.ensure_future(_quiet.muted(agent.llm_response_async(trigger)))
        task.add_done_callback(lambda _: tokens.put_nowait(_DONE))
        try:
            finished = False
            while not finished:
                batch = [await tokens.get()]
                while not tokens.empty():
                    batch.append(tokens.get_nowait())
                events: list[BaseEvent] = []
                for item in batch:
                    if item is _DONE:
                        finished = True
                        break
                    events += await self._on_token(step, filter, *item)
                events += self._drain()
                if events:
                    yield events
            step.response = task.result()
        finally:
            agent.callbacks.start_llm_stream_async = self.saved_callback
            if not task.done():
                task.cancel()
            ObjectRegistry.remove(trigger.id())
        response = step.response
        if response is None:
            raise RuntimeError(
                "the Langroid agent gave no response (llm_response_async returned None): its LLM may be missing, "
                "or the last message holds a tool call the agent must handle, not the model"
            )
        events = self._after_call(step, filter, response)
        if events:
            yield events

    def _text_filter(self, screen: bool) -> ToolJsonFilter | ToolXmlFilter | None:
        """What keeps tool calls written into the reply out of the streamed text, if anything must."""
        if not screen:
            return None
        xml_tools = self._xml_tool_classes()
        if xml_tools:
            return ToolXmlFilter(self._is_xml_tool, {c._get_root_element() for c in xml_tools})
        return ToolJsonFilter(self._known_tool)

    def _after_call(self, step: _Step, filter: Any, response: ChatDocument) -> list[BaseEvent]:
        """The events that finish a model call: what did not stream, then the ends."""
        events: list[BaseEvent] = []
        if not step.reasoning_seen and response.reasoning:
            events += self.stream.reasoning(response.reasoning)
        if step.text_seen:
            rest = filter.finish() if filter is not None else ""
        else:
            content = response.content or ""
            rest = (filter.feed(content) + filter.finish()) if filter is not None else content
        if rest:
            events += self.stream.text(rest, message_id=step.message_id)
            step.text.append(rest)
        ends = self.stream.end_text()
        if ends and response.content_with_reasoning:
            # The model wrote its reasoning into the reply: the history gives it back that way.
            ends = [ends[0].model_copy(update={"metadata": reasoning_metadata(response.content_with_reasoning)})]
        return events + ends + self.stream.end_reasoning()

    async def _on_token(self, step: _Step, filter: Any, kind: Any, token: Any) -> list[BaseEvent]:
        token = token if isinstance(token, str) else str(token or "")
        if kind in (StreamEventType.TEXT, None):
            step.text_seen = True
            visible = filter.feed(token) if filter is not None else token
            events: list[BaseEvent] = []
            if visible:
                step.text.append(visible)
                events = self.stream.text(visible, message_id=step.message_id)
            if filter is not None and self.behaviors:
                held = filter.candidate()
                if held:
                    value = parse_partial_json(held)
                    name = tool_name_of(value, self._known_tool)
                    if name is not None:
                        args = {k: v for k, v in value.items() if k != "request"}
                        await self._partial_args(step, name, args, held)
            return events
        if kind == StreamEventType.REASONING:
            step.reasoning_seen = True
            return self.stream.reasoning(token) if token else []
        if kind in (StreamEventType.TOOL_NAME, StreamEventType.FUNC_NAME):
            step.tool_stream.append([token, ""])
            return []
        if kind in (StreamEventType.TOOL_ARGS, StreamEventType.FUNC_ARGS):
            if not step.tool_stream:
                step.tool_stream.append(["", ""])
            entry = step.tool_stream[-1]
            entry[1] += token
            if entry[0] in self.behaviors:
                value = parse_partial_json(entry[1])
                if isinstance(value, dict):
                    await self._partial_args(step, entry[0], value, entry[1])
            return []
        return []

    # -- tool calls ------------------------------------------------------------------------

    def _calls(self, response: ChatDocument, content_tools: bool) -> list[_Call]:
        calls: list[_Call] = []
        if response.oai_tool_calls:
            for tool_call in response.oai_tool_calls:
                if tool_call.function is not None:
                    calls.append(self._call(tool_call.id, tool_call.function.name, tool_call.function.arguments))
        elif response.function_call is not None:
            calls.append(self._call(None, response.function_call.name, response.function_call.arguments))
        elif content_tools and response.content:
            calls = self._content_calls(response.content)
        return calls

    def _call(self, call_id: str | None, name: str, arguments: Any) -> _Call:
        agent = self.agent
        call = _Call(
            id=call_id or new_id("call"), name=name, args=parse_args(arguments), frontend=name in self.frontend
        )
        tool_class = agent.llm_tools_map.get(name)
        if tool_class is None:
            call.error = (
                f"There is no tool named {name!r}. The tools you can use: {sorted(agent.llm_tools_usable) or 'none'}."
            )
            return call
        try:
            call.tool = tool_class.model_validate({**call.args, "request": name})
            call.tool.id = call.id
        except ValidationError as error:
            call.error = agent.tool_validation_error(error, tool_class)
        return call

    def _content_calls(self, content: str) -> list[_Call]:
        """Tool calls written into the reply (Langroid JSON or XML tools)."""
        agent = self.agent
        candidates = XMLToolMessage.find_candidates(content)
        is_json = not candidates
        if is_json:
            candidates = extract_top_level_json(content)
        calls: list[_Call] = []
        for candidate in candidates:
            try:
                tool = agent._get_one_tool_message(candidate, is_json, from_llm=True)
            except ValidationError as error:
                tool_class = getattr(error, "tool_class", None)
                name = tool_class.default_value("request") if tool_class is not None else "unknown"
                value = parse_json_text(candidate) if is_json else {}
                args = {k: v for k, v in value.items() if k != "request"} if isinstance(value, dict) else {}
                calls.append(_Call(new_id("call"), name, args, error=agent.tool_validation_error(error, tool_class)))
                continue
            except Exception:  # not a tool after all (malformed XML, ...)
                continue
            if tool is None:
                continue
            name = tool.default_value("request")
            excluded = tool._get_excluded_fields() | {"request"}
            args = tool.model_dump(mode="json", exclude=excluded)
            call = _Call(new_id("call"), name, args, tool=tool, frontend=name in self.frontend)
            tool.id = call.id
            calls.append(call)
        return calls

    async def _handle(self, call: _Call, response: ChatDocument, outcome: list[Any]) -> AsyncIterator[Any]:
        """Run one backend tool call; ``outcome`` receives (result text, done text or None)."""
        agent = self.agent
        done: str | None = None
        value: Any = None
        handled = False
        if call.error is not None:
            text = call.error
        elif call.tool is None or not agent._tool_recipient_match(call.tool):
            text = f"The tool {call.name!r} is not handled by this agent."
        else:
            task = asyncio.ensure_future(self.invoke(call, call.tool, response))
            task.add_done_callback(lambda _: self.outbox.put_nowait([]))
            try:
                while not task.done():
                    item = await self.outbox.get()  # the handler's events, live; [] when it ends
                    if item:
                        yield item
                extra = self._drain()
                if extra:
                    yield extra
                result, handled = task.result()
            finally:
                if not task.done():
                    task.cancel()
            if handled:
                text, value, done = self._result(result)
            else:
                text = result
        shown = self.result_event(call, call.tool, value, text, handled)
        yield [shown]
        if handled:
            await self.state_from_result(call, value, shown.content, shown.message_id)
            events = self._drain()
            if events:
                yield events
        outcome[:] = [shown.content, done]

    async def invoke(
        self, call: _Call, tool: ToolMessage, chat_doc: ChatDocument | None, handle_async: Callable[..., Any] | None = None
    ) -> tuple[Any, bool]:
        """Run the handler of ``tool`` under its ``tool_context()``: (what it returned, True), or
        (the error text the model is told, False) when it raised and ``tool_errors="result"``.
        ``handle_async``: the agent's own ``handle_tool_message_async`` when it is wrapped."""
        agent = self.agent
        context = ToolContext(
            input=self._input_now(),
            tool_name=call.name,
            tool_call_id=call.id,
            args=call.args,
            agent=agent,
            _state=self.state,
            _emit=self._post,
        )
        token = _CURRENT.set(context)
        try:
            name = handler_name(type(tool), tool.default_value("request"))
            if self.adapter.sync_tools_in_thread and getattr(agent, name + "_async", None) is None:
                return await asyncio.to_thread(agent.handle_tool_message, tool, chat_doc=chat_doc), True
            return await (handle_async or agent.handle_tool_message_async)(tool, chat_doc=chat_doc), True
        except Exception as error:
            if self.adapter.tool_errors == "raise":
                raise
            log.info("agui-widget: the %r tool failed", call.name, exc_info=True)
            return f"Error: the tool {call.name!r} failed: {type(error).__name__}: {error}", False
        finally:
            _CURRENT.reset(token)

    def result_event(
        self, call: _Call, tool: ToolMessage | None, value: Any, text: str, handled: bool
    ) -> ToolCallResultEvent:
        """The call's TOOL_CALL_RESULT: a handled rich ``value`` shown as a bundle (its
        ``content`` is then the text the model gets), else ``text``."""
        shown = rich_result(self.stream, self.agent, tool, call.id, value) if handled else None
        if shown is not None:
            return shown
        return ToolCallResultEvent(message_id=new_id("tool"), tool_call_id=call.id, content=text, role="tool")

    async def state_from_result(self, call: _Call, value: Any, text: str, message_id: str) -> None:
        """The tool behavior's ``state_from_result`` for a handled call, if it has one."""
        behavior = self.behaviors.get(call.name)
        if behavior is None or behavior.state_from_result is None:
            return
        context = ToolResultContext(
            input=self._input_now(),
            tool_name=call.name,
            tool_call_id=call.id,
            args=call.args,
            args_text=call.args_text,
            state=self.state.value,
            partial=False,
            tool=call.tool,
            result=parse_json_text(text) if value is None or isinstance(value, str) else value,
            result_text=text,
            message_id=message_id,
        )
        self.state.apply(await _maybe_await(behavior.state_from_result(context)))

    @staticmethod
    def _result(result: Any) -> tuple[str, Any, str | None]:
        """(text for the model, structured value, done text) of what Langroid's dispatch returned."""
        if result is None:
            return NO_RESULT, None, None
        if isinstance(result, ChatDocument):
            try:
                done = (result.content or "") if has_done_tool(result) else None
                text = result.content if result.content else (NO_RESULT if done is None else "")
                value = result.content_any if result.content_any is not None else text
                return text, value, done
            finally:
                ObjectRegistry.remove(result.id())
        return str(result), result, None

    # -- state hooks -----------------------------------------------------------------------

    async def _partial_args(self, step: _Step, name: str, args: dict[str, Any], text: str) -> None:
        if step.partial_seen.get(name) == args:
            return
        step.partial_seen[name] = copy.deepcopy(args)
        try:
            await self._state_from_args(name, args, text, None, None, partial=True)
        except Exception:
            log.debug("agui-widget: state_from_args on partial arguments of %r failed", name, exc_info=True)

    async def _state_from_args(
        self, name: str, args: Any, text: str, call_id: str | None, tool: Any, *, partial: bool
    ) -> None:
        behavior = self.behaviors.get(name)
        if behavior is None or behavior.state_from_args is None:
            return
        context = ToolCallContext(
            input=self._input_now(),
            tool_name=name,
            tool_call_id=call_id,
            args=args,
            args_text=text,
            state=self.state.value,
            partial=partial,
            tool=tool,
        )
        self.state.apply(await _maybe_await(behavior.state_from_args(context)))


# -- helpers ---------------------------------------------------------------------------------


def rich_result(
    stream: EventStream, agent: ChatAgent, tool: ToolMessage | None, call_id: str, value: Any
) -> ToolCallResultEvent | None:
    """The TOOL_CALL_RESULT for a handler that returned a rich object (a figure, a DataFrame,
    anything IPython can display): its bundle shown in the chat, a text version for the model.
    None for any other value, and when the object gives nothing to show.

    Langroid makes the model's text from such a value with ``str()`` (a figure becomes
    ``Figure(640x480)``) and keeps the object itself as the result's ``content_any``: ``value``
    is that object. The text keeps the tool's ``_max_result_tokens`` limit."""
    if not is_rich(value):
        return None
    [event] = stream.tool_result(call_id, value)  # falls back to text when the object fails to render
    if not event.metadata:
        return None
    limit = getattr(tool, "_max_result_tokens", None)
    if limit is not None:
        event = event.model_copy(update={"content": agent._maybe_truncate_result(event.content, limit)})
    return event  # type: ignore[no-any-return]


def has_done_tool(result: ChatDocument) -> bool:
    """Whether a handler's answer ends the task (Langroid's ``DoneTool`` / ``AgentDoneTool``)."""
    return any(isinstance(t, (AgentDoneTool, DoneTool)) for t in result.tool_messages)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def check_ready(agent: ChatAgent) -> None:
    """Fail before the run starts, saying what to do, when the agent cannot call its model."""
    if agent.llm is None:
        raise RuntimeError(
            f"the Langroid agent {agent.config.name!r} has no LLM (its config has llm=None); "
            "give its ChatAgentConfig an llm, e.g. langroid.language_models.OpenAIGPTConfig(chat_model=...)"
        )
    _check_api_key(agent)


def _check_api_key(agent: ChatAgent) -> None:
    """Fail fast, and say what to do, when an OpenAI model has no key (rather than retrying a 401)."""
    try:
        from langroid.language_models.openai_gpt import OpenAIGPT
        from langroid.language_models.provider_params import DUMMY_API_KEY
    except ImportError:
        return
    llm = agent.llm
    if type(llm) is not OpenAIGPT:
        return
    config = llm.config
    if getattr(config, "api_key_provider", None) is not None or getattr(llm, "api_base", None):
        return
    if getattr(llm, "api_key", None) == DUMMY_API_KEY and (
        llm.is_openai_chat_model() or "/" not in llm.chat_model_orig
    ):
        raise PermissionError(
            "no OpenAI API key: the agent's OpenAIGPTConfig was created while OPENAI_API_KEY was unset "
            "(the key is read when the config is created, so create the agent again after setting it)"
        )
