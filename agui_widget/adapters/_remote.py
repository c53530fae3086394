"""A remote AG-UI agent: POST ``RunAgentInput`` to an HTTP endpoint and read its SSE event stream.

Whatever goes wrong on the way (the server cannot be reached, answers 4xx/5xx or something that is
not an event stream, goes silent, or closes the stream mid-run) ends the run with RUN_ERROR and a
message that says what to check; it never raises into the chat. An event that does not parse is
logged and skipped. Connection failures are retried with exponential backoff, but only before the
server has answered: a request whose events have started is never sent twice.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    Event,
    EventType,
    RunAgentInput,
    RunErrorEvent,
    RunStartedEvent,
)
from pydantic import TypeAdapter, ValidationError

if TYPE_CHECKING:  # httpx takes about 0.1 s to import: only when a remote agent runs
    import httpx

__all__ = ["DEFAULT_TIMEOUT", "RemoteAgent"]

log = logging.getLogger("agui_widget")

DEFAULT_TIMEOUT: dict[str, float] = {"connect": 10.0, "read": 300.0, "write": 30.0, "pool": 10.0}
"""Seconds. ``connect``: to open the connection; ``read``: the longest silence allowed between two
pieces of the stream (a model may think for minutes before its first token, and AG-UI servers send
nothing meanwhile); ``write``: to send the request; ``pool``: to get a connection from the pool."""

RETRY_STATUSES = frozenset({502, 503, 504})
"""Answers a load balancer or a restarting server gives before the agent ever saw the request."""

EXCERPT_CHARS = 500
"""How much of an error body a RUN_ERROR message quotes."""


@functools.cache
def _events_adapter() -> TypeAdapter[BaseEvent]:
    """The validator of ag_ui.core's event union, built on first use (it takes milliseconds)."""
    return TypeAdapter(Event)


class _Failure(Exception):
    """Why a remote run cannot go on: becomes the RUN_ERROR's message and code."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class RemoteAgent:
    """An AG-UI agent served over HTTP, e.g. by ``agui_widget.server`` or any AG-UI endpoint.

    ``AgentChat("http://host:port/path")`` makes one with the defaults. Options:

    - ``headers``: sent with every request (an API key or a bearer token, say);
    - ``timeout``: seconds for every phase, an ``httpx.Timeout``, or a dict with any of
      ``connect``/``read``/``write``/``pool`` (the rest keep :data:`DEFAULT_TIMEOUT`);
    - ``retries``: how many times a connection failure (or a 502/503/504) is retried before the
      server has answered, waiting ``backoff`` seconds, then twice that, ... up to ``max_backoff``;
    - ``client``: an ``httpx.AsyncClient`` to use (kept open; its own timeout applies when
      ``timeout`` is not given), or ``transport``: an httpx transport for a client made per run
      (``httpx.ASGITransport(app)`` runs a server app in memory);
    - ``protocol_version``: the AG-UI version of a peer pinned to an older release, so the request
      is shaped for it (see ``EventConsumer.outgoing_input``); None for a current peer.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float | Mapping[str, float] | httpx.Timeout | None = None,
        retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        protocol_version: str | None = None,
        name: str | None = None,
        description: str = "",
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"RemoteAgent needs an http:// or https:// URL of an AG-UI endpoint, not {url!r}")
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        if client is not None and transport is not None:
            raise ValueError("pass either client= or transport=, not both")
        if isinstance(timeout, Mapping) and set(timeout) - set(DEFAULT_TIMEOUT):
            unknown = sorted(set(timeout) - set(DEFAULT_TIMEOUT))
            raise ValueError(f"unknown timeout phases {unknown}; use any of {sorted(DEFAULT_TIMEOUT)}")
        self.url = url
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.client = client
        self.transport = transport
        self.protocol_version = protocol_version
        self.name = name or parts.netloc + parts.path.rstrip("/")
        self.display_name = name
        """The name people see over the agent's messages: only a name given here, not the URL."""
        self.description = description

    def __repr__(self) -> str:
        return f"RemoteAgent({self.url!r})"

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        """The remote run's events; failures end it with RUN_ERROR instead of raising."""
        delivered = False
        try:
            async with AsyncExitStack() as stack:
                response = await self._open(stack, self._body(input))
                async for event in self._events(response):
                    delivered = True
                    yield event
                    if event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR):
                        return  # the run is over: do not wait for a server that keeps the line open
                if not delivered:
                    raise _Failure(
                        f"The agent at {self.url} closed its event stream without sending any event. Check the server's logs.",
                        "agent_error",
                    )
                raise _Failure(
                    f"The agent at {self.url} closed its event stream before the run finished (no RUN_FINISHED). "
                    "Check the server's logs, and the read timeout of any proxy in between.",
                    "network",
                )
        except _Failure as failure:
            if not delivered:
                yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id, protocol_version=PROTOCOL_VERSION)
            yield RunErrorEvent(message=failure.message, code=failure.code)

    # -- the request ---------------------------------------------------------------------------

    def _body(self, input: RunAgentInput) -> dict[str, Any]:
        """The camelCase JSON to POST, shaped for the peer's protocol version."""
        from ..pipeline._consumer import EventConsumer

        shaper = EventConsumer(max_protocol_version=self.protocol_version)  # logs its warnings itself
        shaped = shaper.outgoing_input(input)
        return shaped.model_dump(mode="json", by_alias=True)

    def _timeout(self) -> httpx.Timeout | None:
        import httpx

        if self.timeout is None:
            return None if self.client is not None else httpx.Timeout(**DEFAULT_TIMEOUT)
        if isinstance(self.timeout, httpx.Timeout):
            return self.timeout
        if isinstance(self.timeout, Mapping):
            return httpx.Timeout(**{**DEFAULT_TIMEOUT, **self.timeout})
        return httpx.Timeout(float(self.timeout))

    async def _open(self, stack: AsyncExitStack, body: dict[str, Any]) -> httpx.Response:
        """POST the run, retrying connection failures; the response is closed with ``stack``."""
        import httpx

        timeout = self._timeout()
        client = self.client
        if client is None:
            client = httpx.AsyncClient(transport=self.transport, timeout=timeout)
            stack.push_async_callback(client.aclose)
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-store", **self.headers}
        attempt = 0
        while True:
            request = client.build_request(
                "POST", self.url, json=body, headers=headers, timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout
            )
            try:
                response = await client.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as exc:
                # Nothing reached the agent (no connection, or the server hung up before answering).
                if attempt >= self.retries:
                    raise _Failure(
                        f"Cannot reach the agent at {self.url} ({_reason(exc)}) after {attempt + 1} "
                        f"attempt{'s' if attempt else ''}. Check that the server is running, the host "
                        "and port are right, and nothing (a firewall, a proxy) blocks the connection.",
                        "network",
                    ) from exc
                wait = self._delay(attempt)
                log.info("agui-widget: %s unreachable (%s); retrying in %.1f s", self.url, _reason(exc), wait)
            except httpx.ReadTimeout as exc:
                raise self._silence(request) from exc
            except httpx.TimeoutException as exc:
                raise _Failure(
                    f"The agent at {self.url} did not answer within the timeout ({_reason(exc)}). "
                    "Check the server's logs; raise RemoteAgent(timeout=...) if it is slow to start a run.",
                    "network",
                ) from exc
            except httpx.HTTPError as exc:
                raise _Failure(f"Request to the agent at {self.url} failed: {_reason(exc)}.", "network") from exc
            else:
                if response.status_code in RETRY_STATUSES and attempt < self.retries:
                    wait = _retry_after(response) or self._delay(attempt)
                    await response.aclose()
                    log.info("agui-widget: %s answered %d; retrying in %.1f s", self.url, response.status_code, wait)
                else:
                    stack.push_async_callback(response.aclose)
                    await self._check(response)
                    return response
            await asyncio.sleep(wait)
            attempt += 1

    def _delay(self, attempt: int) -> float:
        return min(self.max_backoff, self.backoff * 2**attempt)

    async def _check(self, response: httpx.Response) -> None:
        """Refuse an error status or a body that is not an event stream, quoting what came back."""
        status = response.status_code
        content_type = response.headers.get("content-type", "")
        if status >= 400:
            excerpt = await _excerpt(response)
            advice, code = _status_advice(status)
            raise _Failure(
                f"The agent at {self.url} answered HTTP {status} {response.reason_phrase}: {excerpt or '(empty body)'}. {advice}",
                code,
            )
        if content_type.partition(";")[0].strip().lower() != "text/event-stream":
            excerpt = await _excerpt(response)
            raise _Failure(
                f"The agent at {self.url} answered {content_type or 'without a content type'}, not an AG-UI "
                f"event stream (text/event-stream): {excerpt or '(empty body)'}. Check that the URL is the "
                "agent's AG-UI endpoint itself, not a web page or another API.",
                "configuration",
            )

    # -- the response ----------------------------------------------------------------------------

    async def _events(self, response: httpx.Response) -> AsyncIterator[BaseEvent]:
        """Parsed events off the SSE stream; what does not parse is logged and skipped."""
        import httpx
        from httpx_sse import EventSource

        try:
            async for sse in EventSource(response).aiter_sse():
                if sse.event not in ("", "message") or not sse.data.strip():
                    continue  # named SSE events are not AG-UI events; keep-alives carry no data
                event = _parse(sse.data, self.url)
                if event is not None:
                    yield event
        except httpx.ReadTimeout as exc:
            raise self._silence(response.request) from exc
        except httpx.HTTPError as exc:
            raise _Failure(
                f"The connection to the agent at {self.url} broke mid-run ({_reason(exc)}). Check that the server "
                "is still running and its logs, and the timeouts of any proxy in between.",
                "network",
            ) from exc

    def _silence(self, request: httpx.Request) -> _Failure:
        """The read timeout ran out: the server went quiet (before answering, or mid-run)."""
        read = request.extensions.get("timeout", {}).get("read")
        waited = f" for {read:g} s" if isinstance(read, (int, float)) else ""
        return _Failure(
            f"The agent at {self.url} sent nothing{waited} (read timeout). Check the server's logs; if its model "
            "thinks longer than that before answering, raise RemoteAgent(timeout={'read': ...}).",
            "network",
        )


def _parse(data: str, url: str) -> BaseEvent | None:
    try:
        raw = json.loads(data)
    except ValueError:
        log.warning("agui-widget: skipped a line from %s that is not JSON: %.200s", url, data)
        return None
    try:
        return _events_adapter().validate_python(raw)
    except ValidationError as exc:
        kind = raw.get("type") if isinstance(raw, dict) else type(raw).__name__
        problems = "; ".join(f"{'/'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        log.warning("agui-widget: skipped an invalid %s event from %s (%s)", kind, url, problems)
        return None


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def _excerpt(response: httpx.Response) -> str:
    """The start of the body, on one line, without reading more than needed."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= EXCERPT_CHARS * 4:
                break
    except Exception:  # the excerpt only illustrates the error
        pass
    text = " ".join(b"".join(chunks).decode("utf-8", "replace").split())
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "…"


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    try:
        return min(max(float(value), 0.0), 30.0)
    except ValueError:
        return None


def _status_advice(status: int) -> tuple[str, str]:
    if status in (401, 403):
        return "Check the credentials RemoteAgent sends (headers={'Authorization': ...} or an API key header).", "authentication"
    if status in (404, 405):
        return "Check the URL: it must be the path the agent accepts POST requests on.", "configuration"
    if status in (400, 415, 422):
        return (
            "The server refused the request: check that it speaks AG-UI, and pass protocol_version= if it "
            "expects an older release.",
            "configuration",
        )
    if status == 413:
        return (
            "The request is larger than the server accepts (a long transcript or a big state): start a new thread "
            "(chat.new_thread()), or raise the server's limit (create_app(max_body_bytes=...), --max-body-bytes).",
            "configuration",
        )
    if status == 429:
        return "The server is rate limiting: wait and try again.", "rate_limit"
    if status >= 500:
        return "The server failed while handling the run: check its logs.", "agent_error"
    return "Check the URL and the server's logs.", "configuration"


DISCOVERY_TIMEOUT = 3.0
"""Seconds ``AgentChat(url)`` waits for a server's agent list before treating the URL as one agent."""


def agents_at(
    url: str, *, timeout: float = DISCOVERY_TIMEOUT, headers: Mapping[str, str] | None = None
) -> dict[str, RemoteAgent] | None:
    """The agents a server lists at ``{url}/agents`` (``agui-widget serve``, ``create_app``) when
    it lists several: each at its own endpoint, for the chat's agent picker. ``headers`` go with
    the listing request and every run (credentials, say).

    None when the URL is one agent: a server that lists one agent or none, any other AG-UI
    endpoint (no such list), or a server that cannot be reached now (its first run will say why).
    """
    import httpx

    listing = url.rstrip("/") + "/agents"
    try:
        response = httpx.get(listing, timeout=timeout, headers=dict(headers or {}))
        entries = response.json().get("agents") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        log.debug("agui-widget: no agent list at %s (%s); one agent there", listing, exc)
        return None
    if not isinstance(entries, list) or len(entries) < 2:
        return None
    agents: dict[str, RemoteAgent] = {}
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        path = entry.get("url") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.strip() or not isinstance(path, str) or name in agents:
            log.warning("agui-widget: %s lists an agent this chat cannot use (%r); one agent at %s", listing, entry, url)
            return None
        description = entry.get("description")
        agents[name] = RemoteAgent(
            urljoin(url, path), headers=headers, name=name, description=description if isinstance(description, str) else ""
        )
    return agents
