"""Ids agui-widget mints (a turn, a run, a message, a tool call): a readable prefix and 16 hex digits."""

from __future__ import annotations

import uuid


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"
