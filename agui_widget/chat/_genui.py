"""Generative UI in the kernel: tool and state renderers, predictive state, agent suggestions.

The widget tells :class:`GenerativeUI` what the session did; it answers with ``render`` messages
for the views (docs/wire.md): what a Python renderer made of a tool call or of the state, as a MIME
bundle. Renders are view decorations, not part of the transcript; a connecting view gets the
current ones right after its snapshot.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ag_ui.core import BaseEvent, EventType

from ..vocabulary._content import parse_json_text
from ..vocabulary._custom_events import SUGGESTIONS
from ..vocabulary._display import render_value
from ..wire._codec import render_message
from ._predict import PredictRule, StatePredictor

log = logging.getLogger("agui_widget")

ToolRenderer = Callable[[dict[str, Any], Any], Any]
StateRenderer = Callable[[Any], Any]
_MISSING = object()
_WATCHED = frozenset(
    {
        EventType.RUN_STARTED, EventType.RUN_FINISHED, EventType.RUN_ERROR, EventType.CUSTOM,
        EventType.STATE_SNAPSHOT, EventType.STATE_DELTA, EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END, EventType.TOOL_CALL_RESULT,
    }
)  # fmt: skip
"""The events the predictor or the renderers look at; the rest (text deltas: most of a stream)
are skipped at the cost of one set lookup."""


def normalize_suggestions(items: Any) -> list[dict[str, str]]:
    """Suggestions as ``{"title", "message"}`` dicts; a string is both. Raises on anything else."""
    if items is None:
        return []
    if isinstance(items, (str, Mapping)) or not isinstance(items, Iterable):
        raise TypeError("suggestions take a list of strings or {'title', 'message'} dicts")
    out: list[dict[str, str]] = []
    for item in items:
        if isinstance(item, str):
            if item.strip():
                out.append({"title": item, "message": item})
            continue
        if not isinstance(item, Mapping):
            raise TypeError(f"a suggestion is a string or a {{'title', 'message'}} dict, not {type(item).__name__}")
        message = item.get("message") or item.get("text") or item.get("title")
        title = item.get("title") or message
        if not isinstance(message, str) or not message.strip() or not isinstance(title, str):
            raise ValueError(f"a suggestion needs a 'message' (or 'title') string: {dict(item)!r}")
        out.append({"title": title, "message": message})
    return out


class _StateRenderer:
    def __init__(self, fn: StateRenderer, key: str | None, id: str, after: str | None) -> None:
        self.fn = fn
        self.key = key
        self.id = id
        self.after = after
        self.last: Any = _MISSING


class GenerativeUI:
    """One chat's renderers and the renders they made (keyed ``tool:<call id>`` / ``state:<n>``)."""

    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        self.send = send
        self.predictor = StatePredictor()
        self.tool_renderers: dict[str, ToolRenderer] = {}
        self.state_renderers: list[_StateRenderer] = []
        self.renders: dict[str, dict[str, Any]] = {}
        self.agent_suggestions: Any = _MISSING
        self._suggestions_at_start: Any = _MISSING
        self._next_state_id = 0

    # -- registration -------------------------------------------------------------------------

    def add_tool_renderer(self, name: str, fn: ToolRenderer, messages: Sequence[Mapping[str, Any]]) -> None:
        self.tool_renderers[name] = fn
        for call, result in _calls_named(messages, name):
            self._render_call(fn, call, result)

    def add_state_renderer(self, fn: StateRenderer, key: str | None, state: Any, after: str | None) -> str:
        renderer = _StateRenderer(fn, key, f"state:{self._next_state_id}", after=after)
        self._next_state_id += 1
        self.state_renderers.append(renderer)
        self._render_state(renderer, state)
        return renderer.id

    def set_predict_rules(self, rules: Iterable[PredictRule]) -> None:
        self.predictor.rules = list(rules)

    # -- what the session did ----------------------------------------------------------------

    def events(self, events: Sequence[BaseEvent], messages: Callable[[], Sequence[Mapping[str, Any]]], state: Any) -> Any:
        """Renders tool calls that completed or got a result; returns the state, predicted.

        ``messages`` is called only when a renderer needs the transcript (reading it joins the
        streamed fragments, which the per-token path must not pay for)."""
        for event in events:
            kind = event.type
            if kind not in _WATCHED:
                continue
            try:
                state = self.predictor.observe(event, state)
            except ValueError as exc:
                log.warning("agui-widget: %s", exc)
            if kind == EventType.RUN_STARTED:
                self.agent_suggestions = _MISSING
                self._suggestions_at_start = state.get(SUGGESTIONS, _MISSING) if isinstance(state, dict) else _MISSING
            elif kind == EventType.CUSTOM and event.name == SUGGESTIONS:  # type: ignore[attr-defined]
                self.agent_suggestions = event.value  # type: ignore[attr-defined]
            elif kind in (EventType.STATE_SNAPSHOT, EventType.STATE_DELTA):
                for renderer in self.state_renderers:
                    renderer.after = None  # shown with the run that changes it, below its latest message
            elif self.tool_renderers and kind in (EventType.TOOL_CALL_END, EventType.TOOL_CALL_RESULT):
                call_id = event.tool_call_id  # type: ignore[attr-defined]
                call, result = _find_call(messages(), call_id)
                fn = self.tool_renderers.get(_call_name(call)) if call is not None else None
                if fn is not None and call is not None:
                    self._render_call(fn, call, result)
        return state

    def messages_added(self, messages: Sequence[Mapping[str, Any]], start: int) -> None:
        """The transcript changed from ``start`` on: drops the renders of calls no longer in it (a
        clear, an edit, a new thread) and renders tool answers added outside the event stream (a
        frontend tool's result)."""
        self.forget_missing_calls(messages)
        if not self.tool_renderers:
            return
        for message in messages[start:]:
            if message.get("role") != "tool":
                continue
            call, result = _find_call(messages, message.get("toolCallId"))
            fn = self.tool_renderers.get(_call_name(call)) if call is not None else None
            if fn is not None and call is not None:
                self._render_call(fn, call, result)

    def state_changed(self, state: Any) -> None:
        for renderer in self.state_renderers:
            self._render_state(renderer, state)

    def run_ended(self, messages: Sequence[Mapping[str, Any]], state: Any) -> Any:
        """Pins live state renders after the run's last message; returns the agent's suggestions
        for this run (or ``_MISSING``)."""
        last = messages[-1].get("id") if messages else None
        for renderer in self.state_renderers:
            if renderer.after is None and last is not None and renderer.id in self.renders:
                renderer.after = last
                self._send(renderer.id, self.renders[renderer.id]["bundle"], self.renders[renderer.id]["error"], last)
        suggested = self.agent_suggestions
        if suggested is _MISSING and isinstance(state, dict):
            current = state.get(SUGGESTIONS, _MISSING)
            if current is not _MISSING and current != self._suggestions_at_start:
                suggested = current
        self.agent_suggestions = _MISSING
        return suggested

    def hello(self) -> None:
        """A view connected: it gets every render after its snapshot."""
        for message in list(self.renders.values()):
            self.send(message)

    def forget_missing_calls(self, messages: Sequence[Mapping[str, Any]]) -> None:
        """Drops the renders of tool calls no longer in the transcript (after clear, edit, a new thread)."""
        if not any(key.startswith("tool:") for key in self.renders):
            return
        present = {f"tool:{call.get('id')}" for m in messages for call in m.get("toolCalls") or ()}
        for key in [k for k in self.renders if k.startswith("tool:") and k not in present]:
            self._send(key, None, None, None)

    # -- rendering ---------------------------------------------------------------------------

    def _render_call(self, fn: ToolRenderer, call: Mapping[str, Any], result: Any) -> None:
        function = call.get("function") or {}
        args = parse_json_text(function.get("arguments") or "{}")
        if not isinstance(args, dict):
            args = {"arguments": args}
        bundle, error = render_value(fn, args, result)
        self._send(f"tool:{call.get('id')}", bundle, error, None)

    def _render_state(self, renderer: _StateRenderer, state: Any) -> None:
        if renderer.key is None:
            value = state
        else:
            value = state.get(renderer.key, _MISSING) if isinstance(state, dict) else _MISSING
        if value is _MISSING:
            return
        if renderer.last is not _MISSING and renderer.last == value and renderer.id in self.renders:
            return
        renderer.last = value
        bundle, error = render_value(renderer.fn, value)
        self._send(renderer.id, bundle, error, renderer.after)

    def _send(self, key: str, bundle: dict[str, Any] | None, error: str | None, after: str | None) -> None:
        message = render_message(key, bundle, error, after)
        if bundle is None and error is None:
            if self.renders.pop(key, None) is None:
                return
        else:
            if self.renders.get(key) == message:
                return
            self.renders[key] = message
        self.send(message)


def _call_name(call: Mapping[str, Any] | None) -> str:
    return ((call or {}).get("function") or {}).get("name") or ""


def _find_call(messages: Sequence[Mapping[str, Any]], call_id: Any) -> tuple[Mapping[str, Any] | None, Any]:
    """The tool call with this id and its result (parsed from JSON text when it parses), or None."""
    result: Any = None
    for message in reversed(messages):
        if message.get("role") == "tool" and message.get("toolCallId") == call_id and result is None:
            result = parse_json_text(message.get("content"))
        for call in message.get("toolCalls") or ():
            if call.get("id") == call_id:
                return call, result
    return None, None


def _calls_named(messages: Sequence[Mapping[str, Any]], name: str) -> list[tuple[Mapping[str, Any], Any]]:
    results = {m.get("toolCallId"): parse_json_text(m.get("content")) for m in messages if m.get("role") == "tool"}
    return [
        (call, results.get(call.get("id")))
        for message in messages
        for call in message.get("toolCalls") or ()
        if _call_name(call) == name
    ]
