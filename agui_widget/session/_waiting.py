"""What a run waits for between its runs, and the answers to it.

A run that ends with frontend tool calls pending, or with an interrupt, leaves the turn waiting:
a view (or Python) answers each call with its result and each interrupt with a resume entry; a
Python tool's call runs in the kernel (after approval, when its tool asks for one) and its return
value answers it. The turn goes on with a follow-up run once everything is answered.
"""

from __future__ import annotations

import asyncio
import logging
import typing
from collections import deque
from typing import TYPE_CHECKING, Any, Literal

from ag_ui.core import ResumeEntry

from ..inputs._tools import FrontendTool, PythonTool
from ..pipeline._a2ui_surfaces import operations_in, surface_messages
from ..vocabulary._content import to_json_text
from ..vocabulary._ids import new_id
from ..vocabulary._unicode import has_surrogate
from ._closing import RunClosing, uncancel
from ._run import Pending, Run, Status, Waiting

if TYPE_CHECKING:
    from ..pipeline._consumer import EventConsumer

log = logging.getLogger("agui_widget")


class AlreadyAnswered(KeyError):
    """An answer for a call or interrupt that was answered already (in another view, say)."""


ANSWERED_KEPT = 500
"""How many answered ids a session remembers, to tell a late second answer from a wrong id."""


class AnswerWaiting(RunClosing):
    """Waiting for frontend tool results, Python tool calls, approvals and interrupts' answers
    (the part of :class:`~agui_widget.session._session.Session` above the closing of runs)."""

    tools: list[FrontendTool]
    status: Status
    _answered_ids: deque[str]

    @property
    def pending(self) -> list[Pending]:
        return [p for p in self._waiting.items.values() if not p.answered]

    def respond(self, id: str, result: Any = None) -> None:
        """Answer a pending frontend tool call (or an interrupt, approving with ``result``).

        A Python tool's call that asks for approval takes ``True``/``False`` (or
        ``{"approved": bool}``): approved, it runs; denied, the agent is told so."""
        item = self._waiting.items.get(id)
        if item is None or item.answered:
            self._not_pending(id)
        if item.kind == "interrupt":
            self.resume(id, result)
            return
        if item.kernel == "running":
            raise AlreadyAnswered(f"tool call {id!r} runs in the kernel ({item.name}); the function's return value answers it")
        if item.kernel == "approve":
            from ..inputs._python_tools import DENIED, approval_of  # loaded with the first Python tool's call

            if approval_of(result):
                item.kernel = "running"
                self._start_python_tool(self._waiting, item)
                self._changed_status()
            else:
                self._answer_call(item, {"content": to_json_text(DENIED)}, result)
            return
        content = _answer_text(f"the result for tool call {id!r}", result)  # refused whole, before anything changes
        self._answer_call(item, {"content": content}, result)

    def _answer_call(self, item: Pending, message: dict[str, Any], answer: Any) -> None:
        """The tool message answering a pending call (``message``: its content, error, metadata)."""
        item.answered = True
        item.answer = answer
        self._answered_ids.append(item.id)
        answer_message = {"id": new_id("tool"), "role": "tool", "toolCallId": item.id, **message}
        # A result holding A2UI operations draws its surfaces after it, as in an agent's stream.
        operations = operations_in(message.get("content"))
        self._append_messages([answer_message, *(surface_messages(operations, item.id) if operations else ())])
        self._after_answer()

    def resume(self, interrupt_id: str, payload: Any = None, status: Literal["resolved", "cancelled"] = "resolved") -> None:
        """Answer a pending interrupt; the run continues with ``RunAgentInput.resume``."""
        item = self._waiting.items.get(interrupt_id)
        if item is None or item.kind != "interrupt" or item.answered:
            if interrupt_id in self._answered_ids:
                raise AlreadyAnswered(f"interrupt {interrupt_id!r} was answered already")
            pending = [p.id for p in self._waiting.items.values() if p.kind == "interrupt" and not p.answered]
            raise KeyError(f"no pending interrupt has id {interrupt_id!r}; pending: {pending or 'nothing'}")
        _answer_text(f"the answer to interrupt {interrupt_id!r}", payload)  # the next RunAgentInput must hold it
        item.answered = True
        self._answered_ids.append(interrupt_id)
        item.answer = ResumeEntry(interrupt_id=interrupt_id, status=status, payload=payload)
        self._after_answer()

    def claim(self, id: str, view_id: str, *, take_over: bool = False) -> None:
        """A view will run this frontend tool call's handler; others leave it to that view
        (``take_over``: this view runs it after all, as when the claiming tab was closed)."""
        item = self._waiting.items.get(id)
        if item is None or item.answered or item.kind != "tool":
            self._not_pending(id)
        if item.claimed_by is None or take_over:
            item.claimed_by = view_id
            self._changed_status()

    def _not_pending(self, id: str) -> typing.NoReturn:
        if id in self._answered_ids:
            raise AlreadyAnswered(f"{id!r} was answered already")
        pending = [p.id for p in self._waiting.items.values() if not p.answered]
        raise KeyError(f"nothing pending has id {id!r}; pending: {pending or 'nothing'}")

    def _collect_pending(self, consumer: EventConsumer) -> bool:
        """What the run left for the application to answer; True when there is something."""
        waiting = Waiting()
        interrupts = consumer.interrupts()
        for item in interrupts:
            name, args = _find_call(self.messages, item.tool_call_id) if item.tool_call_id else (None, "")
            waiting.items[item.id] = Pending("interrupt", item.id, name=name, args_text=args, interrupt=item)
        if not interrupts:
            for call_id in consumer.pending_tool_call_ids():
                if _has_result(self.messages, call_id):
                    continue
                name, args = _find_call(self.messages, call_id)
                call = waiting.items[call_id] = Pending("tool", call_id, name=name, args_text=args)
                tool = next((t for t in self.tools if t.name == name), None)
                if isinstance(tool, PythonTool):
                    waiting.python_tools[call_id] = tool
                    call.kernel = "approve" if tool.approve else "running"
        self._waiting = waiting
        return bool(waiting.items)

    async def _wait_for_answers(self, run: Run) -> list[ResumeEntry] | None:
        """Wait until everything pending is answered; None when the turn was stopped meanwhile."""
        run.status = "waiting"
        self.status = "waiting"
        waiting = self._waiting
        for item in waiting.items.values():
            if item.kernel == "running":
                self._start_python_tool(waiting, item)
        self._changed_status()
        run._waiting_on_views(p for p in waiting.items.values() if not p.answered and p.kernel != "running")
        try:
            while any(not p.answered for p in waiting.items.values()):
                waiting.wake.clear()
                await waiting.wake.wait()
            run._waiting_on_views(())
        except asyncio.CancelledError:
            uncancel()
            if not run._stopped:
                self._stop_turn(run)
            return None
        if run._stopped:
            return None
        self._waiting = Waiting()
        return [p.answer for p in waiting.items.values() if p.kind == "interrupt"]

    def _start_python_tool(self, waiting: Waiting, item: Pending) -> None:
        """Run a Python tool's call in the kernel; its result answers the call (unless a stop
        ended the wait first)."""
        from ..inputs._python_tools import failed, run_python_tool  # loaded with the first Python tool's call

        tool = waiting.python_tools[item.id]

        async def call() -> None:
            try:
                message = await run_python_tool(tool, item.args_text)
            except Exception as exc:  # a bug of ours: the call is still answered
                log.exception("agui-widget: running the python tool %s failed", tool.name)
                message = failed(f"{type(exc).__name__}: {exc}")
            if self._waiting is waiting and not item.answered:
                self._answer_call(item, message, None)

        task = asyncio.get_running_loop().create_task(call(), name=f"agui-widget tool {tool.name}")
        waiting.tasks.add(task)
        task.add_done_callback(waiting.tasks.discard)

    def _after_answer(self) -> None:
        self._changed_status()
        if all(p.answered for p in self._waiting.items.values()):
            self._waiting.wake.set()


def _answer_text(what: str, value: Any) -> str:
    """``value`` as the text a tool message (or resume entry) carries, or ValueError saying why it
    cannot be sent; checked before anything is marked answered, so a refusal loses nothing."""
    try:
        text = to_json_text(value)
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply to be sent to the agent; it is still pending") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} cannot be sent to the agent ({exc}); it is still pending") from None
    if has_surrogate(text):
        raise ValueError(f"{what} holds a lone UTF-16 surrogate, which cannot be sent; it is still pending")
    return text


def _has_result(messages: list[dict[str, Any]], call_id: str) -> bool:
    return any(m.get("role") == "tool" and m.get("toolCallId") == call_id for m in reversed(messages))


def _find_call(messages: list[dict[str, Any]], call_id: str | None) -> tuple[str | None, str]:
    for message in reversed(messages):
        for call in message.get("toolCalls") or ():
            if call.get("id") == call_id:
                function = call.get("function") or {}
                return function.get("name"), function.get("arguments") or ""
    return None, ""
