"""Small builders the test modules share."""

from __future__ import annotations

import asyncio
import struct
import time
import uuid
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from ag_ui.core import BaseEvent, EventType, ResumeEntry, RunAgentInput, Tool, UserMessage


def user(text: str) -> dict[str, Any]:
    return {"id": f"user-{uuid.uuid4().hex[:8]}", "role": "user", "content": text}


def make_input(
    messages: str | Sequence[dict[str, Any]],
    *,
    tools: Sequence[Tool] = (),
    state: Any = None,
    resume: list[ResumeEntry] | None = None,
) -> RunAgentInput:
    if isinstance(messages, str):
        messages = [user(messages)]
    return RunAgentInput.model_validate(
        {
            "threadId": "thread-test",
            "runId": f"run-{uuid.uuid4().hex[:8]}",
            "messages": list(messages),
            "state": {} if state is None else state,
            "tools": [t.model_dump(by_alias=True) for t in tools],
            "context": [],
            "resume": [r.model_dump(by_alias=True) for r in resume] if resume else None,
        }
    )


async def collect(agent: Any, run_input: RunAgentInput) -> list[BaseEvent]:
    return [event async for event in agent.run(run_input)]


def types(events: Sequence[BaseEvent]) -> list[str]:
    return [e.type.value for e in events]


def text_of(events: Sequence[BaseEvent]) -> str:
    return "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)  # type: ignore[attr-defined]


def patch_of(event: BaseEvent) -> list[dict[str, Any]]:
    """A STATE_DELTA's patch as plain JSON (ag_ui keeps typed operations)."""
    return event.model_dump(mode="json", by_alias=True)["delta"]


def split_runs(events: Sequence[BaseEvent]) -> list[list[BaseEvent]]:
    """One list per AG-UI run (a turn with follow-up runs holds several)."""
    runs: list[list[BaseEvent]] = []
    for event in events:
        if event.type == EventType.RUN_STARTED:
            runs.append([])
        runs[-1].append(event)
    return runs


async def until(predicate: Callable[[], object], timeout: float = 5.0, what: str = "the condition") -> None:
    """Waits, turning the event loop, until ``predicate()`` holds; fails after ``timeout`` seconds,
    saying ``what`` did not come true."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"{what} did not come true within {timeout:g} s"
        await asyncio.sleep(0.005)


__all__ = ["UserMessage", "collect", "make_input", "text_of", "types", "user"]


def png(width: int, height: int, colour: bytes = b"\x80") -> bytes:
    """A real, tiny PNG of this size, every pixel ``colour`` (one byte: grey; three: RGB)."""
    raw = b"".join(b"\x00" + colour * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 0 if len(colour) == 1 else 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
