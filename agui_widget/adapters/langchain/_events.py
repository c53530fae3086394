"""LangChain output as AG-UI events: message chunks, whole messages, tool results, steps, state.

One :class:`MessageMapper` per run turns what LangChain streams (``AIMessageChunk``s with text,
reasoning and tool-call chunks; whole ``AIMessage``s and ``ToolMessage``s) into events built with
the run's :class:`~agui_widget.adapters.EventStream`, so the base's framing rules hold. The adapter
and the callback handler share it.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunErrorEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage

from ..._display import bundle_text, rich_output
from ..._errors import describe_exception
from .._base import EventStream, new_id, to_json_text
from ._messages import json_safe, message_text
from ._options import AGUIOptions

try:  # ag-ui-protocol >= 1.0
    from ag_ui.core.token_usage import (
        aggregate_token_usage,
        token_usage_from_langchain_metadata,
    )
except ImportError:  # pragma: no cover
    aggregate_token_usage = token_usage_from_langchain_metadata = None  # type: ignore[assignment]

log = logging.getLogger("agui_widget")

INTERNAL_KEYS = frozenset({"messages", "jump_to", "remaining_steps", "structured_response"})
"""State keys that are LangChain's own business, never shared with the UI by default."""

_MIDDLEWARE_NODE = re.compile(r"\.(before|after)_(agent|model)$")


def is_middleware_node(name: str) -> bool:
    """``SomeMiddleware.before_model`` and friends: plumbing, not steps a person cares about."""
    return bool(_MIDDLEWARE_NODE.search(name))


# -- tool results for the UI ----------------------------------------------------------------------


def ui_payload(text: str, limit: int | None) -> tuple[str, dict[str, Any] | None]:
    """``text`` cut to ``limit`` characters for display, with a note saying how much was cut."""
    if limit is None or len(text) <= limit:
        return text, None
    cut = len(text) - limit
    note = (
        f"\n\n[… {cut:,} of {len(text):,} characters not shown here. "
        "The agent received the whole result; only this view is shortened.]"
    )
    return text[:limit] + note, {"agui_widget": {"truncated": {"shown": limit, "total": len(text), "cut": cut}}}


def rich_display(value: Any) -> dict[str, Any] | None:
    """The MIME bundle the chat shows for a tool's rich output or artifact (a figure, a DataFrame,
    anything IPython can display), or None for plain values and for objects that fail to render."""
    output = rich_output(value)
    return None if output is None else output[0]


def tool_output_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text") for b in content):
        return message_text(content)
    return to_json_text(json_safe(content))


# -- messages -------------------------------------------------------------------------------------


@dataclass
class _Call:
    id: str | None = None
    name: str | None = None
    args: list[str] = field(default_factory=list)
    started: bool = False


class MessageMapper:
    """Turns LangChain messages and chunks into AG-UI events for one run."""

    def __init__(self, stream: EventStream, options: AGUIOptions) -> None:
        self.stream = stream
        self.options = options
        self._calls: dict[tuple[str, Any], _Call] = {}
        self._open_calls: dict[str, list[str]] = {}
        self._streamed: set[str] = set()
        self._started_calls: set[str] = set()
        self._owner: dict[str, str] = {}
        self._results: set[str] = set()
        self._aliases: dict[str, str] = {}
        self._provider_id: str | None = None
        self._usage: list[TokenUsage] = []
        self.last_message_id: str | None = None

    # chunks ------------------------------------------------------------------------------------

    def chunk(self, chunk: BaseMessage, *, fallback_id: str | None = None) -> list[BaseEvent]:
        """One streamed piece of an assistant message (an ``AIMessageChunk``, or a whole message)."""
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
        events: list[BaseEvent] = []
        try:
            blocks = message.content_blocks
        except Exception:  # an unknown provider format: fall back to the plain text
            blocks = [{"type": "text", "text": message_text(message.content)}]
        for block in blocks:
            kind = block.get("type")
            if kind == "reasoning":
                text = block.get("reasoning") or ""
                if text:
                    events += self.stream.reasoning(text)
            elif kind == "text":
                text = block.get("text") or ""
                if text:
                    events += self.stream.text(text, message_id=message_id)
        return events

    def _tool_chunk(self, message_id: str, piece: dict[str, Any]) -> list[BaseEvent]:
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
        if piece.get("args"):
            call.args.append(piece["args"])
        if not call.started:
            if not (call.id and call.name):
                return []  # wait for the id and name before starting the call
            call.started = True
            return self._start_call(message_id, call.id, call.name, "".join(call.args))
        return self._accept(ToolCallArgsEvent(tool_call_id=call.id, delta=piece["args"])) if piece.get("args") else []  # type: ignore[arg-type]

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
        if call_id in self._started_calls:
            return []
        self._started_calls.add(call_id)
        self._owner[call_id] = message_id
        self._open_calls.setdefault(message_id, []).append(call_id)
        events = self._accept(ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, parent_message_id=message_id))
        if args:
            events += self._accept(ToolCallArgsEvent(tool_call_id=call_id, delta=args))
        return events

    def whole_call(self, name: str, args: Any) -> tuple[str, list[BaseEvent]]:
        """A tool call nobody streamed (a Runnable ran a tool itself): START, ARGS, END at once."""
        call_id = new_id("call")
        parent = self.last_message_id
        events = self.end_all()
        events += self._accept(
            ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, parent_message_id=parent),
            ToolCallArgsEvent(tool_call_id=call_id, delta=to_json_text(json_safe(args if args is not None else {}))),
            ToolCallEndEvent(tool_call_id=call_id),
        )
        self._started_calls.add(call_id)
        return call_id, events

    def end_message(self, message_id: str | None = None) -> list[BaseEvent]:
        """Close what a message left open: its text, reasoning, and its tool calls."""
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
        self, tool_call_id: str | None, content: Any, *, message_id: str | None = None, artifact: Any = None
    ) -> list[BaseEvent]:
        """TOOL_CALL_RESULT for a tool's output. A rich ``artifact`` (``content_and_artifact`` tools)
        or a rich raw ``content`` is shown as a MIME bundle in ``metadata.agui_widget.display``;
        ``content`` stays what the model received (for raw rich content: the bundle's text)."""
        if not tool_call_id or tool_call_id in self._results:
            return []
        self._results.add(tool_call_id)
        bundle = rich_display(artifact)
        if bundle is None:
            bundle = rich_display(content)
            if bundle is not None:
                content = bundle_text(bundle)
        text, metadata = ui_payload(tool_output_text(content), self.options.max_ui_payload)
        if bundle is not None:
            metadata = {"agui_widget": {**(metadata or {}).get("agui_widget", {}), "display": bundle}}
        owner = self._owner.get(tool_call_id)
        events = self.end_message(owner) if owner is not None and tool_call_id in self._open_calls.get(owner, ()) else []
        result = ToolCallResultEvent(
            message_id=message_id or new_id("tool"), tool_call_id=tool_call_id, content=text, role="tool", metadata=metadata
        )
        return events + self._accept(result)

    def has_result(self, tool_call_id: str) -> bool:
        return tool_call_id in self._results

    # usage -------------------------------------------------------------------------------------

    def _add_usage(self, message: BaseMessage, message_id: str) -> None:
        if token_usage_from_langchain_metadata is None:
            return
        metadata = message.response_metadata or {}
        entry = token_usage_from_langchain_metadata(
            message.usage_metadata,  # type: ignore[attr-defined]
            provider=metadata.get("model_provider"),
            model=metadata.get("model_name") or metadata.get("model"),
        )
        if entry is not None:
            self._usage.append(entry)

    def usage(self) -> list[TokenUsage] | None:
        if not self._usage or aggregate_token_usage is None:
            return None
        return aggregate_token_usage(self._usage)


# -- steps ----------------------------------------------------------------------------------------


class Steps:
    """STEP_STARTED/FINISHED by name; parallel tasks of one name share one step.

    ``internal``: names that are the framework's own nodes (``create_agent``'s "model" and
    "tools"); their steps are marked so a chat does not show them as progress."""

    def __init__(self, stream: EventStream, enabled: bool = True, internal: frozenset[str] = frozenset()) -> None:
        self.stream = stream
        self.enabled = enabled
        self.internal = internal
        self._count: dict[str, int] = {}

    def start(self, name: str) -> list[BaseEvent]:
        if not self.enabled:
            return []
        count = self._count.get(name, 0)
        self._count[name] = count + 1
        return self.stream.step_started(name, internal=name in self.internal) if count == 0 else []

    def finish(self, name: str) -> list[BaseEvent]:
        count = self._count.get(name, 0)
        if count <= 0:
            return []
        self._count[name] = count - 1
        return self.stream.step_finished(name, internal=name in self.internal) if count == 1 else []


# -- state ----------------------------------------------------------------------------------------


class StateTracker:
    """The agent's shared keys as AG-UI state, merged over the state the chat sent.

    Keys the agent does not own are kept as the chat sent them, so a snapshot never wipes them.
    """

    def __init__(self, stream: EventStream, mode: str, client_state: Any, keys: Callable[[str], bool]) -> None:
        self.stream = stream
        self.mode = mode
        self.client = copy.deepcopy(client_state) if isinstance(client_state, dict) else {}
        self.keys = keys
        self.current: dict[str, Any] | None = None
        self._sent: dict[str, Any] = self.client

    def document(self, values: dict[str, Any]) -> dict[str, Any]:
        doc = dict(self.current if self.current is not None else self.client)
        for key, value in values.items():
            if self.keys(key):
                doc[key] = json_safe(value)
        return doc

    def update(self, values: Any) -> list[BaseEvent]:
        """The graph's state after a step."""
        if not isinstance(values, dict):
            return []
        first = self.current is None
        self.current = self.document(values)
        if self.mode == "initial" and first:
            self._sent = self.current
            return self.stream.state_snapshot(copy.deepcopy(self.current))
        if self.mode != "all":
            return []
        if first and self.current != self.client:
            self._sent = self.current
            return self.stream.state_snapshot(copy.deepcopy(self.current))
        patch = jsonpatch.make_patch(self._sent, self.current).patch
        self._sent = self.current
        return self.stream.state_delta(patch)

    def finish(self) -> list[BaseEvent]:
        if self.mode == "final" and self.current is not None:
            return self.stream.state_snapshot(copy.deepcopy(self.current))
        return []


def shared_key_filter(options: AGUIOptions, known: Iterable[str] | None = None) -> Callable[[str], bool]:
    """Which state keys are shared: ``options.state_keys``, or all but LangChain's internal ones."""
    if options.state_keys is not None:
        allowed = frozenset(options.state_keys)
        return allowed.__contains__
    restrict = frozenset(known) if known is not None else None

    def shared(key: str) -> bool:
        if key in INTERNAL_KEYS or key.startswith("__"):
            return False
        return restrict is None or key in restrict

    return shared


# -- interrupts -----------------------------------------------------------------------------------


def is_hitl_request(value: Any) -> bool:
    """LangChain's HumanInTheLoopMiddleware asks with ``{"action_requests": [...], "review_configs": [...]}``."""
    return isinstance(value, dict) and isinstance(value.get("action_requests"), list)


def interrupt_fields(value: Any) -> dict[str, Any]:
    """What an AG-UI interrupt says about a LangGraph interrupt value."""
    if is_hitl_request(value):
        actions = value["action_requests"]
        lines = []
        for action in actions:
            description = action.get("description") or f"Run {action.get('name')}"
            lines.append(description)
        return {"reason": "approval", "message": "\n\n".join(lines) or "Approve this action?"}
    if isinstance(value, str):
        return {"reason": "input", "message": value}
    if isinstance(value, dict):
        message = next((value[k] for k in ("message", "question", "description", "prompt") if isinstance(value.get(k), str)), None)
        reason = value.get("reason") if isinstance(value.get("reason"), str) else "input"
        fields: dict[str, Any] = {"reason": reason, "message": message or to_json_text(json_safe(value))}
        if isinstance(value.get("tool_call_id"), str):
            fields["tool_call_id"] = value["tool_call_id"]
        return fields
    return {"reason": "input", "message": to_json_text(json_safe(value))}


def response_schema(item: Any) -> dict[str, Any] | None:
    """The JSON Schema of the answer a LangGraph interrupt expects, if it declared one."""
    schema = getattr(item, "response_schema", None)
    if schema is None or isinstance(schema, dict):
        return schema
    try:
        from pydantic import TypeAdapter

        return TypeAdapter(schema).json_schema()
    except Exception:
        return None


def resume_value(payload: Any, status: str, original: Any) -> Any:
    """The value ``interrupt()`` returns for an AG-UI resume entry.

    The chat's approval card answers ``{"approved": bool}``; for LangChain's human-in-the-loop
    middleware that becomes one decision per action. A cancelled entry reads as a denial.
    """
    cancelled = status == "cancelled"
    if is_hitl_request(original):
        if isinstance(payload, dict) and "decisions" in payload:
            return payload
        approved = (not cancelled) and (payload is True or (isinstance(payload, dict) and bool(payload.get("approved"))))
        reason = payload.get("message") or payload.get("reason") if isinstance(payload, dict) else None
        count = len(original["action_requests"])
        if approved:
            return {"decisions": [{"type": "approve"} for _ in range(count)]}
        message = reason or ("The user cancelled this action." if cancelled else "The user denied this action.")
        return {"decisions": [{"type": "reject", "message": message} for _ in range(count)]}
    if cancelled:
        extra = payload if isinstance(payload, dict) else {}
        return {**extra, "approved": False, "cancelled": True}
    return payload


def hitl_tool_call_id(value: Any, messages: list[BaseMessage]) -> str | None:
    """The tool call a human-in-the-loop request is about (matched by name and arguments)."""
    if not is_hitl_request(value) or not value["action_requests"]:
        return None
    action = value["action_requests"][0]
    for message in reversed(messages):
        if isinstance(message, AIMessage) and message.tool_calls:
            for call in message.tool_calls:
                if call["name"] == action.get("name") and call.get("args") == action.get("args"):
                    return call.get("id")
            return None
    return None


# -- errors and custom events ---------------------------------------------------------------------


def shaped_error(exc: BaseException, detail: str) -> RunErrorEvent:
    """RUN_ERROR as much as ``error_detail`` allows the UI to see."""
    message, code = describe_exception(exc)
    if detail == "full":
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return RunErrorEvent(message=f"{message}\n\n{trace}", code=code)
    if detail == "code":
        return RunErrorEvent(message=f"The agent failed ({code}).", code=code)
    if detail == "none":
        return RunErrorEvent(message="The agent failed.")
    return RunErrorEvent(message=message, code=code)


def custom_event(data: Any, name: str | None = None) -> CustomEvent:
    """A ``custom`` stream write as CUSTOM: ``{"name": ..., "value": ...}`` names itself."""
    if name is None:
        if isinstance(data, dict) and isinstance(data.get("name"), str) and set(data) <= {"name", "value"}:
            return CustomEvent(name=data["name"], value=json_safe(data.get("value")))
        return CustomEvent(name="custom", value=json_safe(data))
    return CustomEvent(name=name, value=json_safe(data))


def dumps(value: Any) -> str:
    return json.dumps(json_safe(value), ensure_ascii=False)
