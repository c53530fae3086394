"""A conversation's branches: what Regenerate and Edit leave behind, kept as versions to go back to.

The transcript (``Session.messages``) is the branch on screen, and it is all an agent gets. Where a
Regenerate or an Edit forked the conversation, the versions not shown are kept here, by fork: a
fork is named by the message it follows (``None``: the start of the transcript), and holds its
versions in the order they were made, each the whole rest of the conversation from there. The
shown version is the transcript after that message and is not stored twice (``None`` in
``Fork.versions``). A version put away takes the forks inside it along (:class:`Version`), so the
forks held here are always those of the shown branch, and a fork's message is found in the
transcript by its id. Kept as JSON with the thread (a store's ``ThreadRecord.branches``, and
``to_json()``), and checked when read back.

Memory is bounded per fork: at most :data:`MAX_VERSIONS` versions, the oldest put away first.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ._transcript import normalize_messages

log = logging.getLogger("agui_widget")

MAX_VERSIONS = 20
"""The most versions a fork keeps; making one more drops the oldest of those not shown."""

Key = str | None
"""A fork's name: the id of the message it follows, or None for the start of the transcript."""


@dataclass
class Version:
    """A version put away: the messages after the fork, and the forks inside them."""

    messages: list[dict[str, Any]]
    forks: dict[Key, Fork] = field(default_factory=dict)


@dataclass
class Fork:
    """The versions of the conversation after one message; ``None`` marks the one shown."""

    versions: list[Version | None]

    @property
    def shown(self) -> int:
        return self.versions.index(None)


class Branches:
    """The forks of the shown branch, and the versions each keeps out of sight."""

    def __init__(self) -> None:
        self.forks: dict[Key, Fork] = {}

    def clear(self) -> None:
        self.forks = {}

    def fork(self, messages: Sequence[dict[str, Any]], cut: int) -> None:
        """``messages[cut:]`` are about to be replaced (a Regenerate or an Edit): keep them as a
        version of the fork after ``messages[cut - 1]``, and make room for the new one, shown."""
        tail = list(messages[cut:])
        if not tail:  # nothing is lost: the new answer fills the version shown (an empty one)
            return
        key = _key_at(messages, cut)
        fork = self.forks.get(key) or Fork([None])
        fork.versions[fork.shown] = Version(tail, self._take(tail))
        fork.versions.append(None)
        self.forks[key] = _trimmed(fork)

    def show(self, messages: Sequence[dict[str, Any]], key: Key, index: int) -> tuple[list[dict[str, Any]], int] | None:
        """The transcript with version ``index`` of fork ``key`` shown, and where it changed from;
        None when that version is shown already. Raises KeyError for no such fork, ValueError for
        no such version; nothing changes then."""
        fork = self.forks.get(key)
        cut = _cut_of(messages, key)
        if fork is None or cut is None:
            raise KeyError(f"no branches follow message {key!r}" if key is not None else "no branches at the start")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(fork.versions):
            raise ValueError(f"the conversation after this message has versions 0 to {len(fork.versions) - 1}, not {index!r}")
        current = fork.shown
        if index == current:
            return None
        tail = list(messages[cut:])
        if tail:
            fork.versions[current] = Version(tail, self._take(tail))
        else:  # an empty version (a Regenerate that failed before any answer) is not kept
            del fork.versions[current]
            index -= index > current
        chosen = fork.versions[index]
        assert chosen is not None
        fork.versions[index] = None
        if len(fork.versions) == 1:
            del self.forks[key]
        self.forks.update(chosen.forks)
        return [*messages[:cut], *chosen.messages], cut

    def prune(self, messages: Sequence[dict[str, Any]]) -> None:
        """Forget the forks whose message left the transcript (a cell assigned ``chat.messages``)."""
        if not self.forks:
            return
        ids = {m.get("id") for m in messages}
        for key in [k for k in self.forks if k is not None and k not in ids]:
            del self.forks[key]

    def entries(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The shown branch's forks, in transcript order, as ``chat.branches`` and the views see
        them: ``parentId`` (the message the versions follow; None for the start), ``messageId``
        (the first message of the version shown; None when it is empty), ``kind`` (``"edit"``:
        the versions start with a user message; ``"answer"``: they are answers to it), ``index``
        (of the version shown, from 0), ``count``, and ``at``, the message the "n of m" goes under
        (an edited message; the last answer of a regenerated turn)."""
        if not self.forks:
            return []
        positions = {m.get("id"): i for i, m in enumerate(messages) if m.get("id") in self.forks}
        found = sorted((positions[k] + 1 if k is not None else 0, k) for k in self.forks if k is None or k in positions)
        return [_entry(messages, cut, key, self.forks[key]) for cut, key in found]

    def _take(self, tail: list[dict[str, Any]]) -> dict[Key, Fork]:
        """The forks inside ``tail``, taken out of the shown branch's (they go away with it)."""
        ids = {m.get("id") for m in tail}
        return {key: self.forks.pop(key) for key in [k for k in self.forks if k is not None and k in ids]}

    # -- kept as JSON -----------------------------------------------------------------------------

    def to_json(self) -> list[dict[str, Any]]:
        """The forks as JSON: ``[{"parentId", "versions": [null | {"messages", "forks"}]}]``."""
        return _forks_json(self.forks)

    def load(self, value: Any) -> None:
        """Take the forks of ``value`` (:meth:`to_json`'s form); a value that is not one is
        logged and ignored (the branch shown stays as it is)."""
        self.forks = {}
        if value is None:
            return
        try:
            self.forks = _forks_of(value)
        except (TypeError, ValueError, KeyError, RecursionError, ValidationError) as exc:
            log.warning("agui-widget: the thread's other branches were not read (%s); the branch shown is kept", exc)


def _key_at(messages: Sequence[dict[str, Any]], cut: int) -> Key:
    return messages[cut - 1].get("id") if cut > 0 else None


def _cut_of(messages: Sequence[dict[str, Any]], key: Key) -> int | None:
    """Where the versions after ``key`` start in the transcript, or None when it holds no such message."""
    if key is None:
        return 0
    return next((i + 1 for i, m in enumerate(messages) if m.get("id") == key), None)


def _entry(messages: Sequence[dict[str, Any]], cut: int, key: Key, fork: Fork) -> dict[str, Any]:
    first = messages[cut] if cut < len(messages) else None
    kind = "edit" if first is not None and first.get("role") == "user" else "answer"
    at = first.get("id") if first is not None else key
    if kind == "answer" and first is not None:  # the turn's last answer, where Regenerate sits
        for message in messages[cut:]:
            if message.get("role") == "user":
                break
            if message.get("role") == "assistant":
                at = message.get("id")
    return {
        "parentId": key,
        "messageId": first.get("id") if first is not None else None,
        "kind": kind,
        "index": fork.shown,
        "count": len(fork.versions),
        "at": at,
    }


def _forks_json(forks: Mapping[Key, Fork]) -> list[dict[str, Any]]:
    return [
        {
            "parentId": key,
            "versions": [
                None if v is None else {"messages": list(v.messages), "forks": _forks_json(v.forks)} for v in fork.versions
            ],
        }
        for key, fork in forks.items()
    ]


def _forks_of(value: Any) -> dict[Key, Fork]:
    """:func:`_forks_json`'s form read back, every message validated; raises on anything else."""
    if not isinstance(value, list):
        raise TypeError(f"a list of forks, not {type(value).__name__}")
    forks: dict[Key, Fork] = {}
    for item in value:
        key, versions = item["parentId"], item["versions"]
        if key is not None and not isinstance(key, str):
            raise TypeError("a fork's parentId is a message id or null")
        if not isinstance(versions, list) or [v is None for v in versions].count(True) != 1 or len(versions) < 2:
            raise ValueError("a fork holds two versions or more, one of them (null) the one shown")
        kept = [
            None if v is None else Version(normalize_messages(v["messages"]), _forks_of(v.get("forks", []))) for v in versions
        ]
        forks[key] = _trimmed(Fork(kept))
    return forks


def _trimmed(fork: Fork) -> Fork:
    """``fork`` with at most :data:`MAX_VERSIONS` versions: the oldest not shown go."""
    while len(fork.versions) > MAX_VERSIONS:
        del fork.versions[next(i for i, v in enumerate(fork.versions) if v is not None)]
    return fork


__all__ = ["MAX_VERSIONS", "Branches", "Fork", "Version"]
