"""Who may use a served app: bearer tokens, or a hook of the deployment's own.

``create_app(..., auth=...)`` takes:

- a token (``str``): every request must carry ``Authorization: Bearer <token>``; its holders are
  one user, ``"default"``;
- a mapping of user id → token (a token per student): the token says who is asking;
- a hook ``auth(request) -> user id | None`` (plain or ``async``): the user id admits the request,
  None refuses it with 401; the hook may also raise ``fastapi.HTTPException`` (401 or 403, with a
  detail of its own). A reverse proxy that signs people in and passes a header is one line:
  ``auth=lambda request: request.headers.get("X-Forwarded-User")``.

The check is an ASGI middleware, so a refused request is answered before its body is read (a
stranger cannot make a worker read a 10 MiB body), and a refusal is always a JSON 401 or 403,
never a stream. ``GET {path}health`` stays open (load balancers probe it), and so do CORS
preflights (browsers never send credentials with them; the CORS middleware answers them).
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["SHARED_TOKEN_USER", "Auth", "AuthMiddleware", "auth_hook", "bearer_tokens", "user_of"]

log = logging.getLogger("agui_widget")

Auth = Callable[[Request], "str | Awaitable[str | None] | None"]
"""A hook that says who is asking: a user id admits the request, None refuses it (401)."""

SHARED_TOKEN_USER = "default"
"""The user id of everyone who holds the one shared token (``auth="token"``)."""

STATE_KEY = "agui_user"
"""Where the middleware leaves the user id, in the request's ``state``."""

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="agui-widget"'}


def bearer_tokens(tokens: str | Mapping[str, str]) -> Auth:
    """A hook that admits ``Authorization: Bearer <token>`` for a known token.

    ``tokens``: one shared token, or ``{user_id: token}``. No credentials (or not a bearer token)
    gets 401, an unknown token 403. Tokens are looked up by their SHA-256 digest, so the time a
    lookup takes says nothing about how much of a guess was right.
    """
    users = _token_table(tokens)

    def check(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise HTTPException(401, "This server needs a token: send the header 'Authorization: Bearer <token>'.", CHALLENGE)
        user = users.get(_digest(token))
        if user is None:
            raise HTTPException(403, "This token is not valid on this server.")
        return user

    return check


def auth_hook(auth: str | Mapping[str, str] | Auth | None) -> Auth | None:
    """The hook for what ``create_app(auth=...)`` was given (None: the app is open)."""
    if auth is None:
        return None
    if isinstance(auth, (str, Mapping)):
        return bearer_tokens(auth)
    if callable(auth):
        return auth
    raise TypeError(f"auth= takes a token, a dict of user id → token, or a function of the request; not {type(auth).__name__}")


def user_of(request: Request) -> str | None:
    """The user the middleware admitted this request as (None: the app has no auth)."""
    user: str | None = getattr(request.state, STATE_KEY, None)
    return user


class AuthMiddleware:
    """Runs the hook on every HTTP request but the open ones; refuses with 401/403 JSON."""

    def __init__(self, app: ASGIApp, *, hook: Auth, open_paths: frozenset[str]) -> None:
        self.app = app
        self.hook = hook
        self.open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        try:
            user = self.hook(request)
            if inspect.isawaitable(user):
                user = await user
        except HTTPException as exc:
            if exc.status_code not in (401, 403):
                log.warning("agui-widget: the auth hook refused with HTTP %s; answered as given", exc.status_code)
            await _refusal(exc.status_code, exc.detail, exc.headers)(scope, receive, send)
            return
        except Exception:  # a broken hook lets nobody in
            log.exception("agui-widget: the auth hook failed; the request was refused")
            await _refusal(500, "The server could not check who you are (its auth hook failed); see its log.")(
                scope, receive, send
            )
            return
        if user is None:
            await _refusal(401, "This server needs you to sign in.", CHALLENGE)(scope, receive, send)
            return
        if not isinstance(user, str) or not user:
            log.error("agui-widget: the auth hook returned %r; expected a user id (a non-empty str) or None", user)
            await _refusal(500, "The server could not check who you are (its auth hook returned no user id).")(
                scope, receive, send
            )
            return
        scope.setdefault("state", {})[STATE_KEY] = user
        await self.app(scope, receive, send)


def _refusal(status: int, detail: Any, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=dict(headers or {}))


def _token_table(tokens: str | Mapping[str, str]) -> dict[bytes, str]:
    if isinstance(tokens, str):
        tokens = {SHARED_TOKEN_USER: tokens}
    table: dict[bytes, str] = {}
    for user, token in tokens.items():
        if not isinstance(user, str) or not user:
            raise ValueError(f"auth: a user id must be a non-empty string, not {user!r}")
        if not isinstance(token, str) or not token.strip() or token != token.strip() or " " in token:
            raise ValueError(f"auth: the token of {user!r} must be a non-empty string without spaces")
        digest = _digest(token)
        if digest in table:
            raise ValueError(f"auth: {table[digest]!r} and {user!r} have the same token; each user needs their own")
        table[digest] = user
    if not table:
        raise ValueError("auth: no tokens given (a dict of user id → token, or one token)")
    return table


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()
