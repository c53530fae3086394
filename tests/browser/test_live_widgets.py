"""Live widgets in answers, in a real JupyterLab, in Chromium, in the light and the dark theme.

A Python tool returns an ``ipywidgets.IntSlider``: the chat shows the slider itself, tied to the
kernel through JupyterLab's widget manager. Moved with the keyboard in the chat, it changes
``slider.value`` in the kernel; set from a cell, it moves in the chat. An anywidget a tool
returns (a counter defined in the notebook) is live too, and a ``render_tool`` render of a
widget. A reload shows them live again while their models exist; a closed one, or one whose
kernel restarted, shows its text. Notebook 7's widget manager shows them live as well.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, readable, set_lab_theme, wait_in_kernel
from tests.browser.test_transcript_and_liveness import kernel_banner, restart_kernel

pytestmark = pytest.mark.browser

LIVE = '''\
import anywidget
import ipywidgets
import traitlets
from agui_widget import AgentChat, DemoAgent


class Counter(anywidget.AnyWidget):
    """A button counting its clicks, in the kernel."""

    _esm = """
    export default {
      render({ model, el }) {
        const button = document.createElement("button");
        button.className = "test-counter";
        const show = () => { button.textContent = `count is ${model.get("count")}`; };
        button.addEventListener("click", () => {
          model.set("count", model.get("count") + 1);
          model.save_changes();
        });
        model.on("change:count", show);
        show();
        el.appendChild(button);
        return () => model.off("change:count", show);
      },
    };
    """
    count = traitlets.Int(0).tag(sync=True)


slider = ipywidgets.IntSlider(value=3, min=0, max=10, description="Level")
counter = Counter()
gauge = ipywidgets.IntProgress(value=7, max=10, description="Gauge")


def make_slider() -> ipywidgets.IntSlider:
    """A slider the user sets."""
    return slider


def make_counter() -> Counter:
    """A counter the user clicks."""
    return counter


def measure() -> int:
    """A measure, drawn by render_tool as a gauge."""
    return 7


chat = AgentChat(DemoAgent(delay=0.01), tools=[make_slider, make_counter, measure])
chat.render_tool("measure", lambda args, result: gauge)
chat
'''


def live(card: Locator) -> Locator:
    return card.locator('.agui-live-widget[data-live="live"]')


def slider_handle(chat: ChatView) -> Locator:
    return live(chat.tool_card("make_slider")).get_by_role("slider")


def readout(chat: ChatView) -> Locator:
    return live(chat.tool_card("make_slider")).locator(".widget-readout")


def ask_for_the_widgets(nb: NotebookPage) -> ChatView:
    chat = nb.chat()
    chat.send("call make_slider")
    expect(slider_handle(chat), "the slider shown live in its tool card").to_have_count(1)
    chat.wait_idle()
    chat.send("call make_counter")
    expect(live(chat.tool_card("make_counter")).locator(".test-counter")).to_have_text("count is 0")
    chat.wait_idle()
    return chat


def test_a_slider_and_an_anywidget_from_tools_are_live_in_light_and_dark(lab):
    nb = lab.open([LIVE])
    chat = ask_for_the_widgets(nb)
    handle = slider_handle(chat)
    expect(readout(chat)).to_have_text("3")

    handle.focus()
    handle.press("ArrowRight")
    expect(readout(chat), "the slider moved in the chat").to_have_text("4")
    wait_in_kernel(nb, "slider.value == 4", show="slider.value")

    nb.run_cell("slider.value = 8")
    expect(readout(chat), "the kernel's value moves the slider in the chat").to_have_text("8")
    expect(handle).to_have_attribute("aria-valuetext", "8")

    button = live(chat.tool_card("make_counter")).get_by_role("button", name="count is 0")
    button.click()
    wait_in_kernel(nb, "counter.count == 1", show="counter.count")
    nb.run_cell("counter.count = 5")
    expect(live(chat.tool_card("make_counter")).locator(".test-counter")).to_have_text("count is 5")
    readable(chat.tool_card("make_slider").locator(".widget-label").first, "the slider's label (light)", 3)

    set_lab_theme(nb.page, DARK_THEME)
    try:
        readable(chat.tool_card("make_slider").locator(".widget-label").first, "the slider's label (dark)", 3)
        handle.focus()
        handle.press("ArrowLeft")
        wait_in_kernel(nb, "slider.value == 7", show="slider.value")
        expect(readout(chat)).to_have_text("7")
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)


def test_a_render_tool_widget_is_live_and_a_reload_shows_the_widgets_again(lab):
    nb = lab.open([LIVE])
    chat = ask_for_the_widgets(nb)
    chat.send("call measure")
    gauge = chat.root.locator('.agui-tool-rendered .agui-live-widget[data-live="live"] .widget-hprogress')
    expect(gauge, "the render_tool's widget shown live").to_have_count(1)
    chat.wait_idle()
    nb.run_cell("slider.value = 6")
    expect(readout(chat)).to_have_text("6")

    nb.save()
    nb.reload()
    chat = nb.chat()
    expect(readout(chat), "the slider live again after the reload").to_have_text("6")
    expect(live(chat.tool_card("make_counter")).locator(".test-counter")).to_have_text("count is 0")
    expect(chat.root.locator('.agui-tool-rendered .agui-live-widget[data-live="live"] .widget-hprogress')).to_have_count(1)
    slider_handle(chat).focus()
    slider_handle(chat).press("ArrowRight")
    wait_in_kernel(nb, "slider.value == 7", show="slider.value")

    nb.run_cell("counter.close()")
    counter_card = chat.tool_card("make_counter")
    expect(counter_card.locator(".agui-live-widget"), "a closed widget shows its text").to_have_attribute("data-live", "static")
    expect(counter_card.locator(".agui-live-widget")).to_contain_text("A Counter widget")
    nb.save()
    nb.reload()
    chat = nb.chat()
    expect(chat.tool_card("make_counter").locator(".agui-live-widget")).to_have_attribute("data-live", "static")
    expect(chat.tool_card("make_counter").locator(".agui-live-widget")).to_contain_text("A Counter widget")
    expect(readout(chat), "the slider still live").to_have_text("7")


def test_a_kernel_restart_leaves_the_widgets_static_text(lab):
    nb = lab.open([LIVE])
    chat = ask_for_the_widgets(nb)
    restart_kernel(nb)
    expect(kernel_banner(chat)).to_have_count(1)
    for name, text in (("make_slider", "IntSlider(value=3"), ("make_counter", "A Counter widget")):
        shown = chat.tool_card(name).locator(".agui-live-widget")
        expect(shown, f"{name}: its widget gone with the kernel").to_have_attribute("data-live", "static")
        expect(shown).to_contain_text(text)
    expect(chat.root.get_by_role("slider")).to_have_count(0)


def test_widgets_from_tools_are_live_and_keep_their_keys_in_notebook_7(lab):
    # Notebook 7 matches its command-mode shortcuts (arrows, Enter...) on the focused element
    # before a widget sees the key: in the chat, the widget gets it.
    nb = lab.open([LIVE], ui="notebook")
    chat = ask_for_the_widgets(nb)
    handle = slider_handle(chat)
    handle.focus()
    handle.press("ArrowRight")
    expect(readout(chat), "the slider moved by the keyboard").to_have_text("4")
    wait_in_kernel(nb, "slider.value == 4", show="slider.value")
    nb.run_cell("slider.value = 9")
    expect(readout(chat), "the kernel's value moves the slider in the chat").to_have_text("9")
    button = live(chat.tool_card("make_counter")).get_by_role("button", name="count is 0")
    button.focus()
    button.press("Enter")
    wait_in_kernel(nb, "counter.count == 1", show="counter.count")
    expect(live(chat.tool_card("make_counter")).locator(".test-counter")).to_have_text("count is 1")
    handle.focus()
    handle.press("ArrowLeft")
    expect(readout(chat)).to_have_text("8")
    wait_in_kernel(nb, "slider.value == 8", show="slider.value")
