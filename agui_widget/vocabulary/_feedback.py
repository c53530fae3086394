"""A person's rating of an answer: thumbs up or down, with an optional comment.

The rating is kept on the answer itself, as the mark ``feedback`` in its metadata
(``{"rating": "up" | "down", "comment": ...}``), so it travels wherever the message goes: the
chat's ``messages``, a thread store, the exports, the next run's input. A notebook's chat
(``AgentChat.feedback``) and a served app (``POST {path}feedback``) rate the same way, here.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from ._marks import FEEDBACK, mark_of, with_mark, without_mark

Rating = Literal["up", "down"]
RATINGS: tuple[Rating, ...] = ("up", "down")
MAX_COMMENT = 2000
"""The longest comment kept with a rating (characters)."""

FeedbackHook = Callable[[dict[str, Any], Rating | None, str | None], Awaitable[None] | None]
"""``on_feedback(message, rating, comment)``: the rated message (its metadata holds the rating),
``"up"``, ``"down"`` or None (withdrawn), and the comment or None."""


def checked_hook(hook: FeedbackHook | None) -> FeedbackHook | None:
    if hook is not None and not callable(hook):
        raise TypeError(f"on_feedback must be a function of (message, rating, comment) (or None), not {type(hook).__name__}")
    return hook


def feedback_value(rating: Any, comment: Any = None) -> dict[str, str] | None:
    """The mark's value for ``rating`` and ``comment`` (None: the rating is withdrawn, and any
    comment with it); ValueError for a rating other than "up", "down" or None, or a comment that
    is not a string of at most :data:`MAX_COMMENT` characters."""
    if rating is None:
        return None
    if rating not in RATINGS:
        raise ValueError(f"a rating is 'up', 'down' or None (withdrawn), not {rating!r}")
    if comment is not None and not isinstance(comment, str):
        raise ValueError(f"a comment is text, not {type(comment).__name__}")
    text = (comment or "").strip()
    if len(text) > MAX_COMMENT:
        raise ValueError(f"a comment is at most {MAX_COMMENT} characters (this one has {len(text)})")
    return {"rating": rating, "comment": text} if text else {"rating": rating}


def feedback_of(message: dict[str, Any]) -> dict[str, str] | None:
    """The rating a message holds (``{"rating", "comment"?}``), or None."""
    value = mark_of(message, FEEDBACK)
    return value if isinstance(value, dict) and value.get("rating") in RATINGS else None


def rated(
    messages: Sequence[dict[str, Any]], message_id: Any, rating: Any, comment: Any = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``messages`` with the assistant message ``message_id`` rated (or its rating withdrawn), and
    that message. KeyError when no message has that id, ValueError when it is not an assistant's
    answer or the rating or comment cannot be taken; ``messages`` is never changed."""
    value = feedback_value(rating, comment)
    for index, message in enumerate(messages):
        if message.get("id") != message_id:
            continue
        if message.get("role") != "assistant":
            raise ValueError(f"message {message_id!r} is a {message.get('role')} message: only an assistant's answer is rated")
        if value is None:
            changed = without_mark(message, FEEDBACK)
        else:
            changed = {**message, "metadata": with_mark(message.get("metadata"), FEEDBACK, value)}
        return [*messages[:index], changed, *messages[index + 1 :]], changed
    raise KeyError(f"no message has id {message_id!r}")


def call_feedback_hook(
    hook: FeedbackHook, message: dict[str, Any], rating: Rating | None, comment: str | None
) -> Awaitable[Any] | None:
    """Call ``hook``; what it raises propagates, and what it returns to await (a coroutine
    function's call) is returned."""
    result = hook(message, rating, comment)
    return result if inspect.isawaitable(result) else None
