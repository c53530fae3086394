"""A turn's token usage: what its runs report on ``RUN_FINISHED`` (or ``RUN_ERROR``), summed per
provider and model, kept as a mark on the turn's last assistant message.

On the message, the usage travels wherever the transcript goes (a thread store, the JSON export, a
recording's messages, a view) and comes back with it, so nothing else has to be saved. A turn whose
agent reports no usage gets no mark: "not reported" never reads as zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ag_ui.core import TokenUsage

from ..vocabulary._marks import USAGE, mark_of, with_mark

try:  # ag-ui-protocol >= 1.0
    from ag_ui.core.token_usage import aggregate_token_usage
except ImportError:  # pragma: no cover
    aggregate_token_usage = None  # type: ignore[assignment]

_COUNTS = ("inputTokens", "outputTokens", "totalTokens")


def reported_usage(event: Any) -> list[TokenUsage]:
    """The usage a run's terminal event carries (none when it carries none)."""
    usage = getattr(event, "usage", None)
    return [entry for entry in usage or () if isinstance(entry, TokenUsage)]


def turn_usage(entries: Sequence[TokenUsage]) -> list[dict[str, Any]]:
    """The turn's runs' usage summed per provider and model, as the protocol writes it (camelCase)."""
    if not entries:
        return []
    summed = aggregate_token_usage(entries) if aggregate_token_usage is not None else list(entries)
    return [entry.model_dump(by_alias=True, exclude_none=True) for entry in summed]


def with_turn_usage(
    messages: Sequence[dict[str, Any]], user_message_id: str | None, usage: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], int] | None:
    """``messages`` with ``usage`` marked on the last assistant message after the turn's user
    message, and that message's index; None when the turn left no assistant message to mark."""
    start = 0
    if user_message_id is not None:
        for index in range(len(messages) - 1, -1, -1):
            if messages[index].get("id") == user_message_id:
                start = index + 1
                break
    for index in range(len(messages) - 1, start - 1, -1):
        message = messages[index]
        if message.get("role") == "assistant":
            marked = list(messages)
            marked[index] = {**message, "metadata": with_mark(message.get("metadata"), USAGE, usage)}
            return marked, index
    return None


def _count(entries: Iterable[Mapping[str, Any]], key: str) -> int:
    total = 0
    for entry in entries:
        value = entry.get(key)
        if key == "totalTokens" and not isinstance(value, int):
            value = (entry.get("inputTokens") or 0) + (entry.get("outputTokens") or 0)
        if isinstance(value, int) and not isinstance(value, bool):
            total += value
    return total


def thread_usage(messages: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Each turn's usage in a thread (from its marks) and the thread's totals: what ``chat.usage`` is."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        entries = mark_of(message, USAGE)
        if not isinstance(entries, list):
            continue
        entries = [entry for entry in entries if isinstance(entry, Mapping)]
        models = list(dict.fromkeys(entry["model"] for entry in entries if isinstance(entry.get("model"), str)))
        turns.append(
            {
                "messageId": message.get("id"),
                "model": ", ".join(models) or None,
                **{key: _count(entries, key) for key in _COUNTS},
            }
        )
    return {"turns": turns, **{key: sum(turn[key] for turn in turns) for key in _COUNTS}}
