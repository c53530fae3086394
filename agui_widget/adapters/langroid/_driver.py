"""One Langroid agent's part in an AG-UI run: its history rebuilt from the transcript, a model call's
stream turned into events, the response's tool calls read, and a handler run under
``tool_context()``. Imports Langroid.

The single-agent loop (``_agent_run``) drives an agent through these itself; a Task's run
(``_task_run``) lets Langroid's loop drive, and calls them from the seams it observes. Both use
:class:`AgentDriver`'s public methods and nothing else of it.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

from ag_ui.core import BaseEvent, ToolCallResultEvent
from langroid.agent.base import SearchForTools
from langroid.agent.chat_agent import ChatAgent
from langroid.agent.chat_document import ChatDocMetaData, ChatDocument
from langroid.agent.tool_message import ToolMessage, handler_name
from langroid.agent.xml_tool_message import XMLToolMessage
from langroid.language_models.base import LLMMessage, Role, StreamEventType
from langroid.mytypes import Entity
from langroid.utils.object_registry import ObjectRegistry
from pydantic import ValidationError

from ...vocabulary._content import context_text, parse_partial_json
from .._base import new_id
from ._calls import Call, calls_in, rich_result
from ._history import json_tool_text, reasoning_metadata, to_llm_messages, tool_mode
from ._hooks import handling_tool
from ._run_context import RunContext
from ._text import ToolJsonFilter, ToolXmlFilter, tool_name_of
from ._usage import call_usage, with_call_usage

log = logging.getLogger("agui_widget")

TextScreen = Union[ToolJsonFilter, ToolXmlFilter, None]
"""What keeps tool calls written into a reply out of its streamed text (None: nothing must)."""


class Step:
    """One model call: its assistant message id and what it streamed."""

    def __init__(self) -> None:
        self.message_id = new_id("msg")
        self.text: list[str] = []
        self.text_seen = False
        self.reasoning_seen = False
        self.tool_stream: list[list[str]] = []  # [name, args so far] per streamed call
        self.partial_seen: dict[str, Any] = {}
        self.response: ChatDocument | None = None


class AgentDriver:
    """One agent's part in a run (see the module's docstring); ``frontend`` names the frontend
    tools installed on it for the run, whose calls the client answers."""

    def __init__(self, run_context: RunContext, agent: ChatAgent) -> None:
        self.run_context = run_context
        self.agent = agent
        self.frontend: set[str] = set()

    # -- what the agent does with tools ------------------------------------------------------

    @property
    def content_tools(self) -> bool:
        """Whether Langroid looks for tool calls written into the reply (the model was told about
        tools in its prompt)."""
        agent = self.agent
        return SearchForTools.CONTENT.value in agent.search_for_tools and bool(agent.llm_tools_known)

    @property
    def screens_text(self) -> bool:
        """Whether the reply is screened for tool calls while it streams (a plain chat streams
        untouched)."""
        return self.content_tools and bool(self.agent.llm_tools_usable)

    # -- the history -------------------------------------------------------------------------

    def history(self, transcript: Sequence[Mapping[str, Any]], *, with_state: bool = True) -> ChatDocument:
        """Put the transcript into ``message_history``; returns the message to respond to.

        ``with_state``: let ``state_context_builder`` rewrite the latest user message (a Task's
        run does it for each model call instead)."""
        agent = self.agent
        run = self.run_context
        history = [agent._create_system_and_tools_message()]
        if run.input.context:
            history.append(LLMMessage(role=Role.SYSTEM, content=context_text(run.input.context)))
        if agent.user_message:
            history.append(LLMMessage(role=Role.USER, content=agent.user_message))
        history += to_llm_messages(transcript, tool_mode(agent), self._write_call)
        last = history[-1]
        text = last.content or "" if last.role == Role.USER else ""
        builder = run.options.state_context_builder
        if builder is not None and with_state:
            for message in reversed(history):
                if message.role == Role.USER:
                    message.content = builder(run.input_now(), message.content or "")
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

    def _write_call(self, name: str, args: dict[str, Any]) -> str:
        """A tool call as the model writes it in JSON-tool mode (XML for Langroid's XML tools)."""
        tool_class = self.agent.llm_tools_map.get(name)
        if isinstance(tool_class, type) and issubclass(tool_class, XMLToolMessage):
            try:
                return tool_class.model_validate({**args, "request": name}).format_example()
            except Exception:
                pass
        return json_tool_text(name, args)

    # -- a model call's stream ---------------------------------------------------------------

    def text_screen(self, screening: bool) -> TextScreen:
        """What keeps tool calls written into the reply out of the streamed text, if anything must."""
        if not screening:
            return None
        xml_tools = self._xml_tool_classes()
        if xml_tools:
            return ToolXmlFilter(self._is_xml_tool, {c._get_root_element() for c in xml_tools})
        return ToolJsonFilter(self._known_tool)

    async def on_token(self, step: Step, screen: TextScreen, kind: Any, token: Any) -> list[BaseEvent]:
        """The events for one token of Langroid's stream (text, reasoning, tool name or arguments);
        streamed tool arguments feed ``state_from_args``."""
        stream = self.run_context.stream
        behaviors = self.run_context.behaviors
        token = token if isinstance(token, str) else str(token or "")
        if kind in (StreamEventType.TEXT, None):
            step.text_seen = True
            visible = screen.feed(token) if screen is not None else token
            events: list[BaseEvent] = []
            if visible:
                step.text.append(visible)
                events = stream.text(visible, message_id=step.message_id)
            if screen is not None and behaviors:
                held = screen.candidate()
                if held:
                    value = parse_partial_json(held)
                    name = tool_name_of(value, self._known_tool)
                    if name is not None:
                        args = {k: v for k, v in value.items() if k != "request"}
                        await self._partial_args(step, name, args, held)
            return events
        if kind == StreamEventType.REASONING:
            step.reasoning_seen = True
            return stream.reasoning(token) if token else []
        if kind in (StreamEventType.TOOL_NAME, StreamEventType.FUNC_NAME):
            step.tool_stream.append([token, ""])
            return []
        if kind in (StreamEventType.TOOL_ARGS, StreamEventType.FUNC_ARGS):
            if not step.tool_stream:
                step.tool_stream.append(["", ""])
            entry = step.tool_stream[-1]
            entry[1] += token
            if entry[0] in behaviors:
                value = parse_partial_json(entry[1])
                if isinstance(value, dict):
                    await self._partial_args(step, entry[0], value, entry[1])
            return []
        return []

    def after_call(self, step: Step, screen: TextScreen, response: ChatDocument) -> list[BaseEvent]:
        """The events that finish a model call: what did not stream, then the ends (and the
        call's token usage, for RUN_FINISHED)."""
        stream = self.run_context.stream
        stream.usage = with_call_usage(stream.usage, call_usage(self.agent, response))
        events: list[BaseEvent] = []
        if not step.reasoning_seen and response.reasoning:
            events += stream.reasoning(response.reasoning)
        if step.text_seen:
            rest = screen.finish() if screen is not None else ""
        else:
            content = response.content or ""
            rest = (screen.feed(content) + screen.finish()) if screen is not None else content
        if rest:
            events += stream.text(rest, message_id=step.message_id)
            step.text.append(rest)
        ends = stream.end_text()
        if ends and response.content_with_reasoning:
            # The model wrote its reasoning into the reply: the history gives it back that way.
            ends = [ends[0].model_copy(update={"metadata": reasoning_metadata(response.content_with_reasoning)})]
        return events + ends + stream.end_reasoning()

    async def _partial_args(self, step: Step, name: str, args: dict[str, Any], text: str) -> None:
        if step.partial_seen.get(name) == args:
            return
        step.partial_seen[name] = copy.deepcopy(args)
        try:
            await self.run_context.state_from_args(name, args, text, None, None, partial=True)
        except Exception:
            log.debug("agui-widget: state_from_args on partial arguments of %r failed", name, exc_info=True)

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

    # -- tool calls --------------------------------------------------------------------------

    def calls(self, response: ChatDocument, content_tools: bool) -> list[Call]:
        """The tool calls of a response (``content_tools``: also those written into the reply)."""
        return calls_in(self.agent, response, content_tools=content_tools, frontend=self.frontend)

    async def invoke(
        self,
        call: Call,
        tool: ToolMessage,
        chat_doc: ChatDocument | None,
        handle_async: Callable[..., Any] | None = None,
    ) -> tuple[Any, bool]:
        """Run the handler of ``tool`` under its ``tool_context()``: (what it returned, True), or
        (the error text the model is told, False) when it raised and ``tool_errors="result"``.
        ``handle_async``: the agent's own ``handle_tool_message_async`` when it is wrapped."""
        agent = self.agent
        run = self.run_context
        options = run.options
        with handling_tool(run.input_now(), call.name, call.id, call.args, agent, run.state, run.post):
            try:
                name = handler_name(type(tool), tool.default_value("request"))
                if options.sync_tools_in_thread and getattr(agent, name + "_async", None) is None:
                    return await asyncio.to_thread(agent.handle_tool_message, tool, chat_doc=chat_doc), True
                return await (handle_async or agent.handle_tool_message_async)(tool, chat_doc=chat_doc), True
            except Exception as error:
                if options.tool_errors == "raise":
                    raise
                log.info("agui-widget: the %r tool failed", call.name, exc_info=True)
                return f"Error: the tool {call.name!r} failed: {type(error).__name__}: {error}", False

    def result_event(self, call: Call, tool: ToolMessage | None, value: Any, text: str, handled: bool) -> ToolCallResultEvent:
        """The call's TOOL_CALL_RESULT: a handled rich ``value`` shown as a bundle (its
        ``content`` is then the text the model gets), else ``text``."""
        stream = self.run_context.stream
        shown = rich_result(stream, self.agent, tool, call.id, value) if handled else None
        if shown is not None:
            return shown
        [event] = stream.tool_result(call.id, text)
        return event
