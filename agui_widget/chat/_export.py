"""A chat's transcript as Markdown, JSON and plain text.

The Markdown and plain-text forms are for people (and for notebook viewers without a kernel:
the widget's text representations use them); the JSON form is for programs and round-trips into
``AgentChat(messages=..., state=..., thread_id=...)``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..inputs._attachments import data_of, details_of, label_of, mime_of, size_of
from ..vocabulary._feedback import feedback_of
from ..vocabulary._marks import REFUSED, STOPPED, mark_of
from ..wire._transport import soon

if TYPE_CHECKING:
    from ..session._session import Session

log = logging.getLogger("agui_widget")

EXPORT_FORMAT = "agui-widget/transcript"
EXPORT_VERSION = 1
_ROLE_TITLES = {
    "user": "User",
    "assistant": "Assistant",
    "system": "System",
    "developer": "Developer",
    "tool": "Tool result",
    "reasoning": "Reasoning",
    "activity": "Activity",
}


def to_json_document(thread_id: str, messages: Sequence[dict[str, Any]], state: Any, agent: str | None = None) -> dict[str, Any]:
    """The transcript as one JSON-ready dict: thread id, agent name, AG-UI messages, state."""
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "threadId": thread_id,
        "agent": agent,
        "messages": list(messages),
        "state": state,
    }


def to_markdown(
    messages: Sequence[dict[str, Any]],
    *,
    title: str | None = None,
    state: Any = None,
    limit: int | None = None,
    assistant: str | None = None,
) -> str:
    """The conversation as Markdown: one section per message, tool calls and results as code;
    the assistant's messages under its name when given (else "Assistant").

    With ``limit`` (characters), only the newest messages that fit are kept, after a line saying
    how many earlier ones were left out.
    """
    blocks: list[str] = []  # newest first: with a limit, older messages are never formatted
    size = 0
    for message in reversed(messages):
        block = "\n".join(_message_markdown(message, assistant)) + "\n"
        size += len(block)
        if limit is not None and size > limit and blocks:
            break
        blocks.append(block)
    blocks.reverse()
    kept = len(blocks)
    lines: list[str] = []
    if title:
        lines += [f"### {_one_line(title)}", ""]
    if not messages:
        lines.append("*(no messages yet)*")
    if kept < len(messages):
        lines += [f"*({len(messages) - kept} earlier messages not shown)*", ""]
    lines += blocks
    if state not in (None, {}, []):
        lines += ["<details><summary>State</summary>", "", *_fenced(_json(state), "json"), "", "</details>"]
    return "\n".join(lines).rstrip() + "\n"


def to_text(messages: Sequence[dict[str, Any]], *, header: str = "", limit: int = 4000) -> str:
    """A plain-text transcript (for ``text/plain``): ``role: text`` lines, cut at ``limit`` characters."""
    lines = [header] if header else []
    size = len(header)
    for message in messages:
        if size > limit:
            break  # the rest would be cut anyway
        role = message.get("role", "?")
        text = _content_text(message.get("content"))
        calls = message.get("toolCalls") or []
        if text:
            lines.append(f"{role}: {text}")
            size += len(lines[-1]) + 1
        for call in calls:
            function = call.get("function") or {}
            lines.append(f"{role}: [calls {function.get('name')}({function.get('arguments') or ''})]")
            size += len(lines[-1]) + 1
    text = "\n".join(lines)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message_markdown(message: dict[str, Any], assistant: str | None = None) -> list[str]:
    role = str(message.get("role", "?"))
    heading = _one_line(assistant) if role == "assistant" and assistant else _ROLE_TITLES.get(role, role.title())
    if message.get("name"):
        heading += f" ({_one_line(str(message['name']))})"
    if mark_of(message, REFUSED):
        heading += " — not sent"
    lines = [f"**{heading}:**", ""]
    if role == "tool":
        return lines + _fenced(_content_text(message.get("content")))
    if role == "activity":
        return lines + _fenced(_json(message.get("content")), "json")
    content = message.get("content")
    text = _content_text(content)
    if text:
        lines.append(escape_html(text))
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict) and part.get("type") not in (None, "text"):
            lines += ["", _attachment_markdown(part)]
    for call in message.get("toolCalls") or ():
        function = call.get("function") or {}
        name = _one_line(str(function.get("name"))).replace("`", "'")
        lines += ["", f"*Calls `{name}`:*", "", *_fenced(_pretty_arguments(function.get("arguments")), "json")]
    refused = mark_of(message, REFUSED)
    if refused:
        lines += ["", f"> Not sent: {_one_line(str(refused))}"]
    if mark_of(message, STOPPED):
        lines += ["", "*(stopped)*"]
    return lines + _feedback_markdown(message)


def _feedback_markdown(message: dict[str, Any]) -> list[str]:
    """A rated answer's rating, and the comment given with it (quoted, made inert)."""
    value = feedback_of(message)
    if value is None:
        return []
    lines = ["", f"*Rated: {_RATING_WORDS[value['rating']]}*"]
    if value.get("comment"):
        lines += [f"> {_one_line(value['comment'])}"]
    return lines


_RATING_WORDS = {"up": "👍 good answer", "down": "👎 bad answer"}


_ZWSP = "\u200b"
_FENCE = r"^ {0,3}(`{3,}|~{3,})(.*)$"
_INFO = r"[A-Za-z0-9_+#.-]{1,30}"
_SCHEME = r"(?i)\b(javascript|vbscript|data)(\s*):"


def escape_html(text: str) -> str:
    """An agent's Markdown made inert for viewers that render HTML in Markdown outputs.

    The kept conversation is a trusted output in JupyterLab (no sanitizer), so nothing in it may
    become markup, whatever a Markdown parser makes of the text. Fenced code blocks are written
    again with a fence of our own (longer than any backtick run inside, at the margin, between
    blank lines), so their text stays literal. Everywhere else ``<`` and ``&`` are followed by an
    invisible zero-width space, so no tag, autolink or character reference can start, and
    ``javascript:``, ``vbscript:`` and ``data:`` lose their scheme the same way.
    """
    lines = text.split("\n")
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            joined = "\n".join(prose).replace("&", "&" + _ZWSP).replace("<", "<" + _ZWSP)
            out.append(re.sub(_SCHEME, lambda m: f"{m.group(1)}{m.group(2)}{_ZWSP}:", joined))
            prose.clear()

    index = 0
    while index < len(lines):
        opening = re.match(_FENCE, lines[index])
        closing = _closing_fence(lines, index, opening) if opening else None
        if opening is None or closing is None:
            prose.append(lines[index])
            index += 1
            continue
        flush()
        info = re.match(_INFO, opening.group(2).strip())
        out.append("\n" + "\n".join(_fenced("\n".join(lines[index + 1 : closing]), info.group(0) if info else "")) + "\n")
        index = closing + 1
    flush()
    return "\n".join(out)


def _closing_fence(lines: list[str], start: int, opening: re.Match[str]) -> int | None:
    """The line that closes the fenced code block opened at ``start``, or None when none does."""
    fence = opening.group(1)
    if fence[0] == "`" and "`" in opening.group(2):
        return None  # not a fence: a backtick fence's info string has no backticks
    closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for index in range(start + 1, len(lines)):
        if closing.match(lines[index]):
            return index
    return None


def _fenced(text: str, language: str = "") -> list[str]:
    """A code block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, text, fence]


INLINE_IMAGE_BYTES = 64 * 1024
"""An attached image up to this size is shown in the Markdown itself (a data URL); a bigger one,
and any other file, is named with its type and size, so a kept conversation stays small."""

_INLINE_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def _attachment_markdown(part: dict[str, Any]) -> str:
    name = _one_line(label_of(part)).replace("[", "(").replace("]", ")")
    mime = mime_of(part)
    found = part.get("source")
    source: dict[str, Any] = found if isinstance(found, dict) else {}
    inline = part.get("type") == "image" and source.get("type") == "data" and mime in _INLINE_IMAGE_TYPES
    if inline and size_of(part) <= INLINE_IMAGE_BYTES and data_of(part) is not None:
        return f"![{name}](data:{mime};base64,{source['value']})"
    return f"📎 *{name}* ({_one_line(details_of(part))})"


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    if content is None:
        return ""
    return _json(content)


def _pretty_arguments(arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            return _json(json.loads(arguments))
        except ValueError:
            return arguments
    return _json(arguments)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _one_line(text: str) -> str:
    return escape_html(" ".join(text.split()))


MARKDOWN_LIMIT = 50_000
"""At most this many characters of transcript go into the output the notebook keeps (the newest
messages that fit). JupyterLab renders that Markdown whenever it is written, before a chat's view
exists and again after each change, hidden or not: measured (benchmarks/browser_latency.py), about
3 ms per 1,000 characters before the view of a 10,000-message chat exists (200 KB of it kept that
view from the page for about a second). The whole conversation is ``chat.to_markdown()``."""
RECONNECT_HINT = "*The conversation as last saved. The chat runs only with its notebook's kernel: run this cell to reconnect it.*"
"""The kept copy's first line. Opened without its kernel, JupyterLab shows its own "model not found"
above the copy (its widget manager's words, which a widget cannot change); this line says what to do."""
SAVED_OUTPUT_ATTRIBUTE = "data-agui-transcript"
"""Marks the kept conversation's block, so the chat's views can hide it (js/src/page/savedOutput.ts)."""


class SavedOutput:
    """The conversation kept in the notebook, beside a displayed chat, for viewers without a kernel.

    A displayed chat shows two outputs: the widget, then this one (text/markdown and text/plain
    under a display id). The chat rewrites it whenever it is idle after a change, so a saved
    notebook holds the latest conversation and nbviewer or GitHub show it; the chat's own views
    hide it while they are on the page. Rewriting the widget's output instead would make
    JupyterLab render a second view into it.
    """

    rewrite_delay = 0.5
    """Seconds between a change and the rewrite once a view of the chat is on a page: JupyterLab
    renders the whole copy again on every rewrite, so it waits until the views have drawn the change
    (and takes in the changes made meanwhile) rather than competing with them for the page. With no
    view (a notebook run by ``jupyter nbconvert --execute``, say) the rewrite comes at once, before
    the notebook may be written out and the kernel stopped."""

    def __init__(self, session: Session, display_id: str, header: Callable[[], str], alive: Callable[[], bool]) -> None:
        self._session = session
        self.display_id = display_id
        self._header = header
        self._alive = alive
        self.shown = False
        self.stale = False
        self.viewed = False
        """Has a view of the chat connected (said hello)?"""
        self._handle: asyncio.Handle | None = None
        self.branding: Callable[[], tuple[str | None, str | None]] = lambda: (None, None)
        """The chat's title and the assistant's name, as the kept conversation shows them."""

    def display(self) -> None:
        """Show it (right after the widget's own output)."""
        import IPython.display

        self.stale = False
        IPython.display.display(self.bundle(), raw=True, display_id=self.display_id)
        self.shown = True

    def bundle(self) -> dict[str, str]:
        """The conversation as the notebook keeps it: Markdown in a marked block, and plain text."""
        session = self._session
        title, assistant = self.branding()
        markdown = to_markdown(session.messages, title=title, state=session.state, limit=MARKDOWN_LIMIT, assistant=assistant)
        return {
            "text/markdown": f'<div {SAVED_OUTPUT_ATTRIBUTE}="{self.display_id}">\n\n{RECONNECT_HINT}\n\n{markdown}\n</div>\n',
            "text/plain": to_text(session.messages, header=self._header()),
        }

    def changed(self) -> None:
        """The conversation changed: the kept output is rewritten once the chat is idle."""
        if self.shown:
            self.stale = True
            self.when_idle()

    def when_idle(self) -> None:
        """Rewrite it (after ``rewrite_delay`` once viewed) if it is stale and no turn is under way.

        During a turn only the mark is set; the turn's end (a status change) comes back here.
        """
        session = self._session
        if not self.stale or session.active is not None or session.queue or self._handle is not None:
            return
        if not self.viewed:
            self._handle = soon(self._rewrite)
            return
        try:
            self._handle = asyncio.get_running_loop().call_later(self.rewrite_delay, self._rewrite)
        except RuntimeError:  # no loop runs, as in a plain script
            self._rewrite()

    def _rewrite(self) -> None:
        self._handle = None
        session = self._session
        if not self.stale or not self._alive() or session.active is not None or session.queue:
            return  # a turn that started meanwhile comes back here when it ends
        self.stale = False
        try:
            import IPython.display

            IPython.display.update_display(self.bundle(), raw=True, display_id=self.display_id)
        except Exception:
            log.exception("agui-widget: the conversation kept in the notebook's output was not updated")


__all__ = [
    "EXPORT_FORMAT",
    "RECONNECT_HINT",
    "SAVED_OUTPUT_ATTRIBUTE",
    "SavedOutput",
    "to_json_document",
    "to_markdown",
    "to_text",
]
