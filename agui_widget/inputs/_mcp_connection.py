"""The MCP servers a kernel talks to: one :class:`McpServer` per server, all owned by one thread.

**Decision: one thread of our own, with its own event loop, owns every MCP session.** The SDK is
anyio-based and a session must be entered and left in one task; a notebook cell runs inside the
kernel's loop, where ``asyncio.run`` is refused, yet ``mcp_tools()`` has to list a server's tools
before it returns (so a server that cannot start fails the cell that named it, at once). With
the sessions on a loop of their own, a cell waits for that loop's answer like any blocking call,
and a run on the kernel's loop awaits it (``asyncio.wrap_future``) without ever blocking: a
stop cancels the awaiting task, which cancels the request on the owner's loop (the SDK tells the
server). Each connection is one task there that enters ``mcp.Client``, waits to be told to stop,
and leaves it (for a stdio server, the SDK then closes its stdin and kills its process tree).

The interface the chat's parts use (MCP Apps call back through it), coroutines to await on any
loop (the kernel's), each starting the server when it is not running:

* ``await server.call_tool(name, arguments, timeout=None) -> mcp.types.CallToolResult``
  (``TimeoutError`` past ``timeout`` seconds; :class:`McpServerError` when the server cannot be
  reached or stopped meanwhile: the next call starts it again);
* ``await server.read_resource(uri) -> mcp.types.ReadResourceResult``;
* ``await server.list_tools() -> mcp.types.ListToolsResult`` (every page's tools, app-only ones
  too), ``await server.list_resources() -> mcp.types.ListResourcesResult``;
* ``await server.stop()``; ``server.run(coroutine, timeout)`` waits for one from a cell.

A server's life: it starts on first use (one per spec: :func:`server_for` keeps them), is reused by
every chat and run, stops when the last chat holding it closes (``hold``/``release``) or when the
kernel exits (``atexit``); a server that died is reported to the call that found it and started
again at the next.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import logging
import os
import shlex
import tempfile
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import CallToolResult, ListResourcesResult, ListToolsResult, ReadResourceResult

log = logging.getLogger("agui_widget")

T = TypeVar("T")

START_TIMEOUT = 60.0
"""Seconds a server may take to start and answer the handshake (``npx`` may download it first)."""

STOP_TIMEOUT = 10.0
"""Seconds a stop waits for the SDK's shutdown (close stdin, wait, kill the process tree)."""

STDERR_LINES = 12
"""How many of a failed server's last stderr lines its error shows."""

STDERR_TAIL_BYTES = 16_384
"""How much of the end of a server's stderr is read for those lines."""

APPS_EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"


class McpServerError(RuntimeError):
    """An MCP server that could not start, or that stopped while it was used."""


@dataclass(frozen=True)
class ServerSpec:
    """What names one server: a command run over stdio (with ``env``), or a streamable-HTTP URL
    (with ``headers``). Two ``mcp_tools()`` calls with equal specs share one server."""

    command: tuple[str, ...] = ()
    url: str = ""
    env: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(
        cls, server: str | Sequence[str], *, headers: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None
    ) -> ServerSpec:
        """A spec from what a user writes: a URL, a shell-like command line, or a list of arguments."""
        if isinstance(server, str) and server.strip().lower().startswith(("http://", "https://")):
            if env:
                raise ValueError("env= is for a server mcp_tools() starts (a command); an HTTP server runs elsewhere")
            return cls(url=server.strip(), headers=_pairs(headers, "headers"))
        if isinstance(server, str):
            command = tuple(shlex.split(server))
        elif isinstance(server, Sequence) and all(isinstance(part, str) for part in server):
            command = tuple(server)
        else:
            raise TypeError(f"mcp_tools() takes a command (a string or a list of strings) or an http(s):// URL, not {server!r}")
        if not command or not command[0]:
            raise ValueError("mcp_tools() needs a command to start the server, or an http(s):// URL")
        if headers:
            raise ValueError("headers= is for an HTTP server (an http(s):// URL); a command's server speaks over stdio")
        return cls(command=command, env=_pairs(env, "env"))

    @property
    def label(self) -> str:
        """The server as errors name it: its command line, or its URL."""
        return self.url or shlex.join(self.command)


class McpServer:
    """One MCP server's connection, made (and made again after the server died) on demand."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping: asyncio.Event | None = None
        self._stderr: TextIO | None = None
        self._lock = asyncio.Lock()  # bound to the owner's loop on first use
        self._holders: weakref.WeakSet[Any] = weakref.WeakSet()
        self.starts = 0
        """How many times the server was started (a restart after it died counts)."""

    def __repr__(self) -> str:
        return f"McpServer({self.spec.label!r}, {'running' if self._client is not None else 'not running'})"

    # -- the interface (awaitable from any loop) -------------------------------------------------

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> CallToolResult:
        """Call the server's tool ``name``; an error the tool reports is in the result (``isError``)."""
        return await _on_owner(self._call_tool(name, dict(arguments or {}), timeout))

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """Read one of the server's resources (an MCP App's HTML, a context entry's text)."""
        return await _on_owner(self._request(f"reading {uri}", lambda client: client.read_resource(uri)))

    async def list_tools(self) -> ListToolsResult:
        """Every tool the server offers (all pages in one), app-only ones too."""
        from mcp.types import ListToolsResult

        return ListToolsResult(tools=await _on_owner(self._list("tools")))

    async def list_resources(self) -> ListResourcesResult:
        """Every resource the server lists (all pages in one)."""
        from mcp.types import ListResourcesResult

        return ListResourcesResult(resources=await _on_owner(self._list("resources")))

    async def stop(self) -> None:
        """Stop the server (a process mcp_tools() started ends); the next call starts it again."""
        await _on_owner(self._stop())

    def run(self, work: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Wait for one of the coroutines above from synchronous code (a cell, a context entry)."""
        return OWNER.wait(work, timeout)

    def hold(self, owner: Any) -> None:
        """``owner`` (a chat) uses this server: it keeps running until every holder released it."""
        self._holders.add(owner)

    def release(self, owner: Any) -> None:
        """``owner`` no longer uses the server; the last holder's release stops it (not waiting)."""
        if owner not in self._holders:
            return
        self._holders.discard(owner)
        if not self._holders:
            OWNER.submit(self._stop())

    # -- on the owner's loop ---------------------------------------------------------------------

    async def _call_tool(self, name: str, arguments: dict[str, Any], timeout: float | None) -> CallToolResult:
        from mcp.shared.exceptions import MCPError
        from mcp.types import REQUEST_TIMEOUT

        try:
            return await self._request(
                f"calling {name}", lambda client: client.call_tool(name, arguments, read_timeout_seconds=timeout)
            )
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise TimeoutError(f"{name} did not finish within {timeout:g} s") from None
            raise

    async def _list(self, what: str) -> list[Any]:
        found: list[Any] = []
        cursor: str | None = None
        for _ in range(1000):  # a server whose pages never end cannot hang the cell
            page: Any = await self._request(f"listing its {what}", functools.partial(_page, what, cursor))
            found += page.tools if what == "tools" else page.resources
            cursor = page.next_cursor
            if not cursor:
                break
        return found

    async def _request(self, doing: str, send: Any) -> Any:
        """``send(client)`` on a running server; a server found dead is forgotten (the next request
        starts it again) and reported as :class:`McpServerError`."""
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED

        client = await self._connected()
        try:
            return await send(client)
        except BaseException as exc:  # the SDK wraps what went wrong in exception groups
            error = _unwrapped(exc)
            if isinstance(error, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
            if isinstance(error, MCPError) and error.code != CONNECTION_CLOSED:
                raise error from None
            if not isinstance(error, MCPError | OSError | EOFError) and not _is_transport_error(error):
                raise error from None
            tail = self._stderr_tail()
            await self._forget(client)
            again = "it will be started again" if self.spec.command else "the kernel will connect again"
            raise McpServerError(
                f"The MCP server {self.spec.label} stopped while {doing} ({_reason(error)}); {again} at the next call.{tail}"
            ) from None

    async def _connected(self) -> Client:
        client = self._client
        if client is not None:
            return client
        async with self._lock:
            if self._client is None:
                await self._start()
            assert self._client is not None
            return self._client

    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Client] = loop.create_future()
        stopping = asyncio.Event()
        stderr = _stderr_file() if self.spec.command else None
        task = loop.create_task(self._own(ready, stopping, stderr), name=f"agui-widget MCP {self.spec.label}")
        try:
            client = await asyncio.wait_for(asyncio.shield(ready), START_TIMEOUT)
        except BaseException as exc:
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, STOP_TIMEOUT)
            if ready.done() and not ready.cancelled():
                ready.exception()  # retrieved: it is reported below
            self._stderr, old = stderr, self._stderr
            if old is not None:
                old.close()
            if isinstance(exc, asyncio.CancelledError):
                raise
            reason = (
                f"it did not answer within {START_TIMEOUT:g} s" if isinstance(exc, TimeoutError) else _reason(_unwrapped(exc))
            )
            raise McpServerError(self._start_failure(reason)) from None
        if self._stderr is not None:
            self._stderr.close()
        self._client, self._task, self._stopping, self._stderr = client, task, stopping, stderr
        self.starts += 1

    async def _own(self, ready: asyncio.Future[Client], stopping: asyncio.Event, stderr: TextIO | None) -> None:
        """The task that holds the session: entered, then left when told to stop."""
        try:
            async with _client(self.spec, stderr) as client:
                ready.set_result(client)
                await stopping.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(repr(exc)))
            elif not isinstance(exc, asyncio.CancelledError):
                log.debug("agui-widget: the MCP server %s ended with %r", self.spec.label, exc)
            if isinstance(exc, asyncio.CancelledError):
                raise

    async def _forget(self, client: Client) -> None:
        """Let go of a session found dead (unless a new one replaced it meanwhile)."""
        async with self._lock:
            if self._client is client:
                await self._end()

    async def _stop(self) -> None:
        async with self._lock:
            await self._end()
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None

    async def _end(self) -> None:
        task, stopping = self._task, self._stopping
        self._client = self._task = self._stopping = None
        if task is not None and stopping is not None:
            stopping.set()
            done, _ = await asyncio.wait([task], timeout=STOP_TIMEOUT)
            if not done:
                log.warning("agui-widget: the MCP server %s did not stop within %g s", self.spec.label, STOP_TIMEOUT)

    def _start_failure(self, reason: str) -> str:
        if self.spec.url:
            return f"Could not connect to the MCP server at {self.spec.url}: {reason}."
        tail = self._stderr_tail()
        return f"The MCP server `{self.spec.label}` did not start: {reason}.{tail or ' It wrote nothing on stderr.'}"

    def _stderr_tail(self) -> str:
        """The last lines the server wrote on stderr, as the end of an error message."""
        if self._stderr is None or self._stderr.closed:
            return ""
        try:
            self._stderr.flush()
            end = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, end - STDERR_TAIL_BYTES))  # a long-lived server may have written a lot
            lines = [line.rstrip() for line in self._stderr.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        if not lines:
            return ""
        return "\nIts last lines on stderr:\n" + "\n".join(lines[-STDERR_LINES:])


def _page(what: str, cursor: str | None, client: Client) -> Awaitable[Any]:
    return client.list_tools(cursor=cursor) if what == "tools" else client.list_resources(cursor=cursor)


@contextlib.asynccontextmanager
async def _client(spec: ServerSpec, stderr: TextIO | None) -> AsyncIterator[Client]:
    """An ``mcp.Client`` entered on the server (the SDK is imported here, with the first server)."""
    from mcp import Client, StdioServerParameters
    from mcp.client import advertise
    from mcp.types import Implementation

    if spec.command:
        from mcp.client.stdio import stdio_client

        parameters = StdioServerParameters(command=spec.command[0], args=list(spec.command[1:]), env=dict(spec.env) or None)
        transport: Any = stdio_client(parameters, errlog=stderr) if stderr is not None else stdio_client(parameters)
    else:
        transport = _http_transport(spec)
    client = Client(
        transport,
        client_info=Implementation(name="agui-widget", version=_version()),
        extensions=[advertise(APPS_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})],
        cache=None,  # a context entry reads a resource afresh at each run
    )
    async with client:
        yield client


@contextlib.asynccontextmanager
async def _http_transport(spec: ServerSpec) -> AsyncIterator[Any]:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (
        create_mcp_http_client(headers=dict(spec.headers) or None) as http,
        streamable_http_client(spec.url, http_client=http) as streams,
    ):
        yield streams


def _stderr_file() -> TextIO:
    """Where a stdio server's stderr goes: a file read back when the server fails (closed by its
    next start, or its stop)."""
    return tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agui-widget")
    except PackageNotFoundError:
        return "0.0.0"


class _Owner:
    """The thread whose event loop runs every MCP session, started with the first server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=self._serve, args=(loop,), name="agui-widget MCP", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
                atexit.register(stop_all)
            return self._loop

    @staticmethod
    def _serve(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        loop.run_forever()

    def here(self) -> bool:
        return self._thread is threading.current_thread()

    def submit(self, work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(work, self.loop())

    def wait(self, work: Coroutine[Any, Any, T], timeout: float | None) -> T:
        if self.here():
            work.close()
            raise RuntimeError("an MCP server's work cannot be waited for on the thread that runs it")
        future = self.submit(work)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"the MCP server did not answer within {timeout:g} s") from None


OWNER = _Owner()

_servers: dict[ServerSpec, McpServer] = {}
_servers_lock = threading.Lock()


def server_for(spec: ServerSpec) -> McpServer:
    """The one :class:`McpServer` of ``spec`` (made on first use)."""
    with _servers_lock:
        server = _servers.get(spec)
        if server is None:
            server = _servers[spec] = McpServer(spec)
        return server


def stop_all(timeout: float = STOP_TIMEOUT) -> None:
    """Stop every server (when the kernel exits): no process mcp_tools() started outlives it."""
    with _servers_lock:
        servers = list(_servers.values())
    if not servers or OWNER.here():
        return
    futures = [OWNER.submit(server._stop()) for server in servers]
    concurrent.futures.wait(futures, timeout=timeout)


async def _on_owner(work: Awaitable[T]) -> T:
    """``work`` run on the owner's loop, awaited from this one (cancelling this cancels it)."""
    if OWNER.here():
        return await work
    return await asyncio.wrap_future(OWNER.submit(work))  # type: ignore[arg-type]


def _pairs(values: Mapping[str, str] | None, what: str) -> tuple[tuple[str, str], ...]:
    if values is None:
        return ()
    if not isinstance(values, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
        raise TypeError(f"{what}= takes a mapping of strings to strings")
    return tuple(sorted(values.items()))


def _unwrapped(exc: BaseException) -> BaseException:
    """The first error inside (nested) exception groups."""
    while isinstance(getattr(exc, "exceptions", None), tuple) and exc.exceptions:  # type: ignore[attr-defined]
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def _is_transport_error(exc: BaseException) -> bool:
    """A broken stream or an HTTP transport failure: the server is gone, not the request wrong."""
    import anyio

    if isinstance(exc, anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream):
        return True
    return type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore")


def _reason(exc: BaseException) -> str:
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, MCPError):
        return "the connection closed" if str(exc) == "Connection closed" else str(exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["McpServer", "McpServerError", "ServerSpec", "server_for", "stop_all"]
