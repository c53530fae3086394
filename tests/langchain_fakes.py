"""The streaming fake chat model the LangChain tests use, and small builders around it.

``FakeChatModel`` is the package's ``ScriptedChatModel`` (a ``GenericFakeChatModel`` subclass with
``bind_tools``): it streams text word by word, reasoning before it, and tool calls as tool-call
chunks (id and name first, then the arguments in 8-character pieces), and records every call.
No test reaches a real model.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from ag_ui.core import BaseEvent, EventType, Tool
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool

from agui_widget.adapters.langchain import ScriptedChatModel


class FakeChatModel(ScriptedChatModel):
    """A scripted, streaming chat model with ``bind_tools`` (see ScriptedChatModel)."""


def call(name: str, args: dict[str, Any] | None = None, id: str | None = None) -> dict[str, Any]:
    return {"id": id or f"call_{uuid.uuid4().hex[:8]}", "name": name, "args": args or {}, "type": "tool_call"}


def ai(text: str = "", *calls: dict[str, Any], reasoning: str | None = None, id: str | None = None) -> AIMessage:
    extra = {"reasoning_content": reasoning} if reasoning else {}
    return AIMessage(content=text, tool_calls=list(calls), additional_kwargs=extra, id=id)


def model(*replies: AIMessage | str, **kwargs: Any) -> FakeChatModel:
    return FakeChatModel(list(replies), **kwargs)


PICK_COLOR = Tool(
    name="pick_color",
    description="Ask the user to pick a colour.",
    parameters={"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]},
)
"""A frontend tool, as RunAgentInput.tools carries it."""


@tool
def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "temperature_c": 21, "conditions": "sunny"}


def last_human_text(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if message.type == "human":
            return message.text
    return ""


def of_type(events: Sequence[BaseEvent], kind: str) -> list[BaseEvent]:
    return [e for e in events if e.type == EventType(kind)]


def one(events: Sequence[BaseEvent], kind: str) -> Any:
    found = of_type(events, kind)
    assert len(found) == 1, f"expected one {kind}, got {len(found)}"
    return found[0]


# -- checking every scenario's stream -------------------------------------------------------------


class StreamChecks:
    """Every stream a scenario produced, checked by both verifiers.

    Our Python verifier runs at once; @ag-ui/client's ``verifyEvents`` (a Node process, about
    0.4 s to start) runs once per test module over all of the module's streams, through
    ``tests.agui_check``, and names the scenario whose stream it rejected.
    """

    def __init__(self) -> None:
        self.pending: list[tuple[str, list[BaseEvent]]] = []

    def __call__(self, *streams: Sequence[BaseEvent], label: str = "") -> None:
        from .agui_check import python_verdict

        for stream in streams:
            verdict = python_verdict(stream)
            assert verdict is None, f"{label or 'stream'} rejected by agui_widget's verifier: {verdict}"
            self.pending.append((label or _current_test(), list(stream)))

    def flush(self) -> None:
        from .agui_check import official_verdicts

        pending, self.pending = self.pending, []
        if not pending:
            return
        verdicts = official_verdicts([stream for _, stream in pending])
        failed = [f"{label}: {verdict}" for (label, _), verdict in zip(pending, verdicts) if verdict is not None]
        assert not failed, "rejected by @ag-ui/client verifyEvents:\n" + "\n".join(failed)


def _current_test() -> str:
    import os

    return os.environ.get("PYTEST_CURRENT_TEST", "a scenario").split(" ")[0]


async def until(predicate: Any, timeout: float = 5.0) -> None:
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.005)
