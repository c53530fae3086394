"""``create_app``: any agent this package accepts, served as an AG-UI HTTP endpoint (FastAPI)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import anyio
from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from ..adapters import Agent, as_agent
from ..pipeline._eventlog import MAX_EVENT_BYTES, MAX_EVENTS, EventLog
from ..vocabulary._hooks import ErrorInfo, Guard, Hook, Hooks, check_guard
from ._auth import Auth, AuthMiddleware, auth_hook, user_of
from ._legacy import wire_encoder
from ._request import DEFAULT_MAX_BODY_BYTES, check_body_limit, run_route
from ._runs import RETRY_AFTER_SECONDS, RefusedTurn, RunLimiter, ServedRun, mark_refused, turn_content
from ._stream import consumer_for, served_chunks

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ServedAgent", "ServedRun", "create_app"]

log = logging.getLogger("agui_widget")

DEFAULT_NAME = "agent"
"""The name a single agent is listed under when it has none of its own."""

DEMO_DESCRIPTION = "The built-in demo agent: scripted, offline; say help."


@dataclass
class ServedAgent:
    """One agent of the app: its name (its URL segment), a description, and what runs."""

    name: str
    description: str
    agent: Agent


class EventStreamResponse(StreamingResponse):
    """An SSE response that notices a client leaving even while the agent is quiet.

    Starlette only watches for ``http.disconnect`` on servers older than ASGI 2.4; on newer ones
    a disconnect shows only when the next chunk is written, which may be minutes away while a
    model thinks. Watching ``receive`` always cancels the run as soon as the client goes.

    Whatever way the response ends, its body is closed before ``on_close`` is called (once): the
    run's own cleanup (hooks, the run slot) never waits for the garbage collector.
    """

    on_close: Callable[[], None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            # The stream runs in this task; a child listens for the client leaving, in a scope of
            # its own, so that when the stream ends first the child returns rather than ending
            # cancelled: anyio keeps a cancelled child's CancelledError in a reference cycle whose
            # traceback holds the run's frames (its consumer, its transcript), which would then
            # wait for the garbage collector.
            async with anyio.create_task_group() as group:
                listening = anyio.CancelScope()

                async def listen() -> None:
                    with listening:
                        await self.listen_for_disconnect(receive)
                        group.cancel_scope.cancel()  # the client left: the stream stops

                group.start_soon(listen)
                with contextlib.suppress(OSError):  # the client went away mid-write
                    await self.stream_response(send)
                listening.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                aclose = getattr(self.body_iterator, "aclose", None)
                if aclose is not None:
                    await aclose()
                on_close, self.on_close = self.on_close, None
                if on_close is not None:
                    on_close()


def create_app(
    agent_or_agents: Any = None,
    *,
    cors_origins: Sequence[str] = (),
    path: str = "/",
    store: Any = None,
    descriptions: Mapping[str, str] | None = None,
    title: str = "agui-widget agents",
    max_body_bytes: int | None = DEFAULT_MAX_BODY_BYTES,
    auth: str | Mapping[str, str] | Auth | None = None,
    max_runs_per_user: int | None = None,
    guard: Guard | None = None,
    on_run_start: Hook | None = None,
    on_event: Hook | None = None,
    on_run_end: Hook | None = None,
    on_error: Hook | None = None,
) -> FastAPI:
    """A FastAPI app serving one agent, or several by name, over AG-UI (POST → SSE).

    ``agent_or_agents``: anything ``AgentChat`` accepts (None serves the demo agent), or a dict
    ``{"name": agent, ...}``. Routes, under ``path``:

    - ``POST {path}`` runs the single agent (also at ``POST {path}agents/{name}``);
    - ``POST {path}agents/{name}`` runs the named agent when several are served;
    - ``GET {path}agents`` lists them (``name``, ``description``, ``url``);
    - ``GET {path}health`` answers ``{"status": "ok", ...}`` (for load balancers).

    ``cors_origins``: the browser origins allowed to call the app (none by default; never ``*``
    unless given). ``store``: a thread store (a path for SQLite, or a ``ThreadStore``); each run's
    transcript and state are saved there, and ``GET {path}threads`` / ``{path}threads/{id}`` read
    them back.

    ``max_body_bytes``: the largest run request accepted, 10 MiB by default (the whole transcript
    travels with every run, so long chats with images grow); a larger body gets HTTP 413 before it
    is read whole. None lifts the limit (for a gateway in front that enforces its own). A request
    holding a lone UTF-16 surrogate gets HTTP 422: no reply could ever carry it back.

    ``auth``: who may call the app (open by default): a bearer token, a dict of user id → token,
    or a hook ``auth(request) -> user id | None`` (see ``_auth``). A refusal is a JSON 401 or
    403, never a stream; ``GET {path}health`` stays open. With a store, each thread belongs to
    the user who made it: another user can neither list, read nor continue it (403).

    ``max_runs_per_user``: how many runs one user (or one client address, without ``auth``) may
    stream at once in this process; one more gets HTTP 429 with ``Retry-After``.

    ``guard``, ``on_run_start``, ``on_event``, ``on_run_end``, ``on_error``: the input guard and
    the hooks of ``AgentChat``, called the same way (``on_run_end`` and ``on_error`` get a
    :class:`ServedRun`). A refused message gets a run that ends in ``RUN_ERROR`` with the guard's
    reason and the code ``input_refused``.
    """
    limit = check_body_limit(max_body_bytes)
    served = _served_agents(agent_or_agents, descriptions or {})
    prefix = "/" + path.strip("/")
    base = prefix.rstrip("/")
    thread_store = _open_store(store)
    if guard is not None and not callable(guard):
        raise TypeError(f"guard must be a function of the user's message (or None), not {type(guard).__name__}")
    hooks = Hooks(on_run_start=on_run_start, on_event=on_event, on_run_end=on_run_end, on_error=on_error)
    keep_events = on_run_end is not None or on_error is not None
    limiter = RunLimiter(max_runs_per_user)
    authenticate = auth_hook(auth)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        if thread_store is not None and thread_store is not store:  # opened here from a path: closed here
            close = getattr(thread_store, "close", None)
            if close is not None:
                close()

    app = FastAPI(title=title, description="AG-UI agents served by agui-widget.", lifespan=lifespan)
    app.state.agents = served
    app.state.store = thread_store
    app.state.limiter = limiter
    if authenticate is not None:  # added before CORS, so CORS is outside it: preflights and 401s get CORS headers
        app.add_middleware(AuthMiddleware, hook=authenticate, open_paths=frozenset({f"{base}/health"}))
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["*"],
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_input(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": [str(part) for part in error.get("loc", ())], "msg": error.get("msg", ""), "type": error.get("type", "")}
            for error in exc.errors()
        ]
        where = "; ".join(f"{'.'.join(e['loc'][1:]) or 'body'}: {e['msg']}" for e in errors[:5])
        detail = f"The request body is not a valid AG-UI RunAgentInput ({where})."
        return JSONResponse(status_code=422, content={"detail": detail, "errors": errors})

    async def run_response(entry: ServedAgent, run_input: RunAgentInput, request: Request) -> Response:
        user = user_of(request)
        if thread_store is not None and user is not None:
            owner = await asyncio.to_thread(_owner, thread_store, run_input.thread_id)
            if owner is not None and owner != user:
                return _thread_refusal(run_input.thread_id)
        slot = user if user is not None else f"address:{request.client.host if request.client else '?'}"
        if not limiter.acquire(slot):
            detail = (
                f"Too many runs at once: at most {limiter.max_runs} per user on this server. "
                "Wait for one to finish, then try again."
            )
            return JSONResponse({"detail": detail}, status_code=429, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        try:
            return await streamed_run(entry, run_input, request, user, slot)
        except BaseException:
            limiter.release(slot)
            raise

    async def streamed_run(
        entry: ServedAgent, run_input: RunAgentInput, request: Request, user: str | None, slot: str
    ) -> StreamingResponse:
        # None is the encoder's own default; its signature says `accept: str = None`
        encoder = EventEncoder(accept=request.headers.get("accept"))  # type: ignore[arg-type]
        wire = wire_encoder(run_input, encoder.encode)  # a pre-1.0 client gets each event in its own schema
        consumer = consumer_for(run_input)
        run = ServedRun(run_input.run_id, run_input.thread_id, entry.name, user, run_input)
        run.event_log = EventLog(MAX_EVENTS, MAX_EVENT_BYTES) if keep_events else None  # bounded as a chat's is
        agent: Agent = entry.agent
        if guard is not None:
            content = turn_content(run_input)
            reason = None if content is None else await check_guard(guard, content)
            if reason is not None:
                run.refused = reason
                agent = RefusedTurn(reason)
        if run.refused is None:
            hooks.run_start(run_input)
        observe = run.refused is None and (keep_events or hooks.on_event is not None)

        def encode(event: BaseEvent) -> bytes:
            encoded: str | bytes = wire(event)
            if observe:
                if run.event_log is not None:
                    run.event_log.extend((event,))
                hooks.events([event])
            return encoded if isinstance(encoded, bytes) else encoded.encode("utf-8")

        async def body() -> AsyncIterator[bytes]:
            chunks = cast("AsyncGenerator[bytes, None]", served_chunks(agent, run_input, consumer, encode))
            async with contextlib.aclosing(chunks):
                async for chunk in chunks:
                    yield chunk
            if thread_store is not None:
                messages = consumer.messages if run.refused is None else mark_refused(consumer.messages, run.refused)
                await _save_thread(thread_store, entry.name, run_input, messages, consumer.state, user)

        def ended() -> None:
            limiter.release(slot)
            error = consumer.last_run_error
            if run.refused is not None:
                run.status = "refused"
            elif error is not None:
                run.status, run.error = "error", error.message
                hooks.error(ErrorInfo(error.message, error.code or "agent_error", run))
            elif consumer.last_run_finished is not None:
                run.status = "finished"
            else:
                run.status = "cancelled"  # the client left before the run ended
            hooks.run_end(run)

        response = EventStreamResponse(
            body(),
            media_type=encoder.get_content_type(),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        response.on_close = ended
        return response

    def lookup(name: str) -> ServedAgent:
        entry = served.get(name)
        if entry is None:
            raise HTTPException(404, f"No agent named {name!r}; this server has: {', '.join(served)}.")
        return entry

    runs = APIRouter(route_class=run_route(limit))  # the body is bounded and checked before validation

    if len(served) == 1:
        (single,) = served.values()

        @runs.post(prefix, summary="Run the agent (AG-UI: RunAgentInput in, an SSE event stream out)")
        async def run_single(input: RunAgentInput, request: Request) -> Response:
            return await run_response(single, input, request)

    @runs.post(f"{base}/agents/{{name}}", summary="Run the named agent (AG-UI)")
    async def run_named(name: str, input: RunAgentInput, request: Request) -> Response:
        return await run_response(lookup(name), input, request)

    app.include_router(runs)

    @app.get(f"{base}/agents", summary="The agents this server runs")
    async def list_agents() -> dict[str, Any]:
        return {
            "agents": [
                {"name": entry.name, "description": entry.description, "url": f"{base}/agents/{entry.name}"}
                for entry in served.values()
            ]
        }

    @app.get(f"{base}/health", summary="Liveness, for load balancers")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "agents": list(served)}

    if thread_store is not None:

        @app.get(f"{base}/threads", summary="Saved threads (without their messages); with auth, the caller's own")
        async def list_threads(request: Request, agent: str | None = None) -> dict[str, Any]:
            records = await asyncio.to_thread(_threads_of, thread_store, agent, user_of(request))
            return {"threads": [_record_summary(record) for record in records]}

        @app.get(f"{base}/threads/{{thread_id}}", summary="One saved thread: transcript and state")
        async def get_thread(thread_id: str, request: Request) -> Response:
            record = await asyncio.to_thread(thread_store.load, thread_id)
            if record is None:
                raise HTTPException(404, f"No saved thread {thread_id!r}.")
            user = user_of(request)
            if user is not None and getattr(record, "user", None) not in (None, user):
                return _thread_refusal(thread_id)
            return JSONResponse({**_record_summary(record), "messages": record.messages, "state": record.state})

    return app


def _served_agents(agent_or_agents: Any, descriptions: Mapping[str, str]) -> dict[str, ServedAgent]:
    """Name → agent; every value goes through ``as_agent`` (so the same things are accepted)."""
    if isinstance(agent_or_agents, Mapping):
        if not agent_or_agents:
            raise ValueError("create_app({}) has no agent to serve")
        served: dict[str, ServedAgent] = {}
        for name, obj in agent_or_agents.items():
            if not isinstance(name, str) or not name or "/" in name:
                raise ValueError(f"agent names are URL segments: {name!r} is not a usable name")
            served[name] = ServedAgent(name, descriptions.get(name) or _description(obj), as_agent(obj))
        return served
    agent = as_agent(agent_or_agents)
    if agent_or_agents is None:
        name, description = "demo", DEMO_DESCRIPTION
    else:
        name = getattr(agent, "name", None)
        name = name if isinstance(name, str) and name and "/" not in name else DEFAULT_NAME
        description = _description(agent_or_agents) or _description(agent)
    return {name: ServedAgent(name, descriptions.get(name) or description, agent)}


def _description(obj: Any) -> str:
    text = getattr(obj, "description", None)
    return text if isinstance(text, str) else ""


def _open_store(store: Any) -> Any:
    if store is None:
        return None
    from ..stores._store import open_store

    return open_store(store)


async def _save_thread(
    store: Any, agent_name: str, run_input: RunAgentInput, messages: list[dict[str, Any]], state: Any, user: str | None
) -> None:
    """Persist what the run left: the whole transcript and state of its thread, as ``user``'s."""
    from ..stores._store import ThreadRecord

    record = ThreadRecord.now(run_input.thread_id, agent_name, messages, state, user)
    save = store.save
    if "seen" in inspect.signature(save).parameters:
        # What this run was sent is what its writer saw: a store that merges concurrent writers
        # (PostgreSQL's) keeps the turns another run of the thread saved meanwhile.
        seen = [message.model_dump(mode="json", by_alias=True) for message in run_input.messages]
        save = functools.partial(save, seen=seen)
    try:
        await asyncio.to_thread(save, record)
    except Exception:  # a store that fails must not break the served stream (it has ended already)
        log.exception("agui-widget: could not save thread %s", run_input.thread_id)


def _owner(store: Any, thread_id: str) -> str | None:
    """Who a stored thread belongs to (None: nobody in particular, or not stored)."""
    owner = getattr(store, "owner", None)
    if callable(owner):  # the built-in stores read one column
        found: str | None = owner(thread_id)
        return found
    record = store.load(thread_id)
    return getattr(record, "user", None) if record is not None else None


def _threads_of(store: Any, agent: str | None, user: str | None) -> list[Any]:
    """The threads to list: every one without auth, the user's own with it (a store of its own
    that knows no users is filtered here)."""
    if user is None:
        records: list[Any] = store.list_threads(agent)
        return records
    if "user" in inspect.signature(store.list_threads).parameters:
        records = store.list_threads(agent, user=user)
        return records
    return [record for record in store.list_threads(agent) if getattr(record, "user", None) == user]


def _thread_refusal(thread_id: str) -> JSONResponse:
    return JSONResponse({"detail": f"Thread {thread_id!r} belongs to another user."}, status_code=403)


def _record_summary(record: Any) -> dict[str, Any]:
    return {
        "threadId": record.thread_id,
        "agent": record.agent,
        "title": record.title,
        "updatedAt": record.updated_at,
    }
