"""A view can only ask, never overwrite; what reaches a view is the JSON the kernel reduced.

Views send requests (docs/wire.md); a request the kernel cannot take is refused whole: logged,
answered with a notice when it is one of ours, and nothing changes (a pending call stays
pending). A standard ipywidgets ``update`` from a view cannot change a kernel-owned trait: the
kernel keeps its value and sends it back. Events reach views with the nulls the kernel reduced,
and the end-of-run ``check`` carries the state's fingerprint.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import (
    CustomEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
)

from agui_widget import AgentChat, DemoAgent
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.chat._fingerprint import fingerprint
from agui_widget.wire._codec import MAX_DEPTH, event_to_wire

from .genui_support import Captured
from .support import until

KERNEL_OWNED = {
    "status": "error",
    "error": "forged",
    "thread_id": "thread-forged",
    "run_id": "run-forged",
    "queued": [{"id": "x", "text": "forged"}],
    "pending": [{"kind": "tool", "toolCallId": "forged"}],
    "frontend_tools": [],
    "agent_names": ["forged"],
    "agent_name": "forged",
    "suggestions": [{"title": "forged", "message": "forged"}],
    "predict_state": [],
    "saved_output_id": "forged",
    "height": "999px",
    "agent_context": [{"description": "forged", "preview": "", "length": 0, "live": False}],
    "attachment_policy": {"enabled": True, "accept": [], "maxBytes": 10**12, "maxFiles": 1000, "maxTotalBytes": 10**12},
}


class Recorded(Captured):
    """A Captured chat that also keeps the trait updates it sends to views."""

    def send_state(self, key: Any = None) -> None:
        self.__dict__.setdefault("states_sent", []).append(key)


def view_update(chat: AgentChat, state: dict[str, Any]) -> None:
    """What ipywidgets does with a view's standard ``update`` comm message."""
    chat._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})


@pytest.mark.parametrize("name", sorted(KERNEL_OWNED))
def test_a_view_cannot_overwrite_a_kernel_owned_trait(name: str) -> None:
    chat = Recorded(DemoAgent(delay=0), suggestions=["hi"], predict_state=[{"state_key": "k", "tool": "t"}])
    before = getattr(chat, name)
    chat.__dict__["states_sent"] = []
    view_update(chat, {name: KERNEL_OWNED[name]})
    assert getattr(chat, name) == before
    assert chat.__dict__["states_sent"] == [[name]], "the views get the kernel's value back"


async def test_a_forged_status_does_not_change_what_the_chat_does() -> None:
    chat = Recorded(DemoAgent(delay=0))
    view_update(chat, {"status": "running", "pending": [{"kind": "tool", "toolCallId": "c"}]})
    run = await chat.send("help")
    assert run.status == "finished" and chat.status == "idle" and chat.pending == []


# -- requests the kernel cannot take are refused whole ---------------------------------------------


def deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"down": value}
    return value


async def test_a_tool_result_too_deep_to_take_leaves_the_call_pending() -> None:
    chat = Captured(DemoAgent(delay=0), tools=[ACCENT_TOOL])
    run = chat.send("make it gold")
    await until(lambda: chat.status == "waiting")
    (call,) = chat.pending_tool_calls
    for levels in (MAX_DEPTH + 5, 1000, 5000):
        chat.view_says({"kind": "tool_result", "toolCallId": call["toolCallId"], "result": deep(levels)})
        assert chat.status == "waiting" and [c["toolCallId"] for c in chat.pending_tool_calls] == [call["toolCallId"]]
    notices = chat.of_kind("notice")
    assert len(notices) == 3 and all("nested more than" in n["text"] and n["text"].startswith("tool_result") for n in notices)
    chat.view_says({"kind": "tool_result", "toolCallId": call["toolCallId"], "result": {"ok": True, "color": "gold"}})
    await asyncio.wait_for(run, 5)
    assert run.status == "finished"


@pytest.mark.parametrize(
    "request_",
    [
        {"kind": "send", "text": "half an emoji \ud83d"},
        {"kind": "state_edit", "patch": [{"op": "add", "path": "/a", "value": deep(MAX_DEPTH + 1)}]},
        {"kind": "send", "text": 42},
        {"kind": "edit", "messageId": "", "text": "x"},
    ],
)
def test_a_malformed_request_of_ours_is_refused_with_a_notice(request_: dict[str, Any]) -> None:
    chat = Captured(DemoAgent(delay=0), state={"a": 1})
    chat.view_says(request_)
    (notice,) = chat.of_kind("notice")
    assert notice["level"] == "warning" and notice["text"].startswith(f"{request_['kind']}: ")
    assert chat.messages == [] and chat.state == {"a": 1} and chat.status == "idle"


@pytest.mark.parametrize("junk", [None, 42, "text", [1, 2], {"kind": "launch_missiles"}, {"no": "kind"}, deep(3000)])
def test_anything_else_from_a_view_is_logged_and_ignored(junk: Any, caplog) -> None:
    chat = Captured(DemoAgent(delay=0))
    chat.view_says(junk)
    assert chat.of_kind("notice") == [] and chat.messages == []
    assert any("malformed" in record.getMessage() for record in caplog.records)


# -- what reaches a view is what the kernel reduced --------------------------------------------------


class ClearsAKey:
    """An agent (as a LangGraph node clearing a key does) that sets a key to null by a patch."""

    async def run(self, input: RunAgentInput) -> AsyncIterator:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield StateSnapshotEvent(snapshot={"draft": "text", "items": [1, None]})
        yield StateDeltaEvent(
            delta=[{"op": "replace", "path": "/draft", "value": None}, {"op": "add", "path": "/extra", "value": None}]
        )
        yield CustomEvent(name="cleared", value=None)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


def test_nulls_in_patches_and_custom_values_survive_the_wire() -> None:
    delta = StateDeltaEvent(delta=[{"op": "add", "path": "/a", "value": None}, {"op": "test", "path": "/a", "value": None}])
    assert event_to_wire(delta)["delta"] == [
        {"op": "add", "path": "/a", "value": None},
        {"op": "test", "path": "/a", "value": None},
    ]
    assert event_to_wire(CustomEvent(name="n", value=None)) == {"type": "CUSTOM", "name": "n", "value": None}


async def test_a_view_following_the_wire_ends_with_the_kernels_state() -> None:
    chat = Captured(ClearsAKey())
    await chat.send("clear it")
    assert chat.state == {"draft": None, "items": [1, None], "extra": None}
    (delta,) = [e for e in chat.wire_events() if e["type"] == "STATE_DELTA"]
    assert all("value" in op for op in delta["delta"])
    (check,) = chat.of_kind("check")
    assert check["state"] == fingerprint({"draft": None, "items": [1, None], "extra": None})


# -- one view runs a frontend tool's handler, whatever the number of tabs ----------------------------


async def test_the_first_view_to_claim_a_call_runs_it_and_a_late_answer_is_quiet() -> None:
    chat = Captured(DemoAgent(delay=0), tools=[ACCENT_TOOL])
    run = chat.send("make it gold")
    await until(lambda: chat.status == "waiting")
    (call,) = chat.pending_tool_calls
    assert call["claimedBy"] is None
    chat.view_says({"kind": "claim", "toolCallId": call["toolCallId"], "viewId": "tab-1"})
    chat.view_says({"kind": "claim", "toolCallId": call["toolCallId"], "viewId": "tab-2"})
    assert [p["claimedBy"] for p in chat.pending] == ["tab-1"], "the first claim wins, and every view sees whose it is"
    chat.view_says({"kind": "claim", "toolCallId": call["toolCallId"], "viewId": "tab-2", "takeOver": True})
    assert [p["claimedBy"] for p in chat.pending] == ["tab-2"]
    chat.view_says({"kind": "tool_result", "toolCallId": call["toolCallId"], "result": {"ok": True, "color": "gold"}})
    chat.view_says({"kind": "tool_result", "toolCallId": call["toolCallId"], "result": {"ok": True, "color": "gold"}})
    chat.view_says({"kind": "claim", "toolCallId": call["toolCallId"], "viewId": "tab-1"})
    await asyncio.wait_for(run, 5)
    assert chat.of_kind("notice") == [], "a view that was too late is told nothing"
    assert len([m for m in chat.messages if m["role"] == "tool"]) == 1


def test_an_answer_for_a_call_that_never_was_still_gets_a_notice() -> None:
    chat = Captured(DemoAgent(delay=0))
    chat.view_says({"kind": "tool_result", "toolCallId": "call-unknown", "result": 1})
    (notice,) = chat.of_kind("notice")
    assert notice["text"].startswith("tool_result: ") and "call-unknown" in notice["text"]
