"""``AgentChat``: the widget's traits and its public API, what a notebook's cells use.

The kernel owns the conversation. ``messages`` and ``state`` are traitlets a cell can observe and
assign; they reach views as a snapshot when a view connects and as AG-UI events, splices and JSON
patches afterwards (docs/wire.md), never as whole values per token. That traffic (the session's
listener, the views' requests, the traits' refresh) is the chat's link to its views (``_view_link``).
"""

from __future__ import annotations

import contextlib
import copy
import os
import pathlib
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import anywidget
import traitlets
from ag_ui.core import BaseEvent, Context, Tool
from pydantic import ValidationError

from ..inputs._attachments import AttachmentPolicy, attachment_parts, with_attachments
from ..inputs._live_context import LiveContext, coerce_context, summaries
from ..inputs._tools import FrontendTool, coerce_tools
from ..session._run import Pending, Run
from ..session._session import Session, checked_props, normalize_messages
from ..stores._store import ThreadStore
from ..vocabulary._feedback import FeedbackHook, checked_hook
from ..vocabulary._hooks import Guard, Hook, Hooks
from ..wire._transport import DEFAULT_WINDOW
from ._branches import ChatBranches
from ._branding import ChatBranding
from ._commands import ChatSlash, CommandFunction
from ._export import SavedOutput
from ._exports import ChatExports
from ._feedback import ChatFeedback
from ._genui import StateRenderer, ToolRenderer, normalize_suggestions
from ._links import ChatLinks
from ._predict import PredictRule, coerce_rules
from ._run_settings import ChatRunSettings
from ._shown import note_shown
from ._surfaces import ChatSurfaces
from ._threads import ChatThreads, Threads
from ._traits import ChatTraits, css_length
from ._usage import ChatUsage
from ._view_link import ViewLink

_STATIC = pathlib.Path(__file__).parent.parent / "static"
_MISSING_BUNDLE = """
export default { render({ el }) {
  el.textContent = "agui-widget: the front end is not built. Reinstall with `pip install -e .` (needs Node.js), or run `npm ci && npm run build` in js/.";
} };
"""


def _bundle(name: str, fallback: str) -> pathlib.Path | str:
    path = _STATIC / name
    return path if path.exists() else fallback


class AgentChat(
    ChatSlash,
    ChatBranches,
    ChatExports,
    ChatFeedback,
    ChatLinks,
    ChatSurfaces,
    ChatUsage,
    ChatBranding,
    ChatRunSettings,
    ChatThreads,
    ChatTraits,
):
    """An AG-UI agent chat in a notebook.

    ``AgentChat()`` runs the built-in demo agent; ``AgentChat(agent)`` runs any AG-UI agent (an
    object with ``run(RunAgentInput)``), or a plain function of the transcript. ``tools`` are the
    tools the agent may call that live in the notebook: Python functions the kernel runs, and
    frontend tools the UI (or Python, via :meth:`respond`) answers.
    """

    _esm = _bundle("widget.js", _MISSING_BUNDLE)
    _css = _bundle("widget.css", "")

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
        on_feedback: FeedbackHook | None = None,
        commands: Mapping[str, CommandFunction] | None = None,
        **kwargs: Any,
    ) -> None:
        if guard is not None and not callable(guard):
            raise TypeError(f"guard must be a function of the user's message (or None), not {type(guard).__name__}")
        hooks = Hooks(on_run_start=on_run_start, on_event=on_event, on_run_end=on_run_end, on_error=on_error)
        self._on_feedback = checked_hook(on_feedback)
        self._set_commands(commands)
        given = None if messages is None else normalize_messages(messages)
        self._threads = Threads(agent, store, thread_id, given, state, headers)
        predict_rules = coerce_rules(predict_state)
        policy = AttachmentPolicy.of(attachments)
        frontend = self._with_agents_tools(_chat_tools(tools))
        self._syncing = True  # the initial values come from the session: nothing to echo back
        self._starters = normalize_suggestions(suggestions)
        """The suggestions a cleared chat shows again (given here or assigned from Python)."""
        self._initial_state = copy.deepcopy({} if state is None else state)
        """What ``clear(reset_state=True)`` puts back."""
        self._link = ViewLink(self, batch_window)
        entries = coerce_context(context)
        entries += [entry for entry in _brought_context(frontend) if entry not in entries]
        self._session = self._new_session(frontend, entries, hooks, guard, policy, forwarded_props, record)
        _hold(frontend, self)
        self._link.genui.set_predict_rules(predict_rules)
        # Trait values given here are in the comm's first message, not in updates right after it.
        super().__init__(**self._initial_traits(frontend, predict_rules, policy, height), **kwargs)
        self._syncing = False
        self._saved = SavedOutput(
            self._session, self.saved_output_id, header=lambda: repr(self), alive=lambda: self.comm is not None
        )
        self._saved.branding = self._branding_of_exports
        self._keep_conversation = _hides_kept_outputs() if keep_conversation is None else bool(keep_conversation)
        """Whether displaying the chat also leaves the Markdown copy of the conversation (docs/threads.md)."""
        self._link.attach(self._session, self._threads, self._saved)
        self.on_msg(self._link.on_view_message)  # how every front end's view requests arrive

    def _new_session(
        self,
        tools: list[FrontendTool],
        context: list[Context | LiveContext],
        hooks: Hooks,
        guard: Guard | None,
        policy: AttachmentPolicy,
        forwarded_props: Mapping[str, Any] | None,
        record: str | os.PathLike[str] | None,
    ) -> Session:
        """The session of the thread the chat starts on, telling the chat's link to the views (and
        writing each run to ``record``, when given)."""
        start = self._threads.start
        session = Session(
            start.agent,
            tools=tools,
            thread_id=start.thread_id,
            state={} if start.state is None else start.state,
            messages=start.messages,
            context=context,
            listener=self._link,
            hooks=hooks,
            guard=guard,
            attachment_policy=policy,
        )
        session.forwarded_props = checked_props(forwarded_props, "AgentChat(forwarded_props=...)") or {}
        session.branches.load(start.branches)
        if record is not None:
            from ..pipeline._recording import RecordingFile

            session.recordings.sink = RecordingFile(record, lambda: self._link.recording_header(None))
        return session

    def _initial_traits(
        self, frontend: list[FrontendTool], predict_rules: list[PredictRule], policy: AttachmentPolicy, height: int | str | None
    ) -> dict[str, Any]:
        """The synced traits' first values: the session's, and the options given."""
        session = self._session
        return {
            "thread_id": session.thread_id,
            "frontend_tools": [tool.spec() for tool in frontend],
            "messages": list(session.messages),
            "state": copy.deepcopy(session.state),
            "agent_names": list(self._threads.agents),
            "agent_context": summaries(session.context),
            "agent_name": self._threads.agent_name or "",
            "suggestions": list(self._starters),
            "predict_state": [rule.as_dict() for rule in predict_rules],
            "saved_output_id": f"agui-transcript-{uuid.uuid4().hex}",
            "height": css_length(height),
            "attachment_policy": policy.to_wire(),
            "branch_points": session.branches.entries(session.messages),
        }

    def _send_custom(self, message: dict[str, Any]) -> None:
        # ``send`` is the chat's own verb here; the widget's custom message goes through the base.
        anywidget.AnyWidget.send(self, message)

    # -- the Python API -----------------------------------------------------------------------

    def _ipython_display_(self) -> None:
        """Show the chat, then an output that keeps the conversation for viewers without a kernel
        (docs/threads.md)."""
        import IPython.display

        bundle = super()._repr_mimebundle_()
        if bundle is not None:
            data, metadata = bundle if isinstance(bundle, tuple) else (bundle, None)
            IPython.display.display(data, metadata=metadata, raw=True)
        note_shown(self)
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
        self._link.check_no_code_run("sending a message")
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
        """Stop the active run: what it said so far stays, closed and marked as stopped. Code a
        view's "Run in kernel" is running is interrupted too."""
        self._session.stop()
        self._link.stop_code_run()

    def close(self) -> None:
        """Close the chat's views; an MCP server only this chat used stops (``mcp_tools``)."""
        session = getattr(self, "_session", None)  # None: called by __del__ after __init__ failed
        for tool in session.tools if session is not None else ():
            release = getattr(tool, "release", None)
            if callable(release):
                release(self)
        super().close()

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
        frontend = self._with_agents_tools(_chat_tools(tools))
        _hold(frontend, self)
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

    @property
    def active_run(self) -> Run | None:
        """The turn running now, or None between turns."""
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
            self._link.genui.add_tool_renderer(name, fn, self._session.messages)
            return fn

        return register if fn is None else register(fn)

    def render_state(self, fn: StateRenderer | None = None, key: str | None = None) -> Any:
        """Show ``fn(state)`` (or ``fn(state[key])``) live in the chat, re-rendered as the state
        changes. Also a decorator: ``@chat.render_state(key="steps")``."""
        if fn is not None and not callable(fn):
            raise TypeError(f"render_state needs a function of the state, not {type(fn).__name__}")

        def register(fn: StateRenderer) -> StateRenderer:
            last = self._session.messages[-1].get("id") if self._session.messages else None
            self._link.genui.add_state_renderer(fn, key, self._session.state, None if self._session.active else last)
            return fn

        return register if fn is None else register(fn)

    @traitlets.validate("predict_state")
    def _validate_predict_state(self, proposal: Any) -> list[dict[str, str]]:
        try:
            rules = coerce_rules(proposal["value"])
        except (TypeError, ValueError) as exc:
            raise traitlets.TraitError(str(exc)) from None
        self._link.genui.set_predict_rules(rules)
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
            self._link.state_assigned(change["new"])

    @contextlib.contextmanager
    def _sync(self) -> Iterator[None]:
        """Trait writes that come from the session, so observers do not echo them back."""
        outer, self._syncing = self._syncing, True
        try:
            yield
        finally:
            self._syncing = outer

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """A view writing synced traits. Every synced trait is the kernel's (a view asks through
        requests, docs/wire.md), so the write is refused and the views get the kernel's values back."""
        self._link.refuse_view_writes(sync_data)

    def __repr__(self) -> str:
        return f"<AgentChat thread={self.thread_id} status={self.status} messages={len(self.messages)}>"


def _chat_tools(tools: Iterable[Any]) -> list[FrontendTool]:
    """``coerce_tools``, naming the way out when an MCP server's tool has a name taken already."""
    given = list(tools)
    try:
        return coerce_tools(given)
    except ValueError as exc:
        names = [getattr(tool, "name", None) for tool in given]
        if any(hasattr(tool, "remote_name") and names.count(tool.name) > 1 for tool in given):
            raise ValueError(f"{exc}: give an MCP server's tools a prefix, mcp_tools(..., prefix='fs_')") from None
        raise


def _brought_context(tools: list[FrontendTool]) -> list[LiveContext]:
    """The context entries tools bring: an MCP server's resources (``mcp_tools(resources=True)``)."""
    return list({id(entry): entry for tool in tools for entry in getattr(tool, "context", ())}.values())


def _hold(tools: list[FrontendTool], chat: AgentChat) -> None:
    """Tools whose server runs while a chat uses them (an MCP server's) are held by ``chat``."""
    for tool in tools:
        hold = getattr(tool, "hold", None)
        if callable(hold):
            hold(chat)


def _hides_kept_outputs() -> bool:
    """Can the front end hide the kept conversation under a live chat? Not in Colab, which renders
    each cell's outputs in a frame of their own that the chat's view may not reach: there the copy
    is left out unless asked for (``keep_conversation=True``)."""
    return "google.colab" not in sys.modules


__all__ = ["AgentChat", "Pending", "Run"]
