"""Any other Runnable's run (an LCEL chain, a ``RunnableLambda``, ...), streamed with ``astream_events``.

Input convention: a Runnable whose first step is a chat model gets the message list; any other
gets ``{"messages": [...]}`` plus the keys of the chat's state that its input schema names (a
prompt template's variables); or whatever ``input_mapper(messages, state)`` returns.

What the chat shows: the tokens of the chat models inside (a step per model call); when there is
none, what the Runnable itself streams (strings, message chunks) or returns.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from ag_ui.core import BaseEvent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables.schema import StreamEvent

from ...vocabulary._content import to_json_text
from .._base import Emitted, EventStream, new_id
from ._custom import custom_event
from ._run import LangChainRun
from ._steps import Steps
from ._values import json_safe

if TYPE_CHECKING:
    from ag_ui.core import RunAgentInput

    from ._agent import LangChainAgent


class RunnableRun(LangChainRun):
    """One run of the Runnable: its ``astream_events`` mapped as they come, then its output when
    nothing was streamed."""

    def __init__(self, agent: LangChainAgent, input: RunAgentInput, stream: EventStream) -> None:
        super().__init__(agent, input, stream)
        self.runnable = agent.runnable
        self.steps = Steps(stream, self.options.emit_steps)
        self.model_steps: dict[str, str] = {}  # a streaming model call's run id -> its step's name
        self.tool_inputs: dict[str, object] = {}  # a running tool's run id -> its input
        self.models = 0  # model calls seen: when there are any, their tokens are the answer
        self.root_message = new_id("msg")  # the answer's id when the Runnable itself gives it
        self.root_streamed = False
        self.output: object = None

    async def events(self) -> AsyncGenerator[Emitted, None]:
        source = self.runnable.astream_events(self._runnable_input(), self.run_config(), version="v2")
        async with aclosing(source) as stream_events:  # type: ignore[type-var]  # LangChain annotates an AsyncIterator; it is an async generator
            async for event in stream_events:
                yield self._event(event)
        if not self.models and not self.root_streamed:
            yield self._output_events()
        yield self.mapper.end_all()

    def _runnable_input(self) -> object:
        messages = self.prompt_messages()
        state = self.input.state if isinstance(self.input.state, dict) else {}
        if self.agent.input_mapper is not None:
            return self.agent.input_mapper(messages, state)
        if self.agent.takes_messages:
            return messages
        data: dict[str, object] = {key: state[key] for key in self.agent.input_keys if key in state}
        data["messages"] = messages
        return data

    def _event(self, event: StreamEvent) -> list[BaseEvent]:
        kind = event["event"]
        run_id = event.get("run_id", "")
        data = event.get("data") or {}
        name = event.get("name") or ""
        if kind == "on_chat_model_start":
            if "nostream" in (event.get("tags") or ()):
                return []  # hidden, as in LangGraph's own messages stream
            self.models += 1
            self.model_steps[run_id] = name or "model"
            return self.steps.start(self.model_steps[run_id])
        if kind == "on_chat_model_stream" and run_id in self.model_steps:
            return self.mapper.chunk(data.get("chunk"), fallback_id=f"lc_run--{run_id}")
        if kind == "on_chat_model_end" and run_id in self.model_steps:
            output = data.get("output")
            events = self.mapper.message(output, fallback_id=f"lc_run--{run_id}") if isinstance(output, AIMessage) else []
            return events + self.mapper.end_all() + self.steps.finish(self.model_steps.pop(run_id))
        if kind == "on_tool_start":
            self.tool_inputs[run_id] = data.get("input")
            return self.steps.start(name or "tool")
        if kind == "on_tool_end":
            result = self._tool_output(name or "tool", self.tool_inputs.pop(run_id, None), data.get("output"))
            return result + self.steps.finish(name or "tool")
        if kind == "on_custom_event" and self.options.emit_custom:
            return [custom_event(data, event.get("name"))]
        if kind == "on_chain_stream" and not event.get("parent_ids") and not self.models:
            return self._root_chunk(data.get("chunk"))
        if kind == "on_chain_end" and not event.get("parent_ids"):
            self.output = data.get("output")
        return []

    def _root_chunk(self, chunk: object) -> list[BaseEvent]:
        """What the Runnable itself streams: text, or message chunks."""
        if isinstance(chunk, str) and chunk:
            self.root_streamed = True
            return self.stream.text(chunk, message_id=self.root_message)
        if isinstance(chunk, BaseMessage):
            self.root_streamed = True
            return self.mapper.chunk(chunk, fallback_id=self.root_message)
        return []

    def _tool_output(self, name: str, tool_input: object, output: object) -> list[BaseEvent]:
        """A tool called with a ``ToolCall`` answers the model's call; one the Runnable called with
        plain arguments is shown as a call of its own with its result (a raw rich return, a figure
        or a DataFrame, is shown as it is)."""
        if isinstance(output, ToolMessage) and output.tool_call_id:
            return self.mapper.tool_result(output.tool_call_id, output.content, message_id=output.id, artifact=output.artifact)
        call_id, events = self.mapper.whole_call(name, tool_input)
        if isinstance(output, ToolMessage):
            return events + self.mapper.tool_result(call_id, output.content, artifact=output.artifact)
        return events + self.mapper.tool_result(call_id, output)

    def _output_events(self) -> list[BaseEvent]:
        """The Runnable's output, when nothing was streamed: a string, a message, the new messages
        of a ``{"messages": [...]}`` dict, or any other value as JSON."""
        output, message_id = self.output, self.root_message
        if isinstance(output, str):
            return self.stream.text(output, message_id=message_id) if output else []
        if isinstance(output, BaseMessage):
            return self.mapper.message(output, fallback_id=message_id)
        if isinstance(output, dict) and isinstance(output.get("messages"), list):
            known = {m.id for m in self.input.messages}
            events: list[BaseEvent] = []
            for message in output["messages"]:
                if isinstance(message, BaseMessage) and message.id not in known:
                    events += self.mapper.message(message)
            return events
        if output is not None:
            return self.stream.text(to_json_text(json_safe(output)), message_id=message_id)
        return []
