"""``create_app``: any agent this package accepts, served as an AG-UI HTTP endpoint (FastAPI).

The options are checked where each concern lives (the agents' names in ``_agents``, the guard and
the run limit in ``_runs``, auth in ``_auth``, the body limit in ``_request``, the store in
``_threads``); the routes are :class:`~agui_widget.server._endpoints.Endpoints`. This module puts
them together with the middleware.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from ..vocabulary._feedback import FeedbackHook
from ..vocabulary._hooks import Guard, Hook, Hooks
from ._agents import ServedAgent, served_agents
from ._auth import Auth, AuthMiddleware, auth_hook
from ._endpoints import Endpoints
from ._feedback import feedback_route
from ._request import DEFAULT_MAX_BODY_BYTES, check_body_limit
from ._runs import RunLimiter, ServedRun, checked_guard
from ._threads import open_store, store_lifespan
from ._tools import DEFAULT_MAX_TOOL_ROUNDS, server_tools

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ServedAgent", "ServedRun", "create_app"]


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
    tools: Sequence[Any] | None = None,
    max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
    on_feedback: FeedbackHook | None = None,
) -> FastAPI:
    """A FastAPI app serving one agent, or several by name, over AG-UI (POST → SSE).

    ``agent_or_agents``: anything ``AgentChat`` accepts (None serves the demo agent), or a dict
    ``{"name": agent, ...}``. Routes, under ``path``:

    - ``POST {path}`` runs the single agent (also at ``POST {path}agents/{name}``);
    - ``POST {path}agents/{name}`` runs the named agent when several are served;
    - ``GET {path}agents`` lists them (``name``, ``description``, ``url``);
    - ``GET {path}health`` answers ``{"status": "ok", ...}`` (for load balancers);
    - ``POST {path}feedback`` rates an answer, with a ``store`` and/or ``on_feedback`` (``_feedback``).

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

    ``tools``: functions, ``python_tool()``s, ``mcp_tools()`` the server runs itself, offered after
    the client's; their calls run within the one run the client sees, at most ``max_tool_rounds``
    times (then ``RUN_ERROR``, code ``tool_rounds``); ``approve=True`` asks with an AG-UI interrupt.
    A request offering a tool of one of their names gets HTTP 422 (``_tools`` has the details).
    """
    limit = check_body_limit(max_body_bytes)
    own_tools = server_tools(tools, max_tool_rounds)
    served = served_agents(agent_or_agents, descriptions or {})
    thread_store = open_store(store)
    endpoints = Endpoints(
        served,
        prefix="/" + path.strip("/"),
        store=thread_store,
        guard=checked_guard(guard),
        hooks=Hooks(on_run_start=on_run_start, on_event=on_event, on_run_end=on_run_end, on_error=on_error),
        limiter=RunLimiter(max_runs_per_user),
        tools=own_tools,
        feedback=feedback_route(thread_store, on_feedback),
    )
    lifespan = store_lifespan(thread_store, opened_here=thread_store is not store)  # opened here from a path: closed here
    lifespan = own_tools.lifespan(lifespan) if own_tools is not None else lifespan  # MCP servers released at shutdown
    app = FastAPI(title=title, description="AG-UI agents served by agui-widget.", lifespan=lifespan)
    app.state.agents, app.state.store, app.state.limiter = served, thread_store, endpoints.limiter
    _add_middleware(app, auth_hook(auth), cors_origins, open_path=f"{endpoints.base}/health")
    endpoints.route(app, limit)
    return app


def _add_middleware(app: FastAPI, authenticate: Auth | None, cors_origins: Sequence[str], *, open_path: str) -> None:
    """Auth (``open_path`` needs none), then CORS for ``cors_origins``."""
    if authenticate is not None:  # added before CORS, so CORS is outside it: preflights and 401s get CORS headers
        app.add_middleware(AuthMiddleware, hook=authenticate, open_paths=frozenset({open_path}))
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["*"],
        )
