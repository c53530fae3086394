"""Token usage in a real JupyterLab, in Chromium, in the light and the dark theme: a LangChain model
that reports its usage and model name (and has a profile with its context window) shows "model ·
N in · M out" quietly under each answer, the thread's totals and the context meter under the last
one only; the kernel's ``chat.usage`` says the same, a reload of the page shows it again, and the
muted text reads against the chat's background."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import ChatView
from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, kernel_json, readable, set_lab_theme

pytestmark = pytest.mark.browser

CHAT = """
from langchain_core.messages import AIMessage
from agui_widget import AgentChat
from agui_widget.adapters.langchain import LangChainAgent, ScriptedChatModel

def used(text, tokens_in, tokens_out):
    return AIMessage(
        content=text,
        usage_metadata={"input_tokens": tokens_in, "output_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
        response_metadata={"model_name": "gpt-4o-mini", "model_provider": "openai"},
    )

model = ScriptedChatModel([used("Sunny in Paris.", 1234, 56), used("Still sunny.", 32000, 20)], profile={"max_input_tokens": 128000})
chat = AgentChat(LangChainAgent(model))
chat"""


def usage_of(chat: ChatView, index: int) -> Locator:
    return chat.root.locator(".agui-row-assistant").nth(index).locator(".agui-usage")


def two_turns(chat: ChatView) -> None:
    chat.send("weather in Paris?")
    chat.wait_answer("Sunny in Paris.")
    chat.wait_idle()
    expect(usage_of(chat, 0)).to_have_text("Tokens used: gpt-4o-mini · 1,234 in · 56 out · context 1% of 128,000")
    chat.send("and now?")
    chat.wait_answer("Still sunny.")
    chat.wait_idle()


def assert_shown(chat: ChatView) -> None:
    first, last = usage_of(chat, 0), usage_of(chat, 1)
    expect(first, "an earlier answer shows its own turn only").to_have_text("Tokens used: gpt-4o-mini · 1,234 in · 56 out")
    expect(last).to_have_text(
        "Tokens used: gpt-4o-mini · 32,000 in · 20 out · this thread: 33,234 in · 76 out · context 25% of 128,000"
    )
    meter = chat.root.get_by_role("meter", name="Context window: 32,000 of 128,000 tokens")
    expect(meter, "one meter, under the last answer").to_have_count(1)
    expect(last.locator("meter")).to_have_count(1)


def test_usage_under_each_answer_the_thread_and_the_context_meter_survive_a_reload_in_light(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()
    two_turns(chat)
    assert_shown(chat)
    readable(usage_of(chat, 1), "the usage line in the light theme", 4.5)
    usage = kernel_json(nb, "chat.usage")
    assert [turn["model"] for turn in usage["turns"]] == ["gpt-4o-mini", "gpt-4o-mini"]
    assert (usage["inputTokens"], usage["outputTokens"], usage["totalTokens"]) == (33234, 76, 33310)

    nb.save()  # a reload shows what the notebook file holds: the chat's output comes back, live
    nb.reload()
    chat = nb.chat()
    assert_shown(chat)
    lab.assert_no_page_errors()


def test_usage_reads_in_dark_and_a_chat_without_usage_shows_none(lab):
    nb = lab.open([CHAT, "from agui_widget import DemoAgent\nplain = AgentChat(DemoAgent(delay=0))\nplain"])
    set_lab_theme(nb.page, DARK_THEME)
    try:
        chat = nb.chat()
        two_turns(chat)
        assert_shown(chat)
        readable(usage_of(chat, 0), "the usage line in the dark theme", 4.5)
        plain = nb.chat(1)
        plain.send("hello")
        plain.wait_answer("scripted demo agent")
        plain.wait_idle()
        expect(plain.root.locator(".agui-usage"), "the demo agent reports no usage: nothing is shown").to_have_count(0)
        assert kernel_json(nb, "plain.usage") == {"turns": [], "inputTokens": 0, "outputTokens": 0, "totalTokens": 0}
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)
    lab.assert_no_page_errors()
