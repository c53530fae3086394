"""A user's action on an A2UI surface (a button pressed, a form submitted) as a new turn.

A2UI surfaces reach the chat as ``ACTIVITY_SNAPSHOT`` events of type ``a2ui-surface``, the way
``@ag-ui/a2ui-middleware`` makes them. What the user does on one comes back here and starts a turn
the way that middleware expects, so an agent sees the action as it would behind the middleware:
the run's ``forwardedProps.a2uiAction.userAction``, and in the history an assistant message that
calls ``log_a2ui_event`` (its arguments the action) followed by the tool message that describes it
(``User performed action "submit" on surface "f" (component: btn). Context: {...}``). The text and
the shapes are the middleware's (0.0.10), held to it by js/test/a2ui-middleware.test.ts.
Regenerating such a turn runs the same action again (:func:`regenerate_action`); the surfaces a
tool's result draws are :mod:`~agui_widget.pipeline._a2ui_surfaces`'.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..pipeline._a2ui_surfaces import LOG_EVENT_TOOL
from ..vocabulary._ids import new_id
from ..vocabulary._marks import REFUSED, without_mark
from ._run import Run

if TYPE_CHECKING:
    from ._session import Session


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

    def __init__(
        self,
        action: Mapping[str, Any],
        loop: asyncio.AbstractEventLoop,
        props: dict[str, Any],
        opening: list[dict[str, Any]] | None = None,
    ) -> None:
        """``opening``: the call and result that reported the action before (a regenerated turn
        keeps them, ids and all); new ones otherwise."""
        self._opening = opening if opening is not None else action_messages(action)
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
    return _queued(session, ActionTurn(plain, asyncio.get_running_loop(), _props(plain)))


def _props(action: dict[str, Any]) -> dict[str, Any]:
    """The run's ``forwardedProps``, as the middleware reads them."""
    return {"a2uiAction": {"userAction": action}}


def _queued(session: Session, run: Run) -> Run:
    session.queue.append(run)
    session._changed_status()
    session._start_next()
    return run


def _reported_action(messages: list[dict[str, Any]], index: int) -> dict[str, Any] | None:
    """The action the ``log_a2ui_event`` call at ``index`` reports, when the message after it is
    that call's result (the pair an action turn opens with); None for any other message."""
    message = messages[index]
    calls: list[Any] = message.get("toolCalls") or []
    if message.get("role") != "assistant" or len(calls) != 1 or index + 1 >= len(messages):
        return None
    call = calls[0] if isinstance(calls[0], dict) else {}
    function = call.get("function") or {}
    result = messages[index + 1]
    if function.get("name") != LOG_EVENT_TOOL or result.get("role") != "tool" or result.get("toolCallId") != call.get("id"):
        return None
    try:
        action = json.loads(function.get("arguments") or "")
    except ValueError:
        return None
    return action if isinstance(action, dict) else None


def last_action_turn(messages: list[dict[str, Any]]) -> int | None:
    """Where the last turn starts when an action on a surface opened it (the index of its
    ``log_a2ui_event`` call); None when a user message did, or there is none."""
    for index in range(len(messages) - 1, -1, -1):
        role = messages[index].get("role")
        if role == "user":
            return None
        if role == "assistant" and _reported_action(messages, index) is not None:
            return index
    return None


def regenerate_action(session: Session, index: int) -> Run:
    """Run the action turn that opens at ``index`` again: the same action (the same
    ``forwardedProps.a2uiAction``, the same call and result in the history), what the agent
    answered kept as another version. A refusal's mark goes, as a user message's does when it is sent again."""
    if session.active is not None:
        raise RuntimeError("wait for the active run to end, or stop it, before editing the conversation")
    messages = session.messages
    action = _reported_action(messages, index)
    if action is None:
        raise ValueError(f"message {index} does not open an action turn")
    opening = [without_mark(dict(message), REFUSED) for message in messages[index : index + 2]]
    session.branches.fork(messages, index + 2)  # the answer stays as another version
    session.messages = messages[:index]
    session.listener.session_messages(index)
    return _queued(session, ActionTurn(action, asyncio.get_running_loop(), _props(action), opening))
