"""A chat's transcript as Markdown, JSON and plain text.

The Markdown and plain-text forms are for people (and for notebook viewers without a kernel:
the widget's text representations use them); the JSON form is for programs and round-trips into
``AgentChat(messages=..., state=..., thread_id=...)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

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
    messages: Sequence[dict[str, Any]], *, title: str | None = None, state: Any = None, limit: int | None = None
) -> str:
    """The conversation as Markdown: one section per message, tool calls and results as code.

    With ``limit`` (characters), only the newest messages that fit are kept, after a line saying
    how many earlier ones were left out.
    """
    blocks = ["\n".join(_message_markdown(message)) + "\n" for message in messages]
    kept = len(blocks)
    if limit is not None:
        size = 0
        for index in range(len(blocks) - 1, -1, -1):
            size += len(blocks[index])
            if size > limit and index < len(blocks) - 1:
                kept = len(blocks) - index - 1
                break
    lines: list[str] = []
    if title:
        lines += [f"### {_one_line(title)}", ""]
    if not messages:
        lines.append("*(no messages yet)*")
    if kept < len(blocks):
        lines += [f"*({len(blocks) - kept} earlier messages not shown)*", ""]
    lines += blocks[len(blocks) - kept :]
    if state not in (None, {}, []):
        lines += ["<details><summary>State</summary>", "", *_fenced(_json(state), "json"), "", "</details>"]
    return "\n".join(lines).rstrip() + "\n"


def to_text(messages: Sequence[dict[str, Any]], *, header: str = "", limit: int = 4000) -> str:
    """A plain-text transcript (for ``text/plain``): ``role: text`` lines, cut at ``limit`` characters."""
    lines = [header] if header else []
    for message in messages:
        role = message.get("role", "?")
        text = _content_text(message.get("content"))
        calls = message.get("toolCalls") or []
        if text:
            lines.append(f"{role}: {text}")
        for call in calls:
            function = call.get("function") or {}
            lines.append(f"{role}: [calls {function.get('name')}({function.get('arguments') or ''})]")
    text = "\n".join(lines)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message_markdown(message: dict[str, Any]) -> list[str]:
    role = str(message.get("role", "?"))
    heading = _ROLE_TITLES.get(role, role.title())
    if message.get("name"):
        heading += f" ({_one_line(str(message['name']))})"
    meta = (message.get("metadata") or {}).get("agui_widget") if isinstance(message.get("metadata"), dict) else None
    if isinstance(meta, dict) and meta.get("refused"):
        heading += " — not sent"
    lines = [f"**{heading}:**", ""]
    if role == "tool":
        return lines + _fenced(_content_text(message.get("content")))
    if role == "activity":
        return lines + _fenced(_json(message.get("content")), "json")
    text = _content_text(message.get("content"))
    if text:
        lines.append(escape_html(text))
    for part in message.get("content") if isinstance(message.get("content"), list) else ():
        if isinstance(part, dict) and part.get("type") not in (None, "text"):
            lines.append(f"*[{part.get('type')}]*")
    for call in message.get("toolCalls") or ():
        function = call.get("function") or {}
        lines += ["", f"*Calls `{function.get('name')}`:*", "", *_fenced(_pretty_arguments(function.get("arguments")), "json")]
    if isinstance(meta, dict) and meta.get("refused"):
        lines += ["", f"> Not sent: {_one_line(str(meta['refused']))}"]
    if isinstance(meta, dict) and meta.get("stopped"):
        lines += ["", "*(stopped)*"]
    return lines


_CODE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$|(`+)[^`]*?\2", re.MULTILINE | re.DOTALL)


def escape_html(text: str) -> str:
    """Markdown with raw HTML made inert outside code (``<`` becomes ``&lt;``).

    Viewers render text/markdown outputs with HTML enabled, and an agent's text is not trusted.
    """
    out: list[str] = []
    last = 0
    for match in _CODE.finditer(text):
        out.append(text[last : match.start()].replace("<", "&lt;"))
        out.append(match.group(0))
        last = match.end()
    out.append(text[last:].replace("<", "&lt;"))
    return "".join(out)


def _fenced(text: str, language: str = "") -> list[str]:
    """A code block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, text, fence]


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
    return " ".join(text.split()).replace("<", "&lt;")


MARKDOWN_LIMIT = 200_000
"""At most this many characters of transcript go into the widget's text/markdown output."""


class ExportMixin:
    """Export for ``AgentChat``: Markdown, JSON, and the transcript in the widget's mime bundle."""

    messages: list[dict[str, Any]]
    state: Any
    thread_id: str
    _agent_name: str | None

    def to_markdown(self) -> str:
        """The conversation (and the state, when there is one) as Markdown."""
        return to_markdown(self.messages, state=self.state)

    def to_json(self, indent: int | None = 2) -> str:
        """The thread as JSON: ``threadId``, ``agent``, ``messages`` (AG-UI), ``state``.

        ``AgentChat(agent, thread_id=d["threadId"], messages=d["messages"], state=d["state"])``
        with ``d = json.loads(text)`` continues it.
        """
        document = to_json_document(self.thread_id, self.messages, self.state, self._agent_name)
        return json.dumps(document, ensure_ascii=False, indent=indent)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view, plus the transcript as text/plain and text/markdown.

        Viewers without a kernel (nbviewer, GitHub) cannot show the widget and fall back to the
        text. The transcript is the one at display time: the saved output shows what the chat
        held when it was last displayed.
        """
        bundle = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]
        if bundle is None:
            return None
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, None)
        data = {
            **data,
            "text/plain": to_text(self.messages, header=repr(self)),
            "text/markdown": to_markdown(self.messages, state=self.state, limit=MARKDOWN_LIMIT),
        }
        return (data, metadata) if metadata is not None else data


__all__ = ["EXPORT_FORMAT", "ExportMixin", "to_json_document", "to_markdown", "to_text"]
