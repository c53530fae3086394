""" "Run in kernel": code from a code block of an answer, run in the kernel at the user's word.

The view asks (``run_code``, after the user said Run under the block); the code runs as the agent's
``run_python`` tool runs it (``inputs._cell_runner``: IPython's cell machinery in a worker thread,
so ``In``/``Out``, magics and figures work and the kernel keeps serving the chat). It is written into
the transcript as the agent's own call would be: an assistant message with a ``run_python`` call
``{code}`` at once, marked as the user's run while it runs (the card reads "running in the kernel"),
then the tool message with the output. So the card looks like the agent's ``run_python`` card,
survives a reload, is in the exports, and the agent reads it in its next turn.

One code run at a time, and never beside an agent's run: a request while either is going on is
refused with a notice, and so is a message sent from a view while code runs (it goes back to the
message box). A stop from a view interrupts the code where Python can.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import TYPE_CHECKING, Any

from ..inputs._notebook_tools import DEFAULT_MAX_CHARS
from ..vocabulary._ids import new_id
from ..vocabulary._marks import CODE_RUN, mark_of, with_mark

if TYPE_CHECKING:
    from ..session._session import Session

log = logging.getLogger("agui_widget")

RUN_PYTHON = "run_python"
"""The tool name the call is written under: the name of the agent's own tool for running code."""
MAX_CHARS = DEFAULT_MAX_CHARS
"""The longest text the agent reads of a run's output (characters): as for the agent's own runs."""


class CodeRuns:
    """A chat's runs of code from its view: at most one at a time."""

    def __init__(self, session: Session, max_chars: int = MAX_CHARS) -> None:
        self._session = session
        self.max_chars = max_chars
        self._task: asyncio.Task[None] | None = None
        self._call_id: str | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def check_free(self, doing: str) -> None:
        """Raise (RuntimeError) while code runs: ``doing`` waits for it."""
        if self.running:
            raise RuntimeError(f"code is running in the kernel: wait for it to finish (or stop it) before {doing}")

    def start(self, code: str) -> str:
        """Add the call to the transcript and start running ``code``; returns the call's id.

        Raises RuntimeError, with nothing changed, while an agent's run or another code run is
        going on."""
        session = self._session
        if session.active is not None or session.queue:
            raise RuntimeError("the agent is answering: wait for its answer (or stop it) before running code")
        self.check_free("running more")
        call_id = new_id("call")
        message = {
            "id": new_id("assistant"),
            "role": "assistant",
            "toolCalls": [
                {"id": call_id, "type": "function", "function": {"name": RUN_PYTHON, "arguments": json.dumps({"code": code})}}
            ],
            "metadata": with_mark(None, CODE_RUN, "running"),
        }
        session.replace_messages([*session.messages, message])
        self._call_id = call_id
        self._task = asyncio.get_running_loop().create_task(self._run(call_id, code), name=f"agui-widget code run {call_id}")
        return call_id

    def stop(self) -> None:
        """Interrupt the code running, if any (its answer says so)."""
        if self.running:
            assert self._task is not None
            self._task.cancel()

    async def _run(self, call_id: str, code: str) -> None:
        from ..inputs._cell_runner import run_cell_code  # loaded with the first run

        try:
            parts = await run_cell_code(code, timeout=None, max_chars=self.max_chars)
        except Exception as exc:  # a bug of the runner must still answer the call
            log.exception("agui-widget: running code from the view failed")
            text = f"the code could not be run ({type(exc).__name__}: {exc})"
            parts = {"content": f"Error: {text}", "error": text}
        await self._answer(call_id, parts)

    async def _answer(self, call_id: str, parts: dict[str, Any]) -> None:
        """Put the tool message right after the call, once no agent's run is going on; a call the
        transcript no longer holds (cleared, or answered by a stop) is left alone."""
        session = self._session
        while session.active is not None:  # a turn started from Python meanwhile: after it
            with contextlib.suppress(Exception):  # the turn's outcome is its own
                await session.active
        messages = session.messages
        at = _holder_of(messages, call_id)
        if at is None or any(m.get("role") == "tool" and m.get("toolCallId") == call_id for m in messages):
            log.info("agui-widget: the code run's call left the transcript before it finished; its output is dropped")
            return
        caller = {**messages[at], "metadata": with_mark(messages[at].get("metadata"), CODE_RUN, "done")}
        answer = {"id": new_id("tool"), "role": "tool", "toolCallId": call_id, **parts}
        session.replace_messages([*messages[:at], caller, answer, *messages[at + 1 :]])


def _holder_of(messages: list[dict[str, Any]], call_id: str) -> int | None:
    """The index of the assistant message holding the call ``call_id``, marked as a code run."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "assistant" or mark_of(message, CODE_RUN) is None:
            continue
        if any(call.get("id") == call_id for call in message.get("toolCalls") or ()):
            return index
    return None
