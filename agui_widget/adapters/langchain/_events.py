"""LangChain messages as AG-UI events: message chunks, whole messages, tool calls and results.

One :class:`MessageMapper` per run turns what LangChain streams (``AIMessageChunk``s with text,
reasoning and tool-call chunks; whole ``AIMessage``s and ``ToolMessage``s) into events built with
the run's :class:`~agui_widget.adapters.EventStream`, so the base's framing rules hold. The runs
of :class:`~agui_widget.adapters.langchain.LangChainAgent` and the callback handler share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
)
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCallChunk, ToolMessage

from ...vocabulary._content import to_json_text
from .._base import EventStream, new_id
from ._options import AGUIOptions
from ._tool_results import shown_result
from ._values import json_safe, langchain_content_text

try:  # ag-ui-protocol >= 1.0
    from ag_ui.core.token_usage import (
        aggregate_token_usage,
        token_usage_from_langchain_metadata,
    )
except ImportError:  # pragma: no cover
    aggregate_token_usage = token_usage_from_langchain_metadata = None  # type: ignore[assignment]


@dataclass
class _Call:
    """A tool call being streamed: started once its id and name are known."""

    id: str | None = None
    name: str | None = None
    args: list[str] = field(default_factory=list)
    started: bool = False


class MessageMapper:
    """Turns LangChain messages and chunks into AG-UI events for one run."""

    def __init__(self, stream: EventStream, options: AGUIOptions) -> None:
        self.stream = stream
        self.options = options
        self._calls: dict[tuple[str, int | str], _Call] = {}  # (message id, index or id) -> call being streamed
        self._open_calls: dict[str, list[str]] = {}  # message id -> its started, unended calls
        self._streamed: set[str] = set()  # messages whose events were sent
        self._started_calls: set[str] = set()
        self._owner: dict[str, str] = {}  # tool call id -> the message that made it
        self._results: set[str] = set()  # tool calls answered
        self._aliases: dict[str, str] = {}  # LangChain's "lc_run--" ids -> the provider's message id
        self._provider_id: str | None = None
        self._usage: list[TokenUsage] = []
        self._labels: dict[str, dict[str, Any]] = {}  # message id -> the model and provider its chunks named
        self.last_message_id: str | None = None

    # chunks ------------------------------------------------------------------------------------

    def chunk(self, chunk: object, *, fallback_id: str | None = None) -> list[BaseEvent]:
        """One streamed piece of an assistant message (an ``AIMessageChunk``, or a whole message);
        anything else has no events."""
        if not isinstance(chunk, BaseMessage):
            return []
        message_id = self._message_id(chunk.id, fallback_id)
        if not isinstance(chunk, AIMessageChunk):
            if isinstance(chunk, AIMessage):
                return self.message(chunk, fallback_id=message_id)
            return []
        self._streamed.add(message_id)
        self.last_message_id = message_id
        events: list[BaseEvent] = []
        content = chunk.content
        if isinstance(content, str) and not chunk.additional_kwargs and not chunk.tool_call_chunks:
            if content:
                events += self.stream.text(content, message_id=message_id)
        else:
            events += self._blocks(chunk, message_id)
            for piece in chunk.tool_call_chunks:
                events += self._tool_chunk(message_id, piece)
        if chunk.response_metadata:
            self._note_labels(message_id, chunk.response_metadata)
        if chunk.usage_metadata:
            self._add_usage(chunk, message_id)
        if getattr(chunk, "chunk_position", None) == "last":
            events += self.end_message(message_id)
        return events

    def _message_id(self, raw: str | None, fallback: str | None) -> str:
        """The id the message will have in LangChain's state, so the transcript matches it.

        Some providers give their message id on the first chunk only; LangChain then ids the
        other chunks ``lc_run--<run id>``, and the merged message keeps the provider's id. Those
        chunks are filed under the provider's id.
        """
        if raw is None:
            return fallback or self.last_message_id or new_id("msg")
        if not raw.startswith("lc_"):
            self._provider_id = raw
            return raw
        alias = self._aliases.get(raw)
        if alias is None:
            alias = self._provider_id if self._provider_id is not None else raw
            self._aliases[raw] = alias
        return alias

    def _blocks(self, message: BaseMessage, message_id: str) -> list[BaseEvent]:
        """The reasoning and text of a message's content blocks, in order."""
        events: list[BaseEvent] = []
        try:
            blocks = message.content_blocks
        except Exception:  # an unknown provider format: fall back to the plain text
            blocks = [{"type": "text", "text": langchain_content_text(message.content)}]
        for block in blocks:
            kind = block.get("type")
            if kind == "reasoning":
                text = block.get("reasoning")
                if isinstance(text, str) and text:
                    events += self.stream.reasoning(text)
            elif kind == "text":
                text = block.get("text")
                if isinstance(text, str) and text:
                    events += self.stream.text(text, message_id=message_id)
        return events

    def _tool_chunk(self, message_id: str, piece: ToolCallChunk) -> list[BaseEvent]:
        index = piece.get("index")
        key = (message_id, index if index is not None else piece.get("id") or "last")
        call = self._calls.get(key)
        if call is None:
            if index is None and not piece.get("id"):
                # a continuation without index or id: the message's latest call
                open_calls = [k for k in self._calls if k[0] == message_id]
                call = self._calls[open_calls[-1]] if open_calls else None
            if call is None:
                call = self._calls[key] = _Call()
        call.id = call.id or piece.get("id")
        call.name = call.name or piece.get("name")
        args = piece.get("args")
        if args:
            call.args.append(args)
        if not call.started:
            if not (call.id and call.name):
                return []  # wait for the id and name before starting the call
            call.started = True
            return self._start_call(message_id, call.id, call.name, "".join(call.args))
        return self._accept(ToolCallArgsEvent(tool_call_id=call.id, delta=args)) if args and call.id else []

    def _accept(self, *events: BaseEvent) -> list[BaseEvent]:
        """Frame hand-built events now, so the run's bookkeeping is current for what follows.

        The adapter base frames every yielded event again; for a well-formed sequence that is a
        no-op, so the order built here is the order sent.
        """
        framed: list[BaseEvent] = []
        for event in events:
            framed += self.stream.accept(event)
        return framed

    def _start_call(self, message_id: str, call_id: str, name: str, args: str) -> list[BaseEvent]:
        """TOOL_CALL_START under the message that made the call (and the arguments so far)."""
        if call_id in self._started_calls:
            return []
        self._started_calls.add(call_id)
        self._owner[call_id] = message_id
        self._open_calls.setdefault(message_id, []).append(call_id)
        events = self._accept(*self.stream.tool_call_start(name, tool_call_id=call_id, parent_message_id=message_id))
        if args:
            events += self._accept(*self.stream.tool_call_args(call_id, args))
        return events

    def whole_call(self, name: str, args: object) -> tuple[str, list[BaseEvent]]:
        """A tool call nobody streamed (a Runnable ran a tool itself): START, ARGS, END at once."""
        call_id = new_id("call")
        parent = self.last_message_id
        events = self.end_all()
        events += self._accept(*self.stream.tool_call(name, json_safe(args), tool_call_id=call_id, parent_message_id=parent))
        self._started_calls.add(call_id)
        return call_id, events

    def end_message(self, message_id: str | None = None) -> list[BaseEvent]:
        """Close what a message left open: its text, reasoning, and its tool calls (every
        message's, when ``message_id`` is None)."""
        if message_id is None or message_id == self._provider_id:
            self._provider_id = None
        events: list[BaseEvent] = self.stream.end_reasoning()
        if message_id is None or self.stream.open_text_id == message_id:
            events += self.stream.end_text()
        ids = [message_id] if message_id is not None else list(self._open_calls)
        for mid in ids:
            for key in [k for k in self._calls if k[0] == mid]:
                call = self._calls.pop(key)
                if not call.started and call.args and call.name:
                    # a call that never got an id: give it one so the UI still sees it
                    call.id = call.id or new_id("call")
                    events += self._start_call(mid, call.id, call.name, "".join(call.args))
            for call_id in self._open_calls.pop(mid, []):
                events += self._accept(ToolCallEndEvent(tool_call_id=call_id))
        return events

    def end_all(self) -> list[BaseEvent]:
        return self.end_message(None)

    # whole messages ----------------------------------------------------------------------------

    def message(self, message: BaseMessage, *, fallback_id: str | None = None) -> list[BaseEvent]:
        """A whole message a node, tool or model produced (not streamed)."""
        if isinstance(message, ToolMessage):
            return self.tool_result(message.tool_call_id, message.content, message_id=message.id, artifact=message.artifact)
        if not isinstance(message, AIMessage):
            return []  # user and system messages made inside an agent have no AG-UI event
        message_id = message.id or fallback_id or new_id("msg")
        if message_id in self._streamed:
            return self.end_message(message_id)
        self._streamed.add(message_id)
        self.last_message_id = message_id
        events = self._blocks(message, message_id)
        for call in message.tool_calls:
            call_id = call.get("id") or new_id("call")
            events += self._start_call(message_id, call_id, call["name"], to_json_text(call.get("args") or {}))
        if message.usage_metadata:
            self._add_usage(message, message_id)
        return events + self.end_message(message_id)

    def tool_result(
        self, tool_call_id: str | None, content: object, *, message_id: str | None = None, artifact: object = None
    ) -> list[BaseEvent]:
        """TOOL_CALL_RESULT for a tool's output, once per call (see :func:`shown_result` for what
        the chat is shown). Its message id is the ToolMessage's, so the transcript matches the
        graph's state."""
        if not tool_call_id or tool_call_id in self._results:
            return []
        self._results.add(tool_call_id)
        text, metadata = shown_result(content, artifact, self.options.max_ui_payload)
        owner = self._owner.get(tool_call_id)
        events = self.end_message(owner) if owner is not None and tool_call_id in self._open_calls.get(owner, ()) else []
        [result] = self.stream.tool_result(tool_call_id, text, message_id=message_id, metadata=metadata)
        return events + self._accept(result)

    def has_result(self, tool_call_id: str) -> bool:
        return tool_call_id in self._results

    # usage -------------------------------------------------------------------------------------

    def _note_labels(self, message_id: str, metadata: dict[str, Any]) -> None:
        """A streamed message names its model on one chunk (OpenAI's: the one with the finish
        reason) and reports its usage on another (the last): the name is kept until then."""
        labels = {key: metadata[key] for key in ("model_provider", "model_name", "model") if metadata.get(key)}
        if labels:
            self._labels.setdefault(message_id, {}).update(labels)

    def _add_usage(self, message: AIMessage, message_id: str) -> None:
        if token_usage_from_langchain_metadata is None:
            return
        metadata = {**self._labels.get(message_id, {}), **(message.response_metadata or {})}
        entry = token_usage_from_langchain_metadata(
            message.usage_metadata,
            provider=metadata.get("model_provider"),
            model=metadata.get("model_name") or metadata.get("model"),
        )
        if entry is not None:
            self._usage.append(entry)

    def usage(self) -> list[TokenUsage] | None:
        """The run's token usage, per provider and model; None when no model reported any."""
        if not self._usage or aggregate_token_usage is None:
            return None
        return aggregate_token_usage(self._usage)
