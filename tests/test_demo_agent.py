"""The built-in demo agent: every scenario it offers, and valid AG-UI framing for each."""

from __future__ import annotations

import json

from ag_ui.core import EventType, ResumeEntry

from agui_widget.adapters import DemoAgent
from agui_widget.adapters._demo import ACCENT_TOOL

from .agui_check import assert_valid_streams
from .support import collect, make_input, patch_of, text_of, types, user

agent = DemoAgent(delay=0)


async def test_help_lists_what_it_can_show_and_says_it_is_scripted():
    events = await collect(agent, make_input("help"))
    text = text_of(events)
    assert "scripted" in text and "no model" in text
    for command in ("weather in Paris", "make it teal", "add buy milk", "delete my list", "fail"):
        assert command in text
    # streamed token by token, not in one piece
    assert types(events).count("TEXT_MESSAGE_CONTENT") > 50
    assert_valid_streams([events])


async def test_an_unknown_message_is_answered_honestly():
    text = text_of(await collect(agent, make_input("what is the meaning of life?")))
    assert "scripted demo agent" in text and "help" in text


async def test_weather_calls_a_backend_tool_and_reports_its_result():
    events = await collect(agent, make_input("What's the weather in Lisbon?"))
    start = next(e for e in events if e.type == EventType.TOOL_CALL_START)
    assert start.tool_call_name == "get_weather"
    args = "".join(e.delta for e in events if e.type == EventType.TOOL_CALL_ARGS)
    assert json.loads(args) == {"city": "Lisbon"}
    result = json.loads(next(e for e in events if e.type == EventType.TOOL_CALL_RESULT).content)
    assert result["city"] == "Lisbon"
    assert f"{result['temperature_c']} °C" in text_of(events)
    assert events[-1].outcome.pending_tool_call_ids is None
    assert_valid_streams([events])


async def test_accent_colour_is_a_frontend_tool_left_pending():
    run_input = make_input("make it crimson", tools=[ACCENT_TOOL.to_agui()])
    events = await collect(agent, run_input)
    start = next(e for e in events if e.type == EventType.TOOL_CALL_START)
    assert start.tool_call_name == "set_accent_color"
    args = "".join(e.delta for e in events if e.type == EventType.TOOL_CALL_ARGS)
    assert json.loads(args) == {"color": "crimson"}
    assert events[-1].outcome.pending_tool_call_ids == [start.tool_call_id]
    assert "TOOL_CALL_RESULT" not in types(events)
    assert_valid_streams([events])


async def test_the_follow_up_run_reads_the_browser_result():
    history = [
        user("make it teal"),
        {
            "id": "a1",
            "role": "assistant",
            "content": "ok",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "set_accent_color", "arguments": '{"color":"teal"}'}}
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": '{"ok": true, "color": "teal"}'},
    ]
    events = await collect(agent, make_input(history, tools=[ACCENT_TOOL.to_agui()]))
    assert "accent is now **teal**" in text_of(events)
    history[-1]["content"] = '{"error": "no permission"}'
    assert "no permission" in text_of(await collect(agent, make_input(history, tools=[ACCENT_TOOL.to_agui()])))


async def test_without_the_frontend_tool_it_says_it_cannot():
    events = await collect(agent, make_input("make it teal"))
    assert "no `set_accent_color` frontend tool" in text_of(events)
    assert "TOOL_CALL_START" not in types(events)


async def test_todo_state_is_created_then_patched_and_read_back():
    first = await collect(agent, make_input("add buy milk"))
    snapshot = next(e for e in first if e.type == EventType.STATE_SNAPSHOT)
    assert snapshot.snapshot == {"todos": [{"text": "buy milk", "done": False}]}

    state = {"todos": [{"text": "buy milk", "done": False}]}
    second = await collect(agent, make_input("add call mum", state=state))
    delta = next(e for e in second if e.type == EventType.STATE_DELTA)
    assert patch_of(delta) == [{"op": "add", "path": "/todos/-", "value": {"text": "call mum", "done": False}}]

    state["todos"].append({"text": "call mum", "done": False})
    tick = await collect(agent, make_input("done 2", state=state))
    assert patch_of(next(e for e in tick if e.type == EventType.STATE_DELTA))[0]["path"] == "/todos/1/done"

    listing = text_of(await collect(agent, make_input("show my list", state=state)))
    assert "1. buy milk" in listing and "2. call mum" in listing
    assert_valid_streams([first, second, tick])


async def test_deleting_asks_for_approval_with_the_arguments_first():
    state = {"todos": [{"text": "a", "done": False}, {"text": "b", "done": False}]}
    events = await collect(agent, make_input("delete my list", state=state))
    outcome = events[-1].outcome
    assert outcome.type == "interrupt"
    interrupt = outcome.interrupts[0]
    call = next(e for e in events if e.type == EventType.TOOL_CALL_START)
    assert interrupt.tool_call_id == call.tool_call_id and call.tool_call_name == "delete_todos"
    args = json.loads("".join(e.delta for e in events if e.type == EventType.TOOL_CALL_ARGS))
    assert args == {"count": 2, "items": ["a", "b"]}
    assert "STATE_DELTA" not in types(events)  # nothing deleted before approval
    assert interrupt.message == "Delete all 2 items of your to-do list?"
    assert_valid_streams([events])


async def test_the_approval_question_counts_one_item_as_one():
    events = await collect(agent, make_input("delete my list", state={"todos": [{"text": "a", "done": False}]}))
    assert events[-1].outcome.interrupts[0].message == "Delete the one item of your to-do list?"


async def _resume(state, payload, status="resolved"):
    history = [
        user("delete my list"),
        {
            "id": "a1",
            "role": "assistant",
            "content": "need approval",
            "toolCalls": [{"id": "c9", "type": "function", "function": {"name": "delete_todos", "arguments": "{}"}}],
        },
    ]
    entry = ResumeEntry(interrupt_id="i1", status=status, payload=payload)
    return await collect(agent, make_input(history, state=state, resume=[entry]))


async def test_an_approved_deletion_empties_the_list_and_answers_the_call():
    events = await _resume({"todos": [{"text": "a"}]}, {"approved": True})
    assert patch_of(next(e for e in events if e.type == EventType.STATE_DELTA)) == [
        {"op": "replace", "path": "/todos", "value": []}
    ]
    assert next(e for e in events if e.type == EventType.TOOL_CALL_RESULT).tool_call_id == "c9"
    assert "Approved" in text_of(events)
    assert_valid_streams([events])


async def test_a_denied_deletion_keeps_the_list():
    events = await _resume({"todos": [{"text": "a"}]}, {"approved": False})
    assert "STATE_DELTA" not in types(events)
    assert "Denied" in text_of(events)
    cancelled = await _resume({"todos": [{"text": "a"}]}, None, status="cancelled")
    assert "Denied" in text_of(cancelled)


async def test_plan_streams_steps_into_the_state():
    events = await collect(agent, make_input("plan a picnic"))
    assert types(events).count("STEP_STARTED") == 4 == types(events).count("STEP_FINISHED")
    first = patch_of(next(e for e in events if e.type == EventType.STATE_DELTA))[0]
    assert first["path"] == "/plan" and first["value"]["goal"] == "a picnic"
    assert_valid_streams([events])


async def test_think_streams_reasoning_before_the_answer():
    events = await collect(agent, make_input("think about it"))
    order = types(events)
    assert order.index("REASONING_START") < order.index("REASONING_END") < order.index("TEXT_MESSAGE_START")
    assert_valid_streams([events])


async def test_markdown_showcase_has_a_table_code_and_math():
    text = text_of(await collect(agent, make_input("markdown")))
    assert "| protocol event |" in text and "```python" in text and "$$" in text


async def test_fail_ends_in_a_readable_run_error():
    events = await collect(agent, make_input("fail"))
    assert events[-1].type == EventType.RUN_ERROR
    assert "failed on purpose" in events[-1].message
    assert_valid_streams([events])


async def test_settings_shows_the_runs_forwarded_props_or_how_to_give_some():
    given = make_input("settings").model_copy(update={"forwarded_props": {"model": "llama3.2", "temperature": 0.4}})
    text = text_of(await collect(agent, given))
    assert '"model": "llama3.2"' in text and '"temperature": 0.4' in text and "forwardedProps" in text
    empty = text_of(await collect(agent, make_input("settings")))
    assert "No settings reached me" in empty and "AgentChat(settings=" in empty
    assert "`settings`" in text_of(await collect(agent, make_input("help")))
