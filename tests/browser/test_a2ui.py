"""A2UI surfaces in a real JupyterLab, in Chromium: drawn by A2UI's own renderer (fetched from the
kernel over the widget's comm), filled in and submitted, and the agent receives the action the way
``@ag-ui/a2ui-middleware`` gives it: ``forwardedProps.a2uiAction.userAction`` and a
``log_a2ui_event`` call with its result at the end of the history.

Three producers: the demo agent (its form written as plain A2UI v0.9 dicts), an agent whose
surface is built with the ``a2ui-agent-sdk`` builder, and a Python tool whose answer holds the
operations (drawn by the kernel after the tool message, as the middleware draws a tool's result).
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, kernel_json, set_lab_theme, wait_in_kernel

pytestmark = pytest.mark.browser

DEMO = "from agui_widget import AgentChat, DemoAgent\n\nchat = AgentChat(DemoAgent(delay=0.01))\nchat"

SDK_AGENT = """
from a2ui.builder.v0_9 import Action, ActionEvent, Button, Card, Column, DataBinding, Text, TextField
from a2ui.core.schema.v0_9 import CreateSurface, CreateSurfaceMessage, UpdateComponents, UpdateComponentsMessage
from ag_ui.core import ActivitySnapshotEvent
from agui_widget import AgentChat
from agui_widget.adapters import AgentAdapter

CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"

def booking_surface(surface_id):
    tree = Card(id="root", child=Column(children=[  # the renderer starts from the component "root"
        Text(text="Book a table", variant="h3"),
        TextField(label="Guest", value=DataBinding(path="/booking/guest")),
        Button(
            child=Text(text="Book"),
            variant="primary",
            action=Action(event=ActionEvent(name="book", context={"guest": DataBinding(path="/booking/guest")})),
        ),
    ]))
    messages = [
        CreateSurfaceMessage(create_surface=CreateSurface(surface_id=surface_id, catalog_id=CATALOG)),
        UpdateComponentsMessage(update_components=UpdateComponents(surface_id=surface_id, components=tree.flatten())),
    ]
    return [m.model_dump(by_alias=True, exclude_none=True, mode="json") for m in messages]

class Booking(AgentAdapter):
    \"\"\"Shows a surface the SDK built (as the middleware would show it), and thanks the guest.\"\"\"

    def __init__(self):
        self.inputs = []

    async def _events(self, input, stream):
        self.inputs.append(input.model_dump(mode="json", by_alias=True))
        action = (input.forwarded_props or {}).get("a2uiAction")
        if action:
            yield stream.text(f"Booked for {action['userAction']['context'].get('guest')}.")
            return
        yield ActivitySnapshotEvent(
            message_id="a2ui-surface-booking", activity_type="a2ui-surface",
            content={"a2ui_operations": booking_surface("booking")}, replace=True,
        )
        yield stream.text("Fill in the booking.")

booking = Booking()
sdk_chat = AgentChat(booking)
sdk_chat
"""


PYTHON_TOOL = """
from a2ui.builder.v0_9 import Action, ActionEvent, Button, Card, Column, DataBinding, Text, TextField
from a2ui.core.schema.v0_9 import (
    CreateSurface, CreateSurfaceMessage, UpdateComponents, UpdateComponentsMessage, UpdateDataModel, UpdateDataModelMessage,
)
from agui_widget import AgentChat, DemoAgent

CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"

def book_table(guest: str) -> dict:
    \"\"\"Show a booking form, the guest filled in.\"\"\"
    tree = Card(id="root", child=Column(children=[
        TextField(label="Guest", value=DataBinding(path="/booking/guest")),
        Button(child=Text(text="Book"), action=Action(event=ActionEvent(name="book", context={"guest": DataBinding(path="/booking/guest")}))),
    ]))
    messages = [
        CreateSurfaceMessage(create_surface=CreateSurface(surface_id="booking", catalog_id=CATALOG)),
        UpdateComponentsMessage(update_components=UpdateComponents(surface_id="booking", components=tree.flatten())),
        UpdateDataModelMessage(update_data_model=UpdateDataModel(surface_id="booking", path="/", value={"booking": {"guest": guest}})),
    ]
    return {"a2ui_operations": [m.model_dump(by_alias=True, exclude_none=True, mode="json") for m in messages]}

chat = AgentChat(DemoAgent(delay=0.01), tools=[book_table])
chat
"""


def surface_of(chat) -> Locator:
    """The last A2UI surface drawn in the chat."""
    return chat.root.locator(".agui-a2ui[data-a2ui=drawn] .agui-a2ui-surface").last


def test_the_demo_form_is_drawn_submitted_and_answered_with_its_values_in_light_and_dark(lab):
    nb = lab.open([DEMO])
    chat = nb.chat()
    chat.send("a2ui")
    chat.wait_answer("fill it in and press Submit")
    surface = surface_of(chat)
    expect(surface.locator("a2ui-surface"), "the surface is drawn by A2UI's renderer").to_have_count(1)
    assert surface.evaluate("el => getComputedStyle(el).colorScheme") == "light"
    page_scheme = nb.page.evaluate("() => getComputedStyle(document.documentElement).colorScheme")
    assert page_scheme == "normal", f"A2UI's stylesheet must leave the notebook's colour scheme alone ({page_scheme})"
    field = surface.get_by_role("textbox")
    expect(field, "the form's text field").to_have_count(1)
    field.fill("Ada")
    surface.get_by_role("button", name="Submit").click()
    answer = chat.wait_answer("You submitted")
    assert "name = Ada" in answer and "drink = tea" in answer, answer
    roles = json.loads(wait_in_kernel(nb, "chat.status == 'idle'", show="[m['role'] for m in chat.messages]"))
    assert roles[-3:] == ["assistant", "tool", "assistant"], (
        "the action is in the history as the call, its result, then the answer"
    )

    set_lab_theme(nb.page, DARK_THEME)
    try:
        chat.send("a2ui")
        expect(chat.root.locator(".agui-a2ui[data-a2ui=drawn]"), "a second surface").to_have_count(2)
        dark = surface_of(chat)
        assert dark.evaluate("el => getComputedStyle(el).colorScheme") == "dark"
        background = dark.get_by_role("textbox").evaluate("el => getComputedStyle(el).backgroundColor")
        red, green, blue = (float(c) for c in background.strip("rgba()").split(",")[:3])
        assert max(red, green, blue) < 100, f"a field in a dark notebook is dark ({background})"
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)


def test_a_surface_built_with_the_a2ui_sdk_reaches_the_agent_as_the_middleware_would_give_it(lab):
    nb = lab.open([SDK_AGENT])
    chat = nb.chat()
    chat.send("book me a table")
    chat.wait_answer("Fill in the booking.")
    surface = surface_of(chat)
    surface.get_by_role("textbox").fill("Grace Hopper")
    surface.get_by_role("button", name="Book").click()
    chat.wait_answer("Booked for Grace Hopper.")
    seen = json.loads(wait_in_kernel(nb, "len(booking.inputs) == 2", show="booking.inputs[1]"))
    action = seen["forwardedProps"]["a2uiAction"]["userAction"]
    assert {k: action[k] for k in ("name", "surfaceId", "context")} == {
        "name": "book",
        "surfaceId": "booking",
        "context": {"guest": "Grace Hopper"},
    }
    call, result = seen["messages"][-2:]
    assert call["role"] == "assistant" and call["toolCalls"][0]["function"]["name"] == "log_a2ui_event"
    assert json.loads(call["toolCalls"][0]["function"]["arguments"]) == action
    assert result["role"] == "tool" and result["toolCallId"] == call["toolCalls"][0]["id"]
    assert result["content"].startswith('User performed action "book" on surface "booking" (component: ')
    assert result["content"].endswith('. Context: {"guest":"Grace Hopper"}')


def test_a_python_tools_surface_is_drawn_submitted_and_its_action_regenerated(lab):
    nb = lab.open([PYTHON_TOOL])
    chat = nb.chat()
    chat.send("call book_table guest=Ada")
    chat.wait_answer("The tool answered")
    surface = surface_of(chat)
    field = surface.get_by_role("textbox")
    expect(field, "the form, drawn from the tool's answer, holds its data model").to_have_value("Ada")
    field.fill("Grace Hopper")
    surface.get_by_role("button", name="Book").click()
    chat.wait_answer("You submitted: guest = Grace Hopper")
    before = kernel_json(nb, "[[m['id'], m['role']] for m in chat.messages]")
    assert [role for _, role in before] == [
        "user",
        "assistant",
        "tool",
        "activity",
        "assistant",
        "assistant",
        "tool",
        "assistant",
    ]

    chat.root.locator(".agui-row-assistant").last.hover()
    chat.button("Regenerate").click()
    old_answer = before[-1][0]
    wait_in_kernel(nb, f"chat.status == 'idle' and chat.messages[-1]['id'] != {old_answer!r}", show="chat.messages[-1]")
    after = kernel_json(nb, "[[m['id'], m['role'], m.get('content')] for m in chat.messages]")
    assert [m[:2] for m in after[:-1]] == before[:-1], "the action's call and result are kept, the answer replaced"
    assert after[-1][1] == "assistant" and "You submitted: guest = Grace Hopper" in after[-1][2], after[-1]
