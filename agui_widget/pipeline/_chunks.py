"""Chunk expansion: ``*_CHUNK`` shorthand becomes the start/content/end triads it stands for.

``@ag-ui/client`` expands chunks before verification, so the verifier and the reducer only ever
meet explicit events; so does :class:`~agui_widget.pipeline._consumer.EventConsumer`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ag_ui._generated import models as _models
from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from ..vocabulary._errors import ProtocolError

__all__ = ["CHUNK_TYPES", "ChunkExpander"]

CHUNK_TYPES = frozenset({EventType.TEXT_MESSAGE_CHUNK, EventType.TOOL_CALL_CHUNK, EventType.REASONING_MESSAGE_CHUNK})
# An explicit event closes only its own lane (its subagent's, or the parent's when untagged).
_CLOSES_OWN_LANE = frozenset(
    {
        EventType.TEXT_MESSAGE_START,
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TEXT_MESSAGE_END,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
        EventType.TOOL_CALL_RESULT,
        EventType.STATE_SNAPSHOT,
        EventType.STATE_DELTA,
        EventType.CUSTOM,
        EventType.STEP_STARTED,
        EventType.STEP_FINISHED,
        EventType.REASONING_START,
        EventType.REASONING_MESSAGE_START,
        EventType.REASONING_MESSAGE_CONTENT,
        EventType.REASONING_MESSAGE_END,
        EventType.REASONING_END,
    }
)
# Run-level events describe the whole run: every lane closes.
_CLOSES_ALL_LANES = frozenset({EventType.RUN_STARTED, EventType.RUN_FINISHED, EventType.RUN_ERROR, EventType.MESSAGES_SNAPSHOT})
_SUBAGENT_TERMINALS = frozenset({EventType.SUBAGENT_FINISHED, EventType.SUBAGENT_ERROR})


@dataclass
class _Lane:
    kind: str  # "text" | "tool" | "reasoning"
    entity_id: str
    subagent_run_id: str | None = None
    role: _models.TextMessageRole | None = None  # a text lane's
    name: str | None = None
    parent_message_id: str | None = None


def _require_agreement(entity: str, entity_id: str, field: str, incoming: str | None, established: str | None) -> None:
    """A continuation may repeat what its opener said, never contradict it."""
    if incoming is not None and incoming != established:
        said = "(absent)" if established is None else f"'{established}'"
        raise ProtocolError(
            f"Cannot continue {entity} '{entity_id}': chunk {field} '{incoming}' does not match the open stream's {field} {said}."
        )


class ChunkExpander:
    """Turns ``*_CHUNK`` events into start/content/end triads, one open stream per lane.

    A lane is the subagent the chunks are attributed to (``None`` is the parent agent), so two
    subagents can stream at once. An explicit event of the lane closes it first, an explicit END
    too: an item built from chunks is closed by the expansion, so an END of its own after that is
    a protocol error, as in ``@ag-ui/client``. (A caller closing a stream hands the lanes over to
    :meth:`~agui_widget.pipeline._verify.EventVerifier.open_events` with :meth:`release`.)
    """

    def __init__(self) -> None:
        self.lanes: dict[str | None, _Lane] = {}

    def expand(self, event: Any) -> list[BaseEvent]:
        event_type = event.type
        if event_type == EventType.TEXT_MESSAGE_CHUNK:
            return self._text(event)
        if event_type == EventType.TOOL_CALL_CHUNK:
            return self._tool(event)
        if event_type == EventType.REASONING_MESSAGE_CHUNK:
            return self._reasoning(event)
        if not self.lanes:
            return [event]
        if event_type in _CLOSES_OWN_LANE:
            return [*self._close(event.subagent_run_id), event]
        if event_type in _CLOSES_ALL_LANES:
            return [*self.close_all(), event]
        if event_type in _SUBAGENT_TERMINALS:
            return [*self._close(event.subagent_run_id), event]
        return [event]

    def release(self) -> None:
        """Forget the open lanes: their items are closed by explicit ENDs from here on."""
        self.lanes.clear()

    def close_all(self) -> list[BaseEvent]:
        closing: list[BaseEvent] = []
        for owner in list(self.lanes):
            closing.extend(self._close(owner))
        return closing

    def _close(self, owner: str | None) -> list[BaseEvent]:
        lane = self.lanes.pop(owner, None)
        if lane is None:
            return []
        if lane.kind == "text":
            return [TextMessageEndEvent(message_id=lane.entity_id, subagent_run_id=lane.subagent_run_id)]
        if lane.kind == "tool":
            return [ToolCallEndEvent(tool_call_id=lane.entity_id, subagent_run_id=lane.subagent_run_id)]
        return [ReasoningMessageEndEvent(message_id=lane.entity_id, subagent_run_id=lane.subagent_run_id)]

    def _resolve(self, kind: str, entity_id: str | None, tag: str | None, chunk: str, entity: str) -> str | None:
        """Which lane a chunk belongs to; a continuation may omit both its id and its tag."""
        if entity_id is not None:
            for owner, lane in self.lanes.items():
                if lane.kind == kind and lane.entity_id == entity_id:
                    if tag is not None and tag != owner:
                        held = "(the parent agent)" if owner is None else f"'{owner}'"
                        raise ProtocolError(
                            f"Cannot continue {entity} '{entity_id}': chunk subagentRunId '{tag}' does not "
                            f"match the open stream's subagent {held}."
                        )
                    return owner
            return tag
        if tag is not None:
            return tag
        parent = self.lanes.get(None)
        if parent is not None and parent.kind == kind:
            return None
        candidates = [owner for owner, lane in self.lanes.items() if lane.kind == kind]
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            id_field = "toolCallId" if kind == "tool" else "messageId"
            raise ProtocolError(
                f"Ambiguous {chunk}: it carries neither a {id_field} nor a subagentRunId, but "
                f"{len(candidates)} lanes have an open {entity}. Attribute the chunk to its subagent."
            )
        return None

    def _text(self, chunk: Any) -> list[BaseEvent]:
        key = self._resolve("text", chunk.message_id, chunk.subagent_run_id, "TEXT_MESSAGE_CHUNK", "text message")
        lane = self.lanes.get(key)
        out: list[BaseEvent] = []
        if lane is not None and lane.kind == "text" and chunk.message_id in (None, lane.entity_id):
            _require_agreement("text message", lane.entity_id, "role", chunk.role, lane.role)
            _require_agreement("text message", lane.entity_id, "name", chunk.name, lane.name)
        else:
            out.extend(self._close(key))
            if chunk.message_id is None:
                raise ProtocolError("First TEXT_MESSAGE_CHUNK must have a messageId")
            lane = self.lanes[key] = _Lane(
                "text", chunk.message_id, chunk.subagent_run_id, role=chunk.role or "assistant", name=chunk.name
            )
            out.append(
                TextMessageStartEvent(
                    message_id=lane.entity_id,
                    role=lane.role,
                    name=chunk.name,
                    subagent_run_id=chunk.subagent_run_id,
                    metadata=chunk.metadata,
                )
            )
        if chunk.delta is not None or chunk.raw_event is not None or (not out and chunk.metadata is not None):
            out.append(
                TextMessageContentEvent(
                    message_id=lane.entity_id,
                    delta=chunk.delta or "",
                    subagent_run_id=chunk.subagent_run_id if chunk.subagent_run_id is not None else lane.subagent_run_id,
                    metadata=chunk.metadata,
                    raw_event=chunk.raw_event,
                )
            )
        return out

    def _tool(self, chunk: Any) -> list[BaseEvent]:
        key = self._resolve("tool", chunk.tool_call_id, chunk.subagent_run_id, "TOOL_CALL_CHUNK", "tool call")
        lane = self.lanes.get(key)
        out: list[BaseEvent] = []
        if lane is not None and lane.kind == "tool" and chunk.tool_call_id in (None, lane.entity_id):
            _require_agreement("tool call", lane.entity_id, "toolCallName", chunk.tool_call_name, lane.name)
            _require_agreement("tool call", lane.entity_id, "parentMessageId", chunk.parent_message_id, lane.parent_message_id)
        else:
            out.extend(self._close(key))
            if chunk.tool_call_id is None:
                raise ProtocolError("First TOOL_CALL_CHUNK must have a toolCallId")
            if chunk.tool_call_name is None:
                raise ProtocolError(f"First TOOL_CALL_CHUNK must have a toolCallName (tool call '{chunk.tool_call_id}')")
            lane = self.lanes[key] = _Lane(
                "tool",
                chunk.tool_call_id,
                chunk.subagent_run_id,
                name=chunk.tool_call_name,
                parent_message_id=chunk.parent_message_id,
            )
            out.append(
                ToolCallStartEvent(
                    tool_call_id=lane.entity_id,
                    tool_call_name=chunk.tool_call_name,
                    parent_message_id=chunk.parent_message_id,
                    subagent_run_id=chunk.subagent_run_id,
                    metadata=chunk.metadata,
                )
            )
        if chunk.delta is not None or chunk.raw_event is not None or (not out and chunk.metadata is not None):
            out.append(
                ToolCallArgsEvent(
                    tool_call_id=lane.entity_id,
                    delta=chunk.delta or "",
                    subagent_run_id=chunk.subagent_run_id if chunk.subagent_run_id is not None else lane.subagent_run_id,
                    metadata=chunk.metadata,
                    raw_event=chunk.raw_event,
                )
            )
        return out

    def _reasoning(self, chunk: Any) -> list[BaseEvent]:
        key = self._resolve("reasoning", chunk.message_id, chunk.subagent_run_id, "REASONING_MESSAGE_CHUNK", "reasoning message")
        lane = self.lanes.get(key)
        out: list[BaseEvent] = []
        if lane is None or lane.kind != "reasoning" or chunk.message_id not in (None, lane.entity_id):
            out.extend(self._close(key))
            if chunk.message_id is None:
                raise ProtocolError("First REASONING_MESSAGE_CHUNK must have a messageId")
            lane = self.lanes[key] = _Lane("reasoning", chunk.message_id, chunk.subagent_run_id)
            out.append(
                ReasoningMessageStartEvent(
                    message_id=lane.entity_id, subagent_run_id=chunk.subagent_run_id, metadata=chunk.metadata
                )
            )
        if chunk.delta is not None or chunk.raw_event is not None or (not out and chunk.metadata is not None):
            out.append(
                ReasoningMessageContentEvent(
                    message_id=lane.entity_id,
                    delta=chunk.delta or "",
                    subagent_run_id=chunk.subagent_run_id if chunk.subagent_run_id is not None else lane.subagent_run_id,
                    metadata=chunk.metadata,
                    raw_event=chunk.raw_event,
                )
            )
        return out
