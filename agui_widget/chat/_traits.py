"""The chat's synced traits: what every view reads, declared once with the checks on their values.

A base of ``AgentChat``. Every synced trait is the kernel's: a view asks for a change through a
request (docs/wire.md) and never writes one. ``messages`` and ``state`` are not here: they are not
synced as traits but as events, splices and patches, which the widget's link to its views sends.
"""

from __future__ import annotations

import re
from typing import Any

import anywidget
import traitlets

from ..wire import _codec
from ._genui import normalize_suggestions


class _CssColor(traitlets.Unicode):
    """A CSS colour the views set as a custom property: nothing that could carry other CSS."""

    def validate(self, obj: Any, value: Any) -> str:
        text = super().validate(obj, value)
        if text == "":  # the theme's own (every chat's default): nothing to check or to load
            return text
        from ..wire._requests import css_color  # the requests' declarations load on first use

        try:
            return css_color(text)
        except ValueError as exc:
            raise traitlets.TraitError(f"chat.{self.name}: {exc}") from None


class ChatTraits(anywidget.AnyWidget):
    """The synced traits of ``AgentChat``."""

    _syncing: bool
    _starters: list[dict[str, str]]

    status = traitlets.Unicode("idle", help="idle | running | waiting | error").tag(sync=True)
    thread_id = traitlets.Unicode("").tag(sync=True)
    run_id = traitlets.Unicode("", help="the active run's id, or ''").tag(sync=True)
    pending: traitlets.List[dict[str, Any]] = traitlets.List(help="frontend tool calls and interrupts waiting for an answer").tag(
        sync=True
    )
    queued: traitlets.List[dict[str, Any]] = traitlets.List(help="user messages waiting for the active run to end").tag(sync=True)
    frontend_tools: traitlets.List[dict[str, Any]] = traitlets.List(help="the tools the UI executes or the user answers").tag(
        sync=True
    )
    error = traitlets.Unicode("", help="the last run's error message").tag(sync=True)
    agent_names = traitlets.List(traitlets.Unicode(), help="the agents to pick from ([] for one agent)").tag(sync=True)
    agent_name = traitlets.Unicode("", help="the active agent's name ('' for one agent)").tag(sync=True)
    suggestions: traitlets.List[dict[str, str]] = traitlets.List(
        help="prompts shown as chips: strings or {'title', 'message'} dicts"
    ).tag(sync=True)
    suggestions_after = traitlets.Unicode("", help="the message agent suggestions follow; '' for starters").tag(sync=True)
    predict_state: traitlets.List[dict[str, Any]] = traitlets.List(help="state keys that follow streamed tool arguments").tag(
        sync=True, to_json=lambda rules, _widget: _codec.predict_rules_to_wire(rules)
    )
    height = traitlets.Unicode(
        "", help="the chat's height as a CSS length ('' for the default); the view's resize handle changes it there"
    ).tag(sync=True)
    saved_output_id = traitlets.Unicode(
        help="the display id of the output that keeps the conversation in the notebook (views hide it)"
    ).tag(sync=True)
    attachment_policy: traitlets.Dict[str, Any] = traitlets.Dict(help="what the composer takes as attachments").tag(sync=True)
    accent = _CssColor("", help="the chat's accent colour, a CSS colour ('' for the theme's); ctx.setAccent sets it too").tag(
        sync=True
    )

    agent_context: traitlets.List[dict[str, Any]] = traitlets.List(
        help="what the agent is told beside the transcript, as the view's Context panel lists it"
    ).tag(sync=True)
    revision = traitlets.Int(
        0, help="grows when the state, the transcript or the status changes, where marimo shows the chat"
    ).tag(sync=True)

    @traitlets.validate("height")
    def _validate_height(self, proposal: Any) -> str:
        try:
            return css_length(proposal["value"])
        except (TypeError, ValueError) as exc:
            raise traitlets.TraitError(str(exc)) from None

    @traitlets.validate("suggestions")
    def _validate_suggestions(self, proposal: Any) -> list[dict[str, str]]:
        try:
            return normalize_suggestions(proposal["value"])
        except (TypeError, ValueError) as exc:
            raise traitlets.TraitError(str(exc)) from None

    @traitlets.observe("suggestions")
    def _suggestions_assigned(self, change: Any) -> None:
        if not self._syncing:
            self.suggestions_after = ""  # set from Python: starters, shown while the chat is empty
            self._starters = list(change["new"])


_CSS_LENGTH = r"\d+(\.\d+)?(px|em|rem|vh|svh|dvh|%)"


def css_length(value: int | str | None) -> str:
    """``height=`` as a CSS length: a number is pixels; '' (or None) is the view's default."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"height is a number of pixels or a CSS length such as '70vh', not {type(value).__name__}")
    text = f"{value}px" if isinstance(value, (int, float)) else value.strip()
    if not re.fullmatch(_CSS_LENGTH, text):
        raise ValueError(f"height={value!r} is not a length: give pixels (600) or a CSS length ('600px', '70vh', '40em')")
    return text
