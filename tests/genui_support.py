"""Shared by the generative-UI tests: a chat that keeps what it would send to views, and agents."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from agui_widget import AgentChat


class Captured(AgentChat):
    """An AgentChat whose view-bound messages are kept for inspection instead of sent."""

    def _send_custom(self, message: dict[str, Any]) -> None:
        self.__dict__.setdefault("sent", []).append(json.loads(json.dumps(message)))

    def view_says(self, payload: dict[str, Any]) -> None:
        self._on_view_message(self, payload, [])

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.__dict__.get("sent", []) if m["kind"] == kind]

    def renders(self, key: str) -> list[dict[str, Any]]:
        return [m for m in self.of_kind("render") if m["key"] == key]

    def wire_events(self) -> list[dict[str, Any]]:
        return [e for batch in self.of_kind("events") for e in batch["events"]]


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.005)
