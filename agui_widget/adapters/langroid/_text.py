"""Keeping tool calls (JSON or XML) out of streamed text; needs no Langroid.

In Langroid's JSON-tool mode the model writes a tool call as JSON inside its reply
(``{"request": "get_weather", "city": "Paris"}``, often after ``TOOL:`` or inside a fenced
```json block). That JSON must become tool-call events, never assistant text, yet the reply
streams token by token. :class:`ToolJsonFilter` passes text through as it arrives and holds back
only what might be the start of tool JSON, until it knows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

_TRIGGERS = ("{", "TOOL:", "```")


def match_brace(text: str, start: int) -> int | None:
    """The index just past the object that opens at ``text[start] == "{"``, or None if unclosed."""
    depth = 0
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def tool_name_of(obj: Any, known: Callable[[str], bool]) -> str | None:
    """The tool a parsed JSON object calls (``request``, also nested in ``properties``), if known."""
    if not isinstance(obj, dict):
        return None
    request = obj.get("request")
    if request is None and isinstance(obj.get("properties"), dict):
        request = obj["properties"].get("request")
    return request if isinstance(request, str) and known(request) else None


class _HeldSpace:
    """Text shown a piece at a time, its trailing whitespace held until more text follows (so a
    reply does not end in the gap a dropped tool call left)."""

    _space = ""

    def _show(self, out: list[str], text: str) -> None:
        """Show ``text``, holding its trailing whitespace until more text follows."""
        if not text:
            return
        text = self._space + text
        body = text.rstrip(" \t\r\n")
        self._space = text[len(body) :]
        if body:
            out.append(body)


class ToolJsonFilter(_HeldSpace):
    """Streams a reply's text while holding back what may be tool JSON.

    ``feed(token)`` returns the text that is safe to show now; ``finish()`` returns the rest at the
    end of the reply. Held back: from a ``{``, ``TOOL:`` or a code fence until the object it starts
    is complete. A complete object that calls a known tool is dropped (with its ``TOOL:`` prefix or
    its fence); anything else is released as text. ``candidate()`` is the tool JSON being held, for
    following arguments while they stream.
    """

    def __init__(self, known: Callable[[str], bool] | Iterable[str]) -> None:
        if not callable(known):
            names = frozenset(known)
            known = names.__contains__
        self._known: Callable[[str], bool] = known
        self._pending = ""  # text not yet shown: held back, or waiting to be classified
        self._space = ""  # whitespace at the end of what was shown, sent with the next text
        self.dropped: list[str] = []  # the tool JSON texts kept out of the text

    def feed(self, token: str) -> str:
        self._pending += token
        return self._drain(final=False)

    def finish(self) -> str:
        return self._drain(final=True)

    def candidate(self) -> str | None:
        """The JSON object text held back so far (from its ``{``), if one is being held."""
        start = self._pending.find("{")
        return self._pending[start:] if start >= 0 else None

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        while self._pending:
            start = _first_trigger(self._pending)
            if start is None:
                # Keep a possible trigger prefix at the very end ("TOO", "``") for the next token.
                keep = 0 if final else _partial_trigger_suffix(self._pending)
                self._show(out, self._pending[: len(self._pending) - keep])
                self._pending = self._pending[len(self._pending) - keep :]
                break
            self._show(out, self._pending[:start])
            self._pending = self._pending[start:]
            decision = self._decide(self._pending, final)
            if decision is None:
                break  # undecided: wait for more text
            kind, length = decision
            if kind == "text":
                self._show(out, self._pending[:length])
            self._pending = self._pending[length:]
        if final:
            self._space = ""  # a reply does not end in whitespace (nor in the gap a tool call left)
        return "".join(out)

    def _decide(self, text: str, final: bool) -> tuple[str, int] | None:
        """('tool', n) to drop ``text[:n]``, ('text', n) to release it, None to wait for more."""
        index = 0
        if text.startswith("TOOL:"):
            index = _skip_space(text, 5)
            if index >= len(text):
                return ("text", len(text)) if final else None
            if not (text.startswith("{", index) or text.startswith("```", index)):
                if not final and "```".startswith(text[index:]):
                    return None
                return ("text", 5)
        if text.startswith("```", index):
            return self._decide_fenced(text, index, final)
        if not text.startswith("{", index):
            return ("text", max(index, 1))
        return self._decide_object(text, index, final, fenced=False)

    def _decide_fenced(self, text: str, fence: int, final: bool) -> tuple[str, int] | None:
        """:meth:`_decide` for a code fence opening at ``text[fence]``: tool JSON only when its
        body is an object."""
        newline = text.find("\n", fence)
        if newline < 0:
            return ("text", len(text)) if final else None
        body = _skip_space(text, newline + 1)
        if body >= len(text):
            return ("text", len(text)) if final else None
        if text[body] != "{":
            return ("text", newline + 1)
        return self._decide_object(text, body, final, fenced=True)

    def _decide_object(self, text: str, index: int, final: bool, *, fenced: bool) -> tuple[str, int] | None:
        """:meth:`_decide` for the object opening at ``text[index]`` (after its ``TOOL:`` or fence):
        dropped with them, its closing fence and one newline when it calls a known tool."""
        end = match_brace(text, index)
        if end is None:
            return ("text", len(text)) if final else None
        try:
            obj = json.loads(text[index:end])
        except ValueError:
            obj = None
        if tool_name_of(obj, self._known) is None:
            return ("text", end)
        length = end
        if fenced:
            after = _skip_space(text, end)
            if text.startswith("```", after):
                length = after + 3
            elif not final and "```".startswith(text[after:]):
                return None  # the closing fence may still come
        if not final and length == len(text):
            return None  # a newline after the call belongs to it
        if text.startswith("\n", length):
            length += 1
        self.dropped.append(text[index:end])
        return ("tool", length)


def _first_trigger(text: str) -> int | None:
    positions = [p for p in (text.find(t) for t in _TRIGGERS) if p >= 0]
    return min(positions) if positions else None


def _partial_trigger_suffix(text: str) -> int:
    """How many characters at the end of ``text`` could begin a trigger."""
    for length in range(min(len(text), 4), 0, -1):
        tail = text[-length:]
        if any(trigger.startswith(tail) for trigger in _TRIGGERS):
            return length
    return 0


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


class ToolXmlFilter(_HeldSpace):
    """Streams a reply's text while holding back what may be a Langroid XML tool call.

    Text passes through as it arrives; from an opening ``<tool>`` (the tools' root tag) to its
    closing tag the text is held, then dropped when ``is_tool(candidate)`` says it calls a tool, or
    released when it does not. A possible start of the tag at the end of a token waits for the
    next one. ``finish()`` decides on what is still held when the reply ends (Langroid accepts a
    last call without its closing tag).
    """

    def __init__(self, is_tool: Callable[[str], bool], root_tags: Iterable[str] = ("tool",)) -> None:
        self._is_tool = is_tool
        self._tags = [(f"<{tag}>", f"</{tag}>") for tag in sorted(set(root_tags))] or [("<tool>", "</tool>")]
        self._pending = ""
        self._space = ""
        self._after_tool = False  # drop the line break that ends a dropped call
        self.dropped: list[str] = []

    def feed(self, token: str) -> str:
        self._pending += token
        return self._drain(final=False)

    def finish(self) -> str:
        return self._drain(final=True)

    def candidate(self) -> None:
        return None

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        while self._pending:
            if self._after_tool:
                if self._pending.startswith("\n"):
                    self._pending = self._pending[1:]
                self._after_tool = False
                continue
            found = self._opening()
            if found is None:
                keep = 0 if final else self._partial_opening()
                self._show(out, self._pending[: len(self._pending) - keep])
                self._pending = self._pending[len(self._pending) - keep :]
                break
            start, closing = found
            self._show(out, self._pending[:start])
            self._pending = self._pending[start:]
            end = self._pending.find(closing)
            if end < 0:
                if not final:
                    break  # wait for the closing tag
                candidate = self._pending + closing
                if self._is_tool(candidate):
                    self.dropped.append(candidate)
                else:
                    self._show(out, self._pending)
                self._pending = ""
                break
            length = end + len(closing)
            candidate = self._pending[:length]
            if self._is_tool(candidate):
                self.dropped.append(candidate)
                self._after_tool = True
            else:
                self._show(out, candidate)
            self._pending = self._pending[length:]
        if final:
            self._space = ""
        return "".join(out)

    def _opening(self) -> tuple[int, str] | None:
        best: tuple[int, str] | None = None
        for opening, closing in self._tags:
            index = self._pending.find(opening)
            if index >= 0 and (best is None or index < best[0]):
                best = (index, closing)
        return best

    def _partial_opening(self) -> int:
        longest = max(len(opening) for opening, _ in self._tags)
        for length in range(min(len(self._pending), longest - 1), 0, -1):
            tail = self._pending[-length:]
            if any(opening.startswith(tail) for opening, _ in self._tags):
                return length
        return 0
