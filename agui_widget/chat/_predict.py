"""Predictive state: a state key that follows a tool call's arguments while they stream.

``AgentChat(predict_state=[{"state_key": "document", "tool": "write_document", "tool_argument":
"document"}])``, or a CUSTOM event named ``PredictState`` with the same list (for the rest of that
run, as the AG-UI dojo does): while TOOL_CALL_ARGS of ``tool`` stream, ``state[state_key]`` is
the (partial) value of the argument ``tool_argument`` (the whole arguments when it is absent).
The view applies the same rule to the same events (js/src/mirror/predict.ts), so nothing extra travels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ag_ui.core import BaseEvent, EventType

from ..vocabulary._content import parse_partial_json
from ..vocabulary._custom_events import PREDICT_STATE_EVENT


class PredictRule(NamedTuple):
    state_key: str
    tool: str
    tool_argument: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The rule as Python code writes it (``chat.predict_state``); the views get it camelCase."""
        rule: dict[str, Any] = {"state_key": self.state_key, "tool": self.tool}
        if self.tool_argument is not None:
            rule["tool_argument"] = self.tool_argument
        return rule


def coerce_rules(rules: Any) -> list[PredictRule]:
    """Rules from dicts (``state_key``, ``tool``, optional ``tool_argument``; camelCase too)."""
    if rules is None:
        return []
    if isinstance(rules, Mapping) or not isinstance(rules, Iterable) or isinstance(rules, str):
        raise TypeError("predict_state takes a list of {'state_key', 'tool', 'tool_argument'} dicts")
    out: list[PredictRule] = []
    for rule in rules:
        if isinstance(rule, PredictRule):
            out.append(rule)
            continue
        if not isinstance(rule, Mapping):
            raise TypeError(f"a predict_state rule is a dict, not {type(rule).__name__}")
        key = rule.get("state_key", rule.get("stateKey"))
        tool = rule.get("tool")
        argument = rule.get("tool_argument", rule.get("toolArgument"))
        if not isinstance(key, str) or not key or not isinstance(tool, str) or not tool:
            raise ValueError(f"a predict_state rule needs 'state_key' and 'tool' (strings): {dict(rule)!r}")
        if argument is not None and not isinstance(argument, str):
            raise ValueError(f"'tool_argument' is the name of an argument: {dict(rule)!r}")
        out.append(PredictRule(key, tool, argument))
    return out


class StatePredictor:
    """Follows one chat's events and says how the state changes while predicted arguments stream."""

    def __init__(self, rules: Iterable[PredictRule] = ()) -> None:
        self.rules = list(rules)
        self._run_rules: list[PredictRule] = []
        self._calls: dict[str, tuple[list[PredictRule], list[str]]] = {}

    def observe(self, event: BaseEvent, state: Any) -> Any:
        """The new state after ``event`` (a new object), or ``state`` itself when nothing changes."""
        kind = event.type
        if kind == EventType.RUN_STARTED:
            self._run_rules = []
            self._calls.clear()
        elif kind == EventType.CUSTOM and event.name == PREDICT_STATE_EVENT:  # type: ignore[attr-defined]
            try:
                self._run_rules = coerce_rules(event.value)  # type: ignore[attr-defined]
            except (TypeError, ValueError) as exc:
                raise ValueError(f"a PredictState event was ignored: {exc}") from None
        elif kind == EventType.TOOL_CALL_START:
            name = event.tool_call_name  # type: ignore[attr-defined]
            rules = [r for r in (*self.rules, *self._run_rules) if r.tool == name]
            if rules:
                self._calls[event.tool_call_id] = (rules, [])  # type: ignore[attr-defined]
        elif kind == EventType.TOOL_CALL_ARGS:
            tracked = self._calls.get(event.tool_call_id)  # type: ignore[attr-defined]
            if tracked is not None:
                rules, parts = tracked
                parts.append(event.delta)  # type: ignore[attr-defined]
                return _predicted(rules, parse_partial_json("".join(parts)), state)
        elif kind in (EventType.TOOL_CALL_END, EventType.RUN_FINISHED, EventType.RUN_ERROR):
            if kind == EventType.TOOL_CALL_END:
                self._calls.pop(event.tool_call_id, None)  # type: ignore[attr-defined]
            else:
                self._calls.clear()
        return state


def _predicted(rules: list[PredictRule], args: Any, state: Any) -> Any:
    if not isinstance(state, dict):
        return state
    changes: dict[str, Any] = {}
    for rule in rules:
        if rule.tool_argument is None:
            value = args
        elif isinstance(args, dict) and rule.tool_argument in args:
            value = args[rule.tool_argument]
        else:
            continue
        if value is not None and state.get(rule.state_key) != value:
            changes[rule.state_key] = value
    return {**state, **changes} if changes else state
