"""Run settings in a real JupyterLab, in Chromium, in the light and the dark theme: the picker above
the message box offers a model (a select), a temperature (a slider showing its value) and a
switch; picked with the keyboard, they reach the kernel (``chat.setting_values``) and the next
run's ``RunAgentInput.forwardedProps``."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, kernel_json, set_lab_theme, wait_in_kernel

pytestmark = pytest.mark.browser

CHAT = """
from agui_widget import AgentChat, DemoAgent

class Recording(DemoAgent):
    props = []

    def run(self, input):
        Recording.props.append(input.forwarded_props)
        return super().run(input)

chat = AgentChat(
    Recording(delay=0.01),
    settings={"model": ["gpt-4o-mini", "llama3.2"], "temperature": (0.0, 2.0, 0.7), "stream": True},
)
chat"""


@pytest.mark.parametrize("theme", [LIGHT_THEME, DARK_THEME])
def test_settings_picked_by_keyboard_reach_the_next_runs_forwarded_props(lab, theme: str) -> None:
    nb = lab.open([CHAT])
    if theme == DARK_THEME:
        set_lab_theme(nb.page, DARK_THEME)
    try:
        chat = nb.chat()
        group = chat.root.get_by_role("group", name="Run settings")
        expect(group).to_be_visible()
        model = group.get_by_role("combobox", name="model")
        temperature = group.get_by_role("slider", name="temperature")
        stream = group.get_by_role("switch", name="stream")
        expect(model).to_have_value("0")
        expect(temperature).to_have_value("0.7")
        expect(stream).to_be_checked()

        model.focus()
        model.select_option(label="llama3.2")
        wait_in_kernel(nb, "chat.setting_values['model'] == 'llama3.2'", show="chat.setting_values")
        expect(model, "the select shows the kernel's value").to_have_value("1")
        model.focus()
        nb.page.keyboard.press("Tab")
        expect(temperature, "Tab moves to the slider").to_be_focused()
        for _ in range(5):
            nb.page.keyboard.press("ArrowRight")
        expect(group.locator(".agui-setting-value")).to_have_text("0.8")
        nb.page.keyboard.press("Tab")
        expect(stream, "Tab moves to the switch").to_be_focused()
        nb.page.keyboard.press("Space")
        expect(stream, "the switch shows the kernel's value").not_to_be_checked()
        expect(temperature, "the slider shows the kernel's value").to_have_value("0.8")
        wait_in_kernel(
            nb, "chat.setting_values == {'model': 'llama3.2', 'temperature': 0.8, 'stream': False}", show="chat.setting_values"
        )

        background = model.evaluate("el => getComputedStyle(el).backgroundColor")
        red, green, blue = (float(c) for c in background.strip("rgba()").split(",")[:3])
        if theme == DARK_THEME:
            assert max(red, green, blue) < 100, f"the select in a dark notebook is dark ({background})"
        else:
            assert min(red, green, blue) > 155, f"the select in a light notebook is light ({background})"

        chat.send("hello")
        chat.wait_answer("scripted demo agent")
        props = kernel_json(nb, "Recording.props[-1]")
        assert props == {"model": "llama3.2", "temperature": 0.8, "stream": False}
        lab.assert_no_page_errors()
    finally:
        if theme == DARK_THEME:
            set_lab_theme(nb.page, LIGHT_THEME)
