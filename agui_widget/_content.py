"""Small conversions of message content and tool payloads, shared by the session and adapters."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


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


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a message: its content, or its text parts joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, Mapping))
    return ""
