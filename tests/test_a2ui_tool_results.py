"""A2UI surfaces from tool results, regenerating an action's turn, and acting on a surface from Python.

A tool result that holds ``{"a2ui_operations": [...]}`` draws its surfaces right after it, as
``@ag-ui/a2ui-middleware`` does: js/test/a2ui-middleware.json's ``toolResults`` record what the real
middleware draws for streams of results (js/test/a2ui-middleware.test.ts runs it), and the kernel is
held to the same here. A Python tool's answer draws its surfaces too. Regenerate after an action's
turn runs the action again; ``chat.send_action`` starts the turn a click starts.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from a2ui.builder.v0_9 import Action, ActionEvent, Button, Card, Column, DataBinding, Text, TextField
from a2ui.core.schema.v0_9 import (
    CreateSurface,
    CreateSurfaceMessage,
    UpdateComponents,
    UpdateComponentsMessage,
    UpdateDataModel,
    UpdateDataModelMessage,
)
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool

from agui_widget import DemoAgent, ReplayAgent
from agui_widget.adapters._demo import A2UI_BASIC_CATALOG
from agui_widget.adapters.langchain import LangChainAgent, agui_middleware
from agui_widget.pipeline._recording import read_recording
from agui_widget.session._a2ui import action_text

from .genui_support import Captured, Counting
from .langchain_fakes import ai, call, model
from .support import until

FIXTURE = json.loads((Path(__file__).parent.parent / "js" / "test" / "a2ui-middleware.json").read_text(encoding="utf-8"))


def booking_surface(surface_id: str, guest: str = "Ada") -> list[dict[str, Any]]:
    """A booking card built with a2ui-agent-sdk: a field, and a button whose action carries it."""
    tree = Card(
        id="root",
        child=Column(
            children=[
                Text(text="Book a table", variant="h3"),
                TextField(label="Guest", value=DataBinding(path="/booking/guest")),
                Button(
                    child=Text(text="Book"),
                    variant="primary",
                    action=Action(event=ActionEvent(name="book", context={"guest": DataBinding(path="/booking/guest")})),
                ),
            ]
        ),
    )
    messages = [
        CreateSurfaceMessage(create_surface=CreateSurface(surface_id=surface_id, catalog_id=A2UI_BASIC_CATALOG)),
        UpdateComponentsMessage(update_components=UpdateComponents(surface_id=surface_id, components=tree.flatten())),
        UpdateDataModelMessage(
            update_data_model=UpdateDataModel(surface_id=surface_id, path="/", value={"booking": {"guest": guest}})
        ),
    ]
    return [m.model_dump(by_alias=True, exclude_none=True, mode="json") for m in messages]


BOOK_BUTTON = "root__button_1"
"""The id the SDK gives the booking card's button."""


def drawn(events: list[Any]) -> list[dict[str, Any]]:
    """The results (by call id) and the surfaces drawn after them, as the fixture records them."""
    out: list[dict[str, Any]] = []
    for event in events:
        if event.type == "TOOL_CALL_RESULT":
            out.append({"type": "TOOL_CALL_RESULT", "toolCallId": event.tool_call_id})
        elif event.type == "ACTIVITY_SNAPSHOT":
            out.append(event.model_dump(mode="json", by_alias=True, exclude_none=True))
    return out


def activities(chat: Any) -> list[dict[str, Any]]:
    return [m for m in chat.messages if m["role"] == "activity"]


class Scripted:
    """An agent that answers every run with the same events (raw dicts) inside its run."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events

    async def run(self, input: Any):
        yield {"type": "RUN_STARTED", "threadId": input.thread_id, "runId": input.run_id}
        for event in self.events:
            yield event
        yield {"type": "RUN_FINISHED", "threadId": input.thread_id, "runId": input.run_id}


# -- the middleware's step, in the kernel ------------------------------------------------------------


def test_the_fixtures_booking_surface_is_the_one_the_sdk_builds():
    first = FIXTURE["toolResults"][0]
    result = next(e for e in first["events"] if e["type"] == "TOOL_CALL_RESULT")
    assert json.loads(result["content"]) == {"a2ui_operations": booking_surface("booking")}


@pytest.mark.parametrize("scenario", FIXTURE["toolResults"], ids=lambda s: s["about"][:60])
async def test_a_tool_result_draws_what_the_middleware_draws(scenario):
    chat = Captured(Scripted(scenario["events"]))
    run = await chat.send("go")
    assert chat.error == "", chat.error
    assert drawn(run.events) == scenario["drawn"]
    assert drawn(chat.events) == scenario["drawn"]
    wire = [e for e in chat.wire_events() if e["type"] in ("TOOL_CALL_RESULT", "ACTIVITY_SNAPSHOT")]
    assert [e.get("messageId") for e in wire if e["type"] == "ACTIVITY_SNAPSHOT"] == [
        d["messageId"] for d in scenario["drawn"] if d["type"] == "ACTIVITY_SNAPSHOT"
    ], "the views get the same snapshots"
    # reduced into the transcript: one activity message per snapshot id, holding the last content
    last: dict[str, Any] = {}
    for d in scenario["drawn"]:
        if d["type"] == "ACTIVITY_SNAPSHOT":
            last[d["messageId"]] = d["content"]
    assert {m["id"]: m["content"] for m in activities(chat)} == last


@tool
def show_booking(guest: str) -> dict:
    """Show a booking form for a guest."""
    return {"a2ui_operations": booking_surface("booking", guest)}


def booking_agent(*replies: Any) -> tuple[Any, LangChainAgent]:
    fake = model(ai("", call("show_booking", {"guest": "Ada"}, "c1")), "Here is the booking form.", *replies)
    return fake, LangChainAgent(create_agent(fake, [show_booking], middleware=[agui_middleware()]))


async def test_a_langchain_backend_tools_a2ui_result_draws_its_surface_after_the_result():
    fake, agent = booking_agent("Thanks.")
    chat = Captured(agent)
    run = await chat.send("book a table")
    assert chat.error == ""
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "activity", "assistant"]
    surface = chat.messages[3]
    assert surface == {
        "id": "a2ui-surface-c1",
        "role": "activity",
        "activityType": "a2ui-surface",
        "content": {"a2ui_operations": booking_surface("booking")},
    }
    kinds = [e.type for e in run.events]
    at = kinds.index("TOOL_CALL_RESULT")
    assert kinds[at + 1] == "ACTIVITY_SNAPSHOT", "right after the result, as the middleware puts it"
    assert [e.type for e in chat.events].count("ACTIVITY_SNAPSHOT") == 1
    # the model reads the result's text; the surface is the UI's own and never reaches it
    await chat.send("thanks")
    seen = fake.calls[-1]
    assert any(isinstance(m, ToolMessage) and "a2ui_operations" in str(m.content) for m in seen)
    assert sum(1 for m in seen if isinstance(m, ToolMessage)) == 1


async def test_a_recording_keeps_the_agents_events_and_a_replay_draws_the_surface_again_once():
    _, agent = booking_agent()
    chat = Captured(agent)
    await chat.send("book a table")
    text = chat.to_recording()
    assert "ACTIVITY_SNAPSHOT" not in text, "the surface is the kernel's, not the agent's"
    replay = Captured(ReplayAgent(read_recording(io.StringIO(text)), speed=None))
    await replay.send("book a table")
    assert [m["role"] for m in replay.messages] == ["user", "assistant", "tool", "activity", "assistant"]
    assert activities(replay)[0]["content"] == activities(chat)[0]["content"]


def python_booking(guest: str) -> dict:
    """A Python tool: the booking form, as A2UI operations."""
    return {"a2ui_operations": booking_surface("booking", guest)}


def python_booking_text(guest: str) -> str:
    """The same, returned as JSON text."""
    return json.dumps({"a2ui_operations": booking_surface("booking", guest)})


def python_plain(guest: str) -> dict:
    """A result that is no surface."""
    return {"guest": guest, "a2ui": "not operations"}


@pytest.mark.parametrize("fn", [python_booking, python_booking_text], ids=["a dict", "JSON text"])
async def test_a_python_tools_a2ui_answer_draws_its_surface_after_the_tool_message(fn):
    chat = Captured(DemoAgent(delay=0), tools=[fn])
    await chat.send(f"call {fn.__name__} guest=Ada")
    assert chat.error == ""
    roles = [m["role"] for m in chat.messages]
    assert roles[:4] == ["user", "assistant", "tool", "activity"] and roles[-1] == "assistant"
    call_id = chat.messages[2]["toolCallId"]
    assert chat.messages[3] == {
        "id": f"a2ui-surface-{call_id}",
        "role": "activity",
        "activityType": "a2ui-surface",
        "content": {"a2ui_operations": booking_surface("booking")},
    }
    spliced = [m for splice in chat.of_kind("messages") for m in splice.get("messages", ())]
    assert any(m.get("id") == f"a2ui-surface-{call_id}" for m in spliced), "the views are sent the surface"
    assert chat.messages[-1]["content"].startswith("The tool answered"), "the agent reads the result as the last message"


async def test_agents_are_not_sent_activity_messages_as_ag_ui_client_leaves_them_out():
    agent = Counting()
    chat = Captured(agent, tools=[python_booking])
    chat.messages = [
        {"id": "u", "role": "user", "content": "book"},
        {
            "id": "a",
            "role": "assistant",
            "content": "",
            "toolCalls": [{"id": "c", "type": "function", "function": {"name": "python_booking", "arguments": "{}"}}],
        },
        {"id": "t", "role": "tool", "toolCallId": "c", "content": "{}"},
        {
            "id": "s",
            "role": "activity",
            "activityType": "a2ui-surface",
            "content": {"a2ui_operations": booking_surface("booking")},
        },
    ]
    await chat.send("next")
    assert [m.role for m in agent.inputs[0].messages] == ["user", "assistant", "tool", "user"]


async def test_a_python_tools_other_answers_draw_nothing():
    chat = Captured(DemoAgent(delay=0), tools=[python_plain])
    await chat.send("call python_plain guest=Ada")
    assert chat.error == "" and activities(chat) == []


# -- regenerate --------------------------------------------------------------------------------------


def click(chat: Captured, action: dict[str, Any]) -> None:
    chat.view_says({"kind": "a2ui_action", "action": action})


async def action_turn(chat: Captured, agent: Counting, runs: int) -> None:
    click(chat, FIXTURE["userAction"])
    await until(lambda: len(agent.inputs) == runs and chat.status == "idle", 10, "the action's turn")


@pytest.mark.parametrize("how", ["chat.regenerate()", "the view's Regenerate"])
async def test_regenerate_after_an_action_runs_the_action_again(how):
    agent = Counting()
    chat = Captured(agent)
    await chat.send("hello")
    await action_turn(chat, agent, 2)
    pair = [dict(m) for m in chat.messages[2:4]]
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "assistant", "tool", "assistant"]
    if how == "chat.regenerate()":
        await chat.regenerate()
    else:
        chat.view_says({"kind": "regenerate"})
        await until(lambda: len(agent.inputs) == 3 and chat.status == "idle", 10, "the regenerated turn")
    again = agent.inputs[2]
    assert again.forwarded_props == {"a2uiAction": {"userAction": FIXTURE["userAction"]}}
    sent = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in again.messages]
    assert sent[2:] == pair, "the same log_a2ui_event call and result, once, and nothing after them"
    assert chat.messages[2:4] == pair
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "assistant", "tool", "assistant"]
    assert chat.messages[-1]["content"] == "answer 3"


async def test_regenerate_after_a_message_that_followed_an_action_sends_that_message_again():
    agent = Counting()
    chat = Captured(agent)
    await chat.send("hello")
    await action_turn(chat, agent, 2)
    await chat.send("and then?")
    await chat.regenerate()
    assert "a2uiAction" not in (agent.inputs[3].forwarded_props or {})
    assert [m["role"] for m in chat.messages][-2:] == ["user", "assistant"]
    assert chat.messages[-2]["content"] == "and then?" and chat.messages[-1]["content"] == "answer 4"


async def test_regenerate_of_a_refused_action_asks_the_guard_again_and_sends_the_pair_unmarked():
    agent = Counting()
    refuse = {"now": True}
    chat = Captured(agent, guard=lambda content: "not now" if refuse["now"] and "performed" in str(content) else None)
    await chat.send("hello")
    click(chat, FIXTURE["userAction"])
    await until(lambda: chat.status == "idle" and len(chat.messages) == 4, 10, "the refusal")
    assert len(agent.inputs) == 1
    refuse["now"] = False
    await chat.regenerate()
    assert len(agent.inputs) == 2
    assert [m.role for m in agent.inputs[1].messages] == ["user", "assistant", "assistant", "tool"]
    assert not any("refused" in str(m.get("metadata")) for m in chat.messages)


async def test_regenerate_while_a_run_is_active_is_refused():
    gate = asyncio.Event()

    class Slow(Counting):
        async def _events(self, input, stream):
            self.inputs.append(input)
            await gate.wait()
            yield stream.text("late")

    agent = Slow()
    chat = Captured(agent)
    first = chat.send("hello")
    await until(lambda: len(agent.inputs) == 1, 10, "the run")
    with pytest.raises(RuntimeError, match="active run"):
        chat.regenerate()
    gate.set()
    await first


# -- chat.send_action ---------------------------------------------------------------------------------


async def demo_form(chat: Captured) -> str:
    await chat.send("a2ui")
    return activities(chat)[-1]["content"]["a2ui_operations"][0]["createSurface"]["surfaceId"]


async def test_send_action_starts_the_turn_a_click_starts():
    clicked, sent = Captured(DemoAgent(delay=0)), Captured(DemoAgent(delay=0))
    surface_clicked, surface_sent = await demo_form(clicked), await demo_form(sent)
    context = {"name": "Ada", "drink": ["coffee"]}
    click(
        clicked,
        {"name": "submit", "surfaceId": surface_clicked, "sourceComponentId": "submit", "timestamp": "t", "context": context},
    )
    await until(lambda: clicked.status == "idle" and "You submitted" in str(clicked.messages[-1]["content"]), 10, "the click")
    run = await sent.send_action(surface_sent, "submit", context=context)
    assert run.reply == clicked.messages[-1]["content"].replace(surface_clicked, surface_sent)
    roles = [m["role"] for m in sent.messages]
    assert roles == [m["role"] for m in clicked.messages]
    report = sent.messages[-2]
    assert report["content"] == action_text(
        {"name": "submit", "surfaceId": surface_sent, "sourceComponentId": "submit", "context": context}
    )
    arguments = json.loads(sent.messages[-3]["toolCalls"][0]["function"]["arguments"])
    assert list(arguments) == ["name", "surfaceId", "sourceComponentId", "timestamp", "context"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", arguments["timestamp"]), "as A2UI's client stamps it"


async def test_send_action_reads_the_context_and_the_button_from_the_surface_by_default():
    _, agent = booking_agent("Booked.")
    chat = Captured(agent)
    await chat.send("book a table")
    await chat.send_action("booking", "book")
    action = json.loads(chat.messages[-3]["toolCalls"][0]["function"]["arguments"])
    assert action["sourceComponentId"] == BOOK_BUTTON
    assert action["context"] == {"guest": "Ada"}, "what the form holds as the agent drew it"
    assert chat.messages[-1]["content"] == "Booked."


async def test_send_action_on_a_surface_a_python_tool_drew():
    chat = Captured(DemoAgent(delay=0), tools=[python_booking])
    await chat.send("call python_booking guest=Grace")
    run = await chat.send_action("booking", "book", context={"guest": "Grace Hopper"}, source_component_id="mine")
    assert "guest = Grace Hopper" in run.reply
    assert "(component: mine)" in chat.messages[-2]["content"]


async def test_send_action_refuses_an_unknown_surface_or_a_context_that_is_not_json_and_queues_nothing():
    chat = Captured(DemoAgent(delay=0))
    surface = await demo_form(chat)
    before = list(chat.messages)
    with pytest.raises(ValueError, match=r"no A2UI surface 'nope' \(its surfaces: '" + re.escape(surface)):
        chat.send_action("nope", "submit")
    with pytest.raises(ValueError, match="plain JSON"):
        chat.send_action(surface, "submit", context={"when": object()})
    assert chat.messages == before and chat.queued == [] and chat.status == "idle"


async def test_send_action_while_a_run_is_active_waits_its_turn():
    chat = Captured(DemoAgent(delay=0.01))
    surface = await demo_form(chat)
    first = chat.send("markdown")
    queued = chat.send_action(surface, "submit", context={"name": "Ada"})
    assert len(chat.queued) == 1
    await first
    assert "name = Ada" in (await queued).reply


async def test_an_agent_message_is_no_surface():
    """Only an activity of type a2ui-surface is a surface (a tool call's text is not)."""
    chat = Captured(DemoAgent(delay=0))
    chat.messages = [{"id": "m", "role": "assistant", "content": "booking"}]
    with pytest.raises(ValueError, match="its surfaces: none"):
        chat.send_action("booking", "book")


async def test_a_replayed_python_tool_draws_its_surface_and_the_action_turn_replays_in_order():
    chat = Captured(DemoAgent(delay=0), tools=[python_booking])
    await chat.send("call python_booking guest=Ada")
    await chat.send_action("booking", "book", context={"guest": "Grace"})
    replay_agent = ReplayAgent(read_recording(io.StringIO(chat.to_recording())), speed=None)
    replay = Captured(replay_agent, tools=replay_agent.frontend_tools)
    await replay.send("call python_booking guest=Ada")
    await replay.send_action("booking", "book", context={"guest": "Grace"})
    assert replay.error == ""
    assert [m["role"] for m in replay.messages] == [m["role"] for m in chat.messages]
    assert activities(replay)[0]["content"] == activities(chat)[0]["content"]
    assert replay.messages[-1]["content"] == chat.messages[-1]["content"]
