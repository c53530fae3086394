"""The session: one chat's transcript, state and runs, and the AG-UI client loop.

Each user turn is a :class:`Run`: an asyncio task on the kernel's loop, so the kernel keeps serving
comm messages and cells while the agent works. The session builds ``RunAgentInput`` from the
transcript, state and frontend tools, passes every event through the client pipeline
(:class:`~agui_widget.pipeline._consumer.EventConsumer`: normalise, verify, reduce) and tells its listener
(the chat's view link) what changed. A run that ends with frontend tool calls pending, or with an interrupt,
waits for answers (from a view or from Python) and continues with a follow-up run.

:class:`Session` is made of parts, each in a module of its own and each built on the one below:
the transcript and state (``_transcript``), closing a run on a stop or an error (``_closing``), what
a run waits for (``_waiting``: frontend and Python tools, interrupts, approvals), and the queue and
the run loop (``_loop``). This module adds what the user does: send, stop, clear, switch threads.
"""

from __future__ import annotations

import asyncio
import copy
import json
import typing
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ag_ui.core import UserMessage

from ..adapters import Agent
from ..inputs._attachments import AttachmentPolicy
from ..inputs._live_context import ContextEntry
from ..inputs._tools import FrontendTool
from ..pipeline._eventlog import MAX_EVENT_BYTES, MAX_EVENTS, EventLog
from ..vocabulary._hooks import Guard, Hooks
from ..vocabulary._ids import new_id
from ..vocabulary._unicode import has_surrogate, lone_surrogate_path
from ._branches import Branches
from ._listener import SessionListener
from ._loop import RunLoop
from ._run import Run, Waiting
from ._transcript import InputMessages, _input_messages, normalize_messages, private_copies
from ._waiting import ANSWERED_KEPT, AlreadyAnswered

__all__ = [
    "AlreadyAnswered",
    "InputMessages",
    "Session",
    "SessionListener",
    "_input_messages",
    "checked_props",
    "normalize_messages",
]


class Session(RunLoop):
    """One chat: transcript, state, event log, and at most one active turn."""

    def __init__(
        self,
        agent: Agent,
        *,
        tools: Sequence[FrontendTool] = (),
        thread_id: str | None = None,
        state: Any = None,
        messages: Sequence[dict[str, Any]] = (),
        context: Sequence[ContextEntry] = (),
        listener: SessionListener | None = None,
        max_events: int = MAX_EVENTS,
        max_event_bytes: int = MAX_EVENT_BYTES,
        hooks: Hooks | None = None,
        guard: Guard | None = None,
        attachment_policy: AttachmentPolicy | None = None,
    ) -> None:
        self.agent = agent
        self.attachment_policy = attachment_policy or AttachmentPolicy()
        """What a user message may carry as attachments (checked for every message, whoever sent it)."""
        self.hooks = hooks or Hooks()
        self.guard = guard
        self.tools = list(tools)
        self.thread_id = thread_id or new_id("thread")
        self._state = {} if state is None else copy.deepcopy(state)
        self._input_messages = InputMessages()
        self._messages = [dict(m) for m in messages]
        self._carried = None
        """The reducer's index of the last run's transcript, for the next run to extend."""
        self._checked = private_copies(self._messages)
        """Private copies of the messages last validated (by :meth:`replace_messages`; those a
        session starts from or loads count as such), by position: what an assigned message equal
        to one of them needs no second validation against. Seeded at once, so the first assignment
        after a chat is made (a cell appending one message) costs what is new too."""
        self.context = list(context)
        """What the agent is told beside the transcript; live entries are read as each run starts."""
        self.forwarded_props = {}
        """Sent with every run as ``RunAgentInput.forwardedProps`` (model settings an agent may read)."""
        self.setting_values: dict[str, Any] = {}
        """The chat's run settings, sent over ``forwarded_props`` (a turn's own props win over them)."""
        self.listener = listener or SessionListener()
        self.event_log = EventLog(max_events, max_event_bytes)
        """The newest ``max_events`` events, and no more than about ``max_event_bytes`` of JSON."""
        self._recordings = None
        self._recording = None
        self.status = "idle"
        self.error = ""
        self.run_id = ""
        self.queue = deque()
        self.active = None
        self._task = None
        self._waiting = Waiting()
        self._consumer = None
        """The streaming run's pipeline (None between runs)."""
        self._run_input = None
        self._start_index = 0
        self._answered_ids = deque(maxlen=ANSWERED_KEPT)
        self._closing = None
        """The last run's event stream being closed: the next run waits for it (bounded)."""
        self.branches = Branches()
        """The versions Regenerate and Edit left, out of sight; the transcript is the branch shown."""

    def send(self, content: str | list[dict[str, Any]], forwarded_props: Mapping[str, Any] | None = None) -> Run:
        """Queue a user turn; it starts at once when no other turn is active.

        ``content`` is text, or AG-UI content parts (text, image, audio, video, document);
        ``forwarded_props`` go to this turn's runs, over the session's own.
        """
        run = self._turn(content, forwarded_props)
        self.queue.append(run)
        self._changed_status()
        self._start_next()
        return run

    def _turn(self, content: str | list[dict[str, Any]], forwarded_props: Mapping[str, Any] | None, message_id: str = "") -> Run:
        """A turn for ``content``, checked (raises on bad input, with nothing changed); its user
        message gets ``message_id`` (a regenerated turn's keeps its id), else a fresh one."""
        props = checked_props(forwarded_props, "chat.send(forwarded_props=...)")
        if isinstance(content, str):
            if not content.strip():
                raise ValueError("chat.send() needs some text")
            text = content
            if has_surrogate(text):
                raise ValueError(
                    "chat.send() got text holding a lone UTF-16 surrogate (half of an emoji's pair), "
                    "which cannot be sent to an agent or a view"
                )
        else:
            checked = UserMessage.model_validate({"id": "check", "content": content}).model_dump(mode="json", by_alias=True)
            parts: list[dict[str, Any]] = checked["content"]  # the parts validated, in their JSON form
            content = parts
            text = " ".join(p["text"] for p in parts if p.get("type") == "text")
            if not content:
                raise ValueError("chat.send() needs some content")
            self.attachment_policy.check(parts)
            where = lone_surrogate_path(content)
            if where is not None:
                raise ValueError(f"chat.send() got content holding a lone UTF-16 surrogate at {where}")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "chat.send() needs a running event loop: call it from a notebook cell or inside asyncio.run()"
            ) from None
        message = {"id": message_id or new_id("user"), "role": "user", "content": content}
        return Run(text, message, loop, props)

    def stop(self) -> None:
        """End the active turn now; what it produced so far stays, closed and marked as stopped.

        The session closes the run itself (open messages and tool calls ended, RUN_FINISHED with
        a cancelled outcome, every unanswered tool call answered as cancelled) and cancels the
        agent's task without waiting for it, so an agent that ignores the cancellation cannot keep
        the chat busy. Queued messages run next.
        """
        run = self.active
        if run is not None and not run.done:
            self._stop_turn(run)

    def clear(self) -> None:
        """Forget the conversation (stops an active run first); the state stays."""
        self.queue.clear()
        self.stop()
        self.messages = []
        self.branches.clear()
        self._forget_indexes()
        self.error = ""
        self.listener.session_messages(0)
        self._changed_status()

    def load_thread(
        self, thread_id: str, messages: Sequence[dict[str, Any]], state: Any, agent: Agent | None = None, branches: Any = None
    ) -> None:
        """Continue another thread (and, given one, with another agent); only while nothing runs.
        ``branches``: the thread's other branches, as :meth:`Branches.to_json` wrote them."""
        self.check_idle("switching threads or agents")
        normalized = normalize_messages(messages)
        self.branches.load(branches)
        self.thread_id = thread_id
        if agent is not None:
            self.agent = agent
        self._waiting = Waiting()
        self.error = ""
        self.messages = normalized
        self._forget_indexes()
        self._checked = private_copies(normalized)
        self.listener.session_messages(0)
        self.set_state({} if state is None else state)
        self._changed_status()

    def check_idle(self, doing: str) -> None:
        """Raise unless no run is active or queued (``doing`` says what had to wait)."""
        if self.active is not None or self.queue:
            raise RuntimeError(f"a run is active: stop it (chat.stop()) or wait for it to end before {doing}")

    def regenerate(self) -> Run:
        """Run the last turn again: a user message's (the same message, its id kept), or an
        action's on an A2UI surface (the same action again, not the user message before it). The
        answer it had stays as another version of it (:attr:`branches`)."""
        from ._a2ui import last_action_turn, regenerate_action

        messages = self.messages
        action_at = last_action_turn(messages)
        if action_at is not None:
            return regenerate_action(self, action_at)
        index = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"), None)
        if index is None:
            raise ValueError("there is no user message to regenerate an answer for")
        self._check_no_run("regenerating an answer")
        question = messages[index]
        run = self._turn(question["content"], None, question["id"])
        self.branches.fork(messages, index + 1)
        return self._restart_from(index, run)

    def truncate_and_send(self, index: int, content: str | list[dict[str, Any]]) -> Run:
        """Send ``content`` in place of the transcript from ``index`` on (an edit); what it
        replaces stays as another version (:attr:`branches`). Bad content changes nothing."""
        self._check_no_run("editing the conversation")
        run = self._turn(content, None)
        self.branches.fork(self.messages, index)
        return self._restart_from(index, run)

    def _restart_from(self, index: int, run: Run) -> Run:
        self.messages = self.messages[:index]
        self.listener.session_messages(index)
        self.queue.append(run)
        self._changed_status()
        self._start_next()
        return run

    def _check_no_run(self, doing: str) -> None:
        if self.active is not None:
            raise RuntimeError(f"wait for the active run to end, or stop it, before {doing}")

    def replace_messages(self, messages: Iterable[Mapping[str, Any]]) -> None:
        """:meth:`SessionTranscript.replace_messages`; the versions after a message that went go too."""
        super().replace_messages(messages)
        self.branches.prune(self.messages)

    def show_branch(self, parent_id: str | None, index: int) -> None:
        """Show version ``index`` of the conversation after message ``parent_id`` (None: from the
        start); the agent gets that branch from the next run on. Only while nothing runs."""
        self.check_idle("showing another version")
        shown = self.branches.show(self.messages, parent_id, index)
        if shown is None:
            return
        messages, cut = shown
        self.messages = messages
        self.listener.session_messages(cut)


def checked_props(props: Mapping[str, Any] | None, where: str) -> dict[str, Any] | None:
    """``forwardedProps`` as an agent gets them: a JSON object, checked before anything is queued."""
    if props is None:
        return None
    if not isinstance(props, Mapping):
        raise TypeError(f"{where} takes a dict, not {type(props).__name__}")
    try:
        plain = json.loads(json.dumps(dict(props), ensure_ascii=False, allow_nan=False))
    except RecursionError:
        raise ValueError(f"{where} is nested too deeply to send") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where} must be plain JSON (strings, numbers, lists, dicts): {exc}") from None
    where_surrogate = lone_surrogate_path(plain)
    if where_surrogate is not None:
        raise ValueError(f"{where} holds a lone UTF-16 surrogate at {where_surrogate}")
    return typing.cast(dict[str, Any], plain)
