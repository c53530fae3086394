"""Applying delivered AG-UI events to a transcript (``messages``) and a shared ``state``.

The semantics are AG-UI 1.0's, as ``@ag-ui/client``'s ``defaultApplyEvents`` implements them:
text triads build messages, tool calls land on their parent assistant message (created when
absent), a tool result mints a tool message right after the call, snapshots replace, deltas
patch, metadata merges key by key with the last write winning.

``messages`` is a list of camelCase AG-UI message dicts (what
``Message.model_dump(mode="json", by_alias=True)`` gives). It is built for streaming: an index
maps ids to messages and tool calls, so a token costs O(1), and streamed text is buffered per
message and joined into ``content`` only when ``messages`` is read.
"""

from __future__ import annotations

import itertools
import logging
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ag_ui.core import BaseEvent, EventType

from ..vocabulary._state_patch import PATCH_ERRORS, apply_patch
from ._message_dicts import (
    activity_message,
    assistant_message,
    merge_metadata,
    merged_snapshot,
    started_message,
    tool_call,
    tool_result_message,
)

__all__ = ["EventReducer", "TranscriptIndex"]

log = logging.getLogger("agui_widget")

_PatchErrors = PATCH_ERRORS


class EventReducer:
    """Folds verified events into ``messages`` and ``state``.

    ``changed_from`` is the smallest message index added or changed since :meth:`reset_changes`,
    so a view can be sent only the tail that moved.
    """

    def __init__(
        self,
        messages: Iterable[Mapping[str, Any]] | None = None,
        state: Any = None,
        *,
        on_warning: Callable[[str], None] | None = None,
        carried: TranscriptIndex | None = None,
    ) -> None:
        """``carried``: the index of an earlier transcript (:attr:`carried`), given up to be
        extended when this transcript starts with the same message objects."""
        self._warn_callback = on_warning
        self._state: Any = state
        self.changed_from: int | None = None
        # Streamed fragments not yet joined: message id -> deltas, tool call id -> deltas.
        self._pending_content: dict[str, list[str]] = {}
        self._pending_args: dict[str, list[str]] = {}
        self._set_messages(messages or [], carried)

    # -- public ------------------------------------------------------------------------------

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The transcript, with every streamed fragment joined in. Treat it as read-only."""
        if self._pending_content or self._pending_args:
            self.flush()
        return self._messages

    @messages.setter
    def messages(self, messages: Iterable[Mapping[str, Any]]) -> None:
        self._set_messages(messages)
        self.changed_from = 0

    @property
    def state(self) -> Any:
        """The shared state: any JSON value. Replaced, never mutated in place."""
        return self._state

    @state.setter
    def state(self, value: Any) -> None:
        self._state = value

    def reset_changes(self) -> None:
        """Start a new change window for ``changed_from``."""
        self.changed_from = None

    def flush(self) -> None:
        """Join buffered text and argument fragments into their messages."""
        for message_id, parts in self._pending_content.items():
            message = self._by_id.get(message_id)
            if message is not None:
                message = self._writable(message)
                message["content"] = _append(message, "content", parts)
        self._pending_content.clear()
        for tool_call_id, parts in self._pending_args.items():
            call = self._writable_call(tool_call_id)
            if call is not None:
                function = call["function"]
                function["arguments"] = _append(function, "arguments", parts)
        self._pending_args.clear()

    def continue_text(self, message_id: str, delta: str) -> bool:
        """Fold a plain TEXT_MESSAGE_CONTENT into a message that already has text waiting to be
        joined, as :meth:`apply` would (the hot path: most of a stream); False, with nothing
        changed, when it has none, for :meth:`apply` to take."""
        parts = self._pending_content.get(message_id)
        if parts is None:
            return False
        parts.append(delta)
        index = self._pos.get(message_id)  # _touch_id, inline: once a token
        if index is not None and (self.changed_from is None or index < self.changed_from):
            self.changed_from = index
        return True

    def continue_args(self, tool_call_id: str, delta: str) -> bool:
        """The same for a plain TOOL_CALL_ARGS."""
        parts = self._pending_args.get(tool_call_id)
        if parts is None:
            return False
        parts.append(delta)
        self._touch_message(self._call_owner[tool_call_id])
        return True

    def apply(self, event: BaseEvent) -> None:
        """Fold one (verified, chunk-expanded) event into messages and state."""
        handler = _HANDLERS.get(event.type)
        if handler is not None:
            handler(self, event)

    # -- bookkeeping -------------------------------------------------------------------------

    def _warn(self, text: str) -> None:
        if self._warn_callback is not None:
            self._warn_callback(text)
        else:
            log.warning("agui-widget: %s", text)

    def _set_messages(self, messages: Iterable[Mapping[str, Any]], carried: TranscriptIndex | None = None) -> None:
        """Adopt a transcript handed in from outside, copying on write.

        The caller's dicts are never changed: a handed-in message is copied (shallowly, with its
        tool calls) the first time the reducer writes to it (:meth:`_writable`), and nested values
        are only ever replaced, not changed in place. Messages no event touches stay the very
        objects handed in, so a run costs what it changes, and what holds the old transcript (the
        session's models of its messages, a view's copy, the next run's :class:`TranscriptIndex`)
        can tell by identity what is unchanged.
        """
        self._pending_content.clear()
        self._pending_args.clear()
        adopted: list[Any] = list(messages)
        shared = _same_prefix(carried.messages, adopted) if carried is not None else 0
        if not set(map(type, adopted[shared:])) <= {dict}:  # the shared prefix was checked before
            adopted[shared:] = [m if type(m) is dict else dict(m) for m in adopted[shared:]]
        self._messages: list[dict[str, Any]] = adopted
        self._own: set[int] = set()
        """The messages the reducer made or copied (by ``id``), which it may change in place;
        every other message was handed in and is copied before a write."""
        self.carried = TranscriptIndex.of(adopted, carried, shared)
        """The index of the transcript as handed in, as a full rebuild makes it: for the next
        reducer to extend (see :class:`TranscriptIndex`)."""
        self._by_id, self._pos, self._tool_calls, self._call_owner = self.carried.copies()

    def _writable(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message``, or its private copy in its place when it was handed in (see above)."""
        if id(message) in self._own:
            return message
        copied = _own_copy(message)
        self._own.add(id(copied))
        index = self._index_of(message)
        if index is not None:
            self._messages[index] = copied
        message_id = message.get("id")
        if isinstance(message_id, str) and self._by_id.get(message_id) is message:
            self._by_id[message_id] = copied
        for old, new in zip(message.get("toolCalls") or (), copied.get("toolCalls") or (), strict=True):
            call_id = old.get("id") if isinstance(old, dict) else None
            if isinstance(call_id, str):
                if self._tool_calls.get(call_id) is old:
                    self._tool_calls[call_id] = new
                if self._call_owner.get(call_id) is message:
                    self._call_owner[call_id] = copied
        return copied

    def _writable_call(self, tool_call_id: str) -> dict[str, Any] | None:
        """The tool call with that id, in a message the reducer may write to (None: no such call)."""
        owner = self._call_owner.get(tool_call_id)
        if owner is None:
            return None
        self._writable(owner)
        return self._tool_calls.get(tool_call_id)

    def _reindex(self, start: int = 0) -> None:
        """Rebuild the indexes: everything when ``start`` is 0, else the positions from ``start``.

        With duplicate ids (possible in history handed in from outside) the first one wins.
        """
        if start > 0:
            for index in range(start, len(self._messages)):
                message_id = self._messages[index].get("id")
                if isinstance(message_id, str) and self._by_id.get(message_id) is self._messages[index]:
                    self._pos[message_id] = index
            return
        self._by_id, self._pos, self._tool_calls, self._call_owner = {}, {}, {}, {}
        _index_into(self._messages, 0, self._by_id, self._pos, self._tool_calls, self._call_owner)

    def _touch(self, index: int) -> None:
        if self.changed_from is None or index < self.changed_from:
            self.changed_from = index

    def _index_of(self, message: dict[str, Any]) -> int | None:
        """Where ``message`` (this very object) is; by its id when it owns the id, else by a scan."""
        index = self._pos.get(message.get("id"))  # type: ignore[arg-type]
        if index is not None and self._messages[index] is message:
            return index
        return next((i for i, m in enumerate(self._messages) if m is message), None)

    def _touch_message(self, message: dict[str, Any]) -> None:
        index = self._index_of(message)
        if index is not None:
            self._touch(index)

    def _touch_id(self, message_id: str) -> None:
        index = self._pos.get(message_id)
        if index is not None and (self.changed_from is None or index < self.changed_from):
            self.changed_from = index

    def _append_message(self, message: dict[str, Any]) -> None:
        """Add a message the reducer made at the end; when its id is taken, the first message keeps the id."""
        self._own.add(id(message))
        self._messages.append(message)
        message_id = message["id"]
        if message_id not in self._by_id:
            self._by_id[message_id] = message
            self._pos[message_id] = len(self._messages) - 1
        self._touch(len(self._messages) - 1)

    def _insert_message(self, index: int, message: dict[str, Any]) -> None:
        """Insert a message the reducer made; when its id is taken, the first message keeps the id."""
        self._own.add(id(message))
        self._messages.insert(index, message)
        self._by_id.setdefault(message["id"], message)
        self._reindex(index)
        self._touch(index)

    def _replace_message(self, message_id: str, message: dict[str, Any]) -> None:
        self._flush_one(message_id)
        index = self._pos[message_id]
        old = self._messages[index]
        for call in old.get("toolCalls") or ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                self._tool_calls.pop(call["id"], None)
                self._call_owner.pop(call["id"], None)
        self._own.add(id(message))
        self._messages[index] = message
        self._by_id[message_id] = message
        for call in message.get("toolCalls") or ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                self._tool_calls[call["id"]] = call
                self._call_owner[call["id"]] = message
        self._touch(index)

    def _flush_one(self, message_id: str) -> None:
        parts = self._pending_content.pop(message_id, None)
        message = self._by_id.get(message_id)
        if parts is not None and message is not None:
            message = self._writable(message)
            message["content"] = _append(message, "content", parts)
        if message is not None:
            for call in message.get("toolCalls") or ():
                call_id = call.get("id") if isinstance(call, dict) else None
                call_parts = self._pending_args.pop(call_id, None) if isinstance(call_id, str) else None
                if call_parts is not None:
                    writable = self._writable_call(call_id)  # type: ignore[arg-type]
                    if writable is not None:
                        writable["function"]["arguments"] = _append(writable["function"], "arguments", call_parts)

    # -- text and reasoning messages ---------------------------------------------------------

    def _text_start(self, event: Any) -> None:
        self._start_message(event, event.role or "assistant", "text", name=event.name)

    def _reasoning_start(self, event: Any) -> None:
        self._start_message(event, "reasoning", "reasoning")

    def _start_message(self, event: Any, role: str, kind: str, name: str | None = None) -> None:
        """Open a text or reasoning message, or merge into the one with that id (a reopen)."""
        message_id = event.message_id
        message = self._by_id.get(message_id)
        if message is not None and message.get("role") == "activity":
            self._warn(
                f"{event.type.value}: message '{message_id}' is an activity message; message ids must be "
                f"unique across activity and {kind} messages. The {kind} is dropped."
            )
            return
        if message is None:
            self._append_message(started_message(event, role, name))
        elif event.metadata is not None and merge_metadata(self._writable(message), event):
            self._touch_id(message_id)

    def _text_content(self, event: Any) -> None:
        message_id = event.message_id
        parts = self._pending_content.get(message_id)
        if parts is None:
            message = self._by_id.get(message_id)
            if message is None:
                self._warn(f"{event.type.value}: no message found with id '{message_id}'")
                return
            if message.get("role") == "activity":
                self._warn(f"{event.type.value}: message '{message_id}' is an activity message; the text is dropped.")
                return
            self._pending_content[message_id] = [event.delta]
        else:
            parts.append(event.delta)
        self._touch_id(message_id)
        if event.metadata is not None:
            merge_metadata(self._writable(self._by_id[message_id]), event)

    def _text_end(self, event: Any) -> None:
        message = self._by_id.get(event.message_id)
        if message is None:
            self._warn(f"{event.type.value}: no message found with id '{event.message_id}'")
            return
        if message.get("role") == "activity":
            return
        if event.metadata is not None and merge_metadata(self._writable(message), event):
            self._touch_id(event.message_id)

    # -- tool calls --------------------------------------------------------------------------

    def _tool_start(self, event: Any) -> None:
        tool_call_id = event.tool_call_id
        existing = self._tool_calls.get(tool_call_id)
        if existing is not None:
            # Idempotent: a replayed start updates the call instead of adding a second one.
            existing = self._writable_call(tool_call_id) or existing
            function = existing["function"]
            renamed = function.get("name") != event.tool_call_name
            if renamed:
                self._warn(
                    f"TOOL_CALL_START: tool call '{tool_call_id}' already exists with name "
                    f"'{function.get('name')}'; renaming it to '{event.tool_call_name}'"
                )
                function["name"] = event.tool_call_name
            if merge_metadata(existing, event) or renamed:
                self._touch_message(self._call_owner[tool_call_id])
            return
        owner = self._writable(self._assistant_for(event.parent_message_id, tool_call_id, event.subagent_run_id))
        call = tool_call(event)
        calls = owner.get("toolCalls")
        owner["toolCalls"] = [*calls, call] if isinstance(calls, list) else [call]
        self._tool_calls[tool_call_id] = call
        self._call_owner[tool_call_id] = owner
        self._touch_message(owner)

    def _assistant_for(self, parent_id: str | None, tool_call_id: str, subagent_run_id: str | None) -> dict[str, Any]:
        """The assistant message a call lands on: its parent when that is an assistant message,
        else a new one, named by the parent id when no message has it, else by the call's id."""
        new_id = tool_call_id
        if parent_id is not None:
            parent = self._by_id.get(parent_id)
            if parent is not None and parent.get("role") == "assistant":
                return parent
            if parent is not None:
                self._warn(
                    f"TOOL_CALL_START: parentMessageId '{parent_id}' names a '{parent.get('role')}' message, "
                    "not an assistant message; the call gets its own assistant message"
                )
            else:
                new_id = parent_id
        created = assistant_message(new_id, subagent_run_id)
        self._append_message(created)
        return created

    def _tool_args(self, event: Any) -> None:
        tool_call_id = event.tool_call_id
        parts = self._pending_args.get(tool_call_id)
        if parts is None:
            if tool_call_id not in self._tool_calls:
                self._warn(f"TOOL_CALL_ARGS: no message holds a tool call with id '{tool_call_id}'")
                return
            self._pending_args[tool_call_id] = [event.delta]
        else:
            parts.append(event.delta)
        self._touch_message(self._call_owner[tool_call_id])
        if event.metadata is not None:
            call = self._writable_call(tool_call_id)
            if call is not None:
                merge_metadata(call, event)

    def _tool_end(self, event: Any) -> None:
        call = self._tool_calls.get(event.tool_call_id)
        if call is None:
            self._warn(f"TOOL_CALL_END: no message holds a tool call with id '{event.tool_call_id}'")
            return
        if event.metadata is not None and merge_metadata(self._writable_call(event.tool_call_id) or call, event):
            self._touch_message(self._call_owner[event.tool_call_id])

    def _tool_result(self, event: Any) -> None:
        message = tool_result_message(event)
        # A result always mints its message (a messageId already taken stays with the message
        # that had it first; nothing is replaced), placed right after the assistant message that
        # made the call and the results already recorded for it, so history reads call -> result
        # even when text streamed in between.
        owner = self._call_owner.get(event.tool_call_id)
        owner_index = self._index_of(owner) if owner is not None else None
        if owner_index is None or self._messages[owner_index].get("role") != "assistant":
            self._append_message(message)
            return
        index = owner_index + 1
        while index < len(self._messages) and self._messages[index].get("role") == "tool":
            index += 1
        if index == len(self._messages):
            self._append_message(message)
        else:
            self._insert_message(index, message)

    # -- state -------------------------------------------------------------------------------

    def _state_snapshot(self, event: Any) -> None:
        self._state = event.snapshot

    def _state_delta(self, event: Any) -> None:
        operations = [operation.model_dump(mode="python", by_alias=True) for operation in event.delta]
        try:
            self._state = apply_patch(self._state, operations)
        except _PatchErrors as exc:
            self._warn(f"Failed to apply state patch ({exc}); the state is left as it was.")

    # -- snapshots ---------------------------------------------------------------------------

    def _messages_snapshot(self, event: Any) -> None:
        self.flush()
        incoming = [message.model_dump(mode="json", by_alias=True) for message in event.messages]
        self._own.update(map(id, incoming))
        old = self._messages
        merged, first_change = merged_snapshot(old, incoming)
        self._messages = merged
        self._reindex()
        if first_change < len(merged) or len(old) != len(merged):
            self._touch(first_change)

    def _run_started(self, event: Any) -> None:
        if event.input is None:
            return
        for message in event.input.messages:
            if message.id not in self._by_id:
                self._append_message(message.model_dump(mode="json", by_alias=True))

    # -- activities --------------------------------------------------------------------------

    def _activity_snapshot(self, event: Any) -> None:
        message_id = event.message_id
        existing = self._by_id.get(message_id)
        replace = event.replace is not False
        fresh = activity_message(event)
        if existing is None:
            merge_metadata(fresh, event)
            self._append_message(fresh)
            return
        if existing.get("role") == "activity":
            existing = self._writable(existing)
            if replace:
                # A replace re-mints the content and the attribution, not the metadata so far.
                existing["activityType"] = event.activity_type
                existing["content"] = fresh["content"]
                existing.pop("subagentRunId", None)
                if event.subagent_run_id is not None:
                    existing["subagentRunId"] = event.subagent_run_id
            merge_metadata(existing, event)
            self._touch_id(message_id)
        elif replace:
            merge_metadata(fresh, event)
            self._replace_message(message_id, fresh)

    def _activity_delta(self, event: Any) -> None:
        message_id = event.message_id
        message = self._by_id.get(message_id)
        if message is None:
            self._warn(f"ACTIVITY_DELTA: no activity message with id '{message_id}'; the patch is skipped")
            return
        if message.get("role") != "activity":
            self._warn(f"ACTIVITY_DELTA: message '{message_id}' is not an activity message")
            return
        message = self._writable(message)
        merge_metadata(message, event)
        operations = [operation.model_dump(mode="python", by_alias=True) for operation in event.patch]
        try:
            content = apply_patch(message.get("content") or {}, operations)
        except _PatchErrors as exc:
            self._warn(f"Failed to apply activity patch for '{message_id}': {exc}")
        else:
            message["content"] = content
            message["activityType"] = event.activity_type
        self._touch_id(message_id)

    def _encrypted_value(self, event: Any) -> None:
        if event.subtype == "tool-call":
            call = self._writable_call(event.entity_id) if event.entity_id in self._tool_calls else None
            if call is not None:
                call["encryptedValue"] = event.encrypted_value
                self._touch_message(self._call_owner[event.entity_id])
            return
        message = self._by_id.get(event.entity_id)
        if message is not None and message.get("role") != "activity":
            message = self._writable(message)
            message["encryptedValue"] = event.encrypted_value
            self._touch_id(event.entity_id)


# The handlers are looked up here, not kept as bound methods on each reducer: bound methods would
# make every reducer (and the transcript it holds) a reference cycle, freed only by the cyclic
# garbage collector.
_HANDLERS: dict[Any, Callable[[EventReducer, Any], None]] = {
    EventType.TEXT_MESSAGE_START: EventReducer._text_start,
    EventType.TEXT_MESSAGE_CONTENT: EventReducer._text_content,
    EventType.TEXT_MESSAGE_END: EventReducer._text_end,
    EventType.TOOL_CALL_START: EventReducer._tool_start,
    EventType.TOOL_CALL_ARGS: EventReducer._tool_args,
    EventType.TOOL_CALL_END: EventReducer._tool_end,
    EventType.TOOL_CALL_RESULT: EventReducer._tool_result,
    EventType.STATE_SNAPSHOT: EventReducer._state_snapshot,
    EventType.STATE_DELTA: EventReducer._state_delta,
    EventType.MESSAGES_SNAPSHOT: EventReducer._messages_snapshot,
    EventType.ACTIVITY_SNAPSHOT: EventReducer._activity_snapshot,
    EventType.ACTIVITY_DELTA: EventReducer._activity_delta,
    EventType.RUN_STARTED: EventReducer._run_started,
    EventType.REASONING_MESSAGE_START: EventReducer._reasoning_start,
    EventType.REASONING_MESSAGE_CONTENT: EventReducer._text_content,
    EventType.REASONING_MESSAGE_END: EventReducer._text_end,
    EventType.REASONING_ENCRYPTED_VALUE: EventReducer._encrypted_value,
}


def _own_copy(message: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``message`` whose tool calls (and their functions) are the reducer's own."""
    copied = dict(message)
    calls = copied.get("toolCalls")
    if isinstance(calls, list):
        copied["toolCalls"] = [
            {**call, "function": dict(call["function"])}
            if isinstance(call, dict) and isinstance(call.get("function"), dict)
            else call
            for call in calls
        ]
    return copied


def _append(holder: dict[str, Any], key: str, parts: list[str]) -> str:
    """``holder[key] + "".join(parts)``, growing the string in place when nothing else holds it.

    The dict's reference is dropped before the concatenation so CPython can resize the string
    instead of copying it: a very long message costs O(delta) per flush, not O(length).
    """
    current = holder.get(key)
    holder[key] = None
    if not isinstance(current, str):
        current = ""
    current += parts[0] if len(parts) == 1 else "".join(parts)
    return current


_Indexes = tuple[dict[str, dict[str, Any]], dict[str, int], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]


def _index_into(
    messages: list[dict[str, Any]],
    start: int,
    by_id: dict[str, dict[str, Any]],
    pos: dict[str, int],
    tool_calls: dict[str, dict[str, Any]],
    call_owner: dict[str, dict[str, Any]],
) -> None:
    """Index ``messages[start:]`` into indexes that hold ``messages[:start]``: ids to messages
    and positions, tool call ids to calls and to the message holding them (the message itself:
    ids may repeat). With duplicate ids the first one wins, and a message whose id is taken adds
    none of its tool calls."""
    for index in range(start, len(messages)):
        message = messages[index]
        message_id = message.get("id")
        if not isinstance(message_id, str) or message_id in by_id:
            continue
        by_id[message_id] = message
        pos[message_id] = index
        for call in message.get("toolCalls") or ():
            if isinstance(call, dict) and isinstance(call.get("id"), str) and isinstance(call.get("function"), dict):
                tool_calls.setdefault(call["id"], call)
                call_owner.setdefault(call["id"], message)


class TranscriptIndex:
    """The reducer's indexes of a transcript as a full rebuild makes them, carried from one run to
    the next so that starting a run costs what is new, not the whole transcript.

    The next run's transcript is mostly this one with messages added at the end: the messages a
    run does not write to stay the very objects they were (the reducer copies on write), so an
    identity check of the prefix (in C) tells what is unchanged. Entries of the messages past the
    shared prefix are dropped and the new messages indexed, which gives exactly what a full
    rebuild gives: the first message with an id wins, and everything a dropped message added
    belonged to it alone. Never changed in place while a reducer uses it (:meth:`copies`);
    :meth:`of` may change the index it extends, which its holder gives up.
    """

    __slots__ = ("by_id", "call_owner", "messages", "pos", "tool_calls")

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        """The transcript indexed (a private copy of the list: its messages, not the reducer's list)."""
        self.by_id: dict[str, dict[str, Any]] = {}
        self.pos: dict[str, int] = {}
        self.tool_calls: dict[str, dict[str, Any]] = {}
        self.call_owner: dict[str, dict[str, Any]] = {}

    @classmethod
    def of(
        cls, messages: list[dict[str, Any]], previous: TranscriptIndex | None = None, shared: int | None = None
    ) -> TranscriptIndex:
        """The index of ``messages``, extending ``previous`` (given up) when they share a prefix
        (``shared``: its length, when the caller knows it)."""
        index = previous if previous is not None else cls()
        if shared is None:
            shared = _same_prefix(index.messages, messages)
        if shared == 0 and index.messages:
            index = cls()
        else:
            index._drop_from(shared)
        _index_into(messages, shared, index.by_id, index.pos, index.tool_calls, index.call_owner)
        index.messages = list(messages)
        return index

    def copies(self) -> _Indexes:
        """Copies of the indexes (in C, without a Python loop), for a reducer to change."""
        return self.by_id.copy(), self.pos.copy(), self.tool_calls.copy(), self.call_owner.copy()

    def _drop_from(self, start: int) -> None:
        """Forget what the messages from ``start`` on added (each entry names its own message)."""
        by_id, pos, tool_calls, call_owner = self.by_id, self.pos, self.tool_calls, self.call_owner
        for index in range(start, len(self.messages)):
            message = self.messages[index]
            message_id = message.get("id")
            if not isinstance(message_id, str) or pos.get(message_id) != index:
                continue
            del by_id[message_id], pos[message_id]
            for call in message.get("toolCalls") or ():
                call_id = call.get("id") if isinstance(call, dict) else None
                if isinstance(call_id, str) and call_owner.get(call_id) is message:
                    del tool_calls[call_id], call_owner[call_id]
        del self.messages[start:]


def _same_prefix(old: list[Any], new: list[Any]) -> int:
    """How many leading items ``old`` and ``new`` share as the very same objects (checked in C)."""
    if len(old) <= len(new) and all(map(operator.is_, old, new)):
        return len(old)
    return next(itertools.compress(itertools.count(), map(operator.is_not, old, new)), min(len(old), len(new)))
