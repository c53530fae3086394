"""The kernel-level specification: a real ipykernel, the widget's comm, and a fake front end.

Each test starts a fresh kernel (about half a second) and talks to ``AgentChat`` the way a view
does: custom messages on the widget's comm (docs/wire.md), trait updates on iopub, and cells
executed over the shell channel to read the kernel's side back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .kernel_harness import FakeFrontEnd, HarnessError, ViewMirror, WidgetComm, transcript

pytestmark = pytest.mark.kernel


@pytest.fixture
async def fe():
    async with FakeFrontEnd.running() as front:
        yield front


# -- helpers --------------------------------------------------------------------------------


async def open_chat(fe: FakeFrontEnd, delay: float = 0.002, *, state: str = "None") -> WidgetComm:
    """A fresh ``chat = AgentChat(DemoAgent(delay))`` in the kernel; returns its comm."""
    return await fe.create_widget(
        "import asyncio, json\n"
        "from agui_widget import AgentChat, DemoAgent\n"
        f"chat = AgentChat(DemoAgent(delay={delay!r}), state={state})\n"
    )


async def connect_view(fe: FakeFrontEnd, chat: WidgetComm, view_id: str, timeout: float = 10.0) -> ViewMirror:
    """Say ``hello`` as a view and wait for the snapshot addressed to it."""
    before = len(chat.customs)
    fe.send_custom(chat, {"kind": "hello", "viewId": view_id})
    await fe.wait_for(
        lambda: any(c.get("viewId") == view_id for c in chat.of_kind("snapshot")[_count(chat, "snapshot", before) :]),
        timeout,
        f"the snapshot for {view_id}",
    )
    return ViewMirror(view_id)


def _count(chat: WidgetComm, kind: str, upto: int) -> int:
    return sum(1 for c in chat.customs[:upto] if isinstance(c, dict) and c.get("kind") == kind)


def statuses(chat: WidgetComm, since: int = 0) -> list[str]:
    """The status values the view was told, from update number ``since`` on."""
    return [u["status"] for u in chat.updates[since:] if "status" in u]


async def until_turn_ends(fe: FakeFrontEnd, chat: WidgetComm, since: int, timeout: float = 20.0) -> str:
    """Wait until the status went through ``running`` and came back to idle (or error)."""

    def ended() -> bool:
        seen = statuses(chat, since)
        return "running" in seen and seen[-1] in ("idle", "error")

    await fe.wait_for(ended, timeout, "the turn to end")
    return statuses(chat, since)[-1]


async def say(fe: FakeFrontEnd, chat: WidgetComm, text: str, timeout: float = 20.0) -> str:
    """Send a user message as the view does and wait for the whole turn."""
    since = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": text})
    return await until_turn_ends(fe, chat, since, timeout)


def _kind(data: dict[str, Any]) -> Any:
    content = data.get("content") if data.get("method") == "custom" else None
    return content.get("kind") if isinstance(content, dict) else None


def events_after(chat: WidgetComm, start: int, end: int | None = None) -> list[dict[str, Any]]:
    """The AG-UI events in the custom messages numbered ``start`` to ``end``."""
    return [
        e for c in chat.customs[start:end] if isinstance(c, dict) and c.get("kind") == "events" for e in c.get("events") or ()
    ]


def deltas(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") == "TEXT_MESSAGE_CONTENT"]


async def help_text(fe: FakeFrontEnd) -> str:
    """What the demo agent answers to ``help``."""
    return await fe.evaluate("__import__('agui_widget.adapters._demo', fromlist=['HELP']).HELP")


def has_pending(kind: str):
    return lambda pending: bool(pending) and any(p.get("kind") == kind for p in pending)


def assert_clean(fe: FakeFrontEnd, since=None) -> None:
    problems = fe.problems(since)
    assert not problems, "the kernel printed tracebacks:\n" + "\n---\n".join(problems)


# -- the harness itself ---------------------------------------------------------------------


async def test_the_kernel_runs_this_python_with_the_package_from_this_tree(fe):
    import sys

    from .kernel_harness import REPO_ROOT

    assert await fe.evaluate("__import__('sys').executable") == sys.executable
    package = await fe.evaluate("__import__('agui_widget').__file__")
    assert package.startswith(str(REPO_ROOT))
    assert await fe.evaluate("__import__('ipykernel').version_info[:2]") >= [7, 4]


# -- (a) streaming ----------------------------------------------------------------------------


async def test_a_streamed_answer_travels_as_few_coalesced_events_messages(fe):
    chat = await open_chat(fe, delay=0.003)
    view = await connect_view(fe, chat, "v1")
    start = len(chat.customs)
    updates_before = len(chat.updates)

    assert await say(fe, chat, "help") == "idle"

    wire = events_after(chat, start)
    batches = [c for c in chat.customs[start:] if isinstance(c, dict) and c.get("kind") == "events"]
    kernel_deltas = await fe.evaluate("sum(1 for e in chat.events if e.type.value == 'TEXT_MESSAGE_CONTENT')")
    assert kernel_deltas >= 100  # the Python event log keeps every event (one per word of the help)

    # Coalesced: far fewer messages than deltas, and the deltas themselves merged.
    assert len(batches) >= 5  # it really streamed, over many batching windows
    assert len(batches) * 4 <= kernel_deltas, (len(batches), kernel_deltas)
    assert len(deltas(wire)) * 4 <= kernel_deltas, (len(deltas(wire)), kernel_deltas)
    for batch in batches:
        events = batch["events"]
        for a, b in zip(events, events[1:]):
            assert not (a["type"] == b["type"] == "TEXT_MESSAGE_CONTENT" and a["messageId"] == b["messageId"]), (
                "consecutive deltas of one message were not merged within a batch"
            )

    # The reassembled text is the kernel's answer.
    last = await fe.evaluate("chat.messages[-1]")
    assert last["role"] == "assistant"
    assert "".join(e["delta"] for e in deltas(wire)) == last["content"]
    assert last["content"] == await help_text(fe)

    # The run is framed and the view's copy matches the kernel's.
    types = [e["type"] for e in wire]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    kernel_messages = await fe.evaluate("chat.messages")
    assert view.feed(chat).transcript() == transcript(kernel_messages)
    assert view.checks and view.checks[-1]["count"] == len(kernel_messages)

    # messages and state are never synced as whole traits.
    assert not any("messages" in u or "state" in u for u in chat.updates[updates_before:])
    assert_clean(fe)


# -- (b) the kernel is free during a run -----------------------------------------------------


async def test_b_the_kernel_runs_cells_while_a_slow_run_streams(fe):
    chat = await open_chat(fe, delay=0.05)  # 172 tokens: about 9 s
    start = len(chat.customs)
    since = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": "help"})
    await fe.wait_for(lambda: len(deltas(events_after(chat, start))) >= 3, 10, "the first tokens")

    result = await fe.execute("1+1", timeout=60)
    assert result.result == "2"

    # The cell was answered while the run still streams, and the run makes progress between cells.
    assert not any(e["type"] in ("RUN_FINISHED", "RUN_ERROR") for e in events_after(chat, start))
    first = await fe.evaluate("(chat.status, len(chat.messages[-1].get('content') or ''))")
    await fe.wait_for(lambda: len(deltas(events_after(chat, start))) >= 10, 10, "more tokens")
    second = await fe.evaluate("(chat.status, len(chat.messages[-1].get('content') or ''))")
    assert first[0] == second[0] == "running"
    assert second[1] > first[1] > 0

    fe.send_custom(chat, {"kind": "stop"})
    await until_turn_ends(fe, chat, since, 10)
    assert_clean(fe)


# -- (c) stop -----------------------------------------------------------------------------------


async def test_c_stop_mid_stream_keeps_the_partial_answer_and_the_chat_goes_on(fe):
    chat = await open_chat(fe, delay=0.02)
    expected = await help_text(fe)
    start = len(chat.customs)
    since = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": "help"})
    await fe.wait_for(lambda: len(deltas(events_after(chat, start))) >= 5, 10, "some tokens")

    fe.send_custom(chat, {"kind": "stop"})
    finished = await fe.wait_for_event(
        chat, lambda e: e["type"] in ("RUN_FINISHED", "RUN_ERROR"), 5, "the end of the stopped run"
    )
    assert finished["type"] == "RUN_FINISHED"
    assert finished["outcome"]["type"] == "cancelled"
    assert await until_turn_ends(fe, chat, since, 5) == "idle"
    assert chat.state["status"] == "idle" and chat.state["pending"] == []

    partial = await fe.evaluate("chat.messages[-1]")
    assert partial["role"] == "assistant"
    assert 0 < len(partial["content"]) < len(expected) and expected.startswith(partial["content"])
    assert (partial.get("metadata") or {}).get("agui_widget") == {"stopped": True}
    wire = events_after(chat, start)
    assert "".join(e["delta"] for e in deltas(wire)) == partial["content"]
    ends = [e for e in wire if e["type"] == "TEXT_MESSAGE_END"]
    assert len(ends) == 1 and (ends[0].get("metadata") or {}).get("agui_widget") == {"stopped": True}  # views see it
    assert await fe.evaluate("chat.status") == "idle"

    # The chat keeps working after a stop.
    await fe.execute("chat.agent.delay = 0.002")
    after = len(chat.customs)
    assert await say(fe, chat, "help") == "idle"
    outcome = [e for e in events_after(chat, after) if e["type"] == "RUN_FINISHED"]
    assert outcome and outcome[-1]["outcome"]["type"] == "success"
    last = await fe.evaluate("chat.messages[-1]")
    assert last["content"] == expected and not (last.get("metadata") or {}).get("agui_widget")
    roles = [m["role"] for m in await fe.evaluate("chat.messages")]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert_clean(fe)


# -- (d) a frontend tool answered by the browser ---------------------------------------------


async def test_d_a_frontend_tool_answered_by_the_view_gets_its_follow_up(fe):
    chat = await open_chat(fe)
    view = await connect_view(fe, chat, "v1")
    since = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": "make it teal"})

    pending = await fe.wait_for_trait(chat, "pending", has_pending("tool"), 10)
    assert chat.state["status"] == "waiting"
    call = pending[0]
    assert call["name"] == "set_accent_color" and call["args"] == {"color": "teal"}
    assert json.loads(call["argsText"]) == {"color": "teal"}

    answered = len(chat.updates)
    fe.send_custom(chat, {"kind": "tool_result", "toolCallId": call["toolCallId"], "result": {"ok": True, "color": "teal"}})
    assert await until_turn_ends(fe, chat, answered, 10) == "idle"
    assert "waiting" in statuses(chat, since)
    assert chat.state["pending"] == []

    messages = await fe.evaluate("chat.messages")
    assert "accent is now" in messages[-1]["content"] and "teal" in messages[-1]["content"]
    tool = [m for m in messages if m["role"] == "tool"]
    assert len(tool) == 1 and tool[0]["toolCallId"] == call["toolCallId"]
    assert json.loads(tool[0]["content"]) == {"ok": True, "color": "teal"}
    assert view.feed(chat).transcript() == transcript(messages)
    assert_clean(fe)


async def test_requests_arriving_on_a_subshell_are_handled_on_the_kernel_loop(fe):
    """JupyterLab sends widget comms on a kernel subshell thread; runs must still live on the main loop."""
    chat = await open_chat(fe, state='{"todos": [{"text": "a", "done": False}]}')
    subshell = await fe.create_subshell()
    # ipykernel routes a comm's incoming messages to the subshell its last reply went to; in
    # JupyterLab (commsOverSubshells) that is a subshell thread. Put this widget's comm there.
    await fe.execute(f"chat.comm._reply_subshell_id = {subshell!r}")
    await fe.execute(
        "import threading\n"
        "threads = []\n"
        "_send = chat._session.send\n"
        "def _spy(text):\n"
        "    threads.append(threading.current_thread().name)\n"
        "    return _send(text)\n"
        "chat._session.send = _spy\n"
    )
    answered = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": "delete my list"}, subshell_id=subshell)
    pending = await fe.wait_for_trait(chat, "pending", has_pending("interrupt"), 10)
    fe.send_custom(
        chat,
        {"kind": "resume", "interruptId": pending[0]["interruptId"], "status": "resolved", "payload": {"approved": True}},
        subshell_id=subshell,
    )
    # The follow-up run must go on by itself, without any other request reaching the kernel.
    assert await until_turn_ends(fe, chat, answered, 10) == "idle"
    assert await fe.evaluate("threads") == ["MainThread"]
    assert await fe.evaluate("chat.state") == {"todos": []}
    assert_clean(fe)


# -- (e) an interrupt answered by the view ------------------------------------------------------


@pytest.mark.parametrize("approve", [True, False], ids=["approved", "denied"])
async def test_e_an_interrupt_is_resumed_from_the_view(fe, approve):
    todos = [{"text": "buy milk", "done": False}, {"text": "walk the dog", "done": False}]
    chat = await open_chat(fe, state=repr({"todos": todos}))
    view = await connect_view(fe, chat, "v1")
    fe.send_custom(chat, {"kind": "send", "text": "delete my list"})

    pending = await fe.wait_for_trait(chat, "pending", has_pending("interrupt"), 10)
    assert chat.state["status"] == "waiting"
    item = pending[0]
    assert item["name"] == "delete_todos" and item["args"]["count"] == 2  # shown before approving
    assert "2" in (item["message"] or "")

    answered = len(chat.updates)
    fe.send_custom(
        chat,
        {
            "kind": "resume",
            "interruptId": item["interruptId"],
            "status": "resolved" if approve else "cancelled",
            "payload": {"approved": approve},
        },
    )
    assert await until_turn_ends(fe, chat, answered, 10) == "idle"
    assert chat.state["pending"] == []

    state = await fe.evaluate("chat.state")
    messages = await fe.evaluate("chat.messages")
    if approve:
        assert state["todos"] == []
        assert messages[-1]["content"].startswith("Approved")
    else:
        assert state["todos"] == todos
        assert messages[-1]["content"].startswith("Denied")
    view.feed(chat)
    assert view.transcript() == transcript(messages)
    assert view.state == state
    assert_clean(fe)


# -- (f) a second view joins mid-run -------------------------------------------------------------


async def test_f_a_view_connecting_mid_run_rebuilds_the_exact_transcript(fe):
    chat = await open_chat(fe, delay=0.01)
    await connect_view(fe, chat, "v1")
    start = len(chat.customs)
    since = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": "help"})
    await fe.wait_for(lambda: len(deltas(events_after(chat, start))) >= 10, 10, "some tokens")

    await connect_view(fe, chat, "v2")
    snapshot_at = next(
        i for i, c in enumerate(chat.customs) if isinstance(c, dict) and c.get("kind") == "snapshot" and c.get("viewId") == "v2"
    )
    snapshot = chat.customs[snapshot_at]
    assert await until_turn_ends(fe, chat, since, 20) == "idle"

    # The snapshot came mid-run: it holds the partial answer, and the run's end came after it.
    assert not any(e["type"] == "RUN_FINISHED" for e in events_after(chat, start, snapshot_at))
    assert any(e["type"] == "RUN_FINISHED" for e in events_after(chat, snapshot_at))
    partial = snapshot["messages"][-1]
    assert partial["role"] == "assistant" and partial.get("content")

    kernel_messages = await fe.evaluate("chat.messages")
    assert len(partial["content"]) < len(kernel_messages[-1]["content"])
    v1 = ViewMirror("v1").feed(chat)
    v2 = ViewMirror("v2").feed(chat)
    assert v2.snapshots == 1 and v1.snapshots == 1  # each view applied only its own snapshot
    assert v2.transcript() == transcript(kernel_messages)
    assert v1.transcript() == transcript(kernel_messages)
    assert v2.text() == v1.text()
    assert v2.checks and v2.checks[-1]["count"] == len(kernel_messages)
    assert_clean(fe)


# -- (g) awaiting a run inside a cell ---------------------------------------------------------


async def test_g_await_chat_send_in_a_cell(fe):
    chat = await open_chat(fe)
    result = await fe.execute(
        "run = await chat.send('help')\nprint(run.status)\nprint(run.reply)\nrun.reply == chat.messages[-1]['content']",
        timeout=30,
    )
    expected = await help_text(fe)
    assert result.stdout.startswith("finished\n")
    assert expected in result.stdout
    assert result.result == "True"
    assert chat.state["status"] == "idle"
    assert_clean(fe)


async def test_g_a_cell_awaiting_a_run_that_needs_the_browser_completes_when_the_view_answers(fe):
    chat = await open_chat(fe)
    cell = fe.submit("run = await chat.send('make it teal')\nprint(run.status, '|', chat.messages[-1]['content'])")
    pending = await fe.wait_for_trait(chat, "pending", has_pending("tool"), 10)
    assert not fe.replied(cell), "the cell finished before the tool was answered"

    fe.send_custom(chat, {"kind": "tool_result", "toolCallId": pending[0]["toolCallId"], "result": {"ok": True, "color": "teal"}})
    try:
        result = await fe.finish(cell, timeout=15)
    except HarnessError as exc:
        pytest.fail(f"the awaiting cell never saw the view's answer (needs ipykernel >= 7.4): {exc}")
    result.check()
    assert result.stdout.startswith("finished |")
    assert "accent is now" in result.stdout
    assert_clean(fe)


# -- (h) malformed requests ------------------------------------------------------------------


MALFORMED: list[Any] = [
    {"kind": "nope"},
    {"kind": "send"},
    "a string",
    {"kind": "tool_result", "toolCallId": "unknown", "result": 1},
    {"kind": "send", "text": ""},
    {"kind": "send", "text": 42},
    {"kind": "hello"},
    {"kind": "resume", "interruptId": "nothing-pending"},
    {"kind": "state_edit", "patch": "not a patch"},
    {"kind": "state_edit", "patch": [{"op": "remove", "path": "/no/such/key"}]},
    {"kind": "edit", "messageId": "no-such-message", "text": "hi"},
    {"kind": "regenerate"},
    {"no": "kind"},
    None,
    [1, 2, 3],
    12,
]


async def test_h_malformed_requests_are_ignored_and_nothing_raises(fe):
    chat = await open_chat(fe)
    mark = fe.mark()
    since = len(chat.updates)
    for payload in MALFORMED:
        fe.send_custom(chat, payload)
    result = await fe.execute("(chat.status, len(chat.messages), chat.state)")  # shell is in order
    assert result.result == "('idle', 0, {})"
    assert fe.alive()
    assert "running" not in statuses(chat, since)

    # The widget keeps working.
    assert await say(fe, chat, "help") == "idle"
    expected = await help_text(fe)
    assert (await fe.evaluate("chat.messages[-1]['content']")) == expected
    assert_clean(fe, mark)


# -- (i) shared state --------------------------------------------------------------------------


async def test_i_state_changes_travel_as_small_patches_both_ways(fe):
    chat = await open_chat(fe, state="{'big': ['x' * 100 for _ in range(2000)], 'n': 1}")  # about 200 KB
    view = await connect_view(fe, chat, "v1")
    view.feed(chat)
    assert view.state["n"] == 1 and len(view.state["big"]) == 2000

    # Python -> view: one key changed costs about its own size.
    received = len(chat.received)
    updates = len(chat.updates)
    await fe.execute("chat.state = {**chat.state, 'n': 2}")
    await fe.wait_for(lambda: chat.of_kind("state_patch"), 5, "a state_patch")
    patch = chat.of_kind("state_patch")[-1]["patch"]
    assert patch == [{"op": "replace", "path": "/n", "value": 2}]
    wire_bytes = sum(m.size for m in chat.received[received:])
    assert wire_bytes < 1024, f"a one-key change cost {wire_bytes} bytes on the wire"
    assert not any("state" in u for u in chat.updates[updates:])
    view.feed(chat)
    assert view.state == await fe.evaluate("chat.state")

    # View -> Python: an edit is an RFC 6902 patch that reaches chat.state and its observers.
    await fe.execute("seen = []\nchat.observe(lambda change: seen.append(change['new'].get('fromView')), 'state')")
    edit = {"kind": "state_edit", "patch": [{"op": "add", "path": "/fromView", "value": {"ok": True}}]}
    fe.send_custom(chat, edit)
    assert len(json.dumps(edit)) < 1024
    assert await fe.evaluate("(chat.state.get('fromView'), chat.state['n'], len(chat.state['big']))") == [
        {"ok": True},
        2,
        2000,
    ]
    await fe.wait_for(lambda: await_seen_marker(chat), 5, "the edit echoed to the views")
    assert await fe.evaluate("seen") == [{"ok": True}]
    view.feed(chat)
    assert view.state == await fe.evaluate("chat.state")
    assert_clean(fe)


def await_seen_marker(chat: WidgetComm) -> bool:
    return any(op.get("path") == "/fromView" for message in chat.of_kind("state_patch") for op in message.get("patch") or ())


# -- more of the same promises ----------------------------------------------------------------


async def test_stop_works_before_the_first_token(fe):
    chat = await open_chat(fe, delay=0.5)
    start = len(chat.customs)
    since = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": "help"})
    fe.send_custom(chat, {"kind": "stop"})
    assert await until_turn_ends(fe, chat, since, 5) == "idle"
    wire = events_after(chat, start)
    assert not deltas(wire)
    assert wire[-1]["type"] == "RUN_FINISHED" and wire[-1]["outcome"]["type"] == "cancelled"
    assert [m["role"] for m in await fe.evaluate("chat.messages")] == ["user"]
    await fe.execute("chat.agent.delay = 0.002")
    assert await say(fe, chat, "help") == "idle"
    assert [m["role"] for m in await fe.evaluate("chat.messages")] == ["user", "user", "assistant"]
    assert_clean(fe)


async def test_stop_while_a_frontend_tool_waits_answers_it_as_cancelled(fe):
    chat = await open_chat(fe)
    view = await connect_view(fe, chat, "v1")
    fe.send_custom(chat, {"kind": "send", "text": "make it teal"})
    pending = await fe.wait_for_trait(chat, "pending", has_pending("tool"), 10)
    stopped = len(chat.updates)
    fe.send_custom(chat, {"kind": "stop"})
    await fe.wait_for_trait(chat, "status", lambda s: s == "idle", 5)
    assert chat.state["pending"] == []
    assert "error" not in statuses(chat, stopped)
    messages = await fe.evaluate("chat.messages")
    tool = [m for m in messages if m["role"] == "tool"]
    assert len(tool) == 1 and tool[0]["toolCallId"] == pending[0]["toolCallId"]  # no dangling call
    assert view.feed(chat).transcript() == transcript(messages)

    # A late answer from a view is refused without harm, and the chat goes on.
    fe.send_custom(chat, {"kind": "tool_result", "toolCallId": pending[0]["toolCallId"], "result": {"ok": True}})
    assert await say(fe, chat, "help") == "idle"
    assert_clean(fe)


async def test_a_message_sent_during_a_run_is_queued_then_answered(fe):
    chat = await open_chat(fe, delay=0.005)
    view = await connect_view(fe, chat, "v1")
    since = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": "help"})
    await fe.wait_for_trait(chat, "status", lambda s: s == "running", 5)
    fe.send_custom(chat, {"kind": "send", "text": "weather in Oslo"})
    queued = await fe.wait_for_trait(chat, "queued", lambda q: bool(q), 5)
    assert [q["text"] for q in queued] == ["weather in Oslo"]

    def both_done() -> bool:
        seen = statuses(chat, since)
        return (
            seen.count("idle") >= 1 and seen[-1] == "idle" and chat.state.get("queued") == [] and len(chat.of_kind("check")) >= 2
        )

    await fe.wait_for(both_done, 20, "both turns")
    messages = await fe.evaluate("chat.messages")
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "tool", "assistant"]
    assert "Oslo" in messages[-1]["content"]
    assert view.feed(chat).transcript() == transcript(messages)
    assert_clean(fe)


async def test_a_reloaded_view_gets_the_whole_conversation_back(fe):
    chat = await open_chat(fe)
    assert await say(fe, chat, "add buy milk") == "idle"
    assert await say(fe, chat, "weather in Paris") == "idle"
    view = await connect_view(fe, chat, "reloaded")
    view.feed(chat)
    assert view.transcript() == transcript(await fe.evaluate("chat.messages"))
    assert view.state == await fe.evaluate("chat.state") == {"todos": [{"text": "buy milk", "done": False}]}

    fe.send_custom(chat, {"kind": "clear"})
    await fe.wait_for(lambda: view.feed(chat).messages == [], 5, "the cleared transcript")
    assert await fe.evaluate("chat.messages") == []
    assert_clean(fe)
