"""The session's transcript and state, and the records of what reached them.

The bottom part of :class:`~agui_widget.session._session.Session`: the messages and the state
(read from the streaming run's pipeline while one streams), their replacement and patching from
Python or a view, the transcript as an agent gets it (each message validated once), and the
delivery of a run's events to the event logs, the recording, the listener and the hooks.
"""

from __future__ import annotations

import copy
import functools
import json
import operator
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ag_ui.core import BaseEvent, Message

from ..pipeline._eventlog import EventLog, records_of
from ..vocabulary._hooks import Hooks
from ..vocabulary._marks import DISPLAY, REFUSED, mark_of, without_mark
from ..vocabulary._state_patch import apply_patch, diff, json_copy
from ._listener import SessionListener
from ._run import Run

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from ..pipeline._consumer import EventConsumer
    from ..pipeline._recording import RunRecording, RunRecordings
    from ..pipeline._reducer import TranscriptIndex


@functools.cache
def _messages_adapter() -> TypeAdapter[list[Message]]:
    """Built when messages are first validated: a chat made without any does not pay for it."""
    from pydantic import TypeAdapter

    return TypeAdapter(list[Message])


def normalize_messages(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """AG-UI messages validated (raises ValidationError) and as the camelCase dicts a transcript holds."""
    validated = _messages_adapter().validate_python(list(messages))
    return [m.model_dump(mode="json", by_alias=True) for m in validated]


class SessionTranscript:
    """A session's transcript, state and event records (the part of
    :class:`~agui_widget.session._session.Session` the others build on; ``Session.__init__`` sets
    the attributes declared here)."""

    listener: SessionListener
    hooks: Hooks
    event_log: EventLog
    active: Run | None
    _messages: list[dict[str, Any]]
    _state: Any
    _consumer: EventConsumer | None
    _carried: TranscriptIndex | None
    _checked: list[dict[str, Any]]
    _input_messages: InputMessages
    _recordings: RunRecordings | None
    _recording: RunRecording | None

    @property
    def recordings(self) -> RunRecordings:
        """The newest runs, each with its input and its events' times (recordings, the inspector);
        the recordings' module loads with the first run."""
        if self._recordings is None:
            from ..pipeline._recording import RunRecordings

            self._recordings = RunRecordings()
        return self._recordings

    # While a run streams, its consumer holds the live transcript and state; reading them from it
    # (rather than copying them out per event) keeps the per-token path short.

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self._consumer.messages if self._consumer is not None else self._messages

    @messages.setter
    def messages(self, messages: list[dict[str, Any]]) -> None:
        if self._consumer is not None:
            raise RuntimeError("the transcript cannot change while a run streams")
        self._messages = messages

    @property
    def events(self) -> list[BaseEvent]:
        """The event log as ``ag_ui.core`` objects, oldest first."""
        return self.event_log.events()

    @property
    def state(self) -> Any:
        return self._consumer.state if self._consumer is not None else self._state

    @state.setter
    def state(self, state: Any) -> None:
        self._state = state
        if self._consumer is not None:
            self._consumer.state = state

    def set_state(self, state: Any) -> None:
        """Replace the state (from Python or a view); views get only the difference.

        The session keeps its own copy, so later in-place changes to ``state`` by the caller do
        not make the views and the agent silently disagree with the kernel.
        """
        if not _patchable(self.state, state):
            state = copy.deepcopy(state)
            self.state = state
            self.listener.session_state([{"op": "replace", "path": "", "value": state}])
            return
        # What changed, copied (and nothing else): the rest of the session's state is kept as it is.
        patch = [{**op, "value": json_copy(op["value"])} if "value" in op else op for op in diff(self.state, state)]
        if patch:
            self.state = apply_patch(self.state, patch)
            self.listener.session_state(patch)

    def apply_state_patch(self, patch: list[dict[str, Any]]) -> None:
        """Apply an RFC 6902 patch to the state (a view's edit); raises on a patch that does not
        apply (and then nothing changes). The patch is the caller's to give away."""
        self.state = apply_patch(self.state, patch)
        self.listener.session_state(patch)

    def replace_messages(self, messages: Iterable[Mapping[str, Any]]) -> None:
        """Replace the transcript (validated as AG-UI messages); only while no turn is active.

        Raises (pydantic's ValidationError) with nothing changed when a message is not one. The
        cost grows with what changed: a leading message equal (``==``, in C) both to the one the
        session holds at its place and to the private copy of what was validated there last time
        is kept as the session's own object, without a second validation; the rest is validated
        and copied. The private copy is what makes an in-place edit seen: a dict of
        ``chat.messages`` changed in place (the session's own) no longer equals it, so it is
        validated again and the views are sent the transcript from there. The session never keeps
        the caller's dicts. ``==`` has ``True == 1 == 1.0``: such a flip inside an otherwise equal
        message goes unseen (as in the shared state).
        """
        if self.active is not None:
            raise RuntimeError("the transcript cannot be replaced while a run is active; call chat.stop() first")
        proposed = list(messages)
        old = self.messages
        keep = min(_common_prefix(self._checked, proposed), _common_prefix(old, proposed))
        validated = _messages_adapter().validate_python(proposed[keep:])
        tail = [m.model_dump(mode="json", by_alias=True) for m in validated]
        self._checked = [*self._checked[:keep], *private_copies(tail)]
        self.messages = [*old[:keep], *tail]
        self.listener.session_messages(keep)

    def _forget_indexes(self) -> None:
        """Drop what is kept to make the next run and assignment cost what is new (the old
        transcript's index and validated copies), so a forgotten transcript is freed."""
        self._carried = None
        self._checked = []
        self._input_messages = InputMessages()

    def _pipeline(self) -> EventConsumer:
        """A pipeline for the transcript, extending the index the last one left."""
        consumer = _new_pipeline(self._messages, self._state, self._carried)
        self._carried = consumer.carried_index
        return consumer

    def _deliver(self, run: Run, events: list[BaseEvent], recorded: bool = True) -> None:
        """``recorded``: False for events the kernel adds to the agent's (a replay makes them again)."""
        if not events:
            return
        records = records_of(events)
        run.event_log.add(records)
        self.event_log.add(records)
        if recorded and self._recording is not None:
            self._recording.add(records)
        self.listener.session_events(events, records)
        if self.hooks.on_event is not None:
            self.hooks.events(events)

    def _append_messages(self, messages: list[dict[str, Any]], notify_status: bool = True) -> None:
        if not messages:
            return
        start = len(self.messages)
        self.messages = [*self.messages, *messages]
        self.listener.session_messages(start)
        if notify_status:
            self._changed_status()

    def _changed_status(self) -> None:
        self.listener.session_status()


class InputMessages:
    """The transcript as an agent gets it, as AG-UI models: a message the input guard refused is
    never sent, an activity message is the view's own and is left out (as ``@ag-ui/client``'s
    ``prepareRunAgentInput`` leaves it out, so an A2UI surface drawn after a tool's result never
    hides that result from an agent looking at the last message), and a rich result's MIME bundle
    is for the view (the model gets the text in ``content``).

    Each message is validated once: the very dict seen under its id last time gets the same model
    again, so a run's cost grows with what is new, not with the whole transcript. The session
    replaces a message's dict when it changes (the reducer copies on write; an assignment to
    ``chat.messages`` gives every changed message a new dict), so identity tells what is unchanged,
    and it is the only safe test: the dicts seen last time are the chat's own, which a cell may
    have changed in place before assigning, so an equal dict is no proof the model still fits.
    When the transcript starts with the messages of the last one (the usual case: a run adds at the
    end; an identity check of the lists, in C), that prefix's models are reused as a list and only
    the new messages are looked at. Agents get these models in ``RunAgentInput.messages`` to read: an agent must not
    change them in place (the next run would send the change), as AG-UI agents do not.
    """

    def __init__(self) -> None:
        self._known: dict[str, tuple[dict[str, Any], Message]] = {}
        self._last: list[dict[str, Any]] = []
        """The transcript of the last call (a copy of the list), and its models below."""
        self._models: list[Message] = []

    def __call__(self, messages: list[dict[str, Any]]) -> list[Message]:
        last = self._last
        if last and len(last) <= len(messages) and all(map(operator.is_, last, messages)):
            models = [*self._models, *self._convert(messages[len(last) :], self._known)]
        else:
            kept: dict[str, tuple[dict[str, Any], Message]] = {}
            models = self._convert(messages, kept)
            self._known = kept  # only what this transcript holds: nothing is kept for a message that went
        self._last = list(messages)
        self._models = models
        return list(models)

    def _convert(self, messages: list[dict[str, Any]], kept: dict[str, tuple[dict[str, Any], Message]]) -> list[Message]:
        """The models of ``messages``, recording each id's first message and model in ``kept``
        (which holds the transcript's earlier ids: an id seen there is not reused)."""
        known = self._known
        models: list[Message | None] = []
        new: list[tuple[int, dict[str, Any]]] = []
        for message in messages:
            if message.get("role") == "activity" or ("metadata" in message and mark_of(message, REFUSED) is not None):
                continue
            key = message.get("id")
            entry = known.get(key) if isinstance(key, str) else None
            if entry is not None and entry[0] is message and key not in kept:
                kept[key] = (message, entry[1])  # type: ignore[index]
                models.append(entry[1])
            else:
                new.append((len(models), message))
                models.append(None)
        if new:
            validated = _messages_adapter().validate_python([without_mark(message, DISPLAY) for _, message in new])
            for (index, message), model in zip(new, validated, strict=True):
                models[index] = model
                key = message.get("id")
                if isinstance(key, str) and key not in kept:
                    kept[key] = (message, model)
        return models  # type: ignore[return-value]


def private_copies(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Deep copies of JSON messages, made in C (a JSON round trip: about 1.7 µs a message, a
    third of a second ``model_dump``); none for messages JSON cannot hold (no copy: the next
    assignment validates them)."""
    try:
        copied: list[dict[str, Any]] = json.loads(json.dumps(messages, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return []
    return copied


def _input_messages(messages: list[dict[str, Any]]) -> list[Message]:
    """The transcript as an agent gets it, validated afresh (see :class:`InputMessages`)."""
    return InputMessages()(messages)


def _new_pipeline(messages: list[dict[str, Any]], state: Any, carried: TranscriptIndex | None = None) -> EventConsumer:
    """A run's pipeline; its module loads with a chat's first run, not with the package (the AG-UI
    event tables it builds are a good part of ``import agui_widget``)."""
    from ..pipeline._consumer import EventConsumer

    return EventConsumer(messages, state, carried=carried)


def _common_prefix(old: list[Any], new: list[Any]) -> int:
    """How many leading items ``old`` and ``new`` share by ``==``: compared in C (a list's ``==``
    checks identity first), halving the range that holds the first difference."""
    low, high = 0, min(len(old), len(new))
    try:
        if old[:high] == new[:high]:
            return high
        while high - low > 16:  # old[:low] == new[:low], and the first difference is before high
            middle = (low + high) // 2
            if old[low:middle] == new[low:middle]:
                low = middle
            else:
                high = middle
        while low < high and old[low] == new[low]:
            low += 1
    except Exception:  # an item whose == raises (an array, say) counts as a difference
        return 0
    return low


def _patchable(old: Any, new: Any) -> bool:
    return isinstance(old, (dict, list)) and isinstance(new, (dict, list)) and type(old) is type(new)
