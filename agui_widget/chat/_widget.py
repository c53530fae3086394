"""``AgentChat``: the widget, the session's listener, and the kernel end of the wire.

The kernel owns the conversation. ``messages`` and ``state`` are traitlets a cell can observe and
assign; they reach views as a snapshot when a view connects and as AG-UI events, splices and JSON
patches afterwards (docs/wire.md), never as whole values per token.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import os
import pathlib
import re
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anywidget
import jsonpatch
import jsonpointer
import traitlets
from ag_ui.core import BaseEvent, Context, EventType, Tool
from pydantic import ValidationError

from ..inputs._attachments import AttachmentPolicy, attachment_parts, with_attachments
from ..inputs._live_context import LiveContext, coerce_context, summaries
from ..inputs._tools import FrontendTool, coerce_tools
from ..pipeline._eventlog import Record, revive
from ..session._run import Pending, Run
from ..session._session import AlreadyAnswered, Session, SessionListener, checked_props, normalize_messages
from ..stores._store import ThreadStore
from ..vocabulary._hooks import Guard, Hook, Hooks
from ..vocabulary._state_patch import apply_patch, diff, json_copy, mirror
from ..wire import _codec
from ..wire._transport import DEFAULT_WINDOW, BatchingTransport
from ._export import SavedOutput, to_json_document, to_markdown
from ._genui import GenerativeUI, StateRenderer, ToolRenderer, normalize_suggestions
from ._predict import coerce_rules
from ._threads import Threads

if TYPE_CHECKING:
    from ..wire import _requests

log = logging.getLogger("agui_widget")

TOOL_CALL_ARGS = EventType.TOOL_CALL_ARGS.value

_STATIC = pathlib.Path(__file__).parent.parent / "static"
_MISSING_BUNDLE = """
export default { render({ el }) {
  el.textContent = "agui-widget: the front end is not built. Reinstall with `pip install -e .` (needs Node.js), or run `npm ci && npm run build` in js/.";
} };
"""
_RIDES_THE_BATCH = object()
"""The traits' refresh runs when the transport's waiting batch goes (``BatchingTransport.after_flush``)."""
SNAPSHOT_EVENT_TAIL = 500
"""How many recent events a connecting view gets for its event inspector."""


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


def _bundle(name: str, fallback: str) -> pathlib.Path | str:
    path = _STATIC / name
    return path if path.exists() else fallback


class AgentChat(anywidget.AnyWidget, SessionListener):
    """An AG-UI agent chat in a notebook.

    ``AgentChat()`` runs the built-in demo agent; ``AgentChat(agent)`` runs any AG-UI agent (an
    object with ``run(RunAgentInput)``), or a plain function of the transcript. ``tools`` are the
    tools the agent may call that live in the notebook: Python functions the kernel runs, and
    frontend tools the UI (or Python, via :meth:`respond`) answers.
    """

    _esm = _bundle("widget.js", _MISSING_BUNDLE)
    _css = _bundle("widget.css", "")

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

    messages: traitlets.List[dict[str, Any]] = traitlets.List(help="the transcript: AG-UI messages as camelCase dicts")
    state = traitlets.Any(None, allow_none=True, help="the shared state (any JSON value)")

    def __init__(
        self,
        agent: Any = None,
        *,
        tools: Iterable[FrontendTool | Tool | Mapping[str, Any] | Callable[..., Any]] = (),
        state: Any = None,
        thread_id: str | None = None,
        messages: Sequence[Mapping[str, Any]] | None = None,
        context: Iterable[Context | LiveContext | Mapping[str, Any] | Callable[[], Any]] = (),
        batch_window: float = DEFAULT_WINDOW,
        store: str | os.PathLike[str] | ThreadStore | None = None,
        guard: Guard | None = None,
        on_run_start: Hook | None = None,
        on_event: Hook | None = None,
        on_run_end: Hook | None = None,
        on_error: Hook | None = None,
        suggestions: Sequence[str | Mapping[str, str]] = (),
        predict_state: Sequence[Mapping[str, str]] = (),
        height: int | str | None = None,
        forwarded_props: Mapping[str, Any] | None = None,
        attachments: bool | Mapping[str, Any] | AttachmentPolicy = True,
        keep_conversation: bool | None = None,
        record: str | os.PathLike[str] | None = None,
        headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        if guard is not None and not callable(guard):
            raise TypeError(f"guard must be a function of the user's message (or None), not {type(guard).__name__}")
        hooks = Hooks(on_run_start=on_run_start, on_event=on_event, on_run_end=on_run_end, on_error=on_error)
        given = None if messages is None else normalize_messages(messages)
        self._threads = Threads(agent, store, thread_id, given, state, headers)
        start = self._threads.start
        predict_rules = coerce_rules(predict_state)
        policy = AttachmentPolicy.of(attachments)
        frontend = self._with_agents_tools(coerce_tools(tools))
        self._syncing = True  # the initial values come from the session: nothing to echo back
        self._loop = _running_loop()
        self._refresh_handle: asyncio.TimerHandle | object | None = None
        """The traits' refresh, when one is due: its timer, or :data:`_RIDES_THE_BATCH`."""
        self._fingerprinted: tuple[Any, int] | None = None
        self._refused_traits: set[str] = set()
        self._assigning_state = False
        """Set while an assignment to ``chat.state`` reaches the session: the trait holds the value."""
        self._window = batch_window
        self._starters = normalize_suggestions(suggestions)
        """The suggestions a cleared chat shows again (given here or assigned from Python)."""
        self._initial_state = copy.deepcopy({} if state is None else state)
        """What ``clear(reset_state=True)`` puts back."""
        self._transport = BatchingTransport(self._send_custom, window=batch_window)
        self._session = Session(
            start.agent,
            tools=frontend,
            thread_id=start.thread_id,
            state={} if start.state is None else start.state,
            messages=start.messages,
            context=coerce_context(context),
            listener=self,
            hooks=hooks,
            guard=guard,
            attachment_policy=policy,
        )
        self._session.forwarded_props = checked_props(forwarded_props, "AgentChat(forwarded_props=...)") or {}
        if record is not None:
            from ..pipeline._recording import RecordingFile

            self._session.recordings.sink = RecordingFile(record, lambda: self._recording_header(None))
        self._state_source: Any = self._session.state
        self._genui = GenerativeUI(self._send_custom_flushed)
        self._genui.set_predict_rules(predict_rules)
        self._rendered_state: Any = self._session.state
        # Trait values given here are in the comm's first message, not in updates right after it.
        super().__init__(
            thread_id=self._session.thread_id,
            frontend_tools=[tool.spec() for tool in frontend],
            messages=list(self._session.messages),
            state=copy.deepcopy(self._session.state),
            agent_names=list(self._threads.agents),
            agent_context=summaries(self._session.context),
            agent_name=self._threads.agent_name or "",
            suggestions=normalize_suggestions(suggestions),
            predict_state=[rule.as_dict() for rule in predict_rules],
            saved_output_id=f"agui-transcript-{uuid.uuid4().hex}",
            height=css_length(height),
            attachment_policy=policy.to_wire(),
            **kwargs,
        )
        self._syncing = False
        self._saved = SavedOutput(
            self._session, self.saved_output_id, header=lambda: repr(self), alive=lambda: self.comm is not None
        )
        self._keep_conversation = _hides_kept_outputs() if keep_conversation is None else bool(keep_conversation)
        """Whether displaying the chat also leaves the Markdown copy of the conversation (docs/threads.md)."""
        self._threads.attach(self._session, switched=self._thread_switched, notice=self.session_notice)
        self.on_msg(self._on_view_message)
        self._counts_revisions = getattr(self.comm, "kernel", None) == "marimo"
        """marimo re-runs the cells that read a widget's value only when a view sends that value,
        so there a change of the state, the transcript or the status grows ``revision``, which a
        view hands back once (docs/wire.md). Elsewhere nothing reads it, and it stays 0."""
        self._revision_due = False

    def _changed_for_hosts(self) -> None:
        """Grow ``revision`` once for whatever changed in this turn of the loop (a run's end
        changes the transcript, the state and the status together: one re-run, not three)."""
        if not self._counts_revisions or self._revision_due:
            return
        self._revision_due = True
        try:
            asyncio.get_running_loop().call_soon(self._grow_revision)
        except RuntimeError:  # no loop running: a cell changed the chat
            self._grow_revision()

    def _grow_revision(self) -> None:
        self._revision_due = False
        with self._sync():
            self.revision += 1

    def _thread_switched(self, thread_id: str, agent_name: str) -> None:
        with self._sync(), self.hold_sync():
            self.thread_id = thread_id
            self.agent_name = agent_name

    def _send_custom(self, message: dict[str, Any]) -> None:
        # ``send`` is the chat's own verb here; the widget's custom message goes through the base.
        anywidget.AnyWidget.send(self, message)

    def _send_custom_flushed(self, message: dict[str, Any]) -> None:
        self._transport.send(message)

    # -- the Python API -----------------------------------------------------------------------

    @property
    def agent(self) -> Any:
        """The agent this chat runs (after wrapping, for plain callables).

        With several agents, assigning a name (``chat.agent = "coder"``) selects that agent.
        """
        return self._session.agent

    @agent.setter
    def agent(self, name: str) -> None:
        self.select_agent(name)

    # -- threads and agents (docs/threads.md) -----------------------------------------------------

    @property
    def agents(self) -> dict[str, Any]:
        """The agents by name (empty for a chat of one agent)."""
        return dict(self._threads.agents)

    @property
    def store(self) -> ThreadStore:
        """Where threads are kept (in memory unless ``store=`` was given)."""
        return self._threads.store

    def select_agent(self, name: str) -> None:
        """Make ``name`` the active agent; its own thread (transcript and state) comes back.

        Refused while a run is active or waiting; the current thread is saved first.
        """
        self._threads.select_agent(name)

    def threads(self) -> list[dict[str, Any]]:
        """The threads in the store (the active agent's, with several agents), newest first.

        Each: ``thread_id``, ``title`` (the start of the first user message), ``updated`` (a UTC
        datetime), ``messages`` (how many), ``agent``.
        """
        return self._threads.listing()

    def switch(self, thread_id: str) -> None:
        """Continue thread ``thread_id`` from the store, or start it empty when it is new.

        The current thread is saved first. Refused while a run is active or waiting.
        """
        self._threads.switch(thread_id)

    def new_thread(self, thread_id: str | None = None) -> str:
        """Start an empty thread (a fresh id unless given), switch to it, and return its id."""
        return self._threads.new_thread(thread_id)

    # -- export ---------------------------------------------------------------------------------

    def to_markdown(self) -> str:
        """The conversation (and the state, when there is one) as Markdown."""
        return to_markdown(self.messages, state=self.state)

    def to_json(self, indent: int | None = 2) -> str:
        """The thread as JSON: ``threadId``, ``agent``, ``messages`` (AG-UI), ``state``.

        ``AgentChat(agent, thread_id=d["threadId"], messages=d["messages"], state=d["state"])``
        with ``d = json.loads(text)`` continues it.
        """
        document = to_json_document(self.thread_id, self.messages, self.state, self._threads.agent_name)
        return json.dumps(document, ensure_ascii=False, indent=indent)

    # -- recordings -----------------------------------------------------------------------------

    def to_recording(self, label: str | None = None) -> str:
        """The runs this chat keeps (its newest 100) as a recording: what each run sent the agent
        (its ``RunAgentInput``) and the events that came back, with their times (docs/recordings.md).

        ``ReplayAgent`` plays it back with no model and no network. ``label`` says what it is,
        e.g. which model answered; ``AgentChat(record=path)`` writes every run as it ends instead.
        """
        from ..pipeline._recording import recording_text

        return recording_text(self._recording_header(label), self._session.recordings.runs)

    def save_recording(self, path: str | os.PathLike[str], label: str | None = None) -> pathlib.Path:
        """Write :meth:`to_recording` to ``path`` (replacing the file) and return the path."""
        target = pathlib.Path(path)
        target.write_text(self.to_recording(label), encoding="utf-8")
        return target

    def _recording_header(self, label: str | None) -> dict[str, Any]:
        from ..pipeline._recording import header

        agent = self._session.agent
        name = self._threads.agent_name or getattr(agent, "name", None) or type(agent).__name__
        return header(label=label, agent=str(name), tools=[tool.spec() for tool in self._session.tools])

    def _ipython_display_(self) -> None:
        """Show the chat, then an output that keeps the conversation for viewers without a kernel
        (docs/threads.md)."""
        import IPython.display

        bundle = super()._repr_mimebundle_()
        if bundle is not None:
            data, metadata = bundle if isinstance(bundle, tuple) else (bundle, None)
            IPython.display.display(data, metadata=metadata, raw=True)
        if self._keep_conversation:
            self._saved.display()

    def send(
        self,
        content: str | list[dict[str, Any]],
        *,
        attachments: Iterable[Any] = (),
        forwarded_props: Mapping[str, Any] | None = None,
    ) -> Run:
        """Add a user message and start a run; returns at once. ``await`` the Run to wait for it.

        ``content`` is text, or AG-UI content parts (``{"type": "text", "text": ...}``,
        ``{"type": "image", "source": {...}}``, ...). ``attachments``: files sent with it, as
        paths, bytes, PIL images, matplotlib figures, anything IPython shows as an image, or
        content parts (within :attr:`attachment_policy`). ``forwarded_props`` reach this turn's
        runs as ``RunAgentInput.forwardedProps``, over the chat's own (:attr:`forwarded_props`).
        """
        parts = attachment_parts(attachments)
        if parts:
            content = with_attachments(content, parts) if isinstance(content, str) else [*content, *parts]
        return self._session.send(content, forwarded_props)

    @property
    def forwarded_props(self) -> dict[str, Any]:
        """Sent with every run as ``RunAgentInput.forwardedProps``: settings an agent may read (a
        model name, a temperature). Assignable; a ``send``'s own props win over these."""
        return dict(self._session.forwarded_props)

    @forwarded_props.setter
    def forwarded_props(self, props: Mapping[str, Any] | None) -> None:
        self._session.forwarded_props = checked_props(props, "chat.forwarded_props") or {}

    def stop(self) -> None:
        """Stop the active run: what it said so far stays, closed and marked as stopped."""
        self._session.stop()

    def respond(self, tool_call_id: str, result: Any = None) -> None:
        """Answer a pending frontend tool call (or approve an interrupt with ``result``); for a
        Python tool that asks for approval, ``True`` runs it and ``False`` denies it."""
        self._session.respond(tool_call_id, result)

    def resume(self, interrupt_id: str, payload: Any = None, *, cancel: bool = False) -> None:
        """Answer a pending interrupt; the agent continues with ``RunAgentInput.resume``."""
        self._session.resume(interrupt_id, payload, "cancelled" if cancel else "resolved")

    @property
    def pending_tool_calls(self) -> list[dict[str, Any]]:
        """Frontend tool calls waiting for an answer: ``toolCallId``, ``name``, ``args``; a Python
        tool's call is here while it waits for approval (``kernel == "approve"``), not while the
        kernel runs it (nothing can answer it then)."""
        return [p.to_wire() for p in self._session.pending if p.kind == "tool" and p.kernel != "running"]

    @property
    def interrupts(self) -> list[dict[str, Any]]:
        """Interrupts waiting for a decision: ``interruptId``, ``message``, ``args``..."""
        return [p.to_wire() for p in self._session.pending if p.kind == "interrupt"]

    @property
    def events(self) -> list[BaseEvent]:
        """This chat's AG-UI event log (ag_ui.core objects), oldest first: the newest 20,000, and no
        more than about 4 MB of them as JSON (the newest event is always kept)."""
        return self._session.events

    @property
    def tools(self) -> list[FrontendTool]:
        """The frontend tools the agent is offered: the chat's, and those its agents bring.
        Assignable at any time; the next run sees the new list."""
        return list(self._session.tools)

    @tools.setter
    def tools(self, tools: Iterable[FrontendTool | Tool | Mapping[str, Any] | Callable[..., Any]]) -> None:
        frontend = self._with_agents_tools(coerce_tools(tools))
        self._session.tools = frontend
        self.frontend_tools = [tool.spec() for tool in frontend]

    def _with_agents_tools(self, frontend: list[FrontendTool]) -> list[FrontendTool]:
        """``frontend`` and the frontend tools the chat's agents bring (the demo agent does); a
        tool of the chat's wins over an agent's of the same name."""
        for candidate in (self._threads.agents or {"": self._threads.start.agent}).values():
            named = {tool.name for tool in frontend}
            frontend = [t for t in coerce_tools(getattr(candidate, "frontend_tools", ())) if t.name not in named] + frontend
        return frontend

    @property
    def context(self) -> list[Context | LiveContext]:
        """What the agent is told beside the transcript (``RunAgentInput.context``). Assignable at
        any time; a ``LiveContext`` (or a function, or a dict whose value is a function) is read
        when each run starts, at most 20,000 characters of it."""
        return list(self._session.context)

    @context.setter
    def context(self, entries: Iterable[Context | LiveContext | Mapping[str, Any] | Callable[[], Any]]) -> None:
        self._session.context = coerce_context(entries)
        self.agent_context = summaries(self._session.context)

    def session_context(self, read: Sequence[Context | None]) -> None:
        self.agent_context = summaries(self._session.context, list(read))

    def session_run_starting(self) -> None:
        self._take_in_state_changed_in_place()

    def _take_in_state_changed_in_place(self) -> None:
        """Take in what a cell changed in ``chat.state`` in place (``chat.state["budget"] = 999``)
        as an assignment would be, so the agent, the views and ``chat.state`` never disagree.

        The trait holds a private copy of ``_state_source``, which the session replaces and never
        changes, so any difference between the two is the cell's own change. It is applied as a
        patch, so what the agent changed since the trait was last refreshed stays beside it; an
        operation the agent's change made moot (under a key it removed) is dropped, with a notice."""
        held, source = self.state, self._state_source
        if held == source:  # one comparison in C, made at a run's start and a view's hello only
            return
        applicable = [{**op, "value": json_copy(op["value"])} if "value" in op else op for op in diff(source, held)]
        dropped: list[str] = []
        if self._session.state is not source:  # the agent changed it since: keep what still applies
            applicable, dropped = _still_applicable(self._session.state, applicable)
        if applicable:
            self._session.apply_state_patch(applicable)
        if dropped:
            paths = ", ".join(dropped)
            log.warning("agui-widget: changes made to chat.state in place no longer apply and were dropped: %s", paths)
            self.session_notice(
                "warning",
                f"Changes made to chat.state in place no longer apply (the agent changed the state) and were dropped: {paths}",
            )
            self._refresh_traits()  # the chat's copy follows the session again, without them

    @property
    def active_run(self) -> Run | None:
        return self._session.active

    def clear(self, reset_state: bool = False) -> None:
        """Forget the conversation and the agent's suggestions (the starters come back). Stops an
        active run. The state stays, unless ``reset_state``: then it is the state the chat started
        with again (``AgentChat(state=...)``, or ``{}``)."""
        self._session.clear()
        with self._sync(), self.hold_sync():
            self.suggestions = list(self._starters)
            self.suggestions_after = ""
        if reset_state:
            self.state = copy.deepcopy(self._initial_state)

    def update_state(self, changes: Mapping[str, Any] | None = None, /, **keys: Any) -> None:
        """Set some top-level keys of a dict state; the view and the next run see them."""
        current = self.state if isinstance(self.state, dict) else {}
        self.state = {**current, **(changes or {}), **keys}

    def regenerate(self) -> Run:
        """Run the last user message again, dropping the answer it got."""
        index = _last_index(self.messages, "user")
        if index is None:
            raise ValueError("there is no user message to regenerate an answer for")
        return self._session.truncate_and_send(index, self.messages[index]["content"])

    def edit(self, message_id: str, text: str) -> Run:
        """Replace a user message's text, drop what followed it, and run again; the message's
        attachments go with the new text."""
        for index, message in enumerate(self.messages):
            if message.get("id") == message_id and message.get("role") == "user":
                content = message.get("content")
                media = (
                    [p for p in content if isinstance(p, dict) and p.get("type") != "text"] if isinstance(content, list) else []
                )
                return self._session.truncate_and_send(index, with_attachments(text, media))
        raise KeyError(f"no user message has id {message_id!r}")

    # -- generative UI (docs/generative-ui.md) --------------------------------------------------

    def render_tool(self, name: str, fn: ToolRenderer | None = None) -> Any:
        """Show tool ``name``'s calls as ``fn(args, result)`` returns them, instead of the default
        card: a str (Markdown), ``HTML(...)``, or anything IPython can display; None keeps the card.

        ``fn`` is called when the arguments are complete (``result`` None) and again with the
        result. Also a decorator: ``@chat.render_tool("get_weather")``.
        """
        if not isinstance(name, str) or not name:
            raise ValueError("render_tool needs the tool's name")

        def register(fn: ToolRenderer) -> ToolRenderer:
            if not callable(fn):
                raise TypeError(f"render_tool needs a function of (args, result), not {type(fn).__name__}")
            self._genui.add_tool_renderer(name, fn, self._session.messages)
            return fn

        return register if fn is None else register(fn)

    def render_state(self, fn: StateRenderer | None = None, key: str | None = None) -> Any:
        """Show ``fn(state)`` (or ``fn(state[key])``) live in the chat, re-rendered as the state
        changes. Also a decorator: ``@chat.render_state(key="steps")``."""
        if fn is not None and not callable(fn):
            raise TypeError(f"render_state needs a function of the state, not {type(fn).__name__}")

        def register(fn: StateRenderer) -> StateRenderer:
            last = self._session.messages[-1].get("id") if self._session.messages else None
            self._genui.add_state_renderer(fn, key, self._session.state, None if self._session.active else last)
            return fn

        return register if fn is None else register(fn)

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

    @traitlets.validate("predict_state")
    def _validate_predict_state(self, proposal: Any) -> list[dict[str, str]]:
        try:
            rules = coerce_rules(proposal["value"])
        except (TypeError, ValueError) as exc:
            raise traitlets.TraitError(str(exc)) from None
        self._genui.set_predict_rules(rules)
        return [rule.as_dict() for rule in rules]

    # -- traitlets <-> session ----------------------------------------------------------------

    @traitlets.validate("messages")
    def _validate_messages(self, proposal: Any) -> list[dict[str, Any]]:
        """An assignment reaches the session here, not in an observer: traitlets tells observers
        only when the new list differs from the trait's, and after a dict of ``chat.messages`` was
        changed in place (the trait holds the session's own dicts) it does not; the session tells
        what changed (:meth:`Session.replace_messages`, which costs what changed)."""
        if self._syncing:
            return proposal["value"]
        if self._session.active is not None:
            raise traitlets.TraitError("chat.messages cannot be assigned while a run is active; call chat.stop() first")
        try:
            self._session.replace_messages(proposal["value"])
        except ValidationError as exc:
            raise traitlets.TraitError(f"chat.messages takes AG-UI messages: {exc}") from None
        return list(self._session.messages)

    @traitlets.observe("state")
    def _state_assigned(self, change: Any) -> None:
        if not self._syncing:
            self._assigning_state = True  # the trait already holds the value: no copy of it to make
            try:
                self._session.set_state(change["new"])
            finally:
                self._assigning_state = False
            self._state_source = self._session.state

    @contextlib.contextmanager
    def _sync(self) -> Iterator[None]:
        """Trait writes that come from the session, so observers do not echo them back."""
        outer, self._syncing = self._syncing, True
        try:
            yield
        finally:
            self._syncing = outer

    def _refresh_traits(self) -> None:
        self._refresh_handle = None
        with self._sync():
            self.messages = list(self._session.messages)
            if self._assigning_state:
                self._state_source = self._session.state
            elif self._session.state is not self._state_source:
                # A copy: a cell that changes chat.state in place must not change, unseen, the
                # state the views and the agent share (assign or update_state to share it). Only
                # what the session replaced since is copied again (_state_patch.mirror).
                previous, self._state_source = self._state_source, self._session.state
                self.state = mirror(self._session.state, previous, self.state)
        if self._session.state is not self._rendered_state:
            self._rendered_state = self._session.state
            self._genui.state_changed(self._session.state)
            self._changed_for_hosts()

    def _schedule_refresh(self) -> None:
        if self._refresh_handle is not None:
            return
        if self._transport.after_flush(self._refresh_traits):  # one wake-up for the batch and the traits
            self._refresh_handle = _RIDES_THE_BATCH
            return
        try:
            self._refresh_handle = asyncio.get_running_loop().call_later(self._window, self._refresh_traits)
        except RuntimeError:
            self._refresh_traits()

    # -- SessionListener ----------------------------------------------------------------------

    def session_events(self, events: Sequence[BaseEvent], records: Sequence[tuple[Record, int]] = ()) -> None:
        transport = self._transport
        text_only = len(records) == len(events)
        if text_only:  # a plain delta is already three strings: no second look at the event
            for (record, _size), event in zip(records, events, strict=True):
                if type(record) is tuple:
                    transport.delta(*record)
                    text_only = text_only and record[0] != TOOL_CALL_ARGS
                else:
                    transport.event(_codec.event_to_wire(event))
                    text_only = False
        else:
            for event in events:
                transport.event(_codec.event_to_wire(event))
        if not text_only:  # text deltas (most of a stream) predict no state and render no tool
            session = self._session
            predicted = self._genui.events(events, lambda: session.messages, session.state)
            if predicted is not session.state:
                session.state = predicted  # the views predict the same from the same events
        self._schedule_refresh()

    def session_delta(self, record: tuple[str, str, str], size: int) -> None:
        if record[0] == TOOL_CALL_ARGS:  # arguments may predict state or draw a tool as they stream
            self.session_events([revive(record)], [(record, size)])
            return
        self._transport.delta(*record)
        if self._refresh_handle is None:
            self._schedule_refresh()

    def session_messages(self, start: int) -> None:
        self._transport.send(_codec.messages_message(start, self._session.messages[start:]))
        self._threads.changed()
        self._genui.messages_added(self._session.messages, start)
        self._refresh_traits()
        self._saved.changed()
        self._changed_for_hosts()

    def session_state(self, patch: list[dict[str, Any]]) -> None:
        self._transport.send(_codec.state_patch_message(patch))
        self._threads.changed()
        self._refresh_traits()
        self._saved.changed()

    def session_run_ended(self, start: int) -> None:
        messages = self._session.messages
        self._transport.send(_codec.check_message(messages, min(start, len(messages)), self._state_fingerprint()))
        self._threads.dirty = True
        self._refresh_traits()
        self._changed_for_hosts()
        suggested = self._genui.run_ended(messages, self._session.state)
        if isinstance(suggested, list):
            try:
                items = normalize_suggestions(suggested)
            except (TypeError, ValueError) as exc:
                log.warning("agui-widget: the agent's suggestions were ignored: %s", exc)
            else:
                with self._sync(), self.hold_sync():
                    self.suggestions = items
                    self.suggestions_after = messages[-1].get("id", "") if messages else ""

    def _state_fingerprint(self) -> int:
        """The state's fingerprint, computed again only when the state is a new object (the
        session replaces its state, never changes it in place)."""
        state = self._session.state
        if self._fingerprinted is None or self._fingerprinted[0] is not state:
            from ._fingerprint import fingerprint  # loaded with the first run's end

            self._fingerprinted = (state, fingerprint(state))
        return self._fingerprinted[1]

    def session_status(self) -> None:
        self._transport.flush()
        session = self._session
        with self.hold_sync():
            self.status = session.status
            self.run_id = session.run_id
            self.error = session.error
            self.pending = [p.to_wire() for p in session.pending]
            self.queued = [{"id": run.id, "text": run.text} for run in session.queue]
        self._changed_for_hosts()
        self._threads.turn_may_have_ended()
        self._saved.when_idle()

    def session_notice(self, level: Any, text: str) -> None:
        self._transport.send(_codec.notice_message(level, text))

    # -- requests from views ------------------------------------------------------------------

    def _on_view_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        # JupyterLab may deliver comm messages on a kernel subshell thread (ipykernel >= 7).
        # Runs, futures and timers live on the loop the chat was made on: hand the request there.
        loop = self._loop
        if loop is not None and _running_loop() is not loop:
            try:
                loop.call_soon_threadsafe(self._handle_view_message, content)
            except RuntimeError:  # that loop is closed
                log.warning("agui-widget: a view request arrived after the kernel's loop closed")
            return
        self._handle_view_message(content)

    def _handle_view_message(self, content: Any) -> None:
        try:
            request = _codec.parse_request(content)
        except _codec.BadRequest as bad:
            log.warning("agui-widget: ignored a malformed %s request from a view: %s", bad.kind or "unknown", bad.reason)
            if bad.kind is not None:  # one of ours, so the person at that view should know
                self._transport.send(_codec.notice_message("warning", f"{bad.kind}: {bad.reason}"))
            return
        try:
            self._handle(request)
        except AlreadyAnswered as late:  # answered in another view first: nothing to tell this one
            log.debug("agui-widget: the view's %r request came late: %s", request.kind, late)
        except (
            KeyError,
            ValueError,
            RuntimeError,
            TypeError,
            jsonpatch.JsonPatchException,
            jsonpointer.JsonPointerException,
        ) as exc:
            log.warning("agui-widget: the view's %r request was refused: %s", request.kind, exc)
            self._transport.send(_codec.notice_message("warning", f"{request.kind}: {exc}"))
        except Exception as exc:
            log.exception("agui-widget: handling the view's %r request failed", request.kind)
            self._transport.send(
                _codec.notice_message("error", f"{request.kind}: the kernel could not handle it ({type(exc).__name__})")
            )

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """A view writing synced traits. Every synced trait is the kernel's (a view asks through
        requests, docs/wire.md), so the write is refused and the views get the kernel's values back."""
        names = [name for name in sync_data if name in self.keys and not self._echoed(name, sync_data[name])]
        if not names:
            return
        refused = [name for name in names if name not in self._refused_traits]
        if refused:
            self._refused_traits.update(refused)
            log.warning("agui-widget: a view tried to change %s, which the kernel owns; refused", ", ".join(sorted(refused)))
        self.send_state(key=names)

    def _echoed(self, name: str, value: Any) -> bool:
        """A view handing ``revision`` back unchanged: how marimo learns of a change (nothing to do)."""
        return name == "revision" and value == self.revision

    def _handle(self, request: _requests.Request) -> None:
        _ROUTES[request.kind](self, request)

    # One method per request kind; _ROUTES below maps each kind to its handler.

    def _on_hello(self, request: _requests.Hello) -> None:
        self._take_in_state_changed_in_place()
        self._transport.flush()
        session = self._session
        tail = [_codec.event_to_wire(e) for e in session.event_log.tail(SNAPSHOT_EVENT_TAIL)]
        self._transport.send(_codec.snapshot_message(request.view_id, session.messages, session.state, tail))
        self._genui.hello()
        self._saved.viewed = True

    def _on_send(self, request: _requests.Send) -> None:
        parts = [part.model_dump(mode="json", by_alias=True, exclude_none=True) for part in request.attachments]
        self._session.send(with_attachments(request.text, parts))

    def _on_stop(self, request: _requests.Stop) -> None:
        self._session.stop()

    def _on_tool_result(self, request: _requests.ToolResult) -> None:
        self._session.respond(request.tool_call_id, request.result)

    def _on_claim(self, request: _requests.Claim) -> None:
        self._session.claim(request.tool_call_id, request.view_id, take_over=request.take_over)

    def _on_resume(self, request: _requests.Resume) -> None:
        self._session.resume(request.interrupt_id, request.payload, request.status)

    def _on_state_edit(self, request: _requests.StateEdit) -> None:
        self._session.apply_state_patch([op.model_dump(by_alias=True) for op in request.patch])

    def _on_clear(self, request: _requests.Clear) -> None:
        self.clear(reset_state=request.reset_state)

    def _on_regenerate(self, request: _requests.Regenerate) -> None:
        self.regenerate()

    def _on_edit(self, request: _requests.Edit) -> None:
        self.edit(request.message_id, request.text)

    def _on_select_agent(self, request: _requests.SelectAgent) -> None:
        self.select_agent(request.name)

    def _on_asset(self, request: _requests.Asset) -> None:
        from ._assets import read_asset

        self._transport.send(_codec.asset_message(request.name, *read_asset(request.name)))

    def _on_run_record(self, request: _requests.RunRecord) -> None:
        recording = self._session.recordings.find(request.run_id)
        if recording is None:
            error = "This run is no longer kept: a chat keeps its newest 100 runs (AgentChat(record=path) keeps them all)."
            self._transport.send(_codec.run_record_message(request.run_id, None, error))
            return
        from ..pipeline._recording import recording_text

        text = recording_text(self._recording_header(None), [recording])
        self._transport.send(_codec.run_record_message(request.run_id, text, None))

    def _on_set_accent(self, request: _requests.SetAccent) -> None:
        self.accent = request.color

    def __repr__(self) -> str:
        return f"<AgentChat thread={self.thread_id} status={self.status} messages={len(self.messages)}>"


_ROUTES: dict[str, Callable[[AgentChat, Any], None]] = {
    "hello": AgentChat._on_hello,
    "send": AgentChat._on_send,
    "stop": AgentChat._on_stop,
    "tool_result": AgentChat._on_tool_result,
    "claim": AgentChat._on_claim,
    "resume": AgentChat._on_resume,
    "state_edit": AgentChat._on_state_edit,
    "clear": AgentChat._on_clear,
    "regenerate": AgentChat._on_regenerate,
    "edit": AgentChat._on_edit,
    "select_agent": AgentChat._on_select_agent,
    "asset": AgentChat._on_asset,
    "run_record": AgentChat._on_run_record,
    "set_accent": AgentChat._on_set_accent,
}
"""Each kind of request a view may send, and the method that carries it out (tests hold it to _requests.Request)."""


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


def _hides_kept_outputs() -> bool:
    """Can the front end hide the kept conversation under a live chat? Not in Colab, which renders
    each cell's outputs in a frame of their own that the chat's view may not reach: there the copy
    is left out unless asked for (``keep_conversation=True``)."""
    return "google.colab" not in sys.modules


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _last_index(messages: list[dict[str, Any]], role: str) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == role:
            return index
    return None


__all__ = ["AgentChat", "Pending", "Run"]


def _still_applicable(document: Any, patch: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The operations of ``patch`` that apply to ``document`` one after another, and the paths of
    those that no longer do."""
    applicable: list[dict[str, Any]] = []
    dropped: list[str] = []
    for op in patch:
        try:
            document = apply_patch(document, [op])
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
            dropped.append(op["path"])
        else:
            applicable.append(op)
    return applicable, dropped
