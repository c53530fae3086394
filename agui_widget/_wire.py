"""The widget wire, kernel side: every message of docs/wire.md declared once.

Requests from a view are validated here; a payload that does not fit is logged and dropped, never
raised into the kernel. Messages to a view are plain dicts built by the functions below (they are
on the streaming hot path, so no model objects there).
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal, Union

from ag_ui.core import BaseEvent, EventType
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

log = logging.getLogger("agui_widget")

MAX_TEXT = 1_000_000
"""Largest user message accepted from a view (characters)."""


class _Request(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)


class Hello(_Request):
    kind: Literal["hello"]
    view_id: str = Field(min_length=1, max_length=200)


class Send(_Request):
    kind: Literal["send"]
    text: str = Field(min_length=1, max_length=MAX_TEXT)


class Stop(_Request):
    kind: Literal["stop"]


class ToolResult(_Request):
    kind: Literal["tool_result"]
    tool_call_id: str = Field(min_length=1)
    result: Any = None


class Resume(_Request):
    kind: Literal["resume"]
    interrupt_id: str = Field(min_length=1)
    status: Literal["resolved", "cancelled"] = "resolved"
    payload: Any = None


class JsonPatchOp(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    op: Literal["add", "remove", "replace", "move", "copy", "test"]
    path: str


class StateEdit(_Request):
    kind: Literal["state_edit"]
    patch: list[JsonPatchOp] = Field(min_length=1)


class Clear(_Request):
    kind: Literal["clear"]


class Regenerate(_Request):
    kind: Literal["regenerate"]


class Edit(_Request):
    kind: Literal["edit"]
    message_id: str = Field(min_length=1)
    text: str = Field(min_length=1, max_length=MAX_TEXT)


class SelectAgent(_Request):
    kind: Literal["select_agent"]
    name: str = Field(min_length=1, max_length=200)


class Asset(_Request):
    """A file the view loads on demand (the chart renderer), answered by :func:`asset_message`."""

    kind: Literal["asset"]
    name: Literal["vega"]


Request = Annotated[
    Union[Hello, Send, Stop, ToolResult, Resume, StateEdit, Clear, Regenerate, Edit, SelectAgent, Asset],
    Field(discriminator="kind"),
]
_request_adapter: TypeAdapter[Request] = TypeAdapter(Request)


def parse_request(raw: Any) -> Request | None:
    """The request a view sent, or None (logged) when it is not one we know."""
    try:
        return _request_adapter.validate_python(raw)
    except ValidationError as exc:
        kind = raw.get("kind") if isinstance(raw, dict) else None
        log.warning("agui-widget: ignored a malformed %r request from the view: %s", kind, exc.errors()[:3])
        return None


# Kernel -> view. Built as dicts: these sit on the streaming path.

_DELTA_EVENTS = {
    EventType.TEXT_MESSAGE_CONTENT: ("TEXT_MESSAGE_CONTENT", "messageId", "message_id"),
    EventType.TOOL_CALL_ARGS: ("TOOL_CALL_ARGS", "toolCallId", "tool_call_id"),
    EventType.REASONING_MESSAGE_CONTENT: ("REASONING_MESSAGE_CONTENT", "messageId", "message_id"),
}
_PLAIN_DELTA_FIELDS = {"type", "delta", "message_id", "tool_call_id"}


_WIRE_DELTA_FIELDS = _PLAIN_DELTA_FIELDS | {"raw_event"}


def plain_delta(event: BaseEvent, allowed: set[str] = _PLAIN_DELTA_FIELDS) -> tuple[str, str, str, str] | None:
    """``(type, id key, id, delta)`` when ``event`` is a plain delta: a content or arguments event
    with only its id and its delta set (most of a stream), or only ``allowed`` fields; else None."""
    hot = _DELTA_EVENTS.get(event.type)
    if hot is None or event.__pydantic_extra__ or not event.__pydantic_fields_set__ <= allowed:
        return None
    name, key, attribute = hot
    return name, key, getattr(event, attribute), event.delta  # type: ignore[attr-defined]


def event_to_wire(event: BaseEvent) -> dict[str, Any]:
    """An event as camelCase JSON for the views. Plain deltas (most of a stream) skip the generic
    serializer.

    A framework's raw payloads stay in the kernel (``chat.events`` keeps them): ``rawEvent`` is
    left out, and so is a RAW event's ``event``. Some agents attach one to every token (a kilobyte
    and more, with their graph's state), which would make the wire hundreds of times the text and
    keep the deltas from being merged.
    """
    plain = plain_delta(event, _WIRE_DELTA_FIELDS)
    if plain is not None:
        name, key, ident, delta = plain
        return {"type": name, key: ident, "delta": delta}
    dropped = {"raw_event", "event"} if event.type == EventType.RAW else {"raw_event"}
    return event.model_dump(mode="json", by_alias=True, exclude_none=True, exclude=dropped)


def snapshot_message(view_id: str | None, messages: list[dict], state: Any, events: list[dict]) -> dict[str, Any]:
    return {"kind": "snapshot", "viewId": view_id, "messages": messages, "state": state, "events": events}


def events_message(events: list[dict]) -> dict[str, Any]:
    return {"kind": "events", "events": events}


def messages_message(start: int, messages: list[dict]) -> dict[str, Any]:
    return {"kind": "messages", "start": start, "messages": messages}


def state_patch_message(patch: list[dict]) -> dict[str, Any]:
    return {"kind": "state_patch", "patch": patch}


def notice_message(level: Literal["info", "warning", "error"], text: str) -> dict[str, Any]:
    return {"kind": "notice", "level": level, "text": text}


def render_message(key: str, bundle: dict[str, Any] | None, error: str | None, after: str | None) -> dict[str, Any]:
    """What a Python renderer made (docs/generative-ui.md); bundle and error both None removes it."""
    return {"kind": "render", "key": key, "bundle": bundle, "error": error, "after": after}


def asset_message(name: str, source: str | None, error: str | None) -> dict[str, Any]:
    """The answer to an ``asset`` request: the file's text, or why there is none."""
    return {"kind": "asset", "name": name, "source": source, "error": error}
