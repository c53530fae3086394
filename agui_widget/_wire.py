"""The widget wire, kernel side: every message of docs/wire.md declared once.

Requests from a view are validated here; a payload that does not fit is refused whole
(:class:`BadRequest`: the widget logs it and tells the view), never raised into the kernel. Messages to a view are plain dicts built by the functions below (they are
on the streaming hot path, so no model objects there).
"""

from __future__ import annotations

import logging
import typing
from typing import Annotated, Any, Literal

from ag_ui.core import BaseEvent, EventType
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from ._deltas import WIRE_FIELDS, plain_delta
from ._unicode import lone_surrogate_path

log = logging.getLogger("agui_widget")

MAX_TEXT = 1_000_000
"""Largest user message accepted from a view (characters)."""

MAX_DEPTH = 200
"""Deepest nesting accepted in a request (a tool result, a state edit): deeper JSON would break
copying, the agent's serializer and the views' messages long after it was accepted."""


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


class Claim(_Request):
    """A view will run a frontend tool's handler (the first claim wins; ``takeOver`` takes it)."""

    kind: Literal["claim"]
    tool_call_id: str = Field(min_length=1)
    view_id: str = Field(min_length=1, max_length=200)
    take_over: bool = False


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
    Hello | Send | Stop | ToolResult | Claim | Resume | StateEdit | Clear | Regenerate | Edit | SelectAgent | Asset,
    Field(discriminator="kind"),
]
_request_adapter: TypeAdapter[Request] = TypeAdapter(Request)
REQUEST_KINDS = frozenset(
    typing.get_args(model.model_fields["kind"].annotation)[0] for model in typing.get_args(typing.get_args(Request)[0])
)


class BadRequest(ValueError):
    """A view's message the kernel cannot take; ``kind`` is its request kind when it names one."""

    def __init__(self, kind: str | None, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def parse_request(raw: Any) -> Request:
    """The request a view sent, validated; :class:`BadRequest` saying why when it cannot be taken."""
    named = raw.get("kind") if isinstance(raw, dict) else None
    kind = named if isinstance(named, str) and named in REQUEST_KINDS else None
    if _deeper_than(raw, MAX_DEPTH):
        raise BadRequest(kind, f"the request is nested more than {MAX_DEPTH} levels deep")
    where = lone_surrogate_path(raw)
    if where is not None:
        raise BadRequest(kind, f"the request holds a lone UTF-16 surrogate (half a character) at {where}")
    try:
        return _request_adapter.validate_python(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc'][1:]) or 'the request'}: {error['msg']}"
            for error in exc.errors(include_input=False, include_url=False)[:3]
        )
        raise BadRequest(kind, problems or "not a request this kernel knows") from None


def _deeper_than(value: Any, limit: int) -> bool:
    """True when ``value`` nests lists and dicts more than ``limit`` deep (checked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


# Kernel -> view. Built as dicts: these sit on the streaming path.


def event_to_wire(event: BaseEvent) -> dict[str, Any]:
    """An event as camelCase JSON for the views. Plain deltas (most of a stream) skip the generic
    serializer.

    A framework's raw payloads stay in the kernel (``chat.events`` keeps them): ``rawEvent`` is
    left out, and so is a RAW event's ``event``. Some agents attach one to every token (a kilobyte
    and more, with their graph's state), which would make the wire hundreds of times the text and
    keep the deltas from being merged.
    """
    plain = plain_delta(event, WIRE_FIELDS)
    if plain is not None:
        name, key, ident, delta = plain
        return {"type": name, key: ident, "delta": delta}
    dropped = {"raw_event", "event"} if event.type == EventType.RAW else {"raw_event"}
    return event.model_dump(mode="json", by_alias=True, exclude=dropped)


def snapshot_message(view_id: str | None, messages: list[dict], state: Any, events: list[dict]) -> dict[str, Any]:
    return {"kind": "snapshot", "viewId": view_id, "messages": messages, "state": state, "events": events}


def events_message(events: list[dict]) -> dict[str, Any]:
    return {"kind": "events", "events": events}


def messages_message(start: int, messages: list[dict]) -> dict[str, Any]:
    return {"kind": "messages", "start": start, "messages": messages}


def state_patch_message(patch: list[dict]) -> dict[str, Any]:
    return {"kind": "state_patch", "patch": patch}


def check_message(messages: list[dict[str, Any]], start: int, state_fingerprint: int) -> dict[str, Any]:
    """The end of a run: the transcript's length, the id, role and UTF-16 content length of each
    message from ``start`` on, and the state's fingerprint (agui_widget/_fingerprint.py)."""
    tail = [[m.get("id"), m.get("role"), _utf16_length(m.get("content"))] for m in messages[start:]]
    return {"kind": "check", "count": len(messages), "start": start, "tail": tail, "state": state_fingerprint}


def _utf16_length(content: Any) -> int:
    if not isinstance(content, str):
        return -1
    return len(content.encode("utf-16-le", "surrogatepass")) // 2


def notice_message(level: Literal["info", "warning", "error"], text: str) -> dict[str, Any]:
    return {"kind": "notice", "level": level, "text": text}


def render_message(key: str, bundle: dict[str, Any] | None, error: str | None, after: str | None) -> dict[str, Any]:
    """What a Python renderer made (docs/generative-ui.md); bundle and error both None removes it."""
    return {"kind": "render", "key": key, "bundle": bundle, "error": error, "after": after}


def asset_message(name: str, source: str | None, error: str | None) -> dict[str, Any]:
    """The answer to an ``asset`` request: the file's text, or why there is none."""
    return {"kind": "asset", "name": name, "source": source, "error": error}
