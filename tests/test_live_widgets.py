"""Live widgets in answers: an ipywidget a tool returns keeps its model id in the bundle the chat
shows, the kernel holds it while it is open, and exports keep only the static parts."""

from __future__ import annotations

import gc
import json
import weakref
from typing import Any

import anywidget
import ipywidgets
import nbformat
import traitlets

from agui_widget import AgentChat, display_bundle, python_tool
from agui_widget.adapters import AgentAdapter, DemoAgent, EventStream
from agui_widget.session._session import Session
from agui_widget.vocabulary._display import bundle_text, is_rich, tool_result_parts
from agui_widget.vocabulary._live_widgets import HELD, WIDGET_VIEW, is_live_widget, without_widget_view
from agui_widget.vocabulary._marks import DISPLAY, mark_of

from .genui_support import Captured


class Counter(anywidget.AnyWidget):
    """A tiny anywidget: a button counting its clicks."""

    _esm = "export default { render({ model, el }) { el.textContent = String(model.get('count')); } }"
    count = traitlets.Int(0).tag(sync=True)


def view_of(bundle: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if bundle is None else bundle.get(WIDGET_VIEW)


# -- the bundle -----------------------------------------------------------------------------------


def test_a_slider_s_bundle_names_its_model_and_has_a_static_text():
    slider = ipywidgets.IntSlider(value=3, description="n")
    bundle = display_bundle(slider)
    assert bundle is not None
    assert view_of(bundle) == {"version_major": 2, "version_minor": 0, "model_id": slider.model_id}
    assert bundle["text/plain"].startswith("IntSlider(") and "value=3" in bundle["text/plain"]
    assert bundle_text(bundle) == bundle["text/plain"], "the model reads the slider's text"
    json.dumps(bundle)


def test_an_anywidget_is_live_and_its_text_is_not_an_object_address():
    counter = Counter()
    bundle = display_bundle(counter)
    assert view_of(bundle) is not None and view_of(bundle)["model_id"] == counter.model_id
    assert "Counter" in bundle["text/plain"]


def test_a_tool_result_widget_is_shown_and_the_model_gets_its_text():
    slider = ipywidgets.FloatSlider(value=0.5)
    text, metadata = tool_result_parts(slider)
    assert view_of(mark_of({"metadata": metadata}, DISPLAY))["model_id"] == slider.model_id
    assert text.startswith("FloatSlider(")
    assert is_rich(slider)


def test_a_closed_widget_the_chat_and_layouts_are_not_shown_live():
    closed = ipywidgets.IntSlider()
    closed.close()
    assert not is_live_widget(closed)
    assert not is_live_widget(AgentChat(DemoAgent(delay=0))), "the chat would show itself inside itself"
    assert not is_live_widget(Captured(DemoAgent(delay=0))), "nor a subclass of the chat"
    assert not is_live_widget(ipywidgets.Layout()), "a model without a view"
    assert not is_live_widget("IntSlider()") and not is_live_widget(None)


def test_a_bundle_from_elsewhere_keeps_a_widget_view_only_for_a_widget_of_this_kernel():
    slider = ipywidgets.IntSlider()
    kept = display_bundle({WIDGET_VIEW: {"model_id": slider.model_id}, "text/plain": "a slider"})
    assert view_of(kept) == {"version_major": 2, "version_minor": 0, "model_id": slider.model_id}
    unknown = display_bundle({WIDGET_VIEW: {"model_id": "not-a-model"}, "text/plain": "a slider"})
    assert unknown == {"text/plain": "a slider"}
    malformed = display_bundle({WIDGET_VIEW: "nonsense", "text/plain": "x"})
    assert malformed == {"text/plain": "x"}
    chat = AgentChat(DemoAgent(delay=0))
    itself = display_bundle({WIDGET_VIEW: {"model_id": chat.model_id}, "text/plain": "x"})
    assert itself == {"text/plain": "x"}


# -- holding the widget ---------------------------------------------------------------------------


def test_the_kernel_holds_a_shown_widget_until_it_is_closed():
    def shown_slider() -> tuple[str, weakref.ref[Any]]:
        slider = ipywidgets.IntSlider(value=7)
        display_bundle(slider)
        return slider.model_id, weakref.ref(slider)

    model_id, ref = shown_slider()
    # ipywidgets' own registry may hold widgets weakly (enable_weakreference): ours must not
    ipywidgets.widgets.widget._instances.pop(model_id, None)
    gc.collect()
    assert ref() is not None and HELD.get(model_id) is ref()
    ref().close()
    assert HELD.get(model_id) is None, "a closed widget is let go"
    assert model_id not in HELD.ids()


async def test_a_python_tool_returning_a_slider_shows_it_live_and_holds_it():
    def slider() -> ipywidgets.IntSlider:
        """A slider."""
        return ipywidgets.IntSlider(value=4)

    session = Session(DemoAgent(delay=0), tools=[python_tool(slider)])
    await session.send("call slider")
    [answer] = [m for m in session.messages if m["role"] == "tool"]
    view = view_of(mark_of(answer, DISPLAY))
    assert view is not None
    assert isinstance(HELD.get(view["model_id"]), ipywidgets.IntSlider)
    assert HELD.get(view["model_id"]).value == 4
    assert "IntSlider(" in answer["content"]


class WidgetTools(AgentAdapter):
    """A backend agent whose tool returns a widget (its result gets the display mark)."""

    def __init__(self, widget: Any) -> None:
        super().__init__()
        self.widget = widget

    async def _events(self, input, stream: EventStream):
        call = stream.tool_call("make_counter", {})
        yield call
        yield stream.tool_result(call[0].tool_call_id, self.widget)
        yield stream.text("done")


async def test_a_backend_tool_s_widget_is_in_its_display_mark_and_on_the_wire():
    counter = Counter()
    chat = Captured(WidgetTools(counter))
    await chat.send("go")
    [result] = [m for m in chat.messages if m["role"] == "tool"]
    assert view_of(mark_of(result, DISPLAY))["model_id"] == counter.model_id
    [wire] = [e for e in chat.wire_events() if e["type"] == "TOOL_CALL_RESULT"]
    assert wire["metadata"]["agui_widget"]["display"][WIDGET_VIEW]["model_id"] == counter.model_id


async def test_render_tool_returning_a_widget_renders_it_live():
    slider = ipywidgets.IntSlider(value=1)
    chat = Captured(WidgetTools(ipywidgets.IntSlider()))
    chat.render_tool("make_counter", lambda args, result: slider)
    await chat.send("go")
    call_id = chat.messages[1]["toolCalls"][0]["id"]
    bundles = [r["bundle"] for r in chat.renders(f"tool:{call_id}")]
    assert bundles and all(view_of(b)["model_id"] == slider.model_id for b in bundles)
    assert HELD.get(slider.model_id) is slider


async def test_an_agent_answering_with_a_widget_shows_it_live():
    slider = ipywidgets.IntSlider(value=2)
    chat = Captured(lambda messages: slider)
    await chat.send("a slider please")
    answer = chat.messages[-1]
    assert answer["role"] == "assistant" and "IntSlider(" in answer["content"]
    assert view_of(mark_of(answer, DISPLAY))["model_id"] == slider.model_id


# -- exports --------------------------------------------------------------------------------------


async def test_exports_keep_the_static_parts(tmp_path):
    def make_counter() -> Counter:
        """A counter."""
        return Counter(count=2)

    chat = AgentChat(DemoAgent(delay=0), tools=[make_counter])
    await chat.send("call make_counter")
    markdown = chat.to_markdown()
    assert "make_counter" in markdown and WIDGET_VIEW not in markdown
    saved = json.loads(chat.to_json())
    [result] = [m for m in saved["messages"] if m["role"] == "tool"]
    bundle = result["metadata"]["agui_widget"]["display"]
    assert "Counter" in bundle["text/plain"], "the static text is in the saved conversation"
    notebook = nbformat.read(chat.to_notebook(tmp_path / "chat.ipynb"), as_version=4)
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs if "data" in o]
    assert outputs and all(WIDGET_VIEW not in o["data"] for o in outputs)
    assert any("Counter" in o["data"].get("text/plain", "") for o in outputs)


async def test_a_saved_conversation_shows_no_live_widget_once_its_widget_is_gone():
    counter = Counter()
    chat = AgentChat(WidgetTools(counter))
    await chat.send("go")
    saved = chat.to_json()
    counter.close()
    [result] = [m for m in json.loads(saved)["messages"] if m["role"] == "tool"]
    again = display_bundle(result["metadata"]["agui_widget"]["display"])
    assert again is not None and WIDGET_VIEW not in again and "Counter" in again["text/plain"]
    assert without_widget_view({WIDGET_VIEW: {}, "text/plain": "x"}) == {"text/plain": "x"}
