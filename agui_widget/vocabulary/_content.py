"""Small conversions of message content and tool payloads, shared by the session and the adapters.

Each exists once: adapters map their framework and use these for what every adapter needs (the
text of AG-UI content, the application's context as a prompt, JSON that is still streaming,
tool calls a history left without an answer).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pydantic_core

CANCELLED_TOOL_RESULT = "Cancelled: the run was stopped before this tool call was answered."
"""The tool message that answers a call a stopped or failed run left without a result."""


def to_json_text(value: Any) -> str:
    """Tool arguments and results travel as text; structured values as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def parse_json_text(value: Any) -> Any:
    """The JSON value a text holds, or the text itself when it is not JSON."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def parse_partial_json(text: str) -> Any:
    """The JSON value a text that is still streaming holds so far (unfinished strings, lists and
    objects closed), or None when it holds none yet: pydantic-core's partial parser."""
    if not text.strip():
        return None
    try:
        return pydantic_core.from_json(text, allow_partial="trailing-strings")
    except ValueError:
        return None


def content_text(content: Any) -> str:
    """The text of AG-UI message content: the string, or its text parts joined (as the AG-UI
    client's ``contentToText`` does); media parts have no text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping) and part.get("type") == "text")
    return ""


def message_text(message: Mapping[str, Any]) -> str:
    """The text of an AG-UI message (a camelCase dict)."""
    return content_text(message.get("content"))


def context_text(context: Sequence[Any]) -> str:
    """The application's context entries (``RunAgentInput.context``) as a paragraph for a system
    prompt, the same for every adapter."""
    lines = [f"- {item.description}: {item.value}" for item in context]
    return "Context from the application:\n" + "\n".join(lines)


def answer_dangling_calls(
    messages: Sequence[dict[str, Any]], make_id: Callable[[str], str], *, open_turn: bool = False
) -> tuple[list[dict[str, Any]], int | None]:
    """``messages`` with every tool call that has no result answered as cancelled, right after the
    message that made it (OpenAI-style APIs reject a history with a dangling call); and the index
    of the first message added, or None when nothing dangled. ``make_id(call_id)`` names each
    answer. ``open_turn``: the calls of the last assistant message (with only results after it)
    are left alone, since their results may still come."""
    answered = {m.get("toolCallId") for m in messages if m.get("role") == "tool"}
    last = _last_turn(messages) if open_turn else None
    repaired: list[dict[str, Any]] = []
    first: int | None = None
    index, count = 0, len(messages)
    while index < count:
        message = messages[index]
        repaired.append(message)
        index += 1
        if message.get("role") != "assistant":
            continue
        calls = [call_id for call_id in _call_ids(message.get("toolCalls")) if call_id not in answered]
        if not calls or index - 1 == last:
            continue
        while index < count and messages[index].get("role") == "tool":  # results already there come first
            repaired.append(messages[index])
            index += 1
        if first is None:
            first = len(repaired)
        for call_id in dict.fromkeys(calls):
            answered.add(call_id)
            repaired.append(
                {
                    "id": make_id(call_id),
                    "role": "tool",
                    "toolCallId": call_id,
                    "content": CANCELLED_TOOL_RESULT,
                    "error": "cancelled",
                }
            )
    return repaired, first


def _last_turn(messages: Sequence[dict[str, Any]]) -> int | None:
    """The index of the last assistant message when only tool results follow it."""
    for index in range(len(messages) - 1, -1, -1):
        role = messages[index].get("role")
        if role == "assistant":
            return index
        if role != "tool":
            return None
    return None


def _call_ids(calls: Iterable[Any] | None) -> list[str]:
    return [call["id"] for call in calls or () if isinstance(call, Mapping) and isinstance(call.get("id"), str)]
