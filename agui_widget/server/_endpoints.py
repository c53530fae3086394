"""The app's endpoints: running an agent, listing the agents, health, and the saved threads (listed,
read, renamed and deleted).

:class:`Endpoints` holds what ``create_app`` resolved from its options (the agents, the path, the
thread store, the input guard, the hooks, the run limit); its methods are the routes, and
:meth:`Endpoints.route` adds them to the app. A run that may not start (another user's thread,
too many runs at once) is answered with JSON; every other run streams, and its end releases its
run slot, calls the hooks and saves its thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, cast

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.responses import Response, StreamingResponse

from ..adapters import Agent
from ..pipeline._consumer import EventConsumer
from ..pipeline._eventlog import MAX_EVENT_BYTES, MAX_EVENTS, EventLog
from ..vocabulary._hooks import ErrorInfo, Guard, Hooks, check_guard
from ._agents import ServedAgent
from ._auth import user_of
from ._feedback import FeedbackRoute
from ._legacy import wire_encoder
from ._request import run_route
from ._response import EventStreamResponse
from ._runs import RETRY_AFTER_SECONDS, RefusedTurn, RunLimiter, ServedRun, mark_refused, turn_content
from ._stream import Encode, consumer_for, served_chunks
from ._thread_edits import ThreadEdits
from ._threads import owner, record_summary, save_thread, thread_refusal, threads_of
from ._tools import ServerTools

__all__ = ["Endpoints", "invalid_input"]


class Endpoints:
    """The routes of one app, over the agents it serves and the options it was made with."""

    def __init__(
        self,
        served: dict[str, ServedAgent],
        *,
        prefix: str,
        store: Any,
        guard: Guard | None,
        hooks: Hooks,
        limiter: RunLimiter,
        tools: ServerTools | None = None,
        feedback: FeedbackRoute | None = None,
    ) -> None:
        self.served = served
        self.prefix = prefix
        self.base = prefix.rstrip("/")
        """The prefix every other route starts with ("" at the root)."""
        self.store = store
        self.guard = guard
        self.hooks = hooks
        self.limiter = limiter
        self.tools = tools
        """The tools the server runs itself (``create_app(tools=...)``), offered in every run."""
        self.feedback = feedback
        """``POST {path}feedback`` (``create_app(on_feedback=...)``, or a store), or None."""
        self.keep_events = hooks.on_run_end is not None or hooks.on_error is not None
        """Whether each run keeps the events it sent, for the hooks that read them."""

    def route(self, app: FastAPI, max_body_bytes: int | None) -> None:
        """Add the endpoints to ``app``: the runs, the agents, health, and with a store the threads."""
        app.add_exception_handler(RequestValidationError, invalid_input)  # type: ignore[arg-type]
        runs = APIRouter(route_class=run_route(max_body_bytes))  # the body is bounded and checked before validation
        if len(self.served) == 1:
            summary = "Run the agent (AG-UI: RunAgentInput in, an SSE event stream out)"
            runs.add_api_route(self.prefix, self.run_single, methods=["POST"], summary=summary)
        runs.add_api_route(
            f"{self.base}/agents/{{name}}", self.run_named, methods=["POST"], summary="Run the named agent (AG-UI)"
        )
        app.include_router(runs)
        app.add_api_route(f"{self.base}/agents", self.list_agents, methods=["GET"], summary="The agents this server runs")
        app.add_api_route(f"{self.base}/health", self.health, methods=["GET"], summary="Liveness, for load balancers")
        if self.feedback is not None:
            summary = "Rate an answer: {threadId, messageId, rating: up | down | null, comment?}"
            app.add_api_route(f"{self.base}/feedback", self.feedback.post, methods=["POST"], summary=summary)
        if self.store is not None:
            summary = "Saved threads (without their messages); with auth, the caller's own"
            app.add_api_route(f"{self.base}/threads", self.list_threads, methods=["GET"], summary=summary)
            summary = "One saved thread: transcript and state"
            app.add_api_route(f"{self.base}/threads/{{thread_id}}", self.get_thread, methods=["GET"], summary=summary)
            edits = ThreadEdits(self.store)
            summary = 'Rename a saved thread: {"title": "..."} ("" takes back the first message\'s); with auth, the caller\'s own'
            app.add_api_route(f"{self.base}/threads/{{thread_id}}", edits.rename, methods=["PATCH"], summary=summary)
            summary = "Delete a saved thread; with auth, the caller's own"
            app.add_api_route(f"{self.base}/threads/{{thread_id}}", edits.delete, methods=["DELETE"], summary=summary)

    async def run_single(self, input: RunAgentInput, request: Request) -> Response:
        (single,) = self.served.values()
        return await self.run_response(single, input, request)

    async def run_named(self, name: str, input: RunAgentInput, request: Request) -> Response:
        return await self.run_response(self.lookup(name), input, request)

    async def list_agents(self) -> dict[str, Any]:
        return {
            "agents": [
                {"name": entry.name, "description": entry.description, "url": f"{self.base}/agents/{entry.name}"}
                for entry in self.served.values()
            ]
        }

    async def health(self) -> dict[str, Any]:
        return {"status": "ok", "agents": list(self.served)}

    async def list_threads(self, request: Request, agent: str | None = None) -> dict[str, Any]:
        records = await asyncio.to_thread(threads_of, self.store, agent, user_of(request))
        return {"threads": [record_summary(record) for record in records]}

    async def get_thread(self, thread_id: str, request: Request) -> Response:
        record = await asyncio.to_thread(self.store.load, thread_id)
        if record is None:
            raise HTTPException(404, f"No saved thread {thread_id!r}.")
        user = user_of(request)
        if user is not None and getattr(record, "user", None) not in (None, user):
            return thread_refusal(thread_id)
        return JSONResponse({**record_summary(record), "messages": record.messages, "state": record.state})

    def lookup(self, name: str) -> ServedAgent:
        entry = self.served.get(name)
        if entry is None:
            raise HTTPException(404, f"No agent named {name!r}; this server has: {', '.join(self.served)}.")
        return entry

    async def run_response(self, entry: ServedAgent, run_input: RunAgentInput, request: Request) -> Response:
        """The run's stream, unless the request offers a tool under a server tool's name (422), the
        thread is another user's (403) or the user's runs are at the limit (429)."""
        if self.tools is not None:
            clash = self.tools.clash(run_input)
            if clash is not None:
                return JSONResponse({"detail": clash}, status_code=422)
        user = user_of(request)
        if self.store is not None and user is not None:
            thread_owner = await asyncio.to_thread(owner, self.store, run_input.thread_id)
            if thread_owner is not None and thread_owner != user:
                return thread_refusal(run_input.thread_id)
        slot = user if user is not None else f"address:{request.client.host if request.client else '?'}"
        if not self.limiter.acquire(slot):
            detail = (
                f"Too many runs at once: at most {self.limiter.max_runs} per user on this server. "
                "Wait for one to finish, then try again."
            )
            return JSONResponse({"detail": detail}, status_code=429, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        try:
            return await self.streamed_run(entry, run_input, request, user, slot)
        except BaseException:
            self.limiter.release(slot)
            raise

    async def streamed_run(
        self, entry: ServedAgent, run_input: RunAgentInput, request: Request, user: str | None, slot: str
    ) -> StreamingResponse:
        """The SSE response of one run, holding the run slot ``slot`` until it closes."""
        if self.tools is not None:
            run_input = await self.tools.offered(run_input)
        # None is the encoder's own default; its signature says `accept: str = None`
        encoder = EventEncoder(accept=request.headers.get("accept"))  # type: ignore[arg-type]
        wire = wire_encoder(run_input, encoder.encode)  # a pre-1.0 client gets each event in its own schema
        consumer = consumer_for(run_input)
        run = ServedRun(run_input.run_id, run_input.thread_id, entry.name, user, run_input)
        run.event_log = EventLog(MAX_EVENTS, MAX_EVENT_BYTES) if self.keep_events else None  # bounded as a chat's is
        agent = await self.guarded(entry.agent, run)
        if run.refused is None:
            self.hooks.run_start(run_input)
            if self.tools is not None:
                agent = self.tools.rounds(agent, consumer)
        observe = run.refused is None and (self.keep_events or self.hooks.on_event is not None)
        encode = _observed_encoder(wire, run.event_log, self.hooks) if observe else _bytes_encoder(wire)
        response = EventStreamResponse(
            self.body(agent, run, consumer, encode),
            media_type=encoder.get_content_type(),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        response.on_close = functools.partial(self.ended, slot, consumer, run)
        return response

    async def guarded(self, agent: Agent, run: ServedRun) -> Agent:
        """``agent``, or a refused turn when the input guard refuses the turn's message (then
        ``run.refused`` holds the guard's reason)."""
        if self.guard is None:
            return agent
        content = turn_content(run.input)
        reason = None if content is None else await check_guard(self.guard, content)
        if reason is None:
            return agent
        run.refused = reason
        return RefusedTurn(reason)

    async def body(self, agent: Agent, run: ServedRun, consumer: EventConsumer, encode: Encode) -> AsyncIterator[bytes]:
        """The response's bytes; once the run has ended, its thread is saved (marked when refused)."""
        chunks = cast("AsyncGenerator[bytes, None]", served_chunks(agent, run.input, consumer, encode))
        async with contextlib.aclosing(chunks):
            async for chunk in chunks:
                yield chunk
        if self.store is not None:
            messages = consumer.messages if run.refused is None else mark_refused(consumer.messages, run.refused)
            await save_thread(self.store, run.agent, run.input, messages, consumer.state, run.user)

    def ended(self, slot: str, consumer: EventConsumer, run: ServedRun) -> None:
        """The response closed: the run slot is free, and the hooks learn how the run ended."""
        self.limiter.release(slot)
        error = consumer.last_run_error
        if run.refused is not None:
            run.status = "refused"
        elif error is not None:
            run.status, run.error = "error", error.message
            self.hooks.error(ErrorInfo(error.message, error.code or "agent_error", run))
        elif consumer.last_run_finished is not None:
            run.status = "finished"
        else:
            run.status = "cancelled"  # the client left before the run ended
        self.hooks.run_end(run)


async def invalid_input(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A 422 naming what in the body is not a valid ``RunAgentInput`` (the first five faults)."""
    errors = [
        {"loc": [str(part) for part in error.get("loc", ())], "msg": error.get("msg", ""), "type": error.get("type", "")}
        for error in exc.errors()
    ]
    where = "; ".join(f"{'.'.join(e['loc'][1:]) or 'body'}: {e['msg']}" for e in errors[:5])
    detail = f"The request body is not a valid AG-UI RunAgentInput ({where})."
    return JSONResponse(status_code=422, content={"detail": detail, "errors": errors})


def _observed_encoder(wire: Callable[[BaseEvent], str], event_log: EventLog | None, hooks: Hooks) -> Encode:
    """``wire`` as bytes, each event also kept in ``event_log`` (when given) and handed to ``on_event``."""

    def encode(event: BaseEvent) -> bytes:
        encoded: str | bytes = wire(event)
        if event_log is not None:
            event_log.extend((event,))
        hooks.events([event])
        return encoded if isinstance(encoded, bytes) else encoded.encode("utf-8")

    return encode


def _bytes_encoder(wire: Callable[[BaseEvent], str]) -> Encode:
    """``wire`` as bytes, for a run no hook observes."""

    def encode(event: BaseEvent) -> bytes:
        encoded: str | bytes = wire(event)
        return encoded if isinstance(encoded, bytes) else encoded.encode("utf-8")

    return encode
