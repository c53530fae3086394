"""LangGraph interrupts as AG-UI interrupts, and AG-UI resume entries as the values ``interrupt()`` returns.

LangChain's ``HumanInTheLoopMiddleware`` asks with ``{"action_requests": [...], "review_configs": [...]}``
and expects decisions back; the chat's approval card answers ``{"approved": bool}``. Both are
mapped here, so the card works for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict, TypeGuard

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.types import Interrupt as LangGraphInterrupt
from typing_extensions import NotRequired

from ...vocabulary._content import to_json_text
from .._base import EventStream
from ._values import json_safe


class InterruptFields(TypedDict):
    """What an AG-UI interrupt says about a LangGraph interrupt value."""

    reason: str
    message: str
    tool_call_id: NotRequired[str]


def report_interrupt(
    stream: EventStream, item: LangGraphInterrupt, *, interrupt_id: str | None, tool_call_id: str | None = None
) -> None:
    """Put a LangGraph interrupt on the run, which then finishes with an interrupt outcome. The
    tool call it concerns is the one its value names, else ``tool_call_id``."""
    fields = interrupt_fields(getattr(item, "value", item))
    stream.interrupt(
        fields["reason"],
        message=fields["message"],
        tool_call_id=fields.get("tool_call_id") or tool_call_id,
        response_schema=response_schema(item),
        interrupt_id=interrupt_id,
    )


def is_hitl_request(value: object) -> TypeGuard[dict[str, Any]]:
    """A request of LangChain's ``HumanInTheLoopMiddleware``."""
    return isinstance(value, dict) and isinstance(value.get("action_requests"), list)


def interrupt_fields(value: object) -> InterruptFields:
    """The reason, message and tool call of an AG-UI interrupt for a LangGraph interrupt value."""
    if is_hitl_request(value):
        lines = [action.get("description") or f"Run {action.get('name')}" for action in value["action_requests"]]
        return {"reason": "approval", "message": "\n\n".join(lines) or "Approve this action?"}
    if isinstance(value, str):
        return {"reason": "input", "message": value}
    if isinstance(value, dict):
        message = next(
            (value[k] for k in ("message", "question", "description", "prompt") if isinstance(value.get(k), str)), None
        )
        reason = value.get("reason")
        if not isinstance(reason, str):
            reason = "input"
        fields: InterruptFields = {"reason": reason, "message": message or to_json_text(json_safe(value))}
        if isinstance(value.get("tool_call_id"), str):
            fields["tool_call_id"] = value["tool_call_id"]
        return fields
    return {"reason": "input", "message": to_json_text(json_safe(value))}


def response_schema(item: object) -> dict[str, Any] | None:
    """The JSON Schema of the answer a LangGraph interrupt expects, if it declared one."""
    schema = getattr(item, "response_schema", None)
    if schema is None or isinstance(schema, dict):
        return schema
    try:
        from pydantic import TypeAdapter

        return TypeAdapter(schema).json_schema()
    except Exception:
        return None


def resume_value(payload: object, status: str, original: object) -> object:
    """The value ``interrupt()`` returns for an AG-UI resume entry.

    For the human-in-the-loop middleware, ``{"approved": bool}`` becomes one decision per action
    (a payload with ``decisions`` goes as it is). A cancelled entry reads as a denial.
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


def hitl_tool_call_id(value: object, messages: Sequence[BaseMessage]) -> str | None:
    """The tool call a human-in-the-loop request is about (matched by name and arguments in the
    latest model answer)."""
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
