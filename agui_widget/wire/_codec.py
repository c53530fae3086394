"""The widget wire, kernel side (docs/wire.md): what the kernel runs of it.

Every message is declared once, as a pydantic model: what a view sends in ``_requests``, what
the kernel sends and the synced traits' payloads in ``_payloads``. This module parses a view's
requests against their declarations: a payload that does not fit is refused whole
(:class:`BadRequest`: the widget logs it and tells the view), never raised into the kernel. And it
builds what the kernel sends as plain dicts, on the streaming path and off it; the tests hold each
builder to its declaration. The declarations load on first use, the requests' when a view first
speaks: building their classes was most of what importing the package cost (docs/architecture.md,
"Start-up").
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any, Literal

from ag_ui.core import BaseEvent, EventType
from pydantic import ValidationError

from ..vocabulary._deltas import WIRE_FIELDS, plain_delta
from ..vocabulary._unicode import lone_surrogate_path

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from ._requests import Request

log = logging.getLogger("agui_widget")

MAX_DEPTH = 200
"""Deepest nesting accepted in a request (a tool result, a state edit): deeper JSON would break
copying, the agent's serializer and the views' messages long after it was accepted."""


@functools.cache
def _request_adapter() -> TypeAdapter[Request]:
    """The requests' declarations, loaded and built when the first request arrives."""
    from pydantic import TypeAdapter

    from ._requests import Request

    return TypeAdapter(Request)


REQUEST_KINDS = frozenset(
    {
        "hello",
        "send",
        "stop",
        "tool_result",
        "claim",
        "resume",
        "state_edit",
        "clear",
        "regenerate",
        "edit",
        "branch",
        "select_agent",
        "asset",
        "run_record",
        "set_accent",
        "settings",
        "variables",
        "inspect_variable",
        "run_code",
        "a2ui_action",
        "mcp_app",
        "mcp_call",
        "mcp_read",
        "feedback",
        "command",
        "threads",
        "switch_thread",
        "new_thread",
        "rename_thread",
        "delete_thread",
    }
)
"""The ``kind`` of every request wire/_requests.py declares (tests/test_wire_declared.py holds the two equal)."""


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
        return _request_adapter().validate_python(raw)
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


def snapshot_message(
    view_id: str | None, messages: list[dict[str, Any]], state: Any, events: list[dict[str, Any]]
) -> dict[str, Any]:
    return {"kind": "snapshot", "viewId": view_id, "messages": messages, "state": state, "events": events}


def events_message(events: list[dict[str, Any]], times: list[float]) -> dict[str, Any]:
    return {"kind": "events", "events": events, "times": times}


def messages_message(start: int, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "messages", "start": start, "messages": messages}


def state_patch_message(patch: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "state_patch", "patch": patch}


def check_message(messages: list[dict[str, Any]], start: int, state_fingerprint: int) -> dict[str, Any]:
    """The end of a run: the transcript's length, the id, role and UTF-16 content length of each
    message from ``start`` on, and the state's fingerprint (agui_widget/chat/_fingerprint.py)."""
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


def run_record_message(run_id: str, recording: str | None, error: str | None) -> dict[str, Any]:
    """The answer to a ``run_record`` request: the run as recording text, or why there is none."""
    return {"kind": "run_record", "runId": run_id, "recording": recording, "error": error}


def asset_message(name: str, source: str | None, error: str | None) -> dict[str, Any]:
    """The answer to an ``asset`` request: the file's text, or why there is none."""
    return {"kind": "asset", "name": name, "source": source, "error": error}


def mcp_app_message(
    request_id: str, tool_call_id: str, html: str | None, csp: dict[str, Any] | None, error: str | None
) -> dict[str, Any]:
    """The answer to an ``mcp_app`` request: the app's HTML and its resource's CSP, or why there is none."""
    return {"kind": "mcp_app", "requestId": request_id, "toolCallId": tool_call_id, "html": html, "csp": csp, "error": error}


def mcp_result_message(
    request_id: str, result: dict[str, Any] | None, error: str | None, needs_approval: bool = False
) -> dict[str, Any]:
    """The answer to an ``mcp_call`` or ``mcp_read`` request: the server's result, or why there is none."""
    return {"kind": "mcp_result", "requestId": request_id, "result": result, "error": error, "needsApproval": needs_approval}


def variable_entry(
    name: str, type_name: str, kind: Literal["data", "function", "class"], shape: str | None, size: int | None, secret: bool
) -> dict[str, Any]:
    """One of the user's variables as the ``@`` list shows it."""
    return {"name": name, "type": type_name, "kind": kind, "shape": shape, "size": size, "secret": secret}


def variables_message(request_id: str, variables: list[dict[str, Any]], error: str | None) -> dict[str, Any]:
    """The answer to a ``variables`` request: the user's variables, or why there are none."""
    return {"kind": "variables", "requestId": request_id, "variables": variables, "error": error}


def command_message(
    request_id: str, name: str, text: str | None, error: str | None, download: dict[str, str] | None = None
) -> dict[str, Any]:
    """The answer to a ``command`` request: Markdown to show, a file to save, or why it failed."""
    return {"kind": "command", "requestId": request_id, "name": name, "text": text, "download": download, "error": error}


def threads_message(request_id: str | None, current: str, threads: list[dict[str, Any]]) -> dict[str, Any]:
    """The store's threads for the threads panel: the answer to a ``threads`` request (its id), or
    (``request_id`` None) the list again after the threads changed."""
    return {"kind": "threads", "requestId": request_id, "current": current, "threads": threads}


def thread_entry(thread_id: str, title: str, updated_at: float, messages: int, named: bool) -> dict[str, Any]:
    """One thread as the threads panel lists it."""
    return {"threadId": thread_id, "title": title, "updatedAt": updated_at, "messages": messages, "named": named}


def variable_message(request_id: str, name: str, summary: str | None, error: str | None) -> dict[str, Any]:
    """The answer to an ``inspect_variable`` request: the variable's summary, or why there is none."""
    return {"kind": "variable", "requestId": request_id, "name": name, "summary": summary, "error": error}


# The synced traits' entries (declared in wire/_payloads.py), built as dicts too: a chat makes them
# when it starts and whenever one changes.


def pending_tool(
    tool_call_id: str,
    name: str,
    args: Any,
    args_text: str,
    claimed_by: str | None,
    kernel: Literal["approve", "running"] | None,
) -> dict[str, Any]:
    """A frontend tool call waiting for its answer (an entry of the ``pending`` trait)."""
    return {
        "kind": "tool",
        "toolCallId": tool_call_id,
        "name": name,
        "args": args,
        "argsText": args_text,
        "claimedBy": claimed_by,
        "kernel": kernel,
    }


def pending_interrupt(
    interrupt_id: str,
    reason: str,
    message: str | None,
    tool_call_id: str | None,
    name: str | None,
    args: Any,
    response_schema: dict[str, Any] | None,
) -> dict[str, Any]:
    """An interrupt waiting for a ``resume`` (an entry of the ``pending`` trait)."""
    return {
        "kind": "interrupt",
        "interruptId": interrupt_id,
        "reason": reason,
        "message": message,
        "toolCallId": tool_call_id,
        "name": name,
        "args": args,
        "responseSchema": response_schema,
    }


def tool_spec(
    name: str,
    description: str,
    parameters: dict[str, Any],
    ui: str,
    handler: str | None,
    approve: bool,
    app_uri: str | None = None,
) -> dict[str, Any]:
    """A frontend tool as the view sees it (an entry of the ``frontend_tools`` trait)."""
    return {
        "name": name,
        "description": description,
        "parameters": parameters,
        "ui": ui,
        "handler": handler,
        "approve": approve,
        "appUri": app_uri,
    }


def attachment_policy(enabled: bool, accept: list[str], max_bytes: int, max_files: int, max_total_bytes: int) -> dict[str, Any]:
    """What the composer lets a user attach (the ``attachment_policy`` trait)."""
    return {
        "enabled": enabled,
        "accept": accept,
        "maxBytes": max_bytes,
        "maxFiles": max_files,
        "maxTotalBytes": max_total_bytes,
    }


def predict_rules_to_wire(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``chat.predict_state`` (snake_case, as Python writes it) as the views get it."""
    return [{"stateKey": rule["state_key"], "tool": rule["tool"], "toolArgument": rule.get("tool_argument")} for rule in rules]


CONTEXT_PREVIEW_CHARS = 400
"""How much of a context entry's text the view is sent (the agent gets the whole entry)."""
