"""What a run request must pass before FastAPI validates it into ``RunAgentInput``.

The refusals FastAPI does not make on its own (or makes only as a crash), each answered with JSON
before any stream starts:

- a body over the size limit gets a 413, decided from ``Content-Length`` before anything is read,
  and by counting while reading when the body is chunked (so a huge body is never held whole);
- a body that is not UTF-8 (the only encoding JSON travels in, RFC 8259) gets a 400 naming the
  first byte that is not;
- a body nesting arrays and objects more than ``MAX_JSON_DEPTH`` levels deep gets a 422 naming the
  limit, found by counting brackets before the parser runs: Python's parser recurses once per
  level, and a body nested 100,000 deep would end it in a ``RecursionError``;
- a body holding a lone UTF-16 surrogate (JSON ``"\\ud83d"`` without its other half, which
  Python's parser accepts) gets a 422 naming its JSON pointer: nothing in the run could ever send
  that string back, since no UTF-8 encoder accepts it;
- JSON that Python will not convert (an integer of more digits than ``int`` reads) gets a 400.

All are checks of :class:`RunRoute`, the route class of the run endpoints, which parses the body
once (FastAPI then reads the JSON already parsed). A body that is not JSON at all, and an invalid
``RunAgentInput``, still get FastAPI's validation and the app's 422.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar, TypeVar

from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..vocabulary._unicode import lone_surrogate_path

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "RunRoute",
    "check_body_limit",
    "json_refusal",
    "run_route",
    "small_json_body",
]

DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
"""10 MiB: a long transcript with a few inline images fits; a runaway client does not."""

MAX_JSON_DEPTH = 128
"""Arrays and objects inside one another: far more than a run's state, tools' schemas or
forwarded props need, and few enough that parsing, validating and copying the input stay well
inside Python's recursion limit."""

ESCAPES = re.compile(r"\\[\\\"]")
"""An escaped backslash or quote: taken out first, so that every quote left delimits a string."""

STRINGS = re.compile(r'"[^"]*"')
NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


class BodyTooLarge(Exception):
    """The request body is over the limit (declared, or counted while reading)."""


class NestedTooDeep(ValueError):
    """The request body nests arrays and objects more than ``MAX_JSON_DEPTH`` levels deep."""


class BoundedRequest(Request):
    """A request whose body is read at most up to ``max_body_bytes`` (None: no limit), and whose
    JSON is read as UTF-8 and at most ``MAX_JSON_DEPTH`` levels deep."""

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

    async def json(self) -> Any:
        """The body parsed; raises ``UnicodeDecodeError`` or ``NestedTooDeep`` before parsing."""
        if not hasattr(self, "_json"):
            text = (await self.body()).decode("utf-8-sig")  # a leading byte order mark is allowed, as before
            if nested_deeper_than(text, MAX_JSON_DEPTH):
                raise NestedTooDeep
            self._json = json.loads(text)  # where Starlette's Request keeps the JSON it has parsed
        return self._json


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
    """The 400, 413 or 422 this request gets before validation, or None when it may go on.

    A body that is not JSON goes on: FastAPI's validation reports it in the app's usual 422.
    """
    try:
        parsed = await request.json()
    except BodyTooLarge:
        limit = request.max_body_bytes
        detail = f"The request body is too large: this server accepts at most {limit:,} bytes (max_body_bytes)."
        return JSONResponse(status_code=413, content={"detail": detail})
    except UnicodeDecodeError as exc:
        detail = f"The request body is not UTF-8 (byte {exc.start:,}: {exc.reason}); send JSON encoded as UTF-8."
        return JSONResponse(status_code=400, content={"detail": detail})
    except NestedTooDeep:
        detail = (
            f"The request body is nested too deep: this server reads JSON at most {MAX_JSON_DEPTH} levels "
            "of arrays and objects deep."
        )
        error = {"loc": ["body"], "msg": f"nested more than {MAX_JSON_DEPTH} levels deep", "type": "too_deep"}
        return JSONResponse(status_code=422, content={"detail": detail, "errors": [error]})
    except json.JSONDecodeError:
        return None
    except ValueError as exc:  # JSON the parser reads but Python will not convert
        return JSONResponse(status_code=400, content={"detail": f"The request body cannot be read as JSON: {exc}."})
    return surrogate_refusal(parsed)


def surrogate_refusal(parsed: Any) -> Response | None:
    """The 422 for a body holding a lone UTF-16 surrogate (naming where), or None."""
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


def nested_deeper_than(text: str, limit: int) -> bool:
    """Whether JSON ``text`` opens more than ``limit`` arrays and objects inside one another.

    Brackets inside strings do not count: escaped backslashes and quotes go first, then strings.
    In text that is not JSON the count may come out high, never low up to where a parser stops.
    """
    brackets = NOT_BRACKETS.sub("", STRINGS.sub("", ESCAPES.sub("", text)))
    depth = 0
    for bracket in brackets:
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def declared_length(request: Request) -> int:
    """The body length the client declared (-1 when it declared none, or nothing readable)."""
    try:
        return int(request.headers.get("content-length", "-1"))
    except ValueError:
        return -1


def escape_surrogates(text: str) -> str:
    """``text`` with any surrogate written as its ``\\udXXX`` escape, so it can go in a response."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


Body = TypeVar("Body", bound=BaseModel)


def json_refusal(status: int, detail: str) -> JSONResponse:
    """A refusal as the server's small routes word one: ``{"detail": ...}`` under its status."""
    return JSONResponse({"detail": detail}, status_code=status)


async def small_json_body(request: Request, model: type[Body], *, limit: int, name: str, shape: str) -> Body | JSONResponse:
    """A small route's body (a rating, a rename) checked against ``model``; or the refusal: 413
    over ``limit`` bytes (declared or read: reading stops there), 400 when it is not JSON, 422 when
    it holds a lone surrogate or is not ``shape``. ``name`` says whose body it is, in the 413."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return json_refusal(413, f"{name} is at most {limit} bytes.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return json_refusal(413, f"{name} is at most {limit} bytes.")
        chunks.append(chunk)
    try:
        raw = json.loads(b"".join(chunks))
    except (ValueError, RecursionError):
        return json_refusal(400, "The request body is not JSON.")
    where = lone_surrogate_path(raw)
    if where is not None:
        return json_refusal(422, f"The request body holds a lone UTF-16 surrogate (half a character) at {where}.")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors(include_input=False, include_url=False)[:5]
        where = "; ".join(f"{'.'.join(str(part) for part in error['loc']) or 'body'}: {error['msg']}" for error in errors)
        return json_refusal(422, f"The request body is not {shape} ({where}).")
