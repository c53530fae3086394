"""``PATCH {path}threads/{id}`` and ``DELETE {path}threads/{id}``: a served client renames or
deletes a saved thread, as a notebook's chat does (``chat.rename_thread``, ``chat.delete_thread``).

With ``auth``, only the caller's own threads (those its runs made): another user's thread is
refused with 403, as reading or continuing it is, and so is one that belongs to nobody (it is not
the caller's to change). A thread the store does not hold is a 404; a bad title a 422.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ._auth import user_of
from ._request import json_refusal, small_json_body
from ._threads import record_summary, thread_refusal

__all__ = ["RenameBody", "ThreadEdits"]

MAX_TITLE = 200
"""Longest title a client may give a thread (characters), as in a notebook's chat."""
MAX_BODY_BYTES = 16 * 1024
"""The largest rename body read."""


class RenameBody(BaseModel):
    """What a client sends: ``{"title": "..."}``; ``""`` takes the given title back (the title
    follows the thread's first user message again)."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)
    title: str = Field(max_length=MAX_BODY_BYTES)


class ThreadEdits:
    """Renaming and deleting the saved threads of a store."""

    def __init__(self, store: Any) -> None:
        self.store = store

    async def rename(self, thread_id: str, request: Request) -> Response:
        body = await small_json_body(request, RenameBody, limit=MAX_BODY_BYTES, name="A rename's body", shape='{"title": "..."}')
        if isinstance(body, Response):
            return body
        title = " ".join(body.title.split())
        if len(title) > MAX_TITLE:
            return json_refusal(422, f"A thread's title is at most {MAX_TITLE} characters, not {len(title)}.")
        record = await self._owned(thread_id, request)
        if isinstance(record, Response):
            return record
        renamed = dataclasses.replace(record, given_title=title)  # its last activity stays
        try:
            await asyncio.to_thread(self.store.save, renamed)
        except PermissionError:  # the store's own word on whose thread it is
            return thread_refusal(thread_id)
        saved = await asyncio.to_thread(self.store.load, thread_id)
        return JSONResponse({**record_summary(saved or renamed), "named": bool(title)})

    async def delete(self, thread_id: str, request: Request) -> Response:
        record = await self._owned(thread_id, request)
        if isinstance(record, Response):
            return record
        await asyncio.to_thread(self.store.delete, thread_id)
        return Response(status_code=204)

    async def _owned(self, thread_id: str, request: Request) -> Any:
        """The stored thread, when the caller may change it; else the refusal (404, 403)."""
        record = await asyncio.to_thread(self.store.load, thread_id)
        if record is None:
            return json_refusal(404, f"No saved thread {thread_id!r}.")
        user = user_of(request)
        owner = getattr(record, "user", None)
        if user is not None and owner is not None and owner != user:
            return thread_refusal(thread_id)
        if user is not None and owner is None:
            return json_refusal(403, f"Thread {thread_id!r} belongs to no user: it is not yours to change.")
        return record
