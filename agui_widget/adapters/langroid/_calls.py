"""A model response's tool calls, and what Langroid hands back for them, read the same way by the
single-agent loop and by a Task's observer. Imports Langroid.

Langroid reports a call in one of three places (OpenAI ``tool_calls``, a ``function_call``, or
tool JSON/XML written into the reply); :func:`calls_in` reads all three into :class:`Call` s, with
the model's ids where it gave them. A handler's answer may be a string, any object, or a
``ChatDocument`` (possibly carrying a done tool); :func:`handler_result` and :func:`result_text`
turn it into the text the model and the chat see.
"""

from __future__ import annotations

import json
from collections.abc import Set
from dataclasses import dataclass
from typing import Any

from ag_ui.core import BaseEvent, ToolCallResultEvent
from langroid.agent.chat_agent import ChatAgent
from langroid.agent.chat_document import ChatDocument
from langroid.agent.tool_message import ToolMessage
from langroid.agent.tools.orchestration import AgentDoneTool, DoneTool
from langroid.agent.xml_tool_message import XMLToolMessage
from langroid.parsing.parse_json import extract_top_level_json
from langroid.utils.object_registry import ObjectRegistry
from pydantic import ValidationError

from ...vocabulary._content import parse_json_text
from ...vocabulary._display import is_rich
from .._base import EventStream, new_id
from ._history import DONE_SIGNAL, parse_args

NO_RESULT = "(the tool returned no result)"


@dataclass
class Call:
    """One tool call of a response: the validated ``tool``, or the ``error`` the model is told."""

    id: str
    name: str
    args: Any
    tool: ToolMessage | None = None
    error: str | None = None
    frontend: bool = False

    @property
    def args_text(self) -> str:
        return json.dumps(self.args, ensure_ascii=False, default=str)

    def events(self, stream: EventStream, parent_message_id: str) -> list[BaseEvent]:
        """The call as the model made it: START (its model call's message as parent), its whole
        arguments, END."""
        return stream.tool_call(self.name, self.args_text, tool_call_id=self.id, parent_message_id=parent_message_id)


# -- reading the calls -------------------------------------------------------------------------


def calls_in(agent: ChatAgent, response: ChatDocument, *, content_tools: bool, frontend: Set[str]) -> list[Call]:
    """The tool calls of ``response``; ``content_tools``: look for tools written into the reply."""
    calls: list[Call] = []
    if response.oai_tool_calls:
        for tool_call in response.oai_tool_calls:
            function = tool_call.function
            if function is not None:
                calls.append(_call(agent, tool_call.id, function.name, function.arguments, frontend))
    elif response.function_call is not None:
        calls.append(_call(agent, None, response.function_call.name, response.function_call.arguments, frontend))
    elif content_tools and response.content:
        calls = _content_calls(agent, response.content, frontend)
    return calls


def _call(agent: ChatAgent, call_id: str | None, name: str, arguments: Any, frontend: Set[str]) -> Call:
    call = Call(id=call_id or new_id("call"), name=name, args=parse_args(arguments), frontend=name in frontend)
    tool_class = agent.llm_tools_map.get(name)
    if tool_class is None:
        call.error = f"There is no tool named {name!r}. The tools you can use: {sorted(agent.llm_tools_usable) or 'none'}."
        return call
    try:
        call.tool = tool_class.model_validate({**call.args, "request": name})
        call.tool.id = call.id
    except ValidationError as error:
        call.error = agent.tool_validation_error(error, tool_class)
    return call


def _content_calls(agent: ChatAgent, content: str, frontend: Set[str]) -> list[Call]:
    """Tool calls written into the reply (Langroid JSON or XML tools)."""
    candidates = XMLToolMessage.find_candidates(content)
    is_json = not candidates
    if is_json:
        candidates = extract_top_level_json(content)
    calls: list[Call] = []
    for candidate in candidates:
        try:
            tool = agent._get_one_tool_message(candidate, is_json, from_llm=True)
        except ValidationError as error:
            tool_class = getattr(error, "tool_class", None)
            name = tool_class.default_value("request") if tool_class is not None else "unknown"
            value = parse_json_text(candidate) if is_json else {}
            args = {k: v for k, v in value.items() if k != "request"} if isinstance(value, dict) else {}
            calls.append(Call(new_id("call"), name, args, error=agent.tool_validation_error(error, tool_class)))
            continue
        except Exception:  # not a tool after all (malformed XML, ...)
            continue
        if tool is None:
            continue
        name = tool.default_value("request")
        excluded = tool._get_excluded_fields() | {"request"}
        args = tool.model_dump(mode="json", exclude=excluded)
        call = Call(new_id("call"), name, args, tool=tool, frontend=name in frontend)
        tool.id = call.id
        calls.append(call)
    return calls


# -- what came back ----------------------------------------------------------------------------


def handler_result(result: Any) -> tuple[str, Any, str | None]:
    """(text for the model, structured value, done text) of what Langroid's dispatch returned for
    one call; the done text is set when the answer ends the task (a done tool)."""
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


def result_text(result: Any) -> str:
    """What a Langroid result says, as Langroid hands it on (a done tool's content, no ``DONE``)."""
    if result is None:
        return ""
    if isinstance(result, ChatDocument):
        for tool in result.tool_messages:
            if isinstance(tool, (AgentDoneTool, DoneTool)):
                content = tool.content
                return content if isinstance(content, str) else json.dumps(content, default=str)
        text = result.content or ""
        if not text and result.content_any not in (None, ""):
            value = result.content_any
            text = value if isinstance(value, str) else json.dumps(value, default=str)
        return text.replace(DONE_SIGNAL, "").strip(" :\n") if DONE_SIGNAL in text else text
    return str(result)


def has_done_tool(result: ChatDocument) -> bool:
    """Whether a handler's answer ends the task (Langroid's ``DoneTool`` / ``AgentDoneTool``)."""
    return any(isinstance(t, (AgentDoneTool, DoneTool)) for t in result.tool_messages)


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
    if limit is not None and isinstance(event.content, str):  # always text from EventStream.tool_result
        event = event.model_copy(update={"content": agent._maybe_truncate_result(event.content, limit)})
    return event
