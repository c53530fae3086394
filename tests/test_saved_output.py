"""The conversation kept in the notebook: displaying a chat adds an output that holds the
conversation as Markdown and text, rewritten after each turn, so a saved notebook shows it to
viewers without a kernel (nbviewer, GitHub). tests/browser/test_saved_output.py checks it in
JupyterLab, in the saved file and in nbconvert's HTML."""

from __future__ import annotations

import asyncio
import json
import sys
import types
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import IPython.display
import pytest

from agui_widget import AgentChat
from agui_widget.chat._export import SAVED_OUTPUT_ATTRIBUTE, SavedOutput, to_markdown

from .support import until

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


async def echo(messages):
    return f"echo: {messages[-1]['content']}"


class Outputs:
    """What the chat published through IPython's display functions, in order."""

    def __init__(self) -> None:
        self.shown: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.updates: list[tuple[dict[str, Any], str]] = []

    def display(self, data: dict[str, Any], **kwargs: Any) -> None:
        assert kwargs.pop("raw") is True
        self.shown.append((data, kwargs))

    def update_display(self, data: dict[str, Any], *, display_id: str, raw: bool = False) -> None:
        assert raw is True
        self.updates.append((data, display_id))

    @property
    def kept(self) -> str:
        """The Markdown the kept output holds now."""
        data, kwargs = self.shown[-1]
        for update, display_id in self.updates:
            if display_id == kwargs["display_id"]:
                data = update
        return data["text/markdown"]


@pytest.fixture
def outputs(monkeypatch: pytest.MonkeyPatch) -> Outputs:
    recorded = Outputs()
    monkeypatch.setattr(IPython.display, "display", recorded.display)
    monkeypatch.setattr(IPython.display, "update_display", recorded.update_display)
    monkeypatch.setattr(SavedOutput, "rewrite_delay", REWRITE_DELAY)
    return recorded


REWRITE_DELAY = 0.05


async def settled(chat: AgentChat) -> None:
    """Waits until the chat is idle and no rewrite of the kept output is due: the chat turns idle in
    the same call that schedules the rewrite (at once, or after the delay once viewed), and the
    rewrite, done or put off, drops its handle."""
    await until(lambda: chat.status == "idle" and chat._saved._handle is None)


def test_displaying_a_chat_shows_the_widget_then_the_conversation(outputs: Outputs):
    chat = AgentChat(echo, messages=[{"id": "u1", "role": "user", "content": "What is the weather in Paris?"}])
    chat._ipython_display_()

    (widget, widget_options), (kept, kept_options) = outputs.shown
    assert widget[WIDGET_MIME]["model_id"] == chat.model_id and "display_id" not in widget_options
    assert kept_options["display_id"] == chat.saved_output_id != ""
    assert kept["text/markdown"].startswith(f'<div {SAVED_OUTPUT_ATTRIBUTE}="{chat.saved_output_id}">\n\n')
    assert "What is the weather in Paris?" in kept["text/markdown"] and kept["text/markdown"].endswith("</div>\n")
    assert "run this cell to reconnect it" in kept["text/markdown"].split("What is the weather")[0]
    assert "user: What is the weather in Paris?" in kept["text/plain"]


async def test_in_colab_the_copy_is_left_out_unless_asked_for(outputs: Outputs, monkeypatch: pytest.MonkeyPatch):
    """Colab renders a cell's outputs in frames the chat's view may not reach to hide the copy."""
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    chat = AgentChat(echo)
    chat._ipython_display_()
    [(widget, _options)] = outputs.shown
    assert WIDGET_MIME in widget
    await chat.send("hi")
    await settled(chat)
    assert outputs.updates == [], "nothing to rewrite"

    AgentChat(echo, keep_conversation=True)._ipython_display_()
    assert len(outputs.shown) == 3, "asked for: the widget and its copy"
    monkeypatch.delitem(sys.modules, "google.colab")
    AgentChat(echo, keep_conversation=False)._ipython_display_()
    assert len(outputs.shown) == 4, "left out where it could be hidden, when asked"


def test_each_chat_has_its_own_output_id():
    assert AgentChat(echo).saved_output_id != AgentChat(echo).saved_output_id


async def test_the_kept_conversation_is_rewritten_once_when_a_turn_ends(outputs: Outputs):
    chat = AgentChat(echo)
    chat._ipython_display_()
    run = chat.send("hello")
    await asyncio.sleep(0)  # a rewrite at once (call_soon) would show after a turn
    assert outputs.updates == [], "nothing is rewritten while the turn runs"
    await run
    await settled(chat)
    assert len(outputs.updates) == 1 and outputs.updates[0][1] == chat.saved_output_id
    assert "hello" in outputs.kept and "echo: hello" in outputs.kept
    assert "assistant: echo: hello" in outputs.updates[0][0]["text/plain"]

    await chat.send("again")
    await settled(chat)
    assert len(outputs.updates) == 2 and "echo: again" in outputs.kept


async def test_messages_sent_during_a_turn_are_kept_after_the_last_one(outputs: Outputs):
    chat = AgentChat(echo)
    chat._ipython_display_()
    chat.send("one")
    last = chat.send("two")  # queued behind the first
    await last
    await settled(chat)
    assert len(outputs.updates) == 1 and "echo: one" in outputs.kept and "echo: two" in outputs.kept


async def test_changes_made_from_python_are_kept_too(outputs: Outputs):
    chat = AgentChat(echo)
    chat._ipython_display_()
    chat.messages = [{"id": "a1", "role": "assistant", "content": "Set from a cell."}]
    chat.state = {"city": "Lisbon"}
    await settled(chat)
    assert len(outputs.updates) == 1, "changes made in one go are written once"
    assert "Set from a cell." in outputs.kept and '"city": "Lisbon"' in outputs.kept

    chat.clear()
    await settled(chat)
    assert "Set from a cell." not in outputs.kept and "no messages yet" in outputs.kept


def shown_in_a_page(chat: AgentChat) -> AgentChat:
    """Displays the chat, and a view of it connects (as JupyterLab's does)."""
    chat._ipython_display_()
    chat._link._handle_view_message({"kind": "hello", "viewId": "view-1"})
    return chat


async def test_without_a_view_the_copy_is_rewritten_at_once(outputs: Outputs, monkeypatch: pytest.MonkeyPatch):
    # A notebook run by nbconvert: no view ever connects, and the kernel may stop right after the cell.
    monkeypatch.setattr(SavedOutput, "rewrite_delay", 60.0)
    chat = AgentChat(echo)
    chat._ipython_display_()
    chat.messages = [{"id": "a1", "role": "assistant", "content": "set from a cell"}]
    for _ in range(3):  # at once: the rewrite is call_soon'd, so a turn of the loop shows it
        await asyncio.sleep(0)
    assert len(outputs.updates) == 1 and "set from a cell" in outputs.kept


async def test_the_rewrite_waits_for_the_views_and_takes_in_the_changes_made_meanwhile(
    outputs: Outputs, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(SavedOutput, "rewrite_delay", 1.0)  # far longer than the loop's three turns below
    chat = shown_in_a_page(AgentChat(echo))
    chat.messages = [{"id": "a1", "role": "assistant", "content": "first"}]
    for _ in range(3):  # a rewrite at once (without a view: call_soon) would have run by now
        await asyncio.sleep(0)
    assert outputs.updates == [], "the page draws the change before it renders the copy again"
    chat.messages = [*chat.messages, {"id": "a2", "role": "assistant", "content": "second"}]
    await settled(chat)
    assert len(outputs.updates) == 1 and "first" in outputs.kept and "second" in outputs.kept


async def test_a_turn_started_before_the_rewrite_puts_it_off_to_the_turn_end(outputs: Outputs):
    release = asyncio.Event()

    async def slow(messages):
        await release.wait()
        return f"slow: {messages[-1]['content']}"

    chat = shown_in_a_page(AgentChat(slow))
    chat.messages = [{"id": "a1", "role": "assistant", "content": "set from a cell"}]
    run = chat.send("and then a question")
    await until(lambda: chat._saved._handle is None)  # the delayed rewrite came, during the turn
    assert outputs.updates == [], "nothing is rewritten while the turn runs"
    release.set()
    await run
    await settled(chat)
    assert len(outputs.updates) == 1 and "set from a cell" in outputs.kept and "slow: and then a question" in outputs.kept


async def test_switching_threads_keeps_the_thread_now_shown(outputs: Outputs):
    chat = AgentChat(echo, thread_id="first")
    chat._ipython_display_()
    await chat.send("in the first thread")
    chat.new_thread("second")
    await settled(chat)
    assert "in the first thread" not in outputs.kept
    chat.switch("first")
    await settled(chat)
    assert "echo: in the first thread" in outputs.kept


async def test_a_chat_that_was_not_displayed_writes_no_output(outputs: Outputs):
    chat = AgentChat(echo)
    await chat.send("hello")
    await settled(chat)
    assert outputs.shown == [] and outputs.updates == []


async def test_a_closed_chat_stops_writing(outputs: Outputs):
    chat = AgentChat(echo)
    chat._ipython_display_()
    chat.close()
    chat.messages = [{"id": "a1", "role": "assistant", "content": "after close"}]
    await settled(chat)
    assert outputs.updates == []


def test_html_in_the_conversation_cannot_end_the_kept_block(outputs: Outputs):
    chat = AgentChat(echo, messages=[{"id": "a1", "role": "assistant", "content": "</div><script>alert(1)</script> done"}])
    chat._ipython_display_()
    markdown = outputs.shown[1][0]["text/markdown"]
    assert markdown.count("</div>") == 1 and "<script>" not in markdown and "<\u200b/div><\u200bscript>" in markdown


async def test_a_failing_display_update_is_logged_and_the_chat_goes_on(outputs: Outputs, monkeypatch: pytest.MonkeyPatch, caplog):
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no display here")

    chat = AgentChat(echo)
    chat._ipython_display_()
    monkeypatch.setattr(IPython.display, "update_display", broken)
    await chat.send("hello")
    await settled(chat)
    assert "was not updated" in caplog.text and chat.messages[-1]["content"] == "echo: hello"
    await until(lambda: chat.status == "idle")


XSS_PAYLOADS: list[str] = json.loads(
    (Path(__file__).resolve().parent.parent / "js" / "test" / "xss-payloads.json").read_text("utf-8")
)
SAFE_TAGS = {
    "details",
    "summary",
    "p",
    "strong",
    "em",
    "code",
    "pre",
    "a",
    "img",
    "ul",
    "ol",
    "li",
    "blockquote",
    "hr",
    "br",
    "del",
    "s",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}


class _Markup(HTMLParser):
    """What a rendered page would hold that could run: unexpected tags, handlers, script URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in SAFE_TAGS:
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            url = "".join((value or "").split()).lower()
            if name.startswith("on") or url.startswith(("javascript:", "vbscript:", "data:")):
                self.problems.append(f"<{tag} {name}={value!r}>")


def markup_problems(html: str) -> list[str]:
    parser = _Markup()
    parser.feed(html)
    return parser.problems


@pytest.mark.parametrize("renderer", ["markdown-it (CommonMark, HTML on)", "mistune (nbconvert's)"])
def test_no_script_payload_becomes_markup_in_the_kept_conversation(renderer: str):
    import markdown_it
    import mistune

    render = (
        markdown_it.MarkdownIt("commonmark", {"html": True}).render
        if renderer.startswith("markdown-it")
        else mistune.create_markdown(escape=False, plugins=["strikethrough", "table", "url"])
    )
    one_each = [{"id": f"a{i}", "role": "assistant", "content": p} for i, p in enumerate(XSS_PAYLOADS)]
    all_in_one = {"id": "all", "role": "assistant", "content": "\n".join(XSS_PAYLOADS)}
    calls = [
        {
            "id": f"t{i}",
            "role": "assistant",
            "content": "",
            "toolCalls": [{"id": f"c{i}", "type": "function", "function": {"name": p, "arguments": p}}],
        }
        for i, p in enumerate(XSS_PAYLOADS)
    ]
    results = [{"id": f"r{i}", "role": "tool", "toolCallId": f"c{i}", "content": p} for i, p in enumerate(XSS_PAYLOADS)]
    user = {"id": "u", "role": "user", "content": " ".join(XSS_PAYLOADS), "name": XSS_PAYLOADS[0]}
    state = {p: p for p in XSS_PAYLOADS}
    markdown = to_markdown([*one_each, all_in_one, *calls, *results, user], title=XSS_PAYLOADS[-1], state=state)
    assert len(XSS_PAYLOADS) >= 30
    assert markup_problems(render(markdown)) == []
    assert "```html" in markdown, "fenced code keeps its language"
