"""Branding in a real JupyterLab, in Chromium, in the light and the dark theme: the title in the
toolbar, the welcome in the empty chat (gone with the first message, back after Clear), the
message box's placeholder, the avatars (an image made in the kernel, an emoji) and the assistant
called by the name a LangChain ``create_agent(name=...)`` agent was given; a cell's changes show
live."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import ChatView
from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, readable, set_lab_theme

pytestmark = pytest.mark.browser

BRANDED = """\
from PIL import Image
from langchain.agents import create_agent
from agui_widget import AgentChat
from agui_widget.adapters.langchain import ScriptedChatModel

agent = create_agent(ScriptedChatModel(["Hello, I am Ada.", "Hello again.", "Once more."], delay=0.01), [], name="Ada")
chat = AgentChat(
    agent,
    title="Sales analyst",
    welcome="## Welcome!\\n\\nAsk me about **sales**, or <b onmouseover=alert(1)>anything</b>.",
    placeholder="Ask about your data…",
    avatars={"user": "🙂", "assistant": Image.new("RGB", (300, 300), "teal")},
)
chat
"""


def welcome(chat: ChatView) -> Locator:
    return chat.root.locator(".agui-welcome-text")


def check_branding_is_readable(chat: ChatView, theme: str) -> None:
    readable(chat.root.locator(".agui-chat-title"), f"the title ({theme})")
    readable(chat.root.locator(".agui-author-assistant .agui-author-name"), f"the assistant's name ({theme})", 3)
    readable(chat.root.locator(".agui-author-user .agui-avatar-text"), f"the text avatar ({theme})", 3)


def test_title_welcome_placeholder_avatars_and_the_agents_name_in_light_and_dark(lab):
    nb = lab.open([BRANDED])
    chat = nb.chat()
    expect(chat.root.locator(".agui-toolbar .agui-chat-title")).to_have_text("Sales analyst")
    expect(chat.message_box).to_have_attribute("placeholder", "Ask about your data…")
    expect(welcome(chat).locator("h2")).to_have_text("Welcome!")
    expect(welcome(chat).locator("strong")).to_have_text("sales")
    expect(welcome(chat).locator("[onmouseover]"), "the welcome is sanitised").to_have_count(0)
    expect(chat.root.get_by_text("No messages yet")).to_have_count(0)
    readable(welcome(chat).locator("p"), "the welcome (light)")

    chat.send("hi")
    chat.wait_answer("Hello, I am Ada.")
    expect(welcome(chat), "the welcome goes with the first message").to_have_count(0)
    names = chat.root.locator(".agui-author-name")
    expect(names).to_have_text(["You", "Ada"])
    image = chat.root.locator(".agui-author-assistant .agui-avatar-image img")
    expect(image).to_have_attribute("alt", "Ada")
    assert (image.get_attribute("src") or "").startswith("data:image/png;base64,"), "the image was made a data: URL in the kernel"
    image.evaluate("img => img.decode()")
    assert image.evaluate("img => img.naturalWidth") == 128, "a PIL image is shrunk to avatar size in the kernel"
    expect(chat.root.locator(".agui-author-user .agui-avatar-text")).to_have_text("🙂")
    box = image.bounding_box()
    assert box is not None and box["width"] <= 40 and abs(box["width"] - box["height"]) < 1, f"the avatar is a small square {box}"
    check_branding_is_readable(chat, "light")

    set_lab_theme(nb.page, DARK_THEME)
    try:
        check_branding_is_readable(chat, "dark")
        chat.button("Clear conversation").click()
        chat.button("Yes, clear").click()
        expect(welcome(chat).locator("h2"), "the welcome back after Clear").to_have_text("Welcome!")
        readable(welcome(chat).locator("p"), "the welcome (dark)")

        nb.run_cell(
            'chat.title = "Support"\nchat.placeholder = "Type here"\nchat.avatars = {"assistant": "AB"}\nchat.assistant_name = "Bo"'
        )
        expect(chat.root.locator(".agui-chat-title")).to_have_text("Support")
        expect(chat.message_box).to_have_attribute("placeholder", "Type here")
        chat.send("again")
        chat.wait_answer("Hello again.")
        expect(names).to_have_text(["You", "Bo"])
        expect(chat.root.locator(".agui-author-assistant .agui-avatar-text")).to_have_text("AB")
        expect(chat.root.locator(".agui-author-user .agui-avatar")).to_have_count(0)
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)


def test_a_reload_shows_the_branding_again(lab):
    nb = lab.open([BRANDED])
    chat = nb.chat()
    expect(chat.root.locator(".agui-chat-title")).to_have_text("Sales analyst")
    nb.run_cell('chat.title = "Renamed"')
    expect(chat.root.locator(".agui-chat-title")).to_have_text("Renamed")
    nb.save()  # a reload shows what the notebook file holds
    nb.reload()
    chat = nb.chat()
    expect(chat.root.locator(".agui-chat-title")).to_have_text("Renamed")
    expect(welcome(chat).locator("h2")).to_have_text("Welcome!")
    expect(chat.message_box).to_have_attribute("placeholder", "Ask about your data…")
