"""Frontend tool declarations: what the agent sees and what the view gets."""

from __future__ import annotations

import pytest
from ag_ui.core import Tool

from agui_widget import FrontendTool, ask_tool, confirm_tool, form_tool, js_tool
from agui_widget.inputs._tools import coerce_tools


def test_each_kind_declares_its_ui_and_schema():
    assert confirm_tool().spec()["ui"] == "confirm"
    assert ask_tool().to_agui().parameters["required"] == ["question"]
    form = form_tool("book", "Book a table", {"type": "object", "properties": {"guests": {"type": "integer"}}})
    assert form.spec()["ui"] == "form" and form.to_agui().parameters["properties"]["guests"] == {"type": "integer"}
    handler = js_tool("beep", "Beep", {"type": "object"}, "return 1;")
    assert handler.spec()["handler"] == "return 1;"


def test_a_form_needs_an_object_schema():
    with pytest.raises(ValueError, match="object"):
        form_tool("x", "y", {"type": "string"})


def test_tools_may_be_given_as_ag_ui_tools_or_dicts():
    tools = coerce_tools([Tool(name="a", description="A"), {"name": "b", "description": "B", "handler": "return 2"}])
    assert [(t.name, t.ui) for t in tools] == [("a", "manual"), ("b", "handler")]


def test_bad_tool_declarations_are_refused_clearly():
    with pytest.raises(TypeError, match="unknown keys"):
        coerce_tools([{"name": "a", "desc": "typo"}])
    with pytest.raises(ValueError, match="unique"):
        coerce_tools([FrontendTool("a", "x"), FrontendTool("a", "y")])
    with pytest.raises(TypeError, match="FrontendTool"):
        coerce_tools([42])
