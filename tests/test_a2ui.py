"""A2UI surfaces: a user's action on one comes back as a turn the way ``@ag-ui/a2ui-middleware``
makes it, and the demo agent's form is valid A2UI v0.9.

The middleware's convention is recorded in js/test/a2ui-middleware.json, which
js/test/a2ui-middleware.test.ts checks against the middleware itself: for an action, the run's
``forwardedProps.a2uiAction.userAction``, and after the history an assistant message calling
``log_a2ui_event`` with the action as its arguments, then the tool message that describes it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from a2ui.builder.v0_9 import Action, ActionEvent, Button, Card, Column, DataBinding, Text, TextField
from a2ui.core.basic_catalog.v0_9.components import AnyComponent
from a2ui.core.schema.v0_9 import A2uiMessage, CreateSurface, CreateSurfaceMessage, UpdateComponents, UpdateComponentsMessage
from pydantic import TypeAdapter

from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream
from agui_widget.adapters._demo import A2UI_BASIC_CATALOG, a2ui_form
from agui_widget.session._a2ui import action_messages, action_text, send_action

from .genui_support import Captured
from .support import until

FIXTURE = json.loads((Path(__file__).parent.parent / "js" / "test" / "a2ui-middleware.json").read_text(encoding="utf-8"))


def numbered_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ids as ``<id:n>`` in order of first appearance (as the fixture writes them)."""
    ids: dict[str, str] = {}

    def name(key: str, value: Any) -> Any:
        if key in ("id", "toolCallId") and isinstance(value, str):
            return ids.setdefault(value, f"<id:{len(ids)}>")
        if isinstance(value, dict):
            return {k: name(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [name("", v) for v in value]
        return value

    return name("", messages)


class Recorder(AgentAdapter):
    """Keeps each run's input and answers "ok"."""

    def __init__(self, gate: asyncio.Event | None = None) -> None:
        self.inputs: list[Any] = []
        self.gate = gate

    async def _events(self, input, stream: EventStream):
        self.inputs.append(input)
        if self.gate is not None:
            await self.gate.wait()
        yield stream.text("ok")


def action_request(action: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "a2ui_action", "action": action}


# -- the convention -------------------------------------------------------------------------------


def test_an_action_becomes_the_messages_the_middleware_appends():
    assert numbered_ids(action_messages(FIXTURE["userAction"])) == FIXTURE["actionMessages"]


def test_the_action_text_names_what_is_missing_as_the_middleware_does():
    assert action_text({"name": "go", "surfaceId": "s"}) == 'User performed action "go" on surface "s". Context: {}'


async def test_a_views_action_starts_a_turn_the_agent_sees_as_behind_the_middleware():
    agent = Recorder()
    chat = Captured(agent)
    await chat.send("hello")
    chat.view_says(action_request(FIXTURE["userAction"]))
    await until(lambda: len(agent.inputs) == 2 and chat.status == "idle", 10, "the action's turn")
    run_input = agent.inputs[1]
    assert run_input.forwarded_props == {"a2uiAction": {"userAction": FIXTURE["userAction"]}}
    sent = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in run_input.messages]
    assert [m["role"] for m in sent[:2]] == ["user", "assistant"]
    assert numbered_ids(sent[2:])[:2] == numbered_ids(FIXTURE["actionMessages"])
    # ... and they stay in the history, answered: the next turn sends them again, with the answer after
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "assistant", "tool", "assistant"]
    assert chat.messages[-1]["content"] == "ok"


async def test_an_action_while_a_run_is_active_waits_its_turn():
    gate = asyncio.Event()
    agent = Recorder(gate)
    chat = Captured(agent)
    first = chat.send("hello")
    await until(lambda: len(agent.inputs) == 1, 10, "the first run")
    chat.view_says(action_request(FIXTURE["userAction"]))
    assert len(chat.queued) == 1
    gate.set()
    await first
    await until(lambda: len(agent.inputs) == 2 and chat.status == "idle", 10, "the queued action's turn")
    assert agent.inputs[1].forwarded_props["a2uiAction"]["userAction"]["name"] == "submit"


@pytest.mark.parametrize(
    "action",
    [
        {"surfaceId": "s", "context": {}},  # no name
        {"name": "go"},  # no surface
        {"name": "go", "surfaceId": "s", "context": "not an object"},
    ],
)
async def test_a_malformed_action_is_refused_with_a_notice_and_starts_nothing(action):
    agent = Recorder()
    chat = Captured(agent)
    chat.view_says(action_request(action))
    assert agent.inputs == [] and chat.messages == [] and chat.status == "idle"
    assert any("a2ui_action" in n["text"] for n in chat.of_kind("notice"))


async def test_send_action_checks_what_it_is_given():
    chat = Captured(Recorder())
    with pytest.raises(ValueError, match="name and a surfaceId"):
        send_action(chat._session, {"name": 3})


# -- the demo agent ---------------------------------------------------------------------------------


def test_the_demo_form_is_valid_a2ui_v0_9_in_the_basic_catalogue():
    operations = a2ui_form("demo-form")
    assert operations == FIXTURE["demoOperations"]  # what the middleware test feeds the middleware
    messages = TypeAdapter(A2uiMessage)
    for op in operations:
        parsed = messages.validate_python(op)
        assert parsed.model_dump(by_alias=True, exclude_none=True, mode="json") == op
    components = TypeAdapter(AnyComponent)
    for component in operations[1]["updateComponents"]["components"]:
        components.validate_python(component)  # strict: an unknown property or component fails
    assert operations[0]["createSurface"]["catalogId"] == A2UI_BASIC_CATALOG


def test_the_sdk_builds_the_same_kind_of_form():
    """The SDK's builder and the demo's dicts agree on the shapes that matter to the renderer."""
    tree = Card(
        child=Column(
            children=[
                TextField(label="Name", value=DataBinding(path="/form/name")),
                Button(
                    child=Text(text="Submit"),
                    action=Action(event=ActionEvent(name="submit", context={"name": DataBinding(path="/form/name")})),
                ),
            ]
        )
    )
    built = [
        CreateSurfaceMessage(create_surface=CreateSurface(surface_id="f", catalog_id=A2UI_BASIC_CATALOG)),
        UpdateComponentsMessage(update_components=UpdateComponents(surface_id="f", components=tree.flatten())),
    ]
    dumped = [m.model_dump(by_alias=True, exclude_none=True, mode="json") for m in built]
    field = next(c for c in dumped[1]["updateComponents"]["components"] if c["component"] == "TextField")
    demo_field = next(c for c in a2ui_form("f")[1]["updateComponents"]["components"] if c["component"] == "TextField")
    assert field["value"] == demo_field["value"] == {"path": "/form/name"}
    assert dumped[0] == a2ui_form("f")[0]


async def test_the_demo_shows_a_form_and_answers_with_the_values_submitted():
    chat = Captured(DemoAgent(delay=0))
    await chat.send("a2ui")
    surface = next(m for m in chat.messages if m["role"] == "activity")
    assert surface["activityType"] == "a2ui-surface"
    assert surface["id"].startswith("a2ui-surface-")
    operations = surface["content"]["a2ui_operations"]
    surface_id = operations[0]["createSurface"]["surfaceId"]
    action = {
        "name": "submit",
        "surfaceId": surface_id,
        "sourceComponentId": "submit",
        "timestamp": "2026-01-02T03:04:05.000Z",
        "context": {"name": "Ada", "drink": ["coffee"]},
    }
    chat.view_says(action_request(action))
    await until(lambda: chat.status == "idle" and chat.messages[-1]["role"] == "assistant", 10, "the answer")
    await until(lambda: "You submitted" in str(chat.messages[-1].get("content")), 10, "the answer")
    assert "name = Ada" in chat.messages[-1]["content"]
    assert "drink = coffee" in chat.messages[-1]["content"]


async def test_an_action_the_input_guard_refuses_is_never_sent_neither_its_call_nor_its_result():
    agent = Recorder()
    chat = Captured(agent, guard=lambda content: "no Ada here" if "Ada" in str(content) else None)
    await chat.send("hello")
    chat.view_says(action_request(FIXTURE["userAction"]))
    await until(lambda: chat.status == "idle" and len(chat.messages) == 4, 10, "the refusal")
    assert len(agent.inputs) == 1, "the agent was not asked"
    refused = [m for m in chat.messages if (m.get("metadata") or {}).get("agui_widget", {}).get("refused")]
    assert [m["role"] for m in refused] == ["assistant", "tool"]
    await chat.send("still there?")
    assert [m.role for m in agent.inputs[1].messages] == ["user", "assistant", "user"], "no dangling call is sent"
