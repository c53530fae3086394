"""What the kernel sends a view, declared once: its custom messages and its synced traits.

The kernel builds these messages as plain dicts (:mod:`agui_widget.wire._codec`: they sit on the
streaming path); these models declare the same shapes for everything else: the JSON Schema the
view's TypeScript types and validators are generated from (agui_widget/wire/_schema.py ->
js/src/kernel/generated/), docs/wire.md's tables, and the tests that hold each builder to its
declaration. Nothing in a running chat imports this module: building its three dozen classes is
most of what it costs to load (docs/architecture.md, "Start-up").
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from ._requests import MAX_COLOR, JsonPatchOp


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
    units, numbers as JavaScript writes them; `agui_widget/chat/_fingerprint.py` and
    `js/src/mirror/fingerprint.ts` compute it alike). A view whose copy differs asks again with `hello`
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


class VariableEntry(_Payload):
    """One of the user's variables, as the `@` list shows it. A name that looks like a secret (key,
    token, password) comes with its type alone."""

    name: str
    type: str = Field(description="its type's name (`DataFrame`, `int`, `function`)")
    kind: Literal["data", "function", "class"]
    shape: str | None = Field(None, description='its shape or length as text ("(3, 2)", "5 items"), when it has one')
    size: int | None = Field(None, description="its size in memory in bytes, when known")
    secret: bool = False


class VariablesMessage(_Payload):
    """The answer to a `variables` request: the user's variables (no modules, private names or
    IPython's own), or (with `error`) why there are none, such as a chat outside IPython. Sent on
    the comm, so every view receives it; one that did not ask (another `requestId`) ignores it."""

    kind: Literal["variables"]
    request_id: str
    variables: list[VariableEntry]
    error: str | None


class VariableMessage(_Payload):
    """The answer to an `inspect_variable` request: the variable's summary as text, bounded, or
    (summary null) why there is none (no such variable, no namespace). A view sends the summary
    back with the user's message as a text document named `@name`; the kernel knows the
    summaries it gave out and takes those as context, not as files (docs/attachments.md)."""

    kind: Literal["variable"]
    request_id: str
    name: str
    summary: str | None
    error: str | None


class McpAppMessage(_Payload):
    """The answer to an `mcp_app` request: the MCP App's HTML (the view runs it in a sandboxed
    iframe under a strict CSP, docs/generative-ui.md) and the domains its resource's
    `_meta.ui.csp` asks for, or (html null) why there is none. Sent on the comm, so every view
    receives it; one that did not ask (another `requestId`) ignores it."""

    kind: Literal["mcp_app"]
    request_id: str
    tool_call_id: str
    html: str | None
    csp: dict[str, Any] | None = Field(None, description="`connectDomains`, `resourceDomains`, `frameDomains`, `baseUriDomains`")
    error: str | None


class McpResultMessage(_Payload):
    """The answer to an `mcp_call` or `mcp_read` request: the MCP server's result (a
    `CallToolResult` or a `ReadResourceResult`, as MCP writes it), or (result null) why there is
    none; `needsApproval`: the tool asks the user first, and the view may send the call again
    with `approved` once the user said Approve."""

    kind: Literal["mcp_result"]
    request_id: str
    result: dict[str, Any] | None
    error: str | None
    needs_approval: bool = False


class CommandDownload(_Payload):
    """A file the view saves for the user (`/export`: the conversation as Markdown)."""

    filename: str
    mime_type: str
    text: str


class CommandMessage(_Payload):
    """The answer to a `command` request: what the command returned, as Markdown the view shows
    in a card (null: nothing to show), a file to save, or (with `error`) why it failed or that no
    such command exists. Sent on the comm; a view that did not ask ignores it."""

    kind: Literal["command"]
    request_id: str
    name: str
    text: str | None
    download: CommandDownload | None = None
    error: str | None


class ThreadEntry(_Payload):
    """One thread as the threads panel lists it: `title` is the one the user gave (`named`) or the
    start of its first user message ("" for none yet); `updatedAt` its last activity, in seconds
    since the epoch."""

    thread_id: str
    title: str
    updated_at: float
    messages: int = Field(ge=0, description="how many messages it holds")
    named: bool = Field(description="the title is one the user gave (`chat.rename_thread`)")


class ThreadsMessage(_Payload):
    """The store's threads for the threads panel, newest first (the active agent's, as
    `chat.threads()` lists them; the current thread is always among them): the answer to a
    `threads` request (`requestId`), or the list again (`requestId` null) whenever the threads
    change, once a view has asked. Sent on the comm; a view without the panel open ignores it."""

    kind: Literal["threads"]
    request_id: str | None
    current: str = Field(description="the chat's current thread")
    threads: list[ThreadEntry]


KernelMessage = Annotated[
    SnapshotMessage
    | EventsMessage
    | MessagesMessage
    | StatePatchMessage
    | CheckMessage
    | NoticeMessage
    | RenderMessage
    | AssetMessage
    | RunRecordMessage
    | VariablesMessage
    | VariableMessage
    | McpAppMessage
    | McpResultMessage
    | CommandMessage
    | ThreadsMessage,
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
    app_uri: str | None = Field(None, description="an MCP tool's app (`_meta.ui.resourceUri`), which the card shows")

    model_config = ConfigDict(json_schema_extra=lambda schema: _optional(schema, "appUri"))


def _optional(schema: dict[str, Any], name: str) -> None:
    """A field the view may find missing (tool specs written before it existed): not required."""
    required = schema.get("required")
    if isinstance(required, list) and name in required:
        required.remove(name)


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


class RunSetting(_Payload):
    """One run setting the chat's picker offers (`AgentChat(settings=...)`): a `choice` (a select of
    `choices`), a `range` (`min` to `max` by `step`; whole numbers when `integer`) or a `switch`."""

    kind: Literal["choice", "range", "switch"]
    default: str | bool | int | float
    choices: list[str | int | float] | None = None
    min: float | None = None
    max: float | None = None
    step: float | None = None
    integer: bool | None = None


class PredictRule(_Payload):
    """While TOOL_CALL_ARGS of `tool` stream, `state[stateKey]` is the (partial) value of the
    argument `toolArgument`, or the whole arguments when it is null."""

    state_key: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    tool_argument: str | None = None


class ContextSummary(_Payload):
    """One entry of what the agent is told beside the transcript, as the view lists it: the
    start of its text and its length; a live entry's as read when the last run started (empty
    and 0 before the first)."""

    description: str
    preview: str
    length: int = Field(ge=0)
    live: bool


class CommandSpec(_Payload):
    """A slash command the message box offers: its name (without the `/`) and one line saying what it does."""

    name: str
    description: str


class BranchPoint(_Payload):
    """Where the branch shown forks (`chat.branches`): the versions after message `parentId`
    (null: from the start), the one shown (`index`, from 0) of `count`; `kind` "edit" when they
    start with an edited user message, "answer" when they are answers to `parentId`; `at` the
    message a view shows "n of m" under."""

    parent_id: str | None
    message_id: str | None = Field(description="the first message of the version shown (null: it is empty)")
    kind: Literal["answer", "edit"]
    index: int = Field(ge=0)
    count: int = Field(ge=2)
    at: str | None


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
    commands: list[CommandSpec] = Field(
        description="the slash commands the message box completes: the built-ins and `AgentChat(commands=...)`"
    )
    title: str = Field(description='shown in the chat\'s toolbar (`AgentChat(title=...)`; "" for none)')
    welcome: str = Field(
        description='Markdown shown while the transcript is empty, rendered as agent text is (`AgentChat(welcome=...)`; "" '
        "for the view's own line)"
    )
    placeholder: str = Field(description="the message box's placeholder while idle (\"\" for the view's own)")
    avatars: dict[Literal["user", "assistant"], str] = Field(
        description="beside messages, by role: an http(s) URL or a data: URL of an image (drawn as an image), else a "
        "short text such as an emoji; a view draws no other URL"
    )
    assistant_name: str = Field(
        description="the name over the assistant's messages (the agent's own, or `chat.assistant_name`; \"\" for the "
        'active agent\'s name in a chat of several, else "Assistant")'
    )
    context_window: int | None = Field(
        ge=1,
        description="the model's context window in tokens (`AgentChat(context_window=...)`, or the agent's own model "
        "profile), against which a view shows the last turn's input tokens; null when unknown (no meter)",
    )
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
    accent: str = Field(
        max_length=MAX_COLOR,
        description="the chat's accent colour, a CSS colour (`chat.accent`, or a browser tool's `ctx.setAccent`; "
        '"" for the theme\'s): every view sets it as `--agui-accent`',
    )
    attachment_policy: AttachmentPolicy = Field(
        description="what the composer takes as attachments (`AgentChat(attachments=...)`)"
    )
    settings: dict[str, RunSetting] = Field(
        description="the run settings the chat's picker offers, by name, in order (`AgentChat(settings=...)`; {} for no picker)"
    )
    setting_values: dict[str, str | bool | int | float] = Field(
        description="the current thread's run settings, sent as each run's `forwardedProps` under their names; a view "
        "changes them with a `settings` request"
    )
    branch_points: list[BranchPoint] = Field(
        description="where the branch shown forks, in transcript order, between runs (Regenerate and Edit keep what "
        "they replace as versions); a view switches with a `branch` request"
    )
    saved_output_id: str = Field(
        description="the display id of the output that keeps the conversation in the notebook; views hide the block "
        'marked `data-agui-transcript="<id>"` while they are shown (docs/threads.md)'
    )
    revision: int = Field(
        description="grows when the state, the transcript or the status changes, where marimo shows the chat (0 "
        "elsewhere); a view hands each new value back once, unchanged, which is how marimo re-runs the cells that "
        "read `mo.ui.anywidget(chat)`"
    )


class Marks(BaseModel):
    """What agui-widget marks on messages and events, under `metadata.agui_widget`
    (agui_widget/vocabulary/_marks.py), apart from a producer's own metadata."""

    model_config = ConfigDict(extra="allow", defer_build=True)
    stopped: bool | None = Field(None, description="a message a stop cut short")
    refused: str | None = Field(None, description="a user message the input guard refused: the reason; never sent to an agent")
    display: dict[str, Any] | None = Field(None, description="a rich result's MIME bundle, for the view; the model gets the text")
    internal: bool | None = Field(None, description="a step that is the framework's plumbing, not progress to show")
    truncated: dict[str, Any] | None = Field(None, description="a tool result cut short for the view: how much was shown")
    context: str | None = Field(
        None,
        description='on a content part of a user message: context the kernel made, not a file ("variable": an `@` '
        "mention's summary); the attachment policy does not count it",
    )
