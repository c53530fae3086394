"""Text split inside a character: surrogate halves are rejoined, halves that never pair replaced.

A JavaScript producer slices by UTF-16 code units, so an emoji may arrive as two deltas holding
one half each; the official client just concatenates them. The kernel must end with the same
text, and a half that never pairs must break nothing downstream (the widget's comm messages, a
later view's snapshot, the served SSE stream): it becomes U+FFFD, with one warning.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jupyter_client.session import json_packer

from agui_widget.pipeline._consumer import EventConsumer
from agui_widget.server import create_app

from .genui_support import Captured
from .live_server import live_server

RUN = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}]
END = [{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}]


def utf16_units(text: str) -> list[str]:
    """``text`` as JavaScript sees it: one Python character per UTF-16 code unit."""
    raw = text.encode("utf-16-le")
    return [raw[i : i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(raw), 2)]


def split_as_javascript_would(text: str, cuts: list[int]) -> list[str]:
    units = utf16_units(text)
    bounds = sorted({0, len(units), *(c % (len(units) + 1) for c in cuts)})
    return ["".join(units[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]


def text_stream(message_id: str, deltas: list[str]) -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def consume(events: list[dict[str, Any]]) -> EventConsumer:
    consumer = EventConsumer()
    for event in events:
        consumer.consume(event)
    return consumer


ASTRAL_TEXT = st.lists(st.sampled_from(list("ab é") + ["😀", "👍🏽", "𝒳", "🇳🇴", "👩‍💻"]), min_size=1, max_size=12).map("".join)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(ASTRAL_TEXT, st.lists(st.integers(min_value=0, max_value=40), max_size=8))
def test_text_split_anywhere_is_rejoined(text: str, cuts: list[int]) -> None:
    arguments = split_as_javascript_would(json.dumps({"q": text}, ensure_ascii=False), cuts)
    consumer = consume(
        RUN
        + text_stream("m1", split_as_javascript_would(text, cuts))
        + [{"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}]
        + [{"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": d} for d in arguments]
        + [{"type": "TOOL_CALL_END", "toolCallId": "c1"}]
        + END
    )
    assert consumer.messages[0]["content"] == text
    assert json.loads(consumer.messages[1]["toolCalls"][0]["function"]["arguments"]) == {"q": text}
    assert consumer.warnings == []


def test_every_delivered_delta_is_valid_unicode() -> None:
    consumer = EventConsumer()
    delivered = [e for raw in RUN + text_stream("m1", ["a\ud83d", "\ude00b"]) + END for e in consumer.consume(raw)]
    deltas = [e.delta for e in delivered if e.type.value == "TEXT_MESSAGE_CONTENT"]
    assert deltas == ["a", "😀b"]
    json_packer([e.model_dump(mode="json", by_alias=True) for e in delivered])  # Jupyter's packer takes them


def test_a_half_that_never_pairs_becomes_a_replacement_character_with_one_warning() -> None:
    consumer = consume(RUN + text_stream("m1", ["one\ud83d", "two\ude00", "\ud83d"]) + text_stream("m2", ["\udc00x"]) + END)
    assert consumer.messages[0]["content"] == "one\ufffdtwo\ufffd\ufffd"
    assert consumer.messages[1]["content"] == "\ufffdx"
    assert len([w for w in consumer.warnings if "surrogate" in w]) == 1


def test_lone_halves_elsewhere_are_replaced_too() -> None:
    consumer = consume(
        RUN
        + [
            {"type": "STATE_SNAPSHOT", "snapshot": {"\ud800key": ["ok \ud83d\ude00", "\udfff"]}},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f\ud83d"},
            {"type": "TOOL_CALL_END", "toolCallId": "c1"},
            {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "res\udc00"},
        ]
        + END
    )
    assert consumer.state == {"\ufffdkey": ["ok 😀", "\ufffd"]}
    assert consumer.messages[0]["toolCalls"][0]["function"]["name"] == "f\ufffd"
    assert consumer.messages[1]["content"] == "res\ufffd"
    json_packer({"messages": consumer.messages, "state": consumer.state})


class SplitsAnEmoji:
    """An AG-UI agent sending raw JSON-like events, as a JavaScript producer would."""

    def __init__(self, deltas: list[str]) -> None:
        self.deltas = deltas

    async def run(self, input: Any) -> AsyncIterator[dict[str, Any]]:
        yield {"type": "RUN_STARTED", "threadId": input.thread_id, "runId": input.run_id}
        for event in text_stream("m1", self.deltas):
            yield event
        yield {"type": "RUN_FINISHED", "threadId": input.thread_id, "runId": input.run_id}


async def test_the_widget_sends_views_rejoined_text_and_a_later_snapshot_works() -> None:
    chat = Captured(SplitsAnEmoji(["hi \ud83d", "\ude00 and \ud83d"]))
    run = await chat.send("go")
    assert run.status == "finished"
    assert chat.messages[-1]["content"] == "hi 😀 and \ufffd"
    for message in chat.__dict__["sent"]:
        json_packer(message)
    chat.view_says({"kind": "hello", "viewId": "late"})
    (snapshot,) = chat.of_kind("snapshot")
    json_packer(snapshot)
    assert snapshot["messages"][-1]["content"] == "hi 😀 and \ufffd"


def test_the_served_stream_carries_rejoined_text() -> None:
    import httpx

    with live_server(create_app(SplitsAnEmoji(["hi \ud83d", "\ude00 and \ud83d"]))) as url:
        body = {"threadId": "t", "runId": "r", "messages": [], "state": {}, "tools": [], "context": [], "forwardedProps": {}}
        response = httpx.post(url + "/", json=body, headers={"Accept": "text/event-stream"}, timeout=30)
    assert response.status_code == 200
    events = [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "hi 😀 and \ufffd"
    assert events[-1]["type"] == "RUN_FINISHED"
