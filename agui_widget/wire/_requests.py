"""What a view may send the kernel, declared once (docs/wire.md's requests).

The kernel validates every request against these models (:func:`agui_widget.wire._codec.parse_request`,
which loads this module when the first request arrives); the view's TypeScript types and
validators are generated from them (``make wire``). A model's docstring is its row in docs/wire.md.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from ag_ui.core import AudioInputContent, DocumentInputContent, ImageInputContent, VideoInputContent
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ..vocabulary._feedback import MAX_COMMENT

MAX_TEXT = 1_000_000
"""Largest user message accepted from a view (characters)."""


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
    """`chat.clear(reset_state=resetState)`: forgets the conversation and the agent's suggestions
    (the chat's starter suggestions come back); the shared state is kept, unless `resetState`
    puts back the state the chat started with."""

    kind: Literal["clear"]
    reset_state: bool = False


class Regenerate(_Request):
    """Runs the last turn again from the last user message; the answer it had stays as another
    version (the `branch_points` trait)."""

    kind: Literal["regenerate"]


class Edit(_Request):
    """Replaces a user message's text (any user message) and runs again from there; what it
    replaces stays as another version (the `branch_points` trait)."""

    kind: Literal["edit"]
    message_id: str = Field(min_length=1)
    text: str = Field(min_length=1, max_length=MAX_TEXT)


class Branch(_Request):
    """`chat.show_branch`: show version `index` (from 0) of the conversation after message
    `parentId` (null: from the start), as the `branch_points` trait lists them. Refused with a
    `notice` during a run, or for a fork or a version the chat does not have."""

    kind: Literal["branch"]
    parent_id: str | None = Field(min_length=1, max_length=200)
    index: int = Field(ge=0, le=1000)


class SelectAgent(_Request):
    """`chat.agent = name`: saves the current thread and continues that agent's own thread
    (docs/threads.md); refused with a `notice` during a run or for an unknown name."""

    kind: Literal["select_agent"]
    name: str = Field(min_length=1, max_length=200)


class Asset(_Request):
    """The kernel answers with an `asset` message: the text of the file the view loads on demand
    (`vega`: `agui_widget/static/vega.js`, the chart renderer; `a2ui`: `a2ui.js`, the A2UI surface
    renderer). Only the names listed here are accepted."""

    kind: Literal["asset"]
    name: Literal["vega", "a2ui"]


class RunRecord(_Request):
    """The kernel answers with a `run_record` message: one run as a recording (what was sent, what
    came back, and when), for the event inspector to show and export."""

    kind: Literal["run_record"]
    run_id: str = Field(min_length=1, max_length=200)


class Variables(_Request):
    """The kernel answers with a `variables` message: the user's variables (name, type, shape),
    for the list `@` opens in the message box. Asked when the list opens, not as the user types."""

    kind: Literal["variables"]
    request_id: str = Field(min_length=1, max_length=200)


class InspectVariable(_Request):
    """The kernel answers with a `variable` message: the summary of one variable (a DataFrame's
    shape, dtypes and head, an array's statistics, a repr), bounded, which the message attaches as
    context when the user picks `@name`."""

    kind: Literal["inspect_variable"]
    request_id: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=200)


class RunCode(_Request):
    """The "Run in kernel" button of an answer's code block, once the user said Run: the kernel runs the
    code as the agent's `run_python` tool does (IPython's cell machinery, output bounded) and adds
    it to the transcript as an assistant's `run_python` call and its tool message, so the card
    shows the output, survives a reload and the agent sees it. Refused with a `notice` while a run
    is active or another code run is going on."""

    kind: Literal["run_code"]
    code: str = Field(min_length=1, max_length=MAX_TEXT)


class A2uiUserAction(BaseModel):
    """A user's action on an A2UI surface, as A2UI's client reports it (`A2uiClientAction`)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)
    name: str = Field(min_length=1, max_length=200)
    surface_id: str = Field(min_length=1, max_length=200)
    source_component_id: str = Field("", max_length=200)
    timestamp: str = Field("", max_length=100)
    context: dict[str, Any] = {}


class A2uiAction(_Request):
    """A user's action on an A2UI surface (a button pressed, a form submitted): a new turn (queued
    while a run is active) that gives the agent the action as `@ag-ui/a2ui-middleware` does: the
    run's `forwardedProps.a2uiAction.userAction`, and a `log_a2ui_event` call with its result in the
    history."""

    kind: Literal["a2ui_action"]
    action: A2uiUserAction


class McpApp(_Request):
    """The kernel answers with an `mcp_app` message: the HTML of the MCP App (the MCP Apps
    extension's `ui://` resource) that the tool of call `toolCallId` declares, read from its MCP
    server, with the resource's CSP domains. Refused with an error answer for an unknown call or a
    tool without an app."""

    kind: Literal["mcp_app"]
    request_id: str = Field(min_length=1, max_length=200)
    tool_call_id: str = Field(min_length=1, max_length=200)


class McpCall(_Request):
    """An MCP App in the card of call `toolCallId` calls `name` on the same MCP server (`tools/call`);
    the kernel answers with an `mcp_result` message. A tool the server's `approve` policy asks about
    is refused (`needsApproval`) until the view sends the call again with `approved`, which it does
    once the user said Approve in the card."""

    kind: Literal["mcp_call"]
    request_id: str = Field(min_length=1, max_length=200)
    tool_call_id: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = {}  # pydantic copies a default per instance
    approved: bool = False


class McpRead(_Request):
    """An MCP App in the card of call `toolCallId` reads resource `uri` of the same MCP server
    (`resources/read`); the kernel answers with an `mcp_result` message."""

    kind: Literal["mcp_read"]
    request_id: str = Field(min_length=1, max_length=200)
    tool_call_id: str = Field(min_length=1, max_length=200)
    uri: str = Field(min_length=1, max_length=2000)


class Feedback(_Request):
    """`chat.feedback(messageId, rating, comment)`: a thumbs up or down on an assistant's answer
    (`null` withdraws it), with an optional comment. Kept in the message's metadata
    (`agui_widget.feedback`) and told to `on_feedback`; refused with a `notice` for a message that
    is not an assistant's answer of the transcript, or while a run is active."""

    kind: Literal["feedback"]
    message_id: str = Field(min_length=1, max_length=200)
    rating: Literal["up", "down"] | None
    comment: str | None = Field(None, max_length=MAX_COMMENT)


class Command(_Request):
    """A slash command typed in the message box (`/help`, `/threads`, or one of
    `AgentChat(commands=...)`): the kernel runs it and answers with a `command` message; the
    command is never sent to the agent nor added to the transcript."""

    kind: Literal["command"]
    request_id: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_-]+$")
    args: str = Field("", max_length=MAX_TEXT)


MAX_THREAD_TITLE = 200
"""Longest title a user may give a thread (characters)."""


class ListThreads(_Request):
    """The threads panel asks for the store's threads (the active agent's, as `chat.threads()`
    lists them); the kernel answers with a `threads` message carrying `requestId`, and from then
    on sends one (without an id) to every view whenever the threads change."""

    kind: Literal["threads"]
    request_id: str = Field(min_length=1, max_length=200)


class SwitchThread(_Request):
    """`chat.switch(threadId)`: continue a stored thread. Refused with a `notice` while a run is
    active or waiting."""

    kind: Literal["switch_thread"]
    thread_id: str = Field(min_length=1, max_length=200)


class NewThread(_Request):
    """`chat.new_thread()`: start an empty thread. Refused with a `notice` while a run is active or waiting."""

    kind: Literal["new_thread"]


class RenameThread(_Request):
    """`chat.rename_thread(threadId, title)`: give a thread a title of the user's own ("" brings
    back the one taken from its first message). Refused with a `notice` for a thread the store
    does not hold, or while a run is active or waiting."""

    kind: Literal["rename_thread"]
    thread_id: str = Field(min_length=1, max_length=200)
    title: str = Field(max_length=MAX_THREAD_TITLE)


class DeleteThread(_Request):
    """`chat.delete_thread(threadId)`: delete a thread from the store (the current one: the chat
    goes on in a new, empty thread). Refused with a `notice` for a thread the store does not hold,
    or while a run is active or waiting."""

    kind: Literal["delete_thread"]
    thread_id: str = Field(min_length=1, max_length=200)


MAX_COLOR = 200
"""Longest accent colour accepted (characters)."""
_COLOR_TEXT = re.compile(r"[A-Za-z0-9#(),.%/+\- ]*")
_COLOR_FUNCTIONS = frozenset(
    {"rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch", "oklab", "oklch", "color", "color-mix", "light-dark"}
    | {"calc", "min", "max", "clamp"}
)
_FUNCTION_NAME = re.compile(r"([A-Za-z-]*)\(")


def css_color(value: str) -> str:
    """``value`` as the chat's accent: "" (the theme's), a colour name, a hex colour, or a colour
    function (``rgb()``, ``oklch()``, ``color-mix()`` ...). Views set it as a CSS custom property,
    so anything that could carry other CSS (``;``, braces, quotes, ``url()``, ``var()``) is
    refused with a ValueError."""
    text = value.strip()
    if len(text) > MAX_COLOR:
        raise ValueError(f"a colour is at most {MAX_COLOR} characters")
    if not _COLOR_TEXT.fullmatch(text):
        raise ValueError(f"{text!r} is not a CSS colour: only letters, digits, spaces and # ( ) , . % / + - may appear")
    for name in _FUNCTION_NAME.findall(text):
        if name.lower() not in _COLOR_FUNCTIONS:
            raise ValueError(f"{text!r} is not a CSS colour: {name or 'a bare'}() is not a colour function")
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            break
    if depth != 0:
        raise ValueError(f"{text!r} is not a CSS colour: its parentheses do not pair")
    return text


class SetAccent(_Request):
    """`chat.accent = color` (a browser tool's `ctx.setAccent`): the kernel keeps the chat's accent
    colour and every view shows it, in every tab and after a reload; "" brings back the theme's.
    Refused with a `notice` unless `color` is a CSS colour: a name, a hex colour, or a colour
    function (`rgb()`, `oklch()`, `color-mix()` ...), never `url()`, `var()`, `;`, braces or quotes."""

    kind: Literal["set_accent"]
    color: str = Field(max_length=MAX_COLOR)

    @field_validator("color")
    @classmethod
    def _a_colour(cls, value: str) -> str:
        return css_color(value)


class Settings(_Request):
    """The run settings the user picked in the chat's picker (`AgentChat(settings=...)`): checked by
    the kernel against the spec, kept with the thread and sent as the next runs' `forwardedProps`;
    a value the spec does not take is refused with a `notice` and nothing changes."""

    kind: Literal["settings"]
    values: dict[str, str | bool | int | float] = Field(max_length=20)


Request = Annotated[
    Hello
    | Send
    | Stop
    | ToolResult
    | Claim
    | Resume
    | StateEdit
    | Clear
    | Regenerate
    | Edit
    | SelectAgent
    | Asset
    | RunRecord
    | SetAccent
    | Settings
    | Variables
    | InspectVariable
    | RunCode
    | A2uiAction
    | McpApp
    | McpCall
    | McpRead
    | Feedback
    | Branch
    | Command
    | ListThreads
    | SwitchThread
    | NewThread
    | RenameThread
    | DeleteThread,
    Field(discriminator="kind"),
]
