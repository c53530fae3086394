"""A fake notebook front end: drives a real ipykernel over the Jupyter messaging protocol.

:class:`FakeFrontEnd` starts an ipykernel with this interpreter (``sys.executable``) and the
repository on ``PYTHONPATH``, executes cells, and watches iopub the way JupyterLab does: it tracks
every ``jupyter.widget`` comm (ipywidgets 8 protocol), keeps the trait updates and the custom
messages each one receives, and can answer as a view would (a ``comm_msg`` with
``{"method": "custom", "content": ...}`` on the shell channel, an ipywidgets ``update`` that writes
synced traits, a ``comm_close``); it can also interrupt the kernel. :class:`ViewMirror` is a minimal
view-side copy of the transcript and state, rebuilt from ``snapshot``, ``events``, ``messages`` and
``state_patch`` messages (docs/wire.md), so tests can check that a view sees what the kernel holds.

Every wait is bounded, and :meth:`FakeFrontEnd.shutdown` always stops the kernel.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any

import jsonpatch
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.session import json_default

REPO_ROOT = Path(__file__).resolve().parent.parent
WIDGET_TARGET = "jupyter.widget"
TRACEBACK_MARK = "Traceback (most recent call last)"


class HarnessError(AssertionError):
    """The kernel or the fake front end did not do what a test waited for."""


# -- the kernel ---------------------------------------------------------------------------------


class _ThisPythonSpecs(KernelSpecManager):
    """A kernel spec manager whose only kernel is ipykernel on this very interpreter."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(
            argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            display_name=f"Python {sys.version_info.major}.{sys.version_info.minor} (test)",
            language="python",
            interrupt_mode="signal",
            metadata={},
            name=kernel_name,
            resource_dir=str(REPO_ROOT),
        )


def kernel_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a test kernel runs in: ours, with the repository first on PYTHONPATH."""
    env = dict(os.environ)
    paths = [str(REPO_ROOT), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("JPY_PARENT_PID", None)
    env.update(extra or {})
    return env


# -- what the front end sees --------------------------------------------------------------------


@dataclass
class ExecResult:
    """One executed cell: its reply status and everything it printed or displayed."""

    msg_id: str
    code: str
    status: str = "pending"
    stdout: str = ""
    stderr: str = ""
    result: str | None = None
    """The ``text/plain`` of the cell's execute_result, if any."""
    error: dict[str, Any] | None = None
    """``ename``, ``evalue`` and ``traceback`` when the cell raised."""
    outputs: list[dict[str, Any]] = field(default_factory=list)
    started: float = 0.0
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def check(self) -> ExecResult:
        """Raise with the kernel's traceback when the cell failed."""
        if self.status != "ok":
            detail = ""
            if self.error:
                detail = f"{self.error.get('ename')}: {self.error.get('evalue')}\n" + _strip_ansi(
                    "\n".join(self.error.get("traceback") or ())
                )
            raise HarnessError(f"cell failed ({self.status}):\n{self.code}\n{detail}\nstderr: {self.stderr}")
        return self


@dataclass
class CommMessage:
    """One ``comm_msg`` the kernel sent to a widget comm."""

    at: float
    data: dict[str, Any]
    size: int
    """JSON size of the message content in bytes, plus its binary buffers."""
    parent_msg_id: str | None


@dataclass
class WidgetComm:
    """A ``jupyter.widget`` comm as the front end knows it."""

    comm_id: str
    state: dict[str, Any]
    opened_by: str | None
    opened_at: float
    received: list[CommMessage] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    """The ``state`` of every ``update`` message, in order."""
    customs: list[Any] = field(default_factory=list)
    """The ``content`` of every ``custom`` message, in order."""
    closed: bool = False

    @property
    def model_id(self) -> str:
        return str(self.state.get("_anywidget_id") or self.state.get("_model_name") or "")

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        """Custom messages of one wire ``kind``."""
        return [c for c in self.customs if isinstance(c, dict) and c.get("kind") == kind]

    def events(self) -> list[dict[str, Any]]:
        """Every AG-UI event that arrived in ``events`` messages, flattened, in order."""
        return [e for c in self.of_kind("events") for e in c.get("events") or ()]

    def trait_values(self, name: str) -> list[Any]:
        """The successive values one synced trait took, as the view was told."""
        return [u[name] for u in self.updates if name in u]

    def bytes_received(self, since: float = 0.0) -> int:
        return sum(m.size for m in self.received if m.at >= since)


@dataclass
class Mark:
    """A point in the front end's logs (see :meth:`FakeFrontEnd.problems`)."""

    streams: int
    errors: int
    stderr_offset: int


# -- the front end ------------------------------------------------------------------------------


class FakeFrontEnd:
    """A notebook front end without a browser: one kernel, its iopub feed, its widget comms."""

    def __init__(self, *, env: dict[str, str] | None = None, cwd: str | os.PathLike[str] | None = None) -> None:
        self._extra_env = env
        self._cwd = str(cwd or REPO_ROOT)
        self.km: AsyncKernelManager | None = None
        self.kc: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._changed = asyncio.Event()
        self._executions: dict[str, ExecResult] = {}
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._idle: dict[str, asyncio.Event] = {}
        self._stderr_file: Any = None
        self._sockets: tempfile.TemporaryDirectory[str] | None = None
        self._reader_error: BaseException | None = None
        self.widgets: dict[str, WidgetComm] = {}
        self.streams: list[tuple[str, str, str | None]] = []
        """Every iopub stream message: (name, text, parent msg_type)."""
        self.errors: list[dict[str, Any]] = []
        """Every iopub ``error`` message content."""
        self.sent: list[dict[str, Any]] = []
        """Every comm message this front end sent to the kernel."""

    # -- life cycle -------------------------------------------------------------------------

    async def start(self, timeout: float = 60.0) -> FakeFrontEnd:
        self._stderr_file = tempfile.TemporaryFile(prefix="kernel-stderr-")
        # Unix sockets, not TCP: picking free TCP ports and binding them later races with every
        # other process on the machine (a heartbeat once lost its port to a parallel test run).
        self._sockets = tempfile.TemporaryDirectory(prefix="k-")
        self.km = AsyncKernelManager(
            kernel_name="python3",
            kernel_spec_manager=_ThisPythonSpecs(),
            transport="ipc",
            ip=os.path.join(self._sockets.name, "s"),
        )
        await asyncio.wait_for(
            self.km.start_kernel(env=kernel_env(self._extra_env), cwd=self._cwd, stderr=self._stderr_file),
            timeout,
        )
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            await self.kc.wait_for_ready(timeout=timeout)
        except RuntimeError as exc:
            await self.shutdown()
            raise HarnessError(f"the kernel did not start: {exc}\n{self.kernel_stderr()}") from exc
        self._tasks = [
            asyncio.create_task(self._read_iopub(), name="fake-front-end iopub"),
            asyncio.create_task(self._read_shell(), name="fake-front-end shell"),
        ]
        # Everything before this cell is start-up noise; make sure iopub is flowing.
        await self.execute("pass", timeout=timeout)
        return self

    async def shutdown(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        self._tasks = []
        if self.kc is not None:
            with contextlib.suppress(Exception):
                self.kc.stop_channels()
            self.kc = None
        if self.km is not None:
            km, self.km = self.km, None
            try:
                await asyncio.wait_for(km.shutdown_kernel(now=True), 15)
            except BaseException:
                provisioner = getattr(km, "provisioner", None)
                process = getattr(provisioner, "process", None)
                if process is not None and process.poll() is None:
                    process.kill()
                with contextlib.suppress(Exception):
                    km.cleanup_resources()
        for future in self._replies.values():
            if not future.done():
                future.cancel()
        if self._sockets is not None:
            self._sockets.cleanup()
            self._sockets = None
        if self._stderr_file is not None:
            with contextlib.suppress(Exception):
                self._stderr_file.close()
            self._stderr_file = None

    async def restart(self, timeout: float = 60.0) -> None:
        """Restart the kernel as a notebook's "Restart Kernel" does: a new process, same connection."""
        self._ensure_running()
        await asyncio.wait_for(self.km.restart_kernel(now=True), timeout)
        self.widgets.clear()  # their comms died with the old process
        # The channels reconnect by themselves; our readers own them (no kc.wait_for_ready, which
        # would compete for shell replies). A cell that completes says the new kernel is serving.
        deadline = time.monotonic() + timeout
        while True:
            try:
                await self.execute("pass", timeout=5.0)
                return
            except HarnessError:
                if time.monotonic() > deadline:
                    raise

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, **kwargs: Any) -> AsyncIterator[FakeFrontEnd]:
        front = cls(**kwargs)
        try:
            await front.start()
            yield front
        finally:
            await front.shutdown()

    def alive(self) -> bool:
        provisioner = getattr(self.km, "provisioner", None)
        process = getattr(provisioner, "process", None)
        return process is not None and process.poll() is None

    @property
    def kernel_pid(self) -> int | None:
        provisioner = getattr(self.km, "provisioner", None)
        process = getattr(provisioner, "process", None)
        return getattr(process, "pid", None)

    def kernel_stderr(self) -> str:
        """What the kernel process wrote to its real stderr so far."""
        if self._stderr_file is None:
            return ""
        self._stderr_file.flush()
        position = self._stderr_file.tell()
        try:
            self._stderr_file.seek(0)
            return self._stderr_file.read().decode("utf-8", "replace")
        finally:
            self._stderr_file.seek(position)

    # -- cells ------------------------------------------------------------------------------

    def submit(self, code: str) -> ExecResult:
        """Send an execute_request and return at once; :meth:`finish` waits for it."""
        self._ensure_running()
        msg_id = self.kc.execute(code, silent=False, store_history=False, allow_stdin=False, stop_on_error=False)
        result = ExecResult(msg_id=msg_id, code=code, started=time.perf_counter())
        self._executions[msg_id] = result
        self._replies[msg_id] = asyncio.get_running_loop().create_future()
        self._idle[msg_id] = asyncio.Event()
        return result

    async def finish(self, pending: ExecResult, timeout: float = 30.0) -> ExecResult:
        """Wait for a submitted cell's reply and for all its output (its ``idle`` status)."""
        msg_id = pending.msg_id
        try:
            reply = await asyncio.wait_for(asyncio.shield(self._replies[msg_id]), timeout)
            await asyncio.wait_for(self._idle[msg_id].wait(), max(1.0, timeout / 4))
        except asyncio.TimeoutError:
            raise HarnessError(
                f"the cell did not finish within {timeout:.1f} s (kernel alive: {self.alive()}):\n{pending.code}"
            ) from None
        pending.status = reply["content"].get("status", "?")
        if pending.elapsed == 0.0:
            pending.elapsed = time.perf_counter() - pending.started
        self._replies.pop(msg_id, None)
        self._idle.pop(msg_id, None)
        return pending

    def replied(self, pending: ExecResult) -> bool:
        """Whether the kernel has answered a submitted cell yet."""
        future = self._replies.get(pending.msg_id)
        return future is None or future.done()

    async def execute(self, code: str, *, timeout: float = 30.0, check: bool = True) -> ExecResult:
        """Run a cell (top-level ``await`` works, as in a notebook) and return what it produced."""
        result = await self.finish(self.submit(code), timeout)
        return result.check() if check else result

    async def evaluate(self, expression: str, *, timeout: float = 30.0) -> Any:
        """The JSON value of a Python expression in the kernel (``default=str`` for the rest)."""
        marker = f"<<json-{next(_counter)}>>"
        code = f"import json as __json\nprint({marker!r} + __json.dumps({expression}, default=str))"
        result = await self.execute(code, timeout=timeout)
        for line in result.stdout.splitlines():
            if line.startswith(marker):
                return json.loads(line[len(marker) :])
        raise HarnessError(f"no value came back for {expression!r}: {result.stdout!r}")

    # -- widgets ----------------------------------------------------------------------------

    async def create_widget(self, code: str, suffix: str = "AgentChat", *, timeout: float = 30.0) -> WidgetComm:
        """Run ``code`` and return the comm of the widget it created whose model id ends in ``suffix``."""
        result = await self.execute(code, timeout=timeout)
        mine = [w for w in self.widgets.values() if w.opened_by == result.msg_id and w.model_id.endswith(suffix)]
        if not mine:
            known = [w.model_id for w in self.widgets.values()]
            raise HarnessError(f"the cell opened no widget comm ending in {suffix!r}; comms seen: {known}")
        return mine[-1]

    async def create_subshell(self, timeout: float = 10.0) -> str:
        """A kernel subshell (ipykernel >= 7), as JupyterLab makes for widget comms; returns its id."""
        self._ensure_running()
        request = self.kc.session.msg("create_subshell_request", {})
        self.kc.control_channel.send(request)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = await self.kc.control_channel.get_msg(timeout=max(0.1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                assert reply["content"].get("status") == "ok", reply["content"]
                return reply["content"]["subshell_id"]
        raise HarnessError("no reply to create_subshell_request")

    def send_comm(self, comm_id: str, data: Any, *, subshell_id: str | None = None, ascii_json: bool = False) -> dict[str, Any]:
        """Send a raw ``comm_msg`` to the kernel (what a view's model does), on a subshell if given.

        ``ascii_json`` serialises the message with every non-ASCII character as a ``\\uXXXX``
        escape, as a browser's ``JSON.stringify`` writes lone UTF-16 surrogates (which the usual
        UTF-8 packer cannot carry at all).
        """
        self._ensure_running()
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        self._send_shell(msg, ascii_json=ascii_json)
        return msg

    def send_custom(
        self, widget: WidgetComm | str, content: Any, *, subshell_id: str | None = None, ascii_json: bool = False
    ) -> dict[str, Any]:
        """What anywidget's ``model.send(content)`` does in a view."""
        comm_id = widget.comm_id if isinstance(widget, WidgetComm) else widget
        return self.send_comm(comm_id, {"method": "custom", "content": content}, subshell_id=subshell_id, ascii_json=ascii_json)

    def send_update(self, widget: WidgetComm | str, state: dict[str, Any]) -> dict[str, Any]:
        """What a view's ``model.save_changes()`` sends: an ipywidgets ``update`` writing synced traits."""
        comm_id = widget.comm_id if isinstance(widget, WidgetComm) else widget
        return self.send_comm(comm_id, {"method": "update", "state": state, "buffer_paths": []})

    def close_comm(self, widget: WidgetComm | str) -> dict[str, Any]:
        """Close a widget's comm from the front end's side, as a front end disposing of the model does."""
        self._ensure_running()
        comm_id = widget.comm_id if isinstance(widget, WidgetComm) else widget
        msg = self.kc.session.msg("comm_close", {"comm_id": comm_id, "data": {}})
        self._send_shell(msg)
        return msg

    async def interrupt(self) -> None:
        """Interrupt the kernel as a notebook's stop button does (SIGINT, for this kernel spec)."""
        self._ensure_running()
        await self.km.interrupt_kernel()

    def _send_shell(self, msg: dict[str, Any], *, ascii_json: bool = False) -> None:
        session = self.kc.session
        packer = session.pack
        if ascii_json:
            session.pack = _ascii_json_packer
        try:
            self.kc.shell_channel.send(msg)
        finally:
            session.pack = packer
        self.sent.append(msg)

    # -- waiting ----------------------------------------------------------------------------

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0, what: str = "a condition") -> Any:
        """Wait until ``predicate()`` is truthy (checked on every message and every 20 ms)."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if self._reader_error is not None:
                raise HarnessError(f"the front end's reader failed: {self._reader_error!r}")
            if not self.alive():
                raise HarnessError(f"the kernel died while waiting for {what}\n{self.kernel_stderr()[-3000:]}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise HarnessError(f"timed out after {timeout:.1f} s waiting for {what}")
            self._changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.02))

    async def wait_for_trait(self, widget: WidgetComm, name: str, predicate: Callable[[Any], Any], timeout: float = 10.0) -> Any:
        """Wait until the view's copy of a synced trait satisfies ``predicate``; returns the value."""
        await self.wait_for(lambda: predicate(widget.state.get(name)), timeout, f"trait {name!r}")
        return widget.state.get(name)

    async def wait_for_event(
        self, widget: WidgetComm, predicate: Callable[[dict[str, Any]], Any], timeout: float = 10.0, what: str = "an event"
    ) -> dict[str, Any]:
        """Wait for an AG-UI event (in an ``events`` message) that satisfies ``predicate``."""
        found: list[dict[str, Any]] = []

        def seen() -> bool:
            found[:] = [e for e in widget.events() if predicate(e)]
            return bool(found)

        await self.wait_for(seen, timeout, what)
        return found[0]

    # -- health -----------------------------------------------------------------------------

    def mark(self) -> Mark:
        return Mark(len(self.streams), len(self.errors), len(self.kernel_stderr()))

    def problems(self, since: Mark | None = None) -> list[str]:
        """Tracebacks the kernel printed or published (iopub streams and errors, its stderr)."""
        since = since or Mark(0, 0, 0)
        found = [text for name, text, _ in self.streams[since.streams :] if TRACEBACK_MARK in text]
        found += [f"{e.get('ename')}: {e.get('evalue')}" for e in self.errors[since.errors :]]
        stderr = self.kernel_stderr()[since.stderr_offset :]
        if TRACEBACK_MARK in stderr:
            found.append(stderr)
        return found

    def stderr_text(self, since: Mark | None = None) -> str:
        since = since or Mark(0, 0, 0)
        return "".join(text for name, text, _ in self.streams[since.streams :] if name == "stderr")

    # -- readers ----------------------------------------------------------------------------

    def _ensure_running(self) -> None:
        if self.kc is None:
            raise HarnessError("the front end is not started")

    async def _read_iopub(self) -> None:
        try:
            while True:
                try:
                    msg = await self.kc.iopub_channel.get_msg(timeout=0.5)
                except Empty:
                    continue
                self._on_iopub(msg)
                self._changed.set()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # surfaced by wait_for
            self._reader_error = exc
            self._changed.set()

    async def _read_shell(self) -> None:
        try:
            while True:
                try:
                    msg = await self.kc.shell_channel.get_msg(timeout=0.5)
                except Empty:
                    continue
                parent = (msg.get("parent_header") or {}).get("msg_id")
                future = self._replies.get(parent)
                if future is not None and not future.done():
                    future.set_result(msg)
                self._changed.set()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self._reader_error = exc
            self._changed.set()

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        now = time.perf_counter()
        kind = msg["header"]["msg_type"]
        content = msg.get("content") or {}
        parent = msg.get("parent_header") or {}
        if kind == "comm_open":
            self._on_comm_open(content, parent.get("msg_id"), now)
        elif kind == "comm_msg":
            self._on_comm_msg(msg, content, parent.get("msg_id"), now)
        elif kind == "comm_close":
            widget = self.widgets.get(content.get("comm_id"))
            if widget is not None:
                widget.closed = True
        else:
            self._on_execution_output(kind, content, parent, now)

    def _on_comm_open(self, content: dict[str, Any], parent_id: str | None, now: float) -> None:
        if content.get("target_name") == WIDGET_TARGET:
            data = content.get("data") or {}
            self.widgets[content["comm_id"]] = WidgetComm(
                comm_id=content["comm_id"], state=dict(data.get("state") or {}), opened_by=parent_id, opened_at=now
            )

    def _on_comm_msg(self, msg: dict[str, Any], content: dict[str, Any], parent_id: str | None, now: float) -> None:
        """A message to a widget's view: kept with its size; a state update is applied to the view's copy."""
        widget = self.widgets.get(content.get("comm_id"))
        if widget is None:
            return
        data = content.get("data") or {}
        size = _json_size(content) + sum(len(b) for b in msg.get("buffers") or ())
        widget.received.append(CommMessage(now, data, size, parent_id))
        method = data.get("method")
        if method == "update":
            state = data.get("state") or {}
            widget.updates.append(state)
            widget.state.update(state)
        elif method == "custom":
            widget.customs.append(data.get("content"))

    def _on_execution_output(self, kind: str, content: dict[str, Any], parent: dict[str, Any], now: float) -> None:
        """Streams, errors, results and the idle status, each also recorded on the execution that caused it."""
        parent_id = parent.get("msg_id")
        execution = self._executions.get(parent_id) if parent_id else None
        if kind == "stream":
            self.streams.append((content.get("name", ""), content.get("text", ""), parent.get("msg_type")))
            if execution is not None:
                if content.get("name") == "stdout":
                    execution.stdout += content.get("text", "")
                else:
                    execution.stderr += content.get("text", "")
        elif kind == "error":
            self.errors.append(content)
            if execution is not None:
                execution.error = content
        elif kind in ("execute_result", "display_data"):
            if execution is not None:
                execution.outputs.append(content)
                if kind == "execute_result":
                    execution.result = (content.get("data") or {}).get("text/plain")
        elif kind == "status" and content.get("execution_state") == "idle" and parent_id in self._idle:
            if execution is not None and execution.elapsed == 0.0:
                execution.elapsed = now - execution.started
            self._idle[parent_id].set()


# -- a view's copy of the conversation ----------------------------------------------------------


class ViewMirror:
    """What one view holds: the transcript and state rebuilt from the kernel's custom messages.

    It follows docs/wire.md: nothing applies before a ``snapshot`` addressed to this view (or to
    every view); afterwards ``events`` are reduced into the transcript, ``messages`` splice it and
    ``state_patch`` patches the state. Feed it with :meth:`feed` (it remembers where it stopped).
    """

    def __init__(self, view_id: str) -> None:
        self.view_id = view_id
        self.ready = False
        self.messages: list[dict[str, Any]] = []
        self.state: Any = None
        self.snapshots = 0
        self.checks: list[dict[str, Any]] = []
        self.applied: list[str] = []
        """The kinds this view applied, in order (for tests on ordering)."""
        self._seen = 0

    def feed(self, source: WidgetComm | Iterable[Any]) -> ViewMirror:
        """Apply the messages not yet seen (a WidgetComm), or all of an iterable."""
        if isinstance(source, WidgetComm):
            items = source.customs[self._seen :]
            self._seen = len(source.customs)
        else:
            items = list(source)
        for content in items:
            self.apply(content)
        return self

    def apply(self, content: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("kind")
        if kind == "snapshot":
            if content.get("viewId") in (None, self.view_id):
                self.messages = copy.deepcopy(content.get("messages") or [])
                self.state = copy.deepcopy(content.get("state"))
                self.ready = True
                self.snapshots += 1
                self.applied.append(kind)
            return
        if not self.ready:
            return
        self.applied.append(str(kind))
        if kind == "events":
            for event in content.get("events") or ():
                self._event(event)
        elif kind == "messages":
            start = int(content.get("start", 0))
            self.messages[start:] = copy.deepcopy(content.get("messages") or [])
        elif kind == "state_patch":
            self.state = jsonpatch.apply_patch(self.state, content.get("patch") or [], in_place=False)
        elif kind == "check":
            self.checks.append(content)

    # The part of an AG-UI reducer a chat view needs to show the transcript.

    def _find(self, message_id: Any) -> dict[str, Any] | None:
        for message in reversed(self.messages):
            if message.get("id") == message_id:
                return message
        return None

    def _find_call(self, call_id: Any) -> dict[str, Any] | None:
        for message in reversed(self.messages):
            for call in message.get("toolCalls") or ():
                if call.get("id") == call_id:
                    return call
        return None

    def _event(self, event: dict[str, Any]) -> None:
        kind = str(event.get("type"))
        if kind.startswith(("TEXT_MESSAGE_", "REASONING_MESSAGE_")):
            self._message_event(kind, event)
        elif kind.startswith("TOOL_CALL_"):
            self._tool_call_event(kind, event)
        elif kind == "STATE_SNAPSHOT":
            self.state = copy.deepcopy(event.get("snapshot"))
        elif kind == "STATE_DELTA":
            self.state = jsonpatch.apply_patch(self.state, event.get("delta") or [], in_place=False)
        elif kind == "MESSAGES_SNAPSHOT":
            self.messages = copy.deepcopy(event.get("messages") or [])

    def _message_event(self, kind: str, event: dict[str, Any]) -> None:
        """A text or reasoning message started, grown by a delta, or ended (with its metadata)."""
        if kind == "TEXT_MESSAGE_START":
            if self._find(event.get("messageId")) is None:
                self.messages.append({"id": event["messageId"], "role": event.get("role", "assistant"), "content": ""})
        elif kind == "TEXT_MESSAGE_CONTENT":
            message = self._find(event.get("messageId"))
            if message is None:
                message = {"id": event["messageId"], "role": "assistant", "content": ""}
                self.messages.append(message)
            message["content"] = (message.get("content") or "") + event.get("delta", "")
        elif kind == "REASONING_MESSAGE_START":
            if self._find(event.get("messageId")) is None:
                self.messages.append({"id": event["messageId"], "role": "reasoning", "content": ""})
        elif kind == "REASONING_MESSAGE_CONTENT":
            message = self._find(event.get("messageId"))
            if message is not None:
                message["content"] = (message.get("content") or "") + event.get("delta", "")
        elif kind == "TEXT_MESSAGE_END":
            message = self._find(event.get("messageId"))
            if message is not None and event.get("metadata"):
                message["metadata"] = {**(message.get("metadata") or {}), **event["metadata"]}

    def _tool_call_event(self, kind: str, event: dict[str, Any]) -> None:
        """A tool call started (on its parent message), grown by its arguments, or answered."""
        if kind == "TOOL_CALL_START":
            # As @ag-ui/client does: join the last message when it is the parent, else start one.
            parent_id = event.get("parentMessageId")
            if parent_id and self.messages and self.messages[-1].get("id") == parent_id:
                parent = self.messages[-1]
            else:
                parent = {"id": parent_id or event["toolCallId"], "role": "assistant"}
                self.messages.append(parent)
            parent.setdefault("toolCalls", []).append(
                {"id": event["toolCallId"], "type": "function", "function": {"name": event.get("toolCallName"), "arguments": ""}}
            )
        elif kind == "TOOL_CALL_ARGS":
            call = self._find_call(event.get("toolCallId"))
            if call is not None:
                call["function"]["arguments"] += event.get("delta", "")
        elif kind == "TOOL_CALL_RESULT":
            self.messages.append(
                {
                    "id": event.get("messageId"),
                    "role": "tool",
                    "toolCallId": event.get("toolCallId"),
                    "content": event.get("content"),
                }
            )

    def transcript(self) -> list[tuple[Any, ...]]:
        return transcript(self.messages)

    def text(self) -> str:
        return transcript_text(self.messages)


def transcript(messages: Iterable[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a reader of the chat sees of each message: id, role, text, tool calls, answered call."""
    rows = []
    for m in messages:
        calls = tuple(
            (c.get("id"), (c.get("function") or {}).get("name"), (c.get("function") or {}).get("arguments"))
            for c in m.get("toolCalls") or ()
        )
        rows.append((m.get("id"), m.get("role"), _content_text(m.get("content")), calls, m.get("toolCallId")))
    return rows


def transcript_text(messages: Iterable[dict[str, Any]]) -> str:
    """The transcript as plain text, one ``role: text`` block per message."""
    return "\n\n".join(f"{role}: {text}" for _, role, text, _, _ in transcript(messages))


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return json.dumps(content)


def _ascii_json_packer(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True, allow_nan=False, default=json_default).encode("ascii")


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


_counter = itertools.count()

__all__ = [
    "REPO_ROOT",
    "CommMessage",
    "ExecResult",
    "FakeFrontEnd",
    "HarnessError",
    "Mark",
    "ViewMirror",
    "WidgetComm",
    "kernel_env",
    "transcript",
    "transcript_text",
]
