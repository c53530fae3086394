"""Shared by the tests of what a chat sends to its views: a chat that keeps those messages, and an
agent that counts its runs."""

from __future__ import annotations

import json
from typing import Any

from agui_widget import AgentChat
from agui_widget.adapters import AgentAdapter, EventStream


class Captured(AgentChat):
    """An AgentChat whose view-bound messages are kept for inspection instead of sent."""

    def _send_custom(self, message: dict[str, Any]) -> None:
        self.__dict__.setdefault("sent", []).append(json.loads(json.dumps(message)))

    def view_says(self, payload: dict[str, Any]) -> None:
        self._link.on_view_message(self, payload, [])

    def kinds(self) -> list[str]:
        return [m["kind"] for m in self.__dict__.get("sent", [])]

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.__dict__.get("sent", []) if m["kind"] == kind]

    def renders(self, key: str) -> list[dict[str, Any]]:
        return [m for m in self.of_kind("render") if m["key"] == key]

    def wire_events(self) -> list[dict[str, Any]]:
        return [e for batch in self.of_kind("events") for e in batch["events"]]


class Counting(AgentAdapter):
    """Keeps each run's input and answers "answer <n>"."""

    def __init__(self) -> None:
        self.inputs: list[Any] = []

    async def _events(self, input: Any, stream: EventStream) -> Any:
        self.inputs.append(input)
        yield stream.text(f"answer {len(self.inputs)}")
