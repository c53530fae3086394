"""A user's action on an A2UI surface (a button pressed, a form submitted) as a new turn.

A2UI surfaces reach the chat as ``ACTIVITY_SNAPSHOT`` events of type ``a2ui-surface``, the way
``@ag-ui/a2ui-middleware`` makes them. What the user does on one comes back here and starts a turn
the way that middleware expects, so an agent sees the action as it would behind the middleware:
the run's ``forwardedProps.a2uiAction.userAction``, and in the history an assistant message that
calls ``log_a2ui_event`` (its arguments the action) followed by the tool message that describes it
(``User performed action "submit" on surface "f" (component: btn). Context: {...}``). The text and
the shapes are the middleware's (0.0.10), held to it by js/test/a2ui-middleware.test.ts.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..vocabulary._ids import new_id
from ._run import Run

if TYPE_CHECKING:
    from ._session import Session

ACTIVITY_TYPE = "a2ui-surface"
"""The activity type of the messages that carry A2UI surfaces."""
OPERATIONS_KEY = "a2ui_operations"
"""The key of an A2UI activity's content (and of a tool result) that holds the A2UI messages."""
LOG_EVENT_TOOL = "log_a2ui_event"
"""The tool call that reports a user's action to the agent in the history."""


def user_action(
    name: str, surface_id: str, source_component_id: str, context: Mapping[str, Any], timestamp: str
) -> dict[str, Any]:
    """The action as A2UI's client sends it (``A2uiClientAction``), in its order of keys."""
    return {
        "name": name,
        "surfaceId": surface_id,
        "sourceComponentId": source_component_id,
        "timestamp": timestamp,
        "context": dict(context),
    }


def _js_json(value: Any) -> str:
    """``JSON.stringify(value)``: compact, characters as they are."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def action_text(action: Mapping[str, Any]) -> str:
    """The tool message's text, as the middleware's ``formatUserActionResult`` writes it."""
    name = action.get("name") if action.get("name") is not None else "unknown_action"
    surface = action.get("surfaceId") if action.get("surfaceId") is not None else "unknown_surface"
    text = f'User performed action "{name}" on surface "{surface}"'
    if action.get("sourceComponentId"):
        text += f" (component: {action['sourceComponentId']})"
    context = action.get("context")
    return text + f". Context: {_js_json(context) if context else '{}'}"


def action_messages(action: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The two messages the middleware appends for an action: the ``log_a2ui_event`` call and its result."""
    call_id = new_id("call")
    call = {"id": call_id, "type": "function", "function": {"name": LOG_EVENT_TOOL, "arguments": _js_json(dict(action))}}
    return [
        {"id": new_id("msg"), "role": "assistant", "content": "", "toolCalls": [call]},
        {"id": new_id("msg"), "role": "tool", "toolCallId": call_id, "content": action_text(action)},
    ]


class ActionTurn(Run):
    """A turn that starts from a user's action on a surface rather than a typed message: its
    opening is the call and result that report the action (the result stands as its user
    message, which the input guard reads)."""

    def __init__(self, action: Mapping[str, Any], loop: asyncio.AbstractEventLoop, props: dict[str, Any]) -> None:
        self._opening = action_messages(action)
        report = self._opening[1]
        super().__init__(report["content"], report, loop, props)

    def opening_messages(self) -> list[dict[str, Any]]:
        return [dict(message) for message in self._opening]


def send_action(session: Session, action: Mapping[str, Any]) -> Run:
    """Queue a turn for ``action`` (a dict as :func:`user_action` makes); it starts at once when no
    other turn is active, as ``chat.send`` does."""
    if not isinstance(action.get("name"), str) or not isinstance(action.get("surfaceId"), str):
        raise ValueError("an A2UI action needs a name and a surfaceId")
    plain = json.loads(_js_json(dict(action)))  # a JSON object, as the agent will get it
    loop = asyncio.get_running_loop()
    run = ActionTurn(plain, loop, {"a2uiAction": {"userAction": plain}})
    session.queue.append(run)
    session._changed_status()
    session._start_next()
    return run
