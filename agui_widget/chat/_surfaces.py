"""``chat.send_action(surface_id, name)``: act on an A2UI surface from a cell, as a click would.

A mixin of ``AgentChat``. A user's click on a surface reaches the kernel as an ``a2ui_action``
request; this is the same turn started from Python, so a lesson run headless (or a test, or a
notebook run top to bottom) gives the agent exactly what a click gives it: the same action (the
name, the surface, the button's id, a timestamp, the context), in the same
``forwardedProps.a2uiAction`` and ``log_a2ui_event`` call and result.
"""

from __future__ import annotations

import copy
import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import jsonpointer

from ..pipeline._a2ui_surfaces import ACTIVITY_TYPE, OPERATIONS_KEY, surface_id_of
from ..session._a2ui import send_action
from ..session._session import checked_props

if TYPE_CHECKING:
    from ..session._run import Run
    from ..session._session import Session
    from ._view_link import ViewLink


class ChatSurfaces:
    """Acting on the chat's A2UI surfaces from Python."""

    if TYPE_CHECKING:  # what the methods read of the chat
        _session: Session
        _link: ViewLink

    def send_action(
        self,
        surface_id: str,
        name: str,
        context: Mapping[str, Any] | None = None,
        source_component_id: str | None = None,
    ) -> Run:
        """Act on A2UI surface ``surface_id`` as a click does: a new turn (queued while a run is
        active) for action ``name``; returns at once, ``await`` the Run to wait for it.

        ``context``: the values the action carries (a form's fields); by default the action's
        own context resolved against the surface's data model as the agent sent it, which is what
        a click on an untouched form sends. ``source_component_id``: the component acted on; by
        default the one component of the surface whose action is ``name`` ('' when none or several
        are). Raises ValueError for a surface the chat does not show.
        """
        from ..wire._requests import A2uiUserAction  # the wire's declarations load when first needed

        self._link.check_no_code_run("acting on a surface")
        operations = _operations_of(self._session.messages, surface_id)
        action = _action_component(operations, name)
        if context is None:
            context = _resolved_context(operations, action, name)
        if source_component_id is None:
            source_component_id = str(action.get("id", "")) if action else ""
        plain_context = checked_props(context, "send_action's context") or {}
        timestamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        checked = A2uiUserAction(
            name=name,
            surface_id=surface_id,
            source_component_id=source_component_id,
            timestamp=timestamp,
            context=plain_context,
        )
        return send_action(self._session, checked.model_dump(by_alias=True))


def _operations_of(messages: list[dict[str, Any]], surface_id: str) -> list[dict[str, Any]]:
    """The operations the transcript's A2UI activities hold for ``surface_id``, in order."""
    found: list[dict[str, Any]] = []
    shown: list[str] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "activity" or message.get("activityType") != ACTIVITY_TYPE or not isinstance(content, dict):
            continue
        for operation in content.get(OPERATIONS_KEY) or ():
            if not isinstance(operation, dict):
                continue
            named = surface_id_of(operation)
            if named == surface_id:
                found.append(operation)
            elif isinstance(named, str) and "createSurface" in operation and named not in shown:
                shown.append(named)
    if not any("createSurface" in operation for operation in found):
        listed = ", ".join(repr(s) for s in shown) or "none"
        raise ValueError(f"the chat shows no A2UI surface {surface_id!r} (its surfaces: {listed})")
    return found


def _action_component(operations: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """The surface's one component whose action event is ``name`` (its latest definition), or None."""
    components: dict[str, dict[str, Any]] = {}
    for operation in operations:
        update = operation.get("updateComponents")
        for component in (update.get("components") or ()) if isinstance(update, dict) else ():
            if isinstance(component, dict) and isinstance(component.get("id"), str):
                components[component["id"]] = component
    acting = [c for c in components.values() if _event_of(c).get("name") == name]
    return acting[0] if len(acting) == 1 else None


def _event_of(component: Mapping[str, Any]) -> dict[str, Any]:
    action = component.get("action")
    event = action.get("event") if isinstance(action, dict) else None
    return event if isinstance(event, dict) else {}


def _resolved_context(operations: list[dict[str, Any]], component: dict[str, Any] | None, name: str) -> dict[str, Any]:
    """The action's context with each ``{"path": "/..."}`` read from the data model; a path that
    holds nothing is left out, as A2UI's client leaves an undefined value out."""
    wanted = _event_of(component).get("context") if component is not None else None
    if not isinstance(wanted, dict):
        return {}
    model = _data_model(operations)
    resolved: dict[str, Any] = {}
    for key, value in wanted.items():
        if not isinstance(value, dict):
            resolved[key] = value
            continue
        path = value.get("path")
        if set(value) != {"path"} or not isinstance(path, str) or not path.startswith("/"):
            raise ValueError(f"action {name!r}'s context value {key!r} cannot be resolved in Python: pass context=")
        found = jsonpointer.resolve_pointer(model, path if path != "/" else "", _MISSING)
        if found is not _MISSING:
            resolved[key] = found
    return resolved


_MISSING = object()


def _data_model(operations: list[dict[str, Any]]) -> Any:
    """The surface's data model as its ``updateDataModel`` operations leave it (a copy)."""
    model: Any = {}
    for operation in operations:
        update = operation.get("updateDataModel")
        if not isinstance(update, dict):
            continue
        path = update.get("path") or "/"
        if path == "/":
            model = copy.deepcopy(update.get("value", {}))
            continue
        try:
            *head, last = jsonpointer.JsonPointer(path).parts
        except (jsonpointer.JsonPointerException, ValueError):
            continue
        holder = model
        for part in head:
            holder = holder.setdefault(part, {}) if isinstance(holder, dict) else None
        if isinstance(holder, dict):
            if "value" in update:
                holder[last] = copy.deepcopy(update["value"])
            else:
                holder.pop(last, None)
    return model
