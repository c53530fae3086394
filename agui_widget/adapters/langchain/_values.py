"""LangChain values as JSON and as text: what a state, a tool or a message holds, made sendable."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

JsonValue = None | str | bool | int | float | list["JsonValue"] | dict[str, "JsonValue"]

TEXT_BLOCKS = ("text", "text_delta", "output_text")
"""The content-block types providers put text in."""


def json_safe(value: object) -> JsonValue:
    """A JSON value for anything a state may hold (pydantic models, dataclasses, messages, ...)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    if isinstance(value, BaseMessage):
        return {"type": value.type, "id": value.id, "content": json_safe(value.content)}
    if isinstance(value, BaseModel):
        return json_safe(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json_safe(dataclasses.asdict(value))
    if isinstance(value, enum.Enum):
        return json_safe(value.value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def langchain_content_text(content: object) -> str:
    """The text of LangChain message content: the string, or its text blocks joined (a list may
    mix plain strings and provider blocks; other blocks have no text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in TEXT_BLOCKS:
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return "" if content is None else str(content)
