"""Transcript export: Markdown and plain text for people, JSON that round-trips."""

from __future__ import annotations

import json

from agui_widget import AgentChat
from agui_widget.chat._export import to_markdown

TRANSCRIPT = [
    {"id": "u1", "role": "user", "content": "What is the weather in Paris?"},
    {
        "id": "a1",
        "role": "assistant",
        "content": "Let me look.",
        "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}],
    },
    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "20 C and ```sunny```"},
    {"id": "a2", "role": "assistant", "content": "It is **20 C** in Paris."},
]


async def echo(messages):
    return f"echo: {messages[-1]['content']}"


def test_markdown_has_every_message_tool_call_and_result():
    chat = AgentChat(echo, messages=TRANSCRIPT, state={"city": "Paris"})
    text = chat.to_markdown()
    assert text.index("**User:**") < text.index("What is the weather in Paris?") < text.index("**Assistant:**")
    assert "*Calls `get_weather`:*" in text and '"city": "Paris"' in text
    assert "````\n20 C and ```sunny```\n````" in text  # the fence outgrows the backticks inside
    assert "It is **20 C** in Paris." in text
    assert "<summary>State</summary>" in text


def test_markdown_of_an_empty_chat_says_so():
    assert "no messages yet" in AgentChat(echo).to_markdown()


def test_a_long_transcript_keeps_its_newest_messages_within_the_limit():
    messages = [{"id": f"u{i}", "role": "user", "content": f"message {i} " + "x" * 100} for i in range(100)]
    text = to_markdown(messages, limit=1_000)
    assert "message 99" in text and "message 0 " not in text
    assert "earlier messages not shown" in text and len(text) < 1_500


async def test_json_round_trips_into_a_new_chat():
    chat = AgentChat(echo, thread_id="trip", state={"city": "Paris"})
    await chat.send("hello")
    document = json.loads(chat.to_json())
    assert document["threadId"] == "trip" and document["state"] == {"city": "Paris"}
    again = AgentChat(echo, thread_id=document["threadId"], messages=document["messages"], state=document["state"])
    assert again.messages == chat.messages and again.state == chat.state
    assert json.loads(again.to_json()) == document


async def test_a_refused_message_is_marked_in_the_markdown():
    chat = AgentChat(echo, guard=lambda text: "no secrets")
    await chat.send("secret")
    assert "**User — not sent:**" in chat.to_markdown() and "> Not sent: no secrets" in chat.to_markdown()


def test_html_in_messages_is_inert_in_the_markdown_but_code_is_kept():
    text = 'Hi <img src=x onerror="alert(1)"> and [a](javascript:go()) and\n\n```html\n<b>bold</b>\n```\n'
    chat = AgentChat(echo, messages=[{"id": "a", "role": "assistant", "content": text}])
    markdown = chat.to_markdown()
    assert "<img" not in markdown and "<\u200bimg src=x" in markdown  # shown as typed, never a tag
    assert "javascript:" not in markdown and "javascript\u200b:" in markdown
    assert "\n```html\n<b>bold</b>\n```\n" in markdown  # code stays literal, as a fence of its own
