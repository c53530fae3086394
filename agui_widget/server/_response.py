"""The HTTP response a run streams in: server-sent events that end as soon as the client leaves."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

__all__ = ["EventStreamResponse"]


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
