"""The lessons' helpers as library code (``agui_widget.teaching``): ``events_table`` prints what a
run sent as the lessons always printed it, and ``answer_from_python`` stands in for a person in a
headless notebook without ever answering what a view answered."""

from __future__ import annotations

import asyncio
import json

import pytest
from ag_ui.core import (
    EventType,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from agui_widget import AgentChat, python_tool
from agui_widget.adapters import DemoAgent
from agui_widget.teaching._lessons import EventTable, answer_from_python, events_table

from .genui_support import Captured
from .support import until


def old_event_table(events):
    """The helper every lesson copied before it became ``events_table``: the reference output."""
    rows = []
    for event in events:
        kind = event.type.value
        data = event.model_dump(mode="json", by_alias=True, exclude_none=True)
        delta = data.get("delta") if isinstance(data.get("delta"), str) else None
        if delta is not None and rows and rows[-1][0] == kind:
            rows[-1][1] += 1
            rows[-1][2] += delta
            continue
        display = (data.pop("metadata", None) or {}).get("agui_widget", {}).get("display")
        if display:
            data["display"] = " + ".join(sorted(display))  # a MIME bundle for the chat (lesson 03)
        for noise in ("type", "timestamp", "threadId", "runId", "messageId", "toolCallId", "parentMessageId", "protocolVersion", "role"):  # fmt: skip
            data.pop(noise, None)
        rows.append([kind, 1, delta if delta is not None else (json.dumps(data, ensure_ascii=False) if data else "")])
    print(f"{'event':<24} {'n':>3}  detail")
    for kind, count, detail in rows:
        detail = " ".join(detail.split())
        print(f"{kind:<24} {count:>3}  {detail[:72] + '…' if len(detail) > 73 else detail}")


def text_run(*deltas: str, message_id: str = "m1") -> list:
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        *(TextMessageContentEvent(message_id=message_id, delta=d) for d in deltas),
        TextMessageEndEvent(message_id=message_id),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


# -- events_table ------------------------------------------------------------------------------------


def test_consecutive_deltas_of_one_kind_fold_into_one_row_and_ids_are_left_out():
    events = [
        *text_run("Hel", "lo ", "there")[:-1],
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="get_weather", parent_message_id="m1"),
        ToolCallArgsEvent(tool_call_id="c1", delta='{"city": '),
        ToolCallArgsEvent(tool_call_id="c1", delta='"Oslo"}'),
        ToolCallEndEvent(tool_call_id="c1"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]

    table = events_table(events)

    assert isinstance(table, EventTable)
    assert table.rows == [
        ("RUN_STARTED", 1, ""),
        ("TEXT_MESSAGE_START", 1, ""),
        ("TEXT_MESSAGE_CONTENT", 3, "Hello there"),
        ("TEXT_MESSAGE_END", 1, ""),
        ("TOOL_CALL_START", 1, '{"toolCallName": "get_weather"}'),
        ("TOOL_CALL_ARGS", 2, '{"city": "Oslo"}'),
        ("TOOL_CALL_END", 1, ""),
        ("RUN_FINISHED", 1, ""),
    ]
    assert len(table) == 8


def test_deltas_of_two_messages_in_a_row_fold_as_the_lessons_did():
    events = [
        TextMessageContentEvent(message_id="a", delta="one "),
        TextMessageContentEvent(message_id="b", delta="two"),
        ToolCallArgsEvent(tool_call_id="c", delta="{}"),
        TextMessageContentEvent(message_id="b", delta="three"),
    ]
    assert events_table(events).rows == [
        ("TEXT_MESSAGE_CONTENT", 2, "one two"),
        ("TOOL_CALL_ARGS", 1, "{}"),
        ("TEXT_MESSAGE_CONTENT", 1, "three"),
    ]


def test_the_detail_goes_on_one_line_and_is_cut_after_72_characters():
    exact = "x" * 73
    long = "y" * 74
    table = events_table([*text_run(exact, message_id="a"), *text_run("two\n\nlines   here", long, message_id="b")])

    shown = [detail for kind, _, detail in table.shown() if kind == "TEXT_MESSAGE_CONTENT"]
    assert shown == [exact, "two lines here" + "y" * 58 + "…"]
    assert table.rows[2][2] == exact and table.rows[7][2] == "two\n\nlines   here" + long, "rows keep the whole text"
    lines = str(table).splitlines()
    assert lines[0] == f"{'event':<24} {'n':>3}  detail"
    assert lines[3] == f"{'TEXT_MESSAGE_CONTENT':<24} {1:>3}  {exact}"
    assert lines[8].endswith("y…") and len(lines[8]) == 24 + 1 + 3 + 2 + 73
    assert repr(table) == str(table)


async def test_a_rich_result_names_its_display_mime_types_not_its_bundle():
    chat = AgentChat(DemoAgent(delay=0))
    run = await chat.send("table")

    (row,) = [r for r in events_table(run.events).rows if r[0] == "TOOL_CALL_RESULT"]

    detail = json.loads(row[2])
    assert detail["display"] == "text/html + text/plain"
    assert "metadata" not in detail and "<table" not in row[2], "the bundle itself is for the chat, not the table"
    assert set(detail) == {"content", "display"}


def test_html_escapes_everything_an_agent_wrote():
    hostile = "<script>alert('x')</script><img src=x onerror=alert(1)> & \"quoted\""
    events = [
        *text_run(hostile),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="<b>tool</b>"),
    ]

    page = events_table(events)._repr_html_()

    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;" in page
    assert page.startswith("<table") and page.count("<tr>") == 1 + 6
    assert "<code>TEXT_MESSAGE_CONTENT</code>" in page


async def test_the_table_prints_what_the_lessons_old_helper_printed_for_a_demo_agent_run(capsys):
    chat = AgentChat(DemoAgent(delay=0))
    runs = [await chat.send(text) for text in ("weather in Lisbon", "add buy milk", "plan a trip", "think about it", "markdown")]
    runs.append(await chat.send("chart"))
    runs.append(await chat.send("write a document about tea"))
    teal = chat.send("make it teal")
    await answer_from_python(chat, teal, {"ok": True, "color": "teal"}, grace=0, echo=False)
    runs.append(teal)
    delete = chat.send("delete my list")
    await answer_from_python(chat, delete, {"approved": True}, interrupts=True, echo=False)
    runs.append(delete)

    for events in [*(run.events for run in runs), chat.events]:
        old_event_table(events)
        expected = capsys.readouterr().out
        print(events_table(events))
        assert capsys.readouterr().out == expected

    table = events_table(chat.events)
    kinds = {kind for kind, _, _ in table.rows}
    assert {"TOOL_CALL_RESULT", "STATE_DELTA", "STATE_SNAPSHOT", "REASONING_MESSAGE_CONTENT", "CUSTOM", "TOOL_CALL_ARGS"} <= kinds
    results = [json.loads(detail) for kind, _, detail in table.rows if kind == "TOOL_CALL_RESULT"]
    assert any(r.get("display") == "image/png + text/plain" for r in results), "the chart's bundle, named"


async def test_it_reads_the_events_json_dicts_too():
    chat = AgentChat(DemoAgent(delay=0))
    run = await chat.send("weather in Oslo")
    dicts = [json.loads(event.model_dump_json(by_alias=True, exclude_none=True)) for event in run.events]
    assert events_table(dicts).rows == events_table(run.events).rows
    with pytest.raises(TypeError, match="AG-UI events"):
        events_table(["RUN_STARTED"])


# -- answer_from_python ------------------------------------------------------------------------------


async def test_a_frontend_tool_call_is_answered_from_python_and_the_run_goes_on(capsys):
    chat = AgentChat(DemoAgent(delay=0))
    run = chat.send("make it teal")

    returned = await answer_from_python(chat, run, lambda call: {"ok": True, "color": call["args"]["color"]}, grace=0.1)

    assert returned is run and run.status == "finished"
    assert run.reply.endswith("Done: the accent is now **teal**.")
    assert [m["content"] for m in chat.messages if m["role"] == "tool"] == ['{"ok": true, "color": "teal"}']
    assert (
        capsys.readouterr().out == "answered from Python: set_accent_color {'color': 'teal'} -> {'ok': True, 'color': 'teal'}\n"
    )
    assert [e.type for e in run.events].count(EventType.RUN_STARTED) == 2, "the answer started the follow-up run"


async def test_a_python_tool_waiting_for_approval_is_approved_or_denied(capsys):
    ran = []

    def wipe(table: str) -> str:
        """Wipe a table."""
        ran.append(table)
        return f"wiped {table}"

    chat = AgentChat(DemoAgent(delay=0), tools=[python_tool(wipe, approve=True)])

    run = await answer_from_python(chat, chat.send("call wipe table=sales"), True)
    assert ran == ["sales"] and run.status == "finished"
    assert "answered from Python: wipe {'table': 'sales'} -> approve" in capsys.readouterr().out

    run = await answer_from_python(chat, chat.send("call wipe table=staff"), False)
    assert ran == ["sales"], "a denied call never runs"
    assert "-> deny" in capsys.readouterr().out
    assert "You said no" in run.reply


async def test_an_interrupt_is_resumed_from_python(capsys):
    chat = AgentChat(DemoAgent(delay=0))
    await chat.send("add buy milk")
    run = chat.send("delete my list")

    await answer_from_python(chat, run, {"approved": True}, interrupts=True)

    assert run.status == "finished" and chat.state["todos"] == []
    outcomes = [e.outcome.type for e in run.events if e.type == EventType.RUN_FINISHED]
    assert outcomes == ["interrupt", "success"]
    assert capsys.readouterr().out.startswith("answered from Python:")


async def test_the_wrong_kind_says_which_to_pass():
    chat = AgentChat(DemoAgent(delay=0))
    await chat.send("add buy milk")
    run = chat.send("delete my list")
    with pytest.raises(RuntimeError, match="interrupts=True"):
        await answer_from_python(chat, run, {"approved": True})
    chat.stop()
    await run


async def test_nothing_is_answered_twice_when_a_view_answered_first(capsys):
    chat = Captured(DemoAgent(delay=0))
    run = chat.send("make it gold")
    await until(lambda: chat.status == "waiting")
    (call,) = chat.pending_tool_calls
    chat.view_says({"kind": "tool_result", "toolCallId": call["toolCallId"], "result": {"ok": True, "color": "gold"}})

    await answer_from_python(chat, run, {"ok": True, "color": "python"})

    assert capsys.readouterr().out == ""
    assert [m["content"] for m in chat.messages if m["role"] == "tool"] == ['{"ok": true, "color": "gold"}']


async def test_a_call_a_view_took_is_left_to_that_view(capsys):
    chat = Captured(DemoAgent(delay=0))
    run = chat.send("make it navy")
    await until(lambda: chat.status == "waiting")
    (call,) = chat.pending_tool_calls
    chat.view_says({"kind": "claim", "toolCallId": call["toolCallId"], "viewId": "tab-1"})

    async def the_view_runs_the_handler():
        await asyncio.sleep(0.3)  # longer than the grace below: the claim, not the grace, holds Python back
        chat.view_says({"kind": "tool_result", "toolCallId": call["toolCallId"], "result": {"ok": True, "color": "navy"}})

    view = asyncio.ensure_future(the_view_runs_the_handler())
    await answer_from_python(chat, run, {"ok": True, "color": "python"}, grace=0.05)
    await view

    assert capsys.readouterr().out == ""
    assert [m["content"] for m in chat.messages if m["role"] == "tool"] == ['{"ok": true, "color": "navy"}']


async def test_a_browser_tool_gets_a_grace_period_for_a_view_to_answer(capsys):
    chat = Captured(DemoAgent(delay=0))
    run = chat.send("make it olive")
    await until(lambda: chat.status == "waiting")
    (call,) = chat.pending_tool_calls

    async def a_view_answers_soon():
        await asyncio.sleep(0.2)
        chat.view_says({"kind": "tool_result", "toolCallId": call["toolCallId"], "result": {"ok": True, "color": "olive"}})

    view = asyncio.ensure_future(a_view_answers_soon())
    # A grace far longer than the view takes, however busy the machine: it ends when the view answers.
    await answer_from_python(chat, run, {"ok": True, "color": "python"}, grace=60.0)
    await view

    assert capsys.readouterr().out == ""
    assert [m["content"] for m in chat.messages if m["role"] == "tool"] == ['{"ok": true, "color": "olive"}']


async def test_a_run_that_asks_nothing_is_just_awaited(capsys):
    chat = AgentChat(DemoAgent(delay=0))
    run = await answer_from_python(chat, chat.send("weather in Rome"), {"ok": True})
    assert run.status == "finished" and "in Rome" in run.reply
    assert capsys.readouterr().out == ""


async def test_it_gives_up_after_the_timeout_with_an_error_that_says_what_waits():
    chat = Captured(DemoAgent(delay=0))
    run = chat.send("make it crimson")
    await until(lambda: chat.status == "waiting")
    (call,) = chat.pending_tool_calls
    chat.view_says({"kind": "claim", "toolCallId": call["toolCallId"], "viewId": "tab-gone"})  # and never answers

    with pytest.raises(
        TimeoutError, match=r"still waiting after 0\.2 s, waiting for set_accent_color \(taken by view tab-gone\)"
    ):
        await answer_from_python(chat, run, {"ok": True}, timeout=0.2)
    assert not run.done, "a timeout leaves the run alone"
    chat.stop()
    await run


async def test_the_timeout_bounds_a_slow_run_too():
    async def slow(messages):
        await asyncio.sleep(30)
        return "late"

    chat = AgentChat(slow)
    run = chat.send("hi")
    with pytest.raises(TimeoutError, match=r"still running after 0\.2 s"):
        await answer_from_python(chat, run, {"ok": True}, timeout=0.2)
    chat.stop()
    await run
    assert run.status == "cancelled"
