"""``create_app``: any agent this package accepts, served as an AG-UI HTTP endpoint (FastAPI)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from .._consumer import EventConsumer
from ..adapters import Agent, as_agent
from ._request import DEFAULT_MAX_BODY_BYTES, check_body_limit, run_route
from ._stream import consumer_for, served_chunks

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ServedAgent", "create_app"]

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
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:

            async def stream() -> None:
                with contextlib.suppress(OSError):  # the client went away mid-write
                    await self.stream_response(send)
                group.cancel_scope.cancel()

            group.start_soon(stream)
            await self.listen_for_disconnect(receive)
            group.cancel_scope.cancel()


def create_app(
    agent_or_agents: Any = None,
    *,
    cors_origins: Sequence[str] = (),
    path: str = "/",
    store: Any = None,
    descriptions: Mapping[str, str] | None = None,
    title: str = "agui-widget agents",
    max_body_bytes: int | None = DEFAULT_MAX_BODY_BYTES,
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
    """
    limit = check_body_limit(max_body_bytes)
    served = _served_agents(agent_or_agents, descriptions or {})
    prefix = "/" + path.strip("/")
    base = prefix.rstrip("/")
    thread_store = _open_store(store)

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

    def run_response(entry: ServedAgent, run_input: RunAgentInput, request: Request) -> StreamingResponse:
        # None is the encoder's own default; its signature says `accept: str = None`
        encoder = EventEncoder(accept=request.headers.get("accept"))  # type: ignore[arg-type]
        consumer = consumer_for(run_input)

        def encode(event: BaseEvent) -> bytes:
            encoded: str | bytes = encoder.encode(event)
            return encoded if isinstance(encoded, bytes) else encoded.encode("utf-8")

        async def body() -> AsyncIterator[bytes]:
            async for chunk in served_chunks(entry.agent, run_input, consumer, encode):
                yield chunk
            if thread_store is not None:
                await _save_thread(thread_store, entry.name, run_input, consumer)

        return EventStreamResponse(
            body(),
            media_type=encoder.get_content_type(),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    def lookup(name: str) -> ServedAgent:
        entry = served.get(name)
        if entry is None:
            raise HTTPException(404, f"No agent named {name!r}; this server has: {', '.join(served)}.")
        return entry

    runs = APIRouter(route_class=run_route(limit))  # the body is bounded and checked before validation

    if len(served) == 1:
        (single,) = served.values()

        @runs.post(prefix, summary="Run the agent (AG-UI: RunAgentInput in, an SSE event stream out)")
        async def run_single(input: RunAgentInput, request: Request) -> StreamingResponse:
            return run_response(single, input, request)

    @runs.post(f"{base}/agents/{{name}}", summary="Run the named agent (AG-UI)")
    async def run_named(name: str, input: RunAgentInput, request: Request) -> StreamingResponse:
        return run_response(lookup(name), input, request)

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

        @app.get(f"{base}/threads", summary="Saved threads (without their messages)")
        async def list_threads(agent: str | None = None) -> dict[str, Any]:
            records = await asyncio.to_thread(thread_store.list_threads, agent)
            return {"threads": [_record_summary(record) for record in records]}

        @app.get(f"{base}/threads/{{thread_id}}", summary="One saved thread: transcript and state")
        async def get_thread(thread_id: str) -> dict[str, Any]:
            record = await asyncio.to_thread(thread_store.load, thread_id)
            if record is None:
                raise HTTPException(404, f"No saved thread {thread_id!r}.")
            return {**_record_summary(record), "messages": record.messages, "state": record.state}

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
    from .._store import open_store

    return open_store(store)


async def _save_thread(store: Any, agent_name: str, run_input: RunAgentInput, consumer: EventConsumer) -> None:
    """Persist what the run left: the whole transcript and state of its thread."""
    from .._store import ThreadRecord

    record = ThreadRecord.now(run_input.thread_id, agent_name, consumer.messages, consumer.state)
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


def _record_summary(record: Any) -> dict[str, Any]:
    return {
        "threadId": record.thread_id,
        "agent": record.agent,
        "title": record.title,
        "updatedAt": record.updated_at,
    }
