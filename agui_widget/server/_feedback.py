"""``POST {path}feedback``: a served client's thumbs up or down on an answer, with a comment.

A chat served by ``create_app`` rates an answer as a notebook's chat does (``vocabulary._feedback``):
with a thread store, the rating is written into the stored thread's message (its metadata), under
``auth`` only into the caller's own threads; ``on_feedback(message, rating, comment)`` is told
(with ``thread_id=`` and ``user=`` too, when it takes them). Bad input gets a 4xx naming the
fault; a failing hook is logged, and the rating stands.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import logging
from typing import Any, Literal

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from ..vocabulary._feedback import MAX_COMMENT, FeedbackHook, call_feedback_hook, checked_hook, feedback_of, rated
from ._auth import user_of
from ._request import json_refusal, small_json_body
from ._threads import thread_refusal

__all__ = ["FeedbackRoute", "feedback_route"]

log = logging.getLogger("agui_widget")

MAX_FEEDBACK_BYTES = 16 * 1024
"""The largest feedback body read: ids, a rating and a comment of at most 2,000 characters."""


class FeedbackBody(BaseModel):
    """What a client sends: ``{threadId, messageId, rating: "up" | "down" | null, comment?}``."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)
    thread_id: str = Field(min_length=1, max_length=200)
    message_id: str = Field(min_length=1, max_length=200)
    rating: Literal["up", "down"] | None
    comment: str | None = Field(None, max_length=MAX_COMMENT)


def feedback_route(store: Any, hook: FeedbackHook | None) -> FeedbackRoute | None:
    """The route, when there is somewhere for a rating to go (a store, a hook, or both)."""
    checked = checked_hook(hook)
    return FeedbackRoute(store, checked) if store is not None or checked is not None else None


class FeedbackRoute:
    """Rates a stored thread's answer and tells the hook."""

    def __init__(self, store: Any, hook: FeedbackHook | None) -> None:
        self.store = store
        self.hook = hook

    async def post(self, request: Request) -> JSONResponse:
        given = await small_json_body(
            request, FeedbackBody, limit=MAX_FEEDBACK_BYTES, name="A feedback body", shape="valid feedback"
        )
        if isinstance(given, JSONResponse):
            return given
        user = user_of(request)
        message: dict[str, Any] = {"id": given.message_id}
        if self.store is not None:
            stored = await self._rate_stored(given, user)
            if isinstance(stored, JSONResponse):
                return stored
            message = stored
        else:
            message = rated([{**message, "role": "assistant"}], given.message_id, given.rating, given.comment)[1]
            message.pop("role")
        value = feedback_of(message)
        comment = value.get("comment") if value else None
        hook_failed = await self._tell_hook(message, given, comment, user)
        answer = {"threadId": given.thread_id, "messageId": given.message_id, "rating": given.rating, "comment": comment}
        return JSONResponse({**answer, "saved": self.store is not None, **({"hookFailed": True} if hook_failed else {})})

    async def _rate_stored(self, given: FeedbackBody, user: str | None) -> dict[str, Any] | JSONResponse:
        """The stored answer, rated and saved; or the refusal (404, 403, 422)."""
        record = await asyncio.to_thread(self.store.load, given.thread_id)
        if record is None:
            return json_refusal(404, f"No saved thread {given.thread_id!r}.")
        if user is not None and getattr(record, "user", None) not in (None, user):
            return thread_refusal(given.thread_id)
        try:
            messages, message = rated(record.messages, given.message_id, given.rating, given.comment)
        except KeyError:
            return json_refusal(404, f"Thread {given.thread_id!r} has no message {given.message_id!r}.")
        except ValueError as exc:
            return json_refusal(422, f"{exc}.")
        changed = dataclasses.replace(record, messages=messages, user=record.user or user)
        save = self.store.save
        if "seen" in inspect.signature(save).parameters:  # a store that merges writers keeps others' turns
            save = functools.partial(save, seen=record.messages)
        try:
            await asyncio.to_thread(save, changed)
        except PermissionError:  # the store's own word on whose thread it is
            return thread_refusal(given.thread_id)
        except Exception:
            log.exception("agui-widget: could not save the rating into thread %s", given.thread_id)
            return json_refusal(503, "The rating could not be saved; try again later.")
        return message

    async def _tell_hook(self, message: dict[str, Any], given: FeedbackBody, comment: str | None, user: str | None) -> bool:
        """Call the hook (awaited); True when it failed (logged, never the client's fault)."""
        if self.hook is None:
            return False
        hook = self.hook
        try:
            extra = _extra_arguments(hook, thread_id=given.thread_id, user=user)
            pending = call_feedback_hook(lambda *args: hook(*args, **extra), message, given.rating, comment)
            if pending is not None:
                await pending
        except Exception:
            log.exception("agui-widget: the on_feedback hook failed (the rating is kept)")
            return True
        return False


def _extra_arguments(hook: Any, **offered: Any) -> dict[str, Any]:
    """What of ``offered`` the hook takes by keyword (all of it, with ``**kwargs``)."""
    try:
        parameters = inspect.signature(hook).parameters.values()
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return offered
    names = {p.name for p in parameters if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)}
    return {name: value for name, value in offered.items() if name in names}
