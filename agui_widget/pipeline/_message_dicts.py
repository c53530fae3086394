"""The AG-UI message and tool-call dicts the reducer builds from events, and how an event's
metadata merges into what it builds.

:class:`~agui_widget.pipeline._reducer.EventReducer` keeps the transcript (its indexes, its
copy-on-write, its streamed buffers) and decides where a message goes; what a message made from
an event holds is said here, once for every event that makes one.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "activity_message",
    "assistant_message",
    "merge_metadata",
    "merged_snapshot",
    "started_message",
    "tool_call",
    "tool_result_message",
]


def merge_metadata(target: dict[str, Any], event: Any) -> bool:
    """Fold an event's metadata into what it builds: key by key, last write wins, no recursion."""
    metadata = event.metadata
    if metadata is None:
        return False
    current = target.get("metadata")
    merged = dict(current) if isinstance(current, dict) else {}
    merged.update(copy.deepcopy(metadata))
    target["metadata"] = merged
    return True


def started_message(event: Any, role: str, name: str | None) -> dict[str, Any]:
    """The text or reasoning message a START opens, empty until its content streams in."""
    message: dict[str, Any] = {"id": event.message_id, "role": role, "content": ""}
    if name is not None:
        message["name"] = name
    if event.subagent_run_id is not None:
        message["subagentRunId"] = event.subagent_run_id
    merge_metadata(message, event)
    return message


def assistant_message(message_id: str, subagent_run_id: str | None) -> dict[str, Any]:
    """The assistant message made to hold a tool call that has none to land on."""
    message: dict[str, Any] = {"id": message_id, "role": "assistant", "toolCalls": []}
    if subagent_run_id is not None:
        message["subagentRunId"] = subagent_run_id
    return message


def tool_call(event: Any) -> dict[str, Any]:
    """The tool call a TOOL_CALL_START opens, its arguments empty until they stream in."""
    call: dict[str, Any] = {
        "id": event.tool_call_id,
        "type": "function",
        "function": {"name": event.tool_call_name, "arguments": ""},
    }
    merge_metadata(call, event)
    return call


def tool_result_message(event: Any) -> dict[str, Any]:
    """The tool message a TOOL_CALL_RESULT mints."""
    content = event.content
    if not isinstance(content, str):
        content = [part.model_dump(mode="json", by_alias=True) for part in content]
    message: dict[str, Any] = {
        "id": event.message_id,
        "role": event.role or "tool",
        "toolCallId": event.tool_call_id,
        "content": content,
    }
    if event.subagent_run_id is not None:
        message["subagentRunId"] = event.subagent_run_id
    merge_metadata(message, event)
    return message


def activity_message(event: Any) -> dict[str, Any]:
    """The activity message an ACTIVITY_SNAPSHOT describes (its metadata left to the caller, which
    merges it into this message or into the one already there)."""
    message: dict[str, Any] = {
        "id": event.message_id,
        "role": "activity",
        "activityType": event.activity_type,
        "content": copy.deepcopy(event.content),
    }
    if event.subagent_run_id is not None:
        message["subagentRunId"] = event.subagent_run_id
    return message


def merged_snapshot(old: list[dict[str, Any]], incoming: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The transcript after a MESSAGES_SNAPSHOT, and the first index where it differs from ``old``.

    The snapshot's messages replace those with their ids in place and the rest are added at the
    end; a local message the snapshot does not name is dropped, except activity and reasoning
    messages (often client-only) when the snapshot carries none of that kind: it says nothing
    about them, so the local copies stay.
    """
    by_id = {message["id"]: message for message in incoming}
    carries_activity = any(message.get("role") == "activity" for message in incoming)
    carries_reasoning = any(message.get("role") == "reasoning" for message in incoming)

    def kept_locally(message: dict[str, Any]) -> bool:
        role = message.get("role")
        return (role == "activity" and not carries_activity) or (role == "reasoning" and not carries_reasoning)

    merged = [by_id.get(m.get("id"), m) for m in old if m.get("id") in by_id or kept_locally(m)]
    present = {m.get("id") for m in merged}
    merged.extend(message for message in incoming if message["id"] not in present)
    first_change = next(
        (i for i, (a, b) in enumerate(zip(old, merged, strict=False)) if a is not b and a != b),
        min(len(old), len(merged)),
    )
    return merged, first_change
