"""The widget wire, kernel side: every message of docs/wire.md declared once.

Requests from a view are validated here; a payload that does not fit is refused whole
(:class:`BadRequest`: the widget logs it and tells the view), never raised into the kernel. Messages to a view are plain dicts built by the functions below (they are
on the streaming hot path, so no model objects there).
"""

from __future__ import annotations

import functools
import logging
import typing
from typing import Annotated, Any, Literal

from ag_ui.core import (
    AudioInputContent,
    BaseEvent,
    DocumentInputContent,
    EventType,
    ImageInputContent,
    VideoInputContent,
)
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator
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
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True, defer_build=True)


class Hello(_Request):
    """The kernel answers with a `snapshot` addressed to that view."""

    kind: Literal["hello"]
    view_id: str = Field(min_length=1, max_length=200)


MediaPart = Annotated[
    ImageInputContent | AudioInputContent | VideoInputContent | DocumentInputContent, Field(discriminator="type")
]
"""An attachment: an AG-UI 1.0 multimodal content part (`metadata.filename` names its file)."""


class Send(_Request):
    """`chat.send(text)`: a new user turn (queued while a run is active), with the files the user
    attached (pasted, dropped or picked), within the chat's `attachment_policy`."""

    kind: Literal["send"]
    text: str = Field("", max_length=MAX_TEXT)
    attachments: list[MediaPart] = []  # pydantic copies a default per instance

    @model_validator(mode="after")
    def _something_to_send(self) -> Send:
        if not self.text.strip() and not self.attachments:
            raise ValueError("a message needs some text or an attachment")
        return self


class Stop(_Request):
    """`chat.stop()`."""

    kind: Literal["stop"]


class ToolResult(_Request):
    """`chat.respond(toolCallId, result)` for a pending frontend tool call."""

    kind: Literal["tool_result"]
    tool_call_id: str = Field(min_length=1)
    result: Any = None


class Claim(_Request):
    """This view will run a frontend tool's handler: the first claim wins and the pending entry
    names that view (`claimedBy`), so a second tab shows the call as handled elsewhere instead of
    running it again; `takeOver` makes this view the one (the claiming tab was closed). A late
    answer or claim for a call already answered is ignored quietly."""

    kind: Literal["claim"]
    tool_call_id: str = Field(min_length=1)
    view_id: str = Field(min_length=1, max_length=200)
    take_over: bool = False


class Resume(_Request):
    """Answers a pending interrupt."""

    kind: Literal["resume"]
    interrupt_id: str = Field(min_length=1)
    status: Literal["resolved", "cancelled"] = "resolved"
    payload: Any = None


class JsonPatchOp(BaseModel):
    """One RFC 6902 operation (`value`, `from` as the operation needs)."""

    model_config = ConfigDict(
        extra="allow", populate_by_name=True, json_schema_extra={"tsType": "JsonPatchOperation"}, defer_build=True
    )
    op: Literal["add", "remove", "replace", "move", "copy", "test"]
    path: str


class StateEdit(_Request):
    """Applies an RFC 6902 patch to `chat.state` (a view edit)."""

    kind: Literal["state_edit"]
    patch: list[JsonPatchOp] = Field(min_length=1)


class Clear(_Request):
    """`chat.clear()`."""

    kind: Literal["clear"]


class Regenerate(_Request):
    """Drops the last assistant turn and runs again from the last user message."""

    kind: Literal["regenerate"]


class Edit(_Request):
    """Replaces a user message's text, drops what followed, and runs again."""

    kind: Literal["edit"]
    message_id: str = Field(min_length=1)
    text: str = Field(min_length=1, max_length=MAX_TEXT)


class SelectAgent(_Request):
    """`chat.agent = name`: saves the current thread and continues that agent's own thread
    (docs/threads.md); refused with a `notice` during a run or for an unknown name."""

    kind: Literal["select_agent"]
    name: str = Field(min_length=1, max_length=200)


class Asset(_Request):
    """The kernel answers with an `asset` message: the text of the file the view loads on demand
    (`vega`: `agui_widget/static/vega.js`, the chart renderer). Only the names listed here are
    accepted."""

    kind: Literal["asset"]
    name: Literal["vega"]


class RunRecord(_Request):
    """The kernel answers with a `run_record` message: one run as a recording (what was sent, what
    came back, and when), for the event inspector to show and export."""

    kind: Literal["run_record"]
    run_id: str = Field(min_length=1, max_length=200)


Request = Annotated[
    Hello | Send | Stop | ToolResult | Claim | Resume | StateEdit | Clear | Regenerate | Edit | SelectAgent | Asset | RunRecord,
    Field(discriminator="kind"),
]


@functools.cache
def _request_adapter() -> TypeAdapter[Request]:
    """Built when the first request arrives, not at import (building it takes milliseconds)."""
    return TypeAdapter(Request)


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


def run_record_message(run_id: str, recording: str | None, error: str | None) -> dict[str, Any]:
    """The answer to a ``run_record`` request: the run as recording text, or why there is none."""
    return {"kind": "run_record", "runId": run_id, "recording": recording, "error": error}


def asset_message(name: str, source: str | None, error: str | None) -> dict[str, Any]:
    """The answer to an ``asset`` request: the file's text, or why there is none."""
    return {"kind": "asset", "name": name, "source": source, "error": error}


# -- The declarations of what the kernel sends ---------------------------------------------------
#
# The builders above make plain dicts (the streaming path); these models declare the same shapes
# for everything else: the JSON Schema the view's TypeScript types and validators are generated
# from (agui_widget/_wire_schema.py -> js/src/generated/), docs/wire.md's tables, and the tests
# that hold each builder to its declaration. A model's docstring is its row in docs/wire.md.


class _Payload(BaseModel):
    """camelCase on the wire, every field always present (null rather than absent). A default
    here is what the view assumes when a field is missing (its validators fill it in)."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        json_schema_serialization_defaults_required=True,
        defer_build=True,
    )


class WireToolCall(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)
    id: str
    function: dict[str, Any]


class WireMessage(BaseModel):
    """An AG-UI message as it travels (camelCase). The view needs a string id and role; the rest
    is AG-UI's, read defensively."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", json_schema_extra={"tsType": "Message"}, defer_build=True
    )
    id: str
    role: str
    tool_calls: list[WireToolCall] | None = None


class WireEvent(BaseModel):
    """An AG-UI event as it travels; each is checked on its own when applied, by its type."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"tsType": "AguiEvent"}, defer_build=True)
    type: str


class SnapshotMessage(_Payload):
    """The whole truth; a view applies it only if `viewId` is its own or null, and ignores
    `events`/`messages`/`state_patch` until it has one. `messages` includes what a run in progress
    has produced so far (partial text, open tool calls), and the live events that follow continue
    it. `events` is the tail of the event log, for the inspector; it may start in the middle of a
    run."""

    kind: Literal["snapshot"]
    view_id: str | None
    messages: list[WireMessage]
    state: Any
    events: list[WireEvent]


class EventsMessage(_Payload):
    """AG-UI events (camelCase JSON), in order, batched per ~50 ms and flushed at run boundaries;
    consecutive `*_CONTENT` / `TOOL_CALL_ARGS` deltas of one id are merged within a batch. These
    are the events after chunk expansion (what AG-UI calls the events delivered to the
    application), as the kernel reduced them: optional fields absent rather than null, and a null
    that is a value kept (a patch operation's `"value": null`, a CUSTOM event's `value`). They come
    without a framework's raw payloads: `rawEvent`, and a RAW event's `event`, stay in the kernel
    (`chat.events`), since some agents attach a kilobyte and more to every token."""

    kind: Literal["events"]
    events: list[WireEvent]
    times: list[float] = Field(
        default=[],
        description="when the kernel received each event (milliseconds since the epoch, the kernel's clock); a merged delta has "
        "its first part's time; [] when unknown",
    )


class MessagesMessage(_Payload):
    """Splice: the transcript from index `start` to its end is replaced by `messages` (append is
    `start == len`; clear is `start: 0, messages: []`). Sent when the transcript changes outside
    the event stream: a user message, a tool answer, a cell assigning `chat.messages`, clear, edit,
    a switch of thread or agent (with `start: 0`; the state follows as a `state_patch`)."""

    kind: Literal["messages"]
    start: int = Field(ge=0)
    messages: list[WireMessage]


class StatePatchMessage(_Payload):
    """The state changed outside the event stream (a cell assigned `chat.state`, a view edited it):
    an RFC 6902 patch."""

    kind: Literal["state_patch"]
    patch: list[JsonPatchOp]


class CheckMessage(_Payload):
    """Sent at the end of every run: the kernel's transcript length and, for each message from
    `start` on, `[id, role, length]` (the content's length in UTF-16 code units, as JavaScript
    counts; -1 when the content is absent or not a string), and `state`, the fingerprint of the
    shared state: the CRC-32 of its canonical JSON (no spaces, object keys sorted by UTF-16 code
    units, numbers as JavaScript writes them; `agui_widget/_fingerprint.py` and
    `js/src/fingerprint.ts` compute it alike). A view whose copy differs asks again with `hello`
    and gets a snapshot. This keeps the kernel the truth without re-sending a streamed answer or
    the state."""

    kind: Literal["check"]
    count: int = Field(ge=0)
    start: int = Field(ge=0)
    tail: list[tuple[str, str, int]]
    state: Annotated[int, Field(ge=0)] | None = None
    """The shared state's fingerprint; a check without one compares the transcript only."""


class NoticeMessage(_Payload):
    """Something the user should read that is not part of the transcript (a request that was
    refused, say)."""

    kind: Literal["notice"]
    level: Literal["info", "warning", "error"]
    text: str


class RenderMessage(_Payload):
    """What a Python renderer made (docs/generative-ui.md): `key` is `tool:<toolCallId>`
    (`chat.render_tool`, shown instead of that call's card) or `state:<n>` (`chat.render_state`,
    shown after message `after`, or at the end while `after` is null). `bundle` (a MIME bundle)
    and `error` both null removes it. Not part of the transcript: a view that connects gets the
    current renders right after its `snapshot`."""

    kind: Literal["render"]
    key: str
    bundle: dict[str, Any] | None
    error: str | None
    after: str | None


class AssetMessage(_Payload):
    """The answer to an `asset` request: the file's text, or (source null) why there is none. Sent
    on the comm, so every view of the chat receives it; a view that did not ask ignores it. The
    view imports the text as an ES module from a Blob URL and keeps it for the page."""

    model_config = ConfigDict(
        json_schema_extra={  # one of the two is text
            "anyOf": [
                {"type": "object", "properties": {"source": {"type": "string"}}},
                {"type": "object", "properties": {"error": {"type": "string"}}},
            ]
        }
    )
    kind: Literal["asset"]
    name: str
    source: str | None
    error: str | None

    @model_validator(mode="after")
    def _source_or_error(self) -> AssetMessage:
        if self.source is None and self.error is None:
            raise ValueError("an asset answer needs a source or an error")
        return self


class RunRecordMessage(_Payload):
    """The answer to a `run_record` request: the run as recording text (JSON lines: the header, the
    run with its `RunAgentInput`, its events with their times; docs/recordings.md), or (recording
    null) why there is none. Sent on the comm, so every view receives it; one that did not ask
    ignores it."""

    kind: Literal["run_record"]
    run_id: str
    recording: str | None
    error: str | None


KernelMessage = Annotated[
    SnapshotMessage
    | EventsMessage
    | MessagesMessage
    | StatePatchMessage
    | CheckMessage
    | NoticeMessage
    | RenderMessage
    | AssetMessage
    | RunRecordMessage,
    Field(discriminator="kind"),
]


# -- The declarations of the synced traits' payloads ---------------------------------------------


class PendingTool(_Payload):
    """A frontend tool call waiting for its answer."""

    kind: Literal["tool"]
    tool_call_id: str
    name: str
    args: Any = None
    args_text: str = ""
    claimed_by: str | None = Field(None, description="the view that runs its handler, once one claimed it")
    kernel: Literal["approve", "running"] | None = Field(
        None, description="a Python tool's call: waiting for the user's approval, or running in the kernel"
    )


class PendingInterrupt(_Payload):
    """An interrupt waiting for a `resume`."""

    kind: Literal["interrupt"]
    interrupt_id: str
    reason: str = ""
    message: str | None = None
    tool_call_id: str | None = None
    name: str | None = None
    args: Any = None
    response_schema: dict[str, Any] | None = None


Pending = Annotated[PendingTool | PendingInterrupt, Field(discriminator="kind")]


class QueuedMessage(_Payload):
    """A user message sent during a run, waiting for its turn."""

    id: str
    text: str


class ToolSpec(_Payload):
    """A frontend tool as the view sees it. `handler`: the body of an async JavaScript function
    `(args, ctx)`, only when `ui` is "handler"; `ui` "kernel": a Python function the kernel runs."""

    name: str = Field(min_length=1)
    description: str = ""
    parameters: dict[str, Any] = {}  # pydantic copies a default per instance
    ui: Literal["handler", "confirm", "ask", "form", "manual", "kernel"] = "manual"
    handler: str | None = None
    approve: bool = Field(False, description='a "kernel" tool (a Python function) asks Approve / Deny before each call runs')


class AttachmentPolicy(_Payload):
    """What the composer lets a user attach (the kernel holds every message to it too)."""

    enabled: bool = True
    accept: list[str] = Field(default=[], description='MIME types or families ("image/*"); [] for any')
    max_bytes: int = Field(ge=1, description="the largest file, in bytes")
    max_files: int = Field(ge=1, description="files per message")
    max_total_bytes: int = Field(ge=1, description="all of one message's files, in bytes")


class Suggestion(_Payload):
    """A suggestion chip: its label, and what sending it sends."""

    title: str
    message: str


class PredictRule(_Payload):
    """While TOOL_CALL_ARGS of `tool` stream, `state[stateKey]` is the (partial) value of the
    argument `toolArgument`, or the whole arguments when it is null."""

    state_key: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    tool_argument: str | None = None


def predict_rules_to_wire(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``chat.predict_state`` (snake_case, as Python writes it) as the views get it."""
    return [
        PredictRule(state_key=rule["state_key"], tool=rule["tool"], tool_argument=rule.get("tool_argument")).model_dump(
            by_alias=True
        )
        for rule in rules
    ]


class ContextSummary(_Payload):
    """One entry of what the agent is told beside the transcript, as the view lists it: the
    start of its text and its length; a live entry's as read when the last run started (empty
    and 0 before the first)."""

    description: str
    preview: str
    length: int = Field(ge=0)
    live: bool


CONTEXT_PREVIEW_CHARS = 400
"""How much of a context entry's text the view is sent (the agent gets the whole entry)."""


class Traits(BaseModel):
    """Every synced traitlet, by its Python name (the names are attributes; their payloads are
    camelCase like the messages). Each field's description is its row in docs/wire.md."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    status: Literal["idle", "running", "waiting", "error"] = Field(
        description="`waiting`: a frontend tool call or an interrupt needs an answer"
    )
    thread_id: str = Field(description="the AG-UI thread")
    run_id: str = Field(description='the active run\'s id, or ""')
    pending: list[Pending] = Field(description="what the chat waits for: frontend tool calls and interrupts")
    queued: list[QueuedMessage] = Field(description="user messages sent during a run, not yet started")
    frontend_tools: list[ToolSpec] = Field(description="the tools the UI executes or the user answers")
    error: str = Field(description='the last run\'s error message, "" when the last run did not fail')
    agent_names: list[Annotated[str, Field(min_length=1)]] = Field(
        description="the agents of a chat of several agents, in order ([] for one agent: no picker)"
    )
    agent_name: str = Field(description='the active agent\'s name ("" for one agent)')
    suggestions: list[Suggestion] = Field(description="suggestion chips; sending one sends its `message`")
    suggestions_after: str = Field(
        description='"" for starters (shown while the transcript is empty); else the id of the message the '
        "agent's suggestions follow (shown while it is the last message)"
    )
    predict_state: list[PredictRule] = Field(
        description="predictive state: the view applies these rules to `TOOL_CALL_ARGS` itself, as the kernel does, "
        "so nothing extra travels"
    )
    agent_context: list[ContextSummary] = Field(
        description="what the agent is told beside the transcript (`chat.context`), for the view's Context panel"
    )
    height: str = Field(description="the chat's height as a CSS length (`AgentChat(height=...)`; \"\" for the view's default)")
    attachment_policy: AttachmentPolicy = Field(
        description="what the composer takes as attachments (`AgentChat(attachments=...)`)"
    )
    saved_output_id: str = Field(
        description="the display id of the output that keeps the conversation in the notebook; views hide the block "
        'marked `data-agui-transcript="<id>"` while they are shown (docs/threads.md)'
    )


class Marks(BaseModel):
    """What agui-widget marks on messages and events, under `metadata.agui_widget`
    (agui_widget/_marks.py), apart from a producer's own metadata."""

    model_config = ConfigDict(extra="allow", defer_build=True)
    stopped: bool | None = Field(None, description="a message a stop cut short")
    refused: str | None = Field(None, description="a user message the input guard refused: the reason; never sent to an agent")
    display: dict[str, Any] | None = Field(None, description="a rich result's MIME bundle, for the view; the model gets the text")
    internal: bool | None = Field(None, description="a step that is the framework's plumbing, not progress to show")
    truncated: dict[str, Any] | None = Field(None, description="a tool result cut short for the view: how much was shown")
