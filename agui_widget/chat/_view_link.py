"""The chat's link to its views: the session's listener, the router of the views' requests, and the
refresh of the traits the views and the cells read.

``AgentChat`` owns one (``chat._link``) and keeps to its traits and its public API. What the session
tells the views leaves from here, batched by the transport; what a view asks arrives here and is
carried out by one handler per request kind (``_ROUTES``, held to the wire's declarations by the
tests); the traits follow the session from here, once a batch rather than once a token.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import jsonpatch
import jsonpointer
from ag_ui.core import BaseEvent, Context, EventType

from ..inputs._attachments import with_attachments
from ..inputs._live_context import summaries
from ..pipeline._eventlog import Record, revive
from ..session._listener import SessionListener
from ..session._session import AlreadyAnswered, Session
from ..vocabulary._loops import on_loop, running_loop
from ..vocabulary._state_patch import apply_patch, diff, json_copy, mirror
from ..wire import _codec
from ..wire._transport import BatchingTransport
from . import _thread_list
from ._genui import GenerativeUI, normalize_suggestions

if TYPE_CHECKING:
    from ..wire import _requests
    from ._code_runs import CodeRuns
    from ._export import SavedOutput
    from ._mcp_apps import McpApps
    from ._mentions import Mentions
    from ._threads import Threads
    from ._widget import AgentChat

log = logging.getLogger("agui_widget")

TOOL_CALL_ARGS = EventType.TOOL_CALL_ARGS.value

_RIDES_THE_BATCH = object()
"""The traits' refresh runs when the transport's waiting batch goes (``BatchingTransport.after_flush``)."""
SNAPSHOT_EVENT_TAIL = 500
"""How many recent events a connecting view gets for its event inspector."""


class ViewLink(SessionListener):
    """One chat's link to its views: it tells them what the session did, carries out what they ask,
    and keeps the chat's traits in step with the session."""

    def __init__(self, chat: AgentChat, window: float) -> None:
        self._chat = chat
        self.transport = BatchingTransport(chat._send_custom, window=window)
        self.genui = GenerativeUI(self.send)
        self._window = window
        self._loop = running_loop()
        self._refresh_handle: asyncio.TimerHandle | object | None = None
        """The traits' refresh, when one is due: its timer, or :data:`_RIDES_THE_BATCH`."""
        self._fingerprinted: tuple[Any, int] | None = None
        self._refused_traits: set[str] = set()
        self._assigning_state = False
        """Set while an assignment to ``chat.state`` reaches the session: the trait holds the value."""
        self._counts_revisions = False
        """marimo re-runs the cells that read a widget's value only when a view sends that value,
        so there a change of the state, the transcript or the status grows ``revision``, which a
        view hands back once (docs/wire.md). Elsewhere nothing reads it, and it stays 0."""
        self._revision_due = False
        self._mentions: Mentions | None = None
        self._code_runs: CodeRuns | None = None
        self._mcp_apps: McpApps | None = None

    def attach(self, session: Session, threads: Threads, saved: SavedOutput) -> None:
        """The session, the threads and the kept conversation now exist, and so does the chat's
        comm: the link follows them from here on."""
        self._session = session
        self._threads = threads
        self._saved = saved
        self._state_source: Any = session.state
        """The session's state the ``state`` trait last copied (the trait holds a private copy)."""
        self._rendered_state: Any = session.state
        threads.attach(session, switched=self._thread_switched, notice=self.session_notice)
        self._counts_revisions = getattr(self._chat.comm, "kernel", None) == "marimo"

    def send(self, message: dict[str, Any]) -> None:
        """A message for the views, after the events queued before it."""
        self.transport.send(message)

    # -- SessionListener ----------------------------------------------------------------------

    def session_events(self, events: Sequence[BaseEvent], records: Sequence[tuple[Record, int]] = ()) -> None:
        transport = self.transport
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
            predicted = self.genui.events(events, lambda: session.messages, session.state)
            if predicted is not session.state:
                session.state = predicted  # the views predict the same from the same events
        self._schedule_refresh()

    def session_delta(self, record: tuple[str, str, str], size: int) -> None:
        if record[0] == TOOL_CALL_ARGS:  # arguments may predict state or draw a tool as they stream
            self.session_events([revive(record)], [(record, size)])
            return
        self.transport.delta(*record)
        if self._refresh_handle is None:
            self._schedule_refresh()

    def session_messages(self, start: int) -> None:
        self.transport.send(_codec.messages_message(start, self._session.messages[start:]))
        self._threads.changed()
        self._chat._branches_follow()
        self.genui.messages_added(self._session.messages, start)
        self.refresh_traits()
        self._saved.changed()
        self._changed_for_hosts()

    def session_state(self, patch: list[dict[str, Any]]) -> None:
        self.transport.send(_codec.state_patch_message(patch))
        self._threads.changed()
        self.refresh_traits()
        self._saved.changed()

    def session_run_ended(self, start: int) -> None:
        messages = self._session.messages
        self.transport.send(_codec.check_message(messages, min(start, len(messages)), self._state_fingerprint()))
        self._threads.dirty = True
        self.refresh_traits()
        self._changed_for_hosts()
        suggested = self.genui.run_ended(messages, self._session.state)
        if isinstance(suggested, list):
            try:
                items = normalize_suggestions(suggested)
            except (TypeError, ValueError) as exc:
                log.warning("agui-widget: the agent's suggestions were ignored: %s", exc)
            else:
                chat = self._chat
                with chat._sync(), chat.hold_sync():
                    chat.suggestions = items
                    chat.suggestions_after = messages[-1].get("id", "") if messages else ""

    def session_status(self) -> None:
        self.transport.flush()
        session, chat = self._session, self._chat
        with chat.hold_sync():
            chat.status = session.status
            chat.run_id = session.run_id
            chat.error = session.error
            chat.pending = [p.to_wire() for p in session.pending]
            chat.queued = [{"id": run.id, "text": run.text} for run in session.queue]
        self._changed_for_hosts()
        self._chat._branches_follow()
        self._threads.turn_may_have_ended()
        self._saved.when_idle()

    def session_notice(self, level: Any, text: str) -> None:
        self.transport.send(_codec.notice_message(level, text))

    def session_context(self, read: Sequence[Context | None]) -> None:
        self._chat.agent_context = summaries(self._session.context, list(read))

    def session_run_starting(self) -> None:
        self._take_in_state_changed_in_place()

    # -- the traits the views and the cells read -----------------------------------------------

    def refresh_traits(self) -> None:
        """``messages`` and ``state`` follow the session (and state renderers, its state)."""
        self._refresh_handle = None
        session, chat = self._session, self._chat
        with chat._sync():
            chat.messages = list(session.messages)
            if self._assigning_state:
                self._state_source = session.state
            elif session.state is not self._state_source:
                # A copy: a cell that changes chat.state in place must not change, unseen, the
                # state the views and the agent share (assign or update_state to share it). Only
                # what the session replaced since is copied again (_state_patch.mirror).
                previous, self._state_source = self._state_source, session.state
                chat.state = mirror(session.state, previous, chat.state)
        if session.state is not self._rendered_state:
            self._rendered_state = session.state
            self.genui.state_changed(session.state)
            self._changed_for_hosts()

    def _schedule_refresh(self) -> None:
        if self._refresh_handle is not None:
            return
        if self.transport.after_flush(self.refresh_traits):  # one wake-up for the batch and the traits
            self._refresh_handle = _RIDES_THE_BATCH
            return
        try:
            self._refresh_handle = asyncio.get_running_loop().call_later(self._window, self.refresh_traits)
        except RuntimeError:
            self.refresh_traits()

    def state_assigned(self, state: Any) -> None:
        """A cell assigned ``chat.state``: the session takes it (the trait already holds the value,
        so no copy of it is made)."""
        self._assigning_state = True
        try:
            self._session.set_state(state)
        finally:
            self._assigning_state = False
        self._state_source = self._session.state

    def _take_in_state_changed_in_place(self) -> None:
        """Take in what a cell changed in ``chat.state`` in place (``chat.state["budget"] = 999``)
        as an assignment would be, so the agent, the views and ``chat.state`` never disagree.

        The trait holds a private copy of ``_state_source``, which the session replaces and never
        changes, so any difference between the two is the cell's own change. It is applied as a
        patch, so what the agent changed since the trait was last refreshed stays beside it; an
        operation the agent's change made moot (under a key it removed) is dropped, with a notice."""
        held, source = self._chat.state, self._state_source
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
            self.refresh_traits()  # the chat's copy follows the session again, without them

    def _state_fingerprint(self) -> int:
        """The state's fingerprint, computed again only when the state is a new object (the
        session replaces its state, never changes it in place)."""
        state = self._session.state
        if self._fingerprinted is None or self._fingerprinted[0] is not state:
            from ._fingerprint import fingerprint  # loaded with the first run's end

            self._fingerprinted = (state, fingerprint(state))
        return self._fingerprinted[1]

    def _thread_switched(self, thread_id: str, agent_name: str) -> None:
        chat = self._chat
        with chat._sync(), chat.hold_sync():
            chat.thread_id = thread_id
            chat.agent_name = agent_name
        chat._settings_follow_thread(thread_id)

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
        chat = self._chat
        with chat._sync():
            chat.revision += 1

    # -- what the views send ------------------------------------------------------------------

    def on_view_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A custom message from a view (the widget's ``on_msg`` callback, in every front end)."""
        if not on_loop(self._loop, self._handle_view_message, content):
            log.warning("agui-widget: a view request arrived after the kernel's loop closed")

    def _handle_view_message(self, content: Any) -> None:
        try:
            request = _codec.parse_request(content)
        except _codec.BadRequest as bad:
            log.warning("agui-widget: ignored a malformed %s request from a view: %s", bad.kind or "unknown", bad.reason)
            if bad.kind is not None:  # one of ours, so the person at that view should know
                self.transport.send(_codec.notice_message("warning", f"{bad.kind}: {bad.reason}"))
            return
        try:
            _ROUTES[request.kind](self, request)
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
            self.transport.send(_codec.notice_message("warning", f"{request.kind}: {exc}"))
        except Exception as exc:
            log.exception("agui-widget: handling the view's %r request failed", request.kind)
            self.transport.send(
                _codec.notice_message("error", f"{request.kind}: the kernel could not handle it ({type(exc).__name__})")
            )

    def refuse_view_writes(self, sync_data: dict[str, Any]) -> None:
        """Refuse a view's write of synced traits (``AgentChat.set_state``): the views get the
        kernel's values back, and the first refusal of each trait is logged."""
        chat = self._chat
        names = [name for name in sync_data if name in chat.keys and not self._echoed(name, sync_data[name])]
        if not names:
            return
        refused = [name for name in names if name not in self._refused_traits]
        if refused:
            self._refused_traits.update(refused)
            log.warning("agui-widget: a view tried to change %s, which the kernel owns; refused", ", ".join(sorted(refused)))
        chat.send_state(key=names)

    def _echoed(self, name: str, value: Any) -> bool:
        """A view handing ``revision`` back unchanged: how marimo learns of a change (nothing to do)."""
        return name == "revision" and value == self._chat.revision

    # One method per request kind; _ROUTES below maps each kind to its handler.

    def _on_hello(self, request: _requests.Hello) -> None:
        self._take_in_state_changed_in_place()
        self.transport.flush()
        session = self._session
        tail = [_codec.event_to_wire(e) for e in session.event_log.tail(SNAPSHOT_EVENT_TAIL)]
        self.transport.send(_codec.snapshot_message(request.view_id, session.messages, session.state, tail))
        self.genui.hello()
        self._saved.viewed = True

    def check_no_code_run(self, doing: str) -> None:
        """Raise (RuntimeError) while code a view asked for runs: a turn started meanwhile would
        send the agent a call that has no answer yet."""
        if self._code_runs is not None:
            self._code_runs.check_free(doing)

    def stop_code_run(self) -> None:
        if self._code_runs is not None:
            self._code_runs.stop()

    def _on_send(self, request: _requests.Send) -> None:
        self.check_no_code_run("sending a message")  # the message goes back to the view's box
        parts = [part.model_dump(mode="json", by_alias=True, exclude_none=True) for part in request.attachments]
        if parts:  # the summaries `@` attached are context, not files
            parts = self.mentions.mark_context(parts)
        self._session.send(with_attachments(request.text, parts))

    def _on_stop(self, request: _requests.Stop) -> None:
        self._chat.stop()

    def _on_tool_result(self, request: _requests.ToolResult) -> None:
        self._session.respond(request.tool_call_id, request.result)

    def _on_claim(self, request: _requests.Claim) -> None:
        self._session.claim(request.tool_call_id, request.view_id, take_over=request.take_over)

    def _on_resume(self, request: _requests.Resume) -> None:
        self._session.resume(request.interrupt_id, request.payload, request.status)

    def _on_state_edit(self, request: _requests.StateEdit) -> None:
        self._session.apply_state_patch([op.model_dump(by_alias=True) for op in request.patch])

    def _on_clear(self, request: _requests.Clear) -> None:
        self._chat.clear(reset_state=request.reset_state)

    def _on_regenerate(self, request: _requests.Regenerate) -> None:
        self._chat.regenerate()

    def _on_edit(self, request: _requests.Edit) -> None:
        self._chat.edit(request.message_id, request.text)

    def _on_branch(self, request: _requests.Branch) -> None:
        self._session.show_branch(request.parent_id, request.index)

    def _on_select_agent(self, request: _requests.SelectAgent) -> None:
        self._chat.select_agent(request.name)

    def _on_asset(self, request: _requests.Asset) -> None:
        from ._assets import read_asset

        self.transport.send(_codec.asset_message(request.name, *read_asset(request.name)))

    def _on_run_record(self, request: _requests.RunRecord) -> None:
        recording = self._session.recordings.find(request.run_id)
        if recording is None:
            error = "This run is no longer kept: a chat keeps its newest 100 runs (AgentChat(record=path) keeps them all)."
            self.transport.send(_codec.run_record_message(request.run_id, None, error))
            return
        from ..pipeline._recording import recording_text

        text = recording_text(self.recording_header(None), [recording])
        self.transport.send(_codec.run_record_message(request.run_id, text, None))

    def recording_header(self, label: str | None) -> dict[str, Any]:
        """A recording's first line: what answered (the agent's name), with which tools."""
        from ..pipeline._recording import header

        agent = self._session.agent
        name = self._threads.agent_name or getattr(agent, "name", None) or type(agent).__name__
        return header(label=label, agent=str(name), tools=[tool.spec() for tool in self._session.tools])

    def _on_set_accent(self, request: _requests.SetAccent) -> None:
        self._chat.accent = request.color

    @property
    def mentions(self) -> Mentions:
        """What ``@`` in the message box asks of the kernel, made when a view first asks."""
        if self._mentions is None:
            from ._mentions import Mentions

            self._mentions = Mentions()
        return self._mentions

    def _on_variables(self, request: _requests.Variables) -> None:
        self.transport.send(self.mentions.variables_answer(request.request_id))

    def _on_inspect_variable(self, request: _requests.InspectVariable) -> None:
        self.transport.send(self.mentions.variable_answer(request.request_id, request.name))

    def _on_run_code(self, request: _requests.RunCode) -> None:
        if self._code_runs is None:
            from ._code_runs import CodeRuns  # loaded with the first "Run in kernel"

            self._code_runs = CodeRuns(self._session)
        self._code_runs.start(request.code)

    def _on_a2ui_action(self, request: _requests.A2uiAction) -> None:
        from ..session._a2ui import send_action

        self.check_no_code_run("acting on a surface")
        send_action(self._session, request.action.model_dump(by_alias=True))

    @property
    def mcp_apps(self) -> McpApps:
        """What the MCP Apps in the tool cards ask of their servers, made when a view first asks."""
        if self._mcp_apps is None:
            from ._mcp_apps import McpApps

            self._mcp_apps = McpApps(lambda: self._session.messages, lambda: self._session.tools, self.send)
        return self._mcp_apps

    def _on_mcp_app(self, request: _requests.McpApp) -> None:
        self.mcp_apps.app(request.request_id, request.tool_call_id)

    def _on_mcp_call(self, request: _requests.McpCall) -> None:
        self.mcp_apps.call(request.request_id, request.tool_call_id, request.name, dict(request.arguments), request.approved)

    def _on_mcp_read(self, request: _requests.McpRead) -> None:
        self.mcp_apps.read(request.request_id, request.tool_call_id, request.uri)

    def _on_feedback(self, request: _requests.Feedback) -> None:
        self._chat.feedback(request.message_id, request.rating, request.comment)

    def _on_settings(self, request: _requests.Settings) -> None:
        self._chat._settings_from_view(request.values)

    def _on_command(self, request: _requests.Command) -> None:
        self._chat.run_command(request.request_id, request.name, request.args)


_ROUTES: dict[str, Callable[[ViewLink, Any], None]] = {
    "hello": ViewLink._on_hello,
    "send": ViewLink._on_send,
    "stop": ViewLink._on_stop,
    "tool_result": ViewLink._on_tool_result,
    "claim": ViewLink._on_claim,
    "resume": ViewLink._on_resume,
    "state_edit": ViewLink._on_state_edit,
    "clear": ViewLink._on_clear,
    "regenerate": ViewLink._on_regenerate,
    "edit": ViewLink._on_edit,
    "branch": ViewLink._on_branch,
    "select_agent": ViewLink._on_select_agent,
    "asset": ViewLink._on_asset,
    "run_record": ViewLink._on_run_record,
    "set_accent": ViewLink._on_set_accent,
    "variables": ViewLink._on_variables,
    "inspect_variable": ViewLink._on_inspect_variable,
    "run_code": ViewLink._on_run_code,
    "a2ui_action": ViewLink._on_a2ui_action,
    "mcp_app": ViewLink._on_mcp_app,
    "mcp_call": ViewLink._on_mcp_call,
    "mcp_read": ViewLink._on_mcp_read,
    "feedback": ViewLink._on_feedback,
    "settings": ViewLink._on_settings,
    "command": ViewLink._on_command,
    "threads": _thread_list.on_threads,
    "switch_thread": _thread_list.on_switch_thread,
    "new_thread": _thread_list.on_new_thread,
    "rename_thread": _thread_list.on_rename_thread,
    "delete_thread": _thread_list.on_delete_thread,
}
"""Each kind of request a view may send, and the method that carries it out (tests hold it to _requests.Request)."""


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
