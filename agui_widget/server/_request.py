"""What a run request must pass before FastAPI validates it into ``RunAgentInput``.

Two refusals FastAPI does not make on its own, both answered with JSON before any stream starts:

- a body over the size limit gets a 413, decided from ``Content-Length`` before anything is read,
  and by counting while reading when the body is chunked (so a huge body is never held whole);
- a body holding a lone UTF-16 surrogate (JSON ``"\\ud83d"`` without its other half, which
  Python's parser accepts) gets a 422 naming its JSON pointer: nothing in the run could ever send
  that string back, since no UTF-8 encoder accepts it.

Both are checks of :class:`RunRoute`, the route class of the run endpoints; an invalid
``RunAgentInput`` still gets FastAPI's validation and the app's 422.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, ClassVar

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .._unicode import lone_surrogate_path

__all__ = ["DEFAULT_MAX_BODY_BYTES", "RunRoute", "check_body_limit", "run_route"]

DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
"""10 MiB: a long transcript with a few inline images fits; a runaway client does not."""


class BodyTooLarge(Exception):
    """The request body is over the limit (declared, or counted while reading)."""


class BoundedRequest(Request):
    """A request whose body is read at most up to ``max_body_bytes`` (None: no limit)."""

    max_body_bytes: int | None = None

    async def body(self) -> bytes:
        if not hasattr(self, "_body"):
            limit = self.max_body_bytes
            if limit is not None and declared_length(self) > limit:
                raise BodyTooLarge
            chunks: list[bytes] = []
            size = 0
            async for chunk in self.stream():
                size += len(chunk)
                if limit is not None and size > limit:
                    raise BodyTooLarge
                chunks.append(chunk)
            self._body = b"".join(chunks)  # where Starlette's Request keeps the body it has read
        return self._body


class RunRoute(APIRoute):
    """The route of a run endpoint: the body is bounded and checked before validation."""

    max_body_bytes: ClassVar[int | None] = DEFAULT_MAX_BODY_BYTES

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        validate_and_run = super().get_route_handler()
        limit = self.max_body_bytes

        async def checked(request: Request) -> Response:
            bounded = BoundedRequest(request.scope, request.receive)
            bounded.max_body_bytes = limit
            refusal = await refusal_of(bounded)
            if refusal is not None:
                return refusal
            return await validate_and_run(bounded)  # reads the body and the JSON already cached

        return checked


def run_route(max_body_bytes: int | None) -> type[RunRoute]:
    """The run route class for one app's body limit."""
    return type("RunRoute", (RunRoute,), {"max_body_bytes": max_body_bytes})


def check_body_limit(max_body_bytes: int | None) -> int | None:
    """``max_body_bytes`` if usable: a positive number of bytes, or None for no limit."""
    if max_body_bytes is None:
        return None
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes <= 0:
        raise ValueError(f"max_body_bytes must be a positive number of bytes or None (no limit), not {max_body_bytes!r}")
    return max_body_bytes


async def refusal_of(request: BoundedRequest) -> Response | None:
    """The 413 or 422 this request gets before validation, or None when it may go on.

    A body that is not JSON goes on: FastAPI's validation reports it in the app's usual 422.
    """
    try:
        await request.body()
    except BodyTooLarge:
        limit = request.max_body_bytes
        detail = f"The request body is too large: this server accepts at most {limit:,} bytes (max_body_bytes)."
        return JSONResponse(status_code=413, content={"detail": detail})
    try:
        parsed = await request.json()
    except ValueError:
        return None
    pointer = lone_surrogate_path(parsed)
    if pointer is None:
        return None
    shown = escape_surrogates(pointer)
    detail = (
        f"The request body holds a lone UTF-16 surrogate at {shown}: half of a character, which cannot be "
        "encoded as UTF-8. Send the whole character (both halves of the pair), or U+FFFD in place of the half."
    )
    location = ["body", *(part.replace("~1", "/").replace("~0", "~") for part in shown.split("/")[1:])]
    error = {"loc": location, "msg": "lone UTF-16 surrogate", "type": "lone_surrogate"}
    return JSONResponse(status_code=422, content={"detail": detail, "errors": [error]})


def declared_length(request: Request) -> int:
    """The body length the client declared (-1 when it declared none, or nothing readable)."""
    try:
        return int(request.headers.get("content-length", "-1"))
    except ValueError:
        return -1


def escape_surrogates(text: str) -> str:
    """``text`` with any surrogate written as its ``\\udXXX`` escape, so it can go in a response."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
