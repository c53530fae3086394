"""chat.render_tool: a Python function turns a tool call into what the chat shows."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from agui_widget import HTML
from agui_widget.adapters import AgentAdapter, EventStream
from agui_widget.adapters._base import new_id

from .genui_support import Captured
from .support import until


class WeatherAgent(AgentAdapter):
    """Calls a backend tool get_weather (streamed arguments), then answers."""

    async def _events(self, input, stream: EventStream):
        call_id = new_id("call")
        yield stream.tool_call_start("get_weather", tool_call_id=call_id)
        yield stream.tool_call_args(call_id, '{"city": ')
        yield stream.tool_call_args(call_id, '"Lisbon"}')
        yield stream.tool_call_end(call_id)
        yield stream.tool_result(call_id, {"temperature_c": 21})
        yield stream.text("It is 21 °C.")


class FrontendCaller(AgentAdapter):
    """Calls the frontend tool pick_color and waits for the answer."""

    async def _events(self, input, stream: EventStream):
        if input.messages[-1].role == "tool":
            yield stream.text("thanks")
            return
        yield stream.tool_call("pick_color", {"options": ["red", "blue"]}, tool_call_id="call-pick")


async def test_the_renderer_is_called_with_the_arguments_then_with_the_parsed_result():
    chat = Captured(WeatherAgent())
    seen: list[tuple[dict[str, Any], Any]] = []

    @chat.render_tool("get_weather")
    def weather(args: dict[str, Any], result: Any) -> str:
        seen.append((args, result))
        return f"**{args['city']}**: {'…' if result is None else result['temperature_c']}"

    await chat.send("weather?")
    assert seen == [({"city": "Lisbon"}, None), ({"city": "Lisbon"}, {"temperature_c": 21})]
    call_id = chat.messages[1]["toolCalls"][0]["id"]
    renders = chat.renders(f"tool:{call_id}")
    assert [r["bundle"]["text/markdown"] for r in renders] == ["**Lisbon**: …", "**Lisbon**: 21"]
    assert renders[-1]["error"] is None


async def test_a_render_follows_the_events_that_led_to_it():
    chat = Captured(WeatherAgent())
    chat.render_tool("get_weather", lambda args, result: HTML("<b>sun</b>"))
    await chat.send("weather?")
    sent = chat.__dict__["sent"]
    first_render = next(i for i, m in enumerate(sent) if m["kind"] == "render")
    before = [e["type"] for m in sent[:first_render] if m["kind"] == "events" for e in m["events"]]
    assert "TOOL_CALL_END" in before
    assert chat.of_kind("render")[0]["bundle"]["text/html"] == "<b>sun</b>"


async def test_none_keeps_the_default_card_and_removes_an_earlier_render():
    chat = Captured(WeatherAgent())
    chat.render_tool("get_weather", lambda args, result: "pending" if result is None else None)
    await chat.send("weather?")
    [shown, removed] = chat.of_kind("render")
    assert shown["bundle"]["text/markdown"] == "pending"
    assert removed["bundle"] is None and removed["error"] is None


async def test_an_exception_in_the_renderer_is_logged_and_shown_and_the_run_goes_on(caplog):
    chat = Captured(WeatherAgent())

    def broken(args: dict[str, Any], result: Any) -> str:
        raise RuntimeError("no sun today")

    chat.render_tool("get_weather", broken)
    with caplog.at_level(logging.ERROR, logger="agui_widget"):
        run = await chat.send("weather?")
    assert run.status == "finished" and chat.messages[-1]["content"] == "It is 21 °C."
    render = chat.of_kind("render")[-1]
    assert render["bundle"] is None and "RuntimeError: no sun today" in render["error"]
    assert "broken" in caplog.text


async def test_a_frontend_tool_renders_while_it_waits_and_again_with_its_answer():
    chat = Captured(FrontendCaller(), tools=[{"name": "pick_color", "description": "pick", "ui": "ask"}])
    calls: list[Any] = []
    chat.render_tool("pick_color", lambda args, result: calls.append(result) or f"options: {args['options']}")
    run = chat.send("pick")
    await until(lambda: chat.status == "waiting")
    assert calls == [None]
    chat.respond("call-pick", {"color": "blue"})
    await run
    assert calls == [None, {"color": "blue"}]
    assert chat.renders("tool:call-pick")[-1]["bundle"]["text/markdown"] == "options: ['red', 'blue']"


async def test_registering_later_renders_the_calls_already_in_the_transcript_and_a_new_view_gets_them():
    chat = Captured(WeatherAgent())
    await chat.send("weather?")
    assert chat.of_kind("render") == []
    chat.render_tool("get_weather", lambda args, result: f"{args['city']} {result}")
    [render] = chat.of_kind("render")
    assert render["bundle"]["text/markdown"] == "Lisbon {'temperature_c': 21}"
    chat.view_says({"kind": "hello", "viewId": "late"})
    kinds = [m["kind"] for m in chat.__dict__["sent"]]
    assert kinds[-2:] == ["snapshot", "render"]


def test_render_tool_refuses_what_cannot_be_a_renderer():
    chat = Captured(WeatherAgent())
    with pytest.raises(ValueError):
        chat.render_tool("", lambda a, r: None)
    with pytest.raises(TypeError):
        chat.render_tool("get_weather", "not a function")  # type: ignore[arg-type]


async def test_clearing_the_chat_drops_its_tool_renders():
    chat = Captured(WeatherAgent())
    chat.render_tool("get_weather", lambda args, result: "shown")
    await chat.send("weather?")
    call_id = chat.messages[1]["toolCalls"][0]["id"]
    chat.clear()
    assert chat.renders(f"tool:{call_id}")[-1]["bundle"] is None
    chat.view_says({"kind": "hello", "viewId": "after-clear"})
    assert chat.__dict__["sent"][-1]["kind"] == "snapshot"


async def test_editing_away_a_rendered_call_drops_its_render():
    chat = Captured(WeatherAgent())
    chat.render_tool("get_weather", lambda args, result: "shown")
    await chat.send("weather?")
    await chat.send("and now?")
    first, second = [c["id"] for m in chat.messages for c in m.get("toolCalls") or ()]
    second_question = [m for m in chat.messages if m["role"] == "user"][1]
    await chat.edit(second_question["id"], "and tomorrow?")
    assert chat.renders(f"tool:{second}")[-1]["bundle"] is None
    assert chat.renders(f"tool:{first}")[-1]["bundle"] is not None
    chat.view_says({"kind": "hello", "viewId": "after-edit"})
    sent = chat.__dict__["sent"]
    after_hello = sent[max(i for i, m in enumerate(sent) if m["kind"] == "snapshot") :]
    assert f"tool:{second}" not in {m["key"] for m in after_hello if m["kind"] == "render"}
