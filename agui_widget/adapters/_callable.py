"""Plain Python callables as agents.

``f(messages) -> str``, ``async def f(messages)``, and sync or async generators yielding text
chunks. A function that returns a rich object (a matplotlib figure, a DataFrame, anything IPython
can display) has it shown in the chat. ``messages`` is the transcript as AG-UI message dicts (``role``, ``content``, ...), the same
objects ``chat.messages`` holds. Sync code runs in a worker thread so the kernel keeps serving
comm messages and other cells while it works.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from typing import Any

from ag_ui.core import RunAgentInput

from ..vocabulary._display import rich_output
from ..vocabulary._marks import DISPLAY, marked
from ._base import AgentAdapter, Emitted, EventStream

_DONE = object()


class CallableAgent(AgentAdapter):
    """Wraps a function or generator function of the transcript as an AG-UI agent."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", type(fn).__name__)

    async def _events(self, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Emitted, None]:
        messages = [m.model_dump(mode="json", by_alias=True) for m in input.messages]
        fn = self.fn
        if inspect.isasyncgenfunction(fn) or inspect.iscoroutinefunction(fn):
            result = fn(messages)
        else:
            result = await asyncio.to_thread(fn, messages)
        if inspect.isawaitable(result):
            result = await result
        rich = rich_output(result)
        if rich is not None:
            # Shown as the object; the transcript (and a model reading it later) gets its text.
            bundle, text = rich
            yield stream.text(text)
            yield stream.end_text(metadata=marked(**{DISPLAY: bundle}))
            return
        async for chunk in _chunks(result):
            yield stream.text(chunk)

    def __repr__(self) -> str:
        return f"CallableAgent({self.name})"


async def _chunks(result: Any) -> AsyncIterator[str]:
    """Text chunks from whatever the callable gave back."""
    if result is None:
        return
    if isinstance(result, str):
        yield result
    elif hasattr(result, "__aiter__"):
        async for chunk in result:
            yield _as_text(chunk)
    elif isinstance(result, Iterator) or inspect.isgenerator(result):
        iterator = result
        while True:
            chunk = await asyncio.to_thread(next, iterator, _DONE)
            if chunk is _DONE:
                break
            yield _as_text(chunk)
    else:
        yield _as_text(result)


def _as_text(chunk: Any) -> str:
    return chunk if isinstance(chunk, str) else str(chunk)
