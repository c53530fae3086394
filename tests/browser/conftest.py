"""Fixtures for the browser tests: a real Jupyter server, a headless Chromium, and notebook helpers.

Two fixtures live as long as the browser tests (scope ``package``: this directory) and end before
any other test of the session runs: one Jupyter server (``jupyter lab`` from this interpreter's
environment, on a free port of 127.0.0.1, with a token, serving a temporary directory) and one
Chromium: Debian's ``/usr/bin/chromium`` driven by Playwright (never a browser Playwright
downloads). Playwright's synchronous API keeps its own event loop marked as running in the main
thread while it is started, which pytest-asyncio's runners refuse, so it must be stopped before
the session's async tests (tests/test_kernel.py, ...) run. Each test gets
``lab``, a :class:`BrowserSession`: it writes notebooks into the server's root, opens each in a
fresh browser context (JupyterLab at ``/lab/workspaces/<fresh>/tree/NAME.ipynb``, or Notebook 7 at
``/notebooks/NAME.ipynb``), runs their cells, finds the chat views, and runs more code in the same
kernel by adding a cell at the end of the notebook and running it.

Every wait is bounded. The server is always stopped when the browser tests end (at the latest at
exit), and each test's kernels are shut down when the test ends. A failing test leaves a screenshot of each page it opened
(its path is printed and attached to the report), the tail of the browser console and of the server
log. A test also fails when a page it opened raised an uncaught error (``pageerror``) or the chat
logged a warning (``[agui-widget]`` on the console).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pytest
from playwright.sync_api import Browser, BrowserContext, JSHandle, Locator, Page, expect, sync_playwright

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVER_CONFIG = REPO_ROOT / "jupyter-config" / "jupyter_server_config.py"
CHROMIUM = os.environ.get("AGUI_WIDGET_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

SERVER_START_TIMEOUT = 90.0
SERVER_STOP_TIMEOUT = 20.0
PAGE_LOAD_TIMEOUT = 60_000  # ms: the front end is loaded and the notebook's kernel is idle
CELL_TIMEOUT = 60_000  # ms: one cell (or "run all") finishes
UI_TIMEOUT = 30_000  # ms: default for waiting on something the chat shows

expect.set_options(timeout=UI_TIMEOUT)

# Uncaught errors that Notebook 7 itself raises while its page starts, with or without this widget
# on it (reproduced on a plain ``jupyter notebook`` server with an empty notebook). They come from
# Notebook's own bundle; anything else, on any page, fails the test.
KNOWN_NOTEBOOK7_STARTUP_ERRORS = (
    "Cannot read properties of undefined (reading 'schema')",
    "Command 'filebrowser:open-path' not registered.",
)

# JupyterLab's "get notified about news?" toast would cover part of the page.
LAB_USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false"},
}

SESSION_KEY = pytest.StashKey["BrowserSession"]()
_SCREENSHOT_DIR: list[Path] = []


class BrowserTestError(AssertionError):
    """The browser, the server or the notebook did not do what a test waited for."""


# -- hooks ----------------------------------------------------------------------------------------


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    result = yield
    # The test body passed: it still fails if a page raised an uncaught error meanwhile.
    session = item.stash.get(SESSION_KEY, None)
    if session is not None:
        session.assert_no_page_errors()
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    report: pytest.TestReport = yield
    session = item.stash.get(SESSION_KEY, None)
    if session is not None and report.failed and report.when in ("setup", "call"):
        for path in session.screenshots(item.name):
            report.sections.append(("browser screenshot", str(path)))
            print(f"\nbrowser screenshot: {path}", file=sys.stderr)
        console = session.console_tail()
        if console:
            report.sections.append(("browser console (last lines)", console))
        log = session.server.log_tail()
        if log:
            report.sections.append(("jupyter server log (last lines)", log))
    return report


# -- the Jupyter server ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class JupyterServer:
    """``jupyter lab`` in a subprocess, serving a temporary root directory."""

    def __init__(self) -> None:
        self.home = Path(tempfile.mkdtemp(prefix="agui-widget-jupyter-"))
        self.root = self.home / "notebooks"
        self.root.mkdir()
        self.token = uuid.uuid4().hex
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = self.home / "server.log"
        self._log_file: Any = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}?token={self.token}"

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        bin_dir = str(Path(sys.executable).parent)
        env["PATH"] = os.pathsep.join([bin_dir, *[p for p in env.get("PATH", "").split(os.pathsep) if p]])
        paths = [str(REPO_ROOT), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env["PYTHONUNBUFFERED"] = "1"
        # Everything Jupyter would keep in the home directory stays in the temporary one.
        for name, sub in (
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("JUPYTERLAB_SETTINGS_DIR", "lab-settings"),
            ("JUPYTERLAB_WORKSPACES_DIR", "lab-workspaces"),
            ("IPYTHONDIR", "ipython"),
        ):
            (self.home / sub).mkdir(exist_ok=True)
            env[name] = str(self.home / sub)
        for name in ("JPY_PARENT_PID", "JUPYTER_TOKEN", "JUPYTER_PLATFORM_DIRS"):
            env.pop(name, None)
        return env

    def _write_lab_settings(self) -> None:
        for relative, values in LAB_USER_SETTINGS.items():
            target = self.home / "lab-settings" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(values), encoding="utf-8")

    name = "the Jupyter server"

    def start(self) -> JupyterServer:
        self._check_installed()
        env = self._env()
        self._write_lab_settings()
        last_error = ""
        for _attempt in range(3):  # another process may take the free port before the server does
            self.port = free_port()
            self._log_file = open(self.log_path, "ab")
            self.proc = subprocess.Popen(
                self._argv(),
                cwd=str(self.home),
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=self._log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                self._wait_until_up()
                atexit.register(self.stop)
                return self
            except BrowserTestError as error:
                last_error = str(error)
                self.stop()
        raise BrowserTestError(f"{self.name} did not start: {last_error}\n{self.log_tail()}")

    def _check_installed(self) -> None:
        if not (Path(sys.executable).parent / "jupyter").exists():
            raise BrowserTestError(f"no `jupyter` next to {sys.executable}: install the dev extras (`make setup`)")

    def _argv(self) -> list[str]:
        return [
            str(Path(sys.executable).parent / "jupyter"),
            "lab",
            f"--config={SERVER_CONFIG}",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            "--ServerApp.open_browser=False",
            f"--ServerApp.root_dir={self.root}",
            # window.jupyterapp: the tests run JupyterLab commands (run all, save) through it.
            "--LabApp.expose_app_in_browser=True",
            "--JupyterNotebookApp.expose_app_in_browser=True",
        ]

    def _is_up(self) -> bool:
        return self.api("GET", "api/status", timeout=2) is not None

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise BrowserTestError(f"{self.name} exited with code {self.proc.returncode}")
            with contextlib.suppress(OSError, urllib.error.URLError):
                if self._is_up():
                    return
            time.sleep(0.2)
        raise BrowserTestError(f"{self.name} did not answer within {SERVER_START_TIMEOUT:.0f} s")

    def api(self, method: str, path: str, timeout: float = 10.0) -> Any:
        """One REST call to the server; the decoded JSON answer (None for an empty one)."""
        request = urllib.request.Request(
            f"{self.base_url}/{path.lstrip('/')}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self, notebook: str | None = None) -> None:
        """Shut down the kernel of one notebook (by its path in the root), or every kernel."""
        with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
            for session in self.api("GET", "api/sessions", timeout=5) or ():
                if notebook is None or session.get("path") == notebook:
                    with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                        self.api("DELETE", f"api/sessions/{session['id']}", timeout=10)
        if notebook is None:
            with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                for kernel in self.api("GET", "api/kernels", timeout=5) or ():
                    with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                        self.api("DELETE", f"api/kernels/{kernel['id']}", timeout=10)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            self.shutdown_kernels()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=SERVER_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.home, ignore_errors=True)


@pytest.fixture(scope="package")
def jupyter_server() -> Iterator[JupyterServer]:
    server = JupyterServer()
    try:
        server.start()
        yield server
    finally:
        server.cleanup()


# -- the browser ----------------------------------------------------------------------------------


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: the browser tests drive Debian's chromium "
            "(`apt-get install chromium`, or `make browser-deps`); set AGUI_WIDGET_CHROMIUM for another path",
            pytrace=False,
        )
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield browser
        finally:
            with contextlib.suppress(Exception):
                browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def lab(request: pytest.FixtureRequest, jupyter_server: JupyterServer, browser: Browser) -> Iterator[BrowserSession]:
    """Opens notebooks in the browser for one test; closes them and shuts their kernels down after."""
    session = BrowserSession(jupyter_server, browser, request.node.name)
    request.node.stash[SESSION_KEY] = session
    try:
        yield session
    finally:
        session.close()


# -- in-page helpers ------------------------------------------------------------------------------

# Installed in every page (and again after a reload) before JupyterLab's own scripts run. Work that
# takes a while (running cells, saving) starts here and stores its outcome in `results`, which the
# test side polls with a bounded wait.
PAGE_HELPERS = r"""
(() => {
  if (window.__aguiTest) return;
  const T = (window.__aguiTest = { results: {}, seq: 0 });

  T.panel = (path) => {
    const app = window.jupyterapp;
    if (!app || !app.shell) return null;
    const widgets = [];
    try { for (const w of app.shell.widgets("main")) widgets.push(w); } catch (e) { /* not started */ }
    if (app.shell.currentWidget) widgets.push(app.shell.currentWidget);
    return widgets.find((w) => w && w.content && w.sessionContext && w.context && w.context.path === path) || null;
  };

  T.describe = (path) => {
    const app = window.jupyterapp;
    if (!app) return "window.jupyterapp is not there (yet)";
    const panel = T.panel(path);
    if (!panel) return "no notebook panel for " + path;
    const session = panel.sessionContext.session;
    const kernel = session && session.kernel;
    return JSON.stringify({
      contextReady: panel.context.isReady,
      sessionReady: panel.sessionContext.isReady,
      kernel: kernel ? { status: kernel.status, connection: kernel.connectionStatus } : null,
      dialog: !!document.querySelector(".jp-Dialog"),
    });
  };

  T.kernelIdle = (path) => {
    const panel = T.panel(path);
    if (!panel || !panel.context.isReady || !panel.sessionContext.isReady) return false;
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    return !!kernel && kernel.connectionStatus === "connected" && kernel.status === "idle";
  };

  T.panelId = (path) => {
    const panel = T.panel(path);
    return panel ? panel.id : null;
  };

  T.start = (work) => {
    const id = ++T.seq;
    Promise.resolve()
      .then(work)
      .then(
        (value) => { T.results[id] = { ok: true, value: value === undefined ? null : value }; },
        (error) => { T.results[id] = { ok: false, error: String((error && error.stack) || error) }; },
      );
    return id;
  };

  T.take = (id) => {
    const result = T.results[id];
    delete T.results[id];
    return result;
  };

  const outputsOf = (cell) => ({
    source: cell.sharedModel.getSource(),
    executionCount: cell.executionCount === undefined ? null : cell.executionCount,
    outputs: cell.outputs ? cell.outputs.toJSON() : [],
  });

  T.runAll = (path) => T.start(async () => {
    const panel = T.panel(path);
    window.jupyterapp.shell.activateById(panel.id);
    await window.jupyterapp.commands.execute("notebook:run-all-cells");
    const cells = [];
    for (let i = 0; i < panel.content.model.cells.length; i++) {
      const cell = panel.content.model.cells.get(i);
      if (cell.type === "code") cells.push(outputsOf(cell));
    }
    return cells;
  });

  T.runCode = (path, code) => T.start(async () => {
    const panel = T.panel(path);
    const notebook = panel.content;
    const model = notebook.model;
    const index = model.cells.length;
    model.sharedModel.insertCell(index, { cell_type: "code", source: code });
    window.jupyterapp.shell.activateById(panel.id);
    notebook.activeCellIndex = index;
    notebook.deselectAll();
    await window.jupyterapp.commands.execute("notebook:run-cell");
    return outputsOf(model.cells.get(index));
  });

  T.save = (path) => T.start(async () => {
    const panel = T.panel(path);
    await panel.context.save();
    return panel.context.model.dirty;
  });
})();
"""

# What a test's failure message says about the kernel's chat (the notebook variable ``chat``).
KERNEL_PROBE = """\
import json as _json
print(_json.dumps({
    "status": chat.status,
    "error": chat.error,
    "pending": [p.get("kind") for p in chat.pending],
    "roles": [m.get("role") for m in chat.messages],
    "last_events": [type(e).__name__ for e in list(chat.events)[-6:]],
}))"""

# Records, on every DOM change in a chat view, how many assistant bubbles it shows and the text
# length of the last one: enough to tell that an answer really streamed into this view.
RECORDER = r"""
(root) => {
  const rec = { samples: [] };
  const sample = () => {
    const bubbles = root.querySelectorAll(".agui-bubble-assistant .agui-text");
    const last = bubbles[bubbles.length - 1];
    const entry = [bubbles.length, last ? last.textContent.length : 0];
    const prev = rec.samples[rec.samples.length - 1];
    if (!prev || prev[0] !== entry[0] || prev[1] !== entry[1]) rec.samples.push(entry);
  };
  rec.observer = new MutationObserver(sample);
  rec.observer.observe(root, { subtree: true, childList: true, characterData: true });
  sample();
  return rec;
}
"""


# -- test-side helpers ----------------------------------------------------------------------------


@dataclass
class CellResult:
    """One cell the test ran: what it printed and returned, or the error it raised."""

    source: str
    execution_count: int | None
    outputs: list[dict[str, Any]]

    @property
    def text(self) -> str:
        """Everything the cell printed (stdout and stderr) followed by its result's ``text/plain``."""
        parts: list[str] = []
        for output in self.outputs:
            kind = output.get("output_type")
            if kind == "stream":
                parts.append(_joined(output.get("text")))
            elif kind in ("execute_result", "display_data"):
                parts.append(_joined((output.get("data") or {}).get("text/plain")) + "\n")
        return "".join(parts)

    @property
    def error(self) -> str | None:
        for output in self.outputs:
            if output.get("output_type") == "error":
                traceback = _strip_ansi("\n".join(output.get("traceback") or ()))
                return f"{output.get('ename')}: {output.get('evalue')}\n{traceback}"
        return None

    def check(self) -> CellResult:
        if self.error is not None:
            raise BrowserTestError(f"the cell raised:\n{self.source}\n---\n{self.error}")
        if self.execution_count is None:
            raise BrowserTestError(f"the cell did not run:\n{self.source}")
        return self


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return "" if value is None else str(value)


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


class Recording:
    """What one chat view showed of its assistant bubbles, change by change (see RECORDER)."""

    def __init__(self, handle: JSHandle) -> None:
        self._handle = handle

    def samples(self) -> list[tuple[int, int]]:
        return [(int(count), int(length)) for count, length in self._handle.evaluate("r => r.samples")]

    def lengths(self, bubble: int) -> list[int]:
        """The successive text lengths of assistant bubble number ``bubble`` (1-based) while it was the last."""
        return [length for count, length in self.samples() if count == bubble]

    def stop(self) -> list[tuple[int, int]]:
        samples = self.samples()
        with contextlib.suppress(Exception):
            self._handle.evaluate("r => r.observer.disconnect()")
        return samples

    def assert_streamed(self, bubble: int, where: str = "the view") -> None:
        """The answer grew in front of the user: assistant bubble ``bubble`` showed at least two
        partial texts before its final one (lengths of its rendered text, as recorded)."""
        lengths = self.lengths(bubble)
        final = lengths[-1] if lengths else 0
        partial = {n for n in lengths[:-1] if n > 0 and n != final}
        assert final > 0 and len(partial) >= 2, (
            f"the answer was not streamed into {where}: assistant bubble {bubble} went through the lengths "
            f"{lengths}; expected at least two partial texts before the final one"
        )


class ChatView:
    """One displayed chat (an ``.agui-widget`` element in a notebook output)."""

    def __init__(self, notebook: NotebookPage, root: Locator) -> None:
        self.notebook = notebook
        self.root = root

    # -- parts of the view ----------------------------------------------------------------------

    @property
    def message_box(self) -> Locator:
        return self.root.get_by_role("textbox", name="Message", exact=True)

    def button(self, name: str) -> Locator:
        return self.root.get_by_role("button", name=name, exact=True)

    @property
    def send_button(self) -> Locator:
        return self.button("Send")

    @property
    def stop_button(self) -> Locator:
        return self.button("Stop")

    @property
    def user_bubbles(self) -> Locator:
        return self.root.locator(".agui-row-user:not(.agui-row-queued) .agui-bubble-user")

    @property
    def assistant_texts(self) -> Locator:
        """The text of each assistant bubble (without its "stopped" tag), in order."""
        return self.root.locator(".agui-bubble-assistant .agui-text")

    def tool_card(self, name: str) -> Locator:
        return self.root.locator(".agui-tool", has=self.root.page.locator(".agui-tool-name", has_text=name))

    @property
    def pending(self) -> Locator:
        """What the chat waits for (approvals, frontend tools): the "Waiting for you" region."""
        return self.root.get_by_role("region", name="Waiting for you")

    @property
    def error_line(self) -> Locator:
        return self.root.locator(".agui-transcript [role=alert]")

    @property
    def status_line(self) -> Locator:
        return self.root.locator(".agui-status")

    # -- actions and waits ----------------------------------------------------------------------

    def wait_ready(self, timeout: float = UI_TIMEOUT) -> ChatView:
        expect(self.root, "the chat view did not appear in the notebook output").to_be_visible(timeout=timeout)
        expect(
            self.root.locator(".agui-empty", has_text="Connecting to the kernel"),
            "the chat view stayed at 'Connecting to the kernel…' (no snapshot from the kernel)",
        ).to_have_count(0, timeout=timeout)
        expect(self.message_box, "the chat has no text box named 'Message'").to_be_visible(timeout=timeout)
        return self

    def send(self, text: str) -> None:
        """Type ``text`` in the Message box and press Enter, as a user does."""
        box = self.message_box
        box.click()
        box.fill(text)
        box.press("Enter")
        expect(box, f"the Message box was not emptied after sending {text!r}").to_have_value("", timeout=5_000)

    def wait_idle(self, timeout: float = UI_TIMEOUT) -> None:
        """The run is over: the status line says idle and the button reads "Send" again."""
        expect(self.status_line, "the chat did not return to idle").to_have_attribute(
            "data-status", re.compile(r"^(idle|error)$"), timeout=timeout
        )
        expect(self.send_button, "the button did not read 'Send' again after the run").to_be_visible(timeout=timeout)

    def wait_answer(self, contains: str, *, bubble: int | None = None, timeout: float = UI_TIMEOUT) -> str:
        """Waits until an assistant bubble (the last one, or number ``bubble``, 1-based) contains
        ``contains`` and the run is over; returns that bubble's text. When that does not happen,
        the failure says what the kernel's chat (the notebook variable ``chat``) was doing."""
        target = self.assistant_texts.last if bubble is None else self.assistant_texts.nth(bubble - 1)
        which = "the last assistant message" if bubble is None else f"assistant message {bubble}"
        try:
            expect(target, f"{which} never contained {contains!r}").to_contain_text(contains, timeout=timeout)
            self.wait_idle(timeout=timeout)
        except AssertionError as error:
            raise self._diagnosed(error, target, contains) from error
        return target.inner_text()

    def _diagnosed(self, error: AssertionError, target: Locator, contains: str) -> AssertionError:
        """Adds the kernel's side to a timed-out wait: the chat's status, transcript roles and
        latest events, and whether the run went on once the kernel received another request."""
        headline = str(error).strip().splitlines()[0]
        try:
            seen = self.notebook.run_cell(KERNEL_PROBE, timeout=20_000).text.strip()
        except Exception as probe_error:  # the kernel did not answer either
            return AssertionError(f"{headline}\na probe cell in the kernel failed too: {probe_error}")
        try:
            expect(target).to_contain_text(contains, timeout=5_000)
            moved = (
                "it went on as soon as the kernel received another request (the probe cell): the run was "
                "stalled in the kernel, not in the view"
            )
        except AssertionError:
            moved = "it did not go on after another request either"
        return AssertionError(f"{headline}\nin the kernel at that point: {seen}\n{moved}")

    def record(self) -> Recording:
        return Recording(self.root.evaluate_handle(RECORDER))


@dataclass
class NotebookPage:
    """One notebook open in one browser page (JupyterLab or Notebook 7)."""

    session: BrowserSession
    context: BrowserContext
    page: Page
    name: str
    ui: str
    label: str
    panel_id: str = ""
    console: list[str] = field(default_factory=list)

    # -- loading --------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        server = self.session.server
        if self.ui == "notebook":
            return server.url(f"notebooks/{urllib.parse.quote(self.name)}")
        # A workspace of its own, so JupyterLab restores no tab from an earlier test.
        workspace = f"t-{uuid.uuid4().hex[:10]}"
        return server.url(f"lab/workspaces/{workspace}/tree/{urllib.parse.quote(self.name)}")

    def load(self, url: str | None = None) -> NotebookPage:
        self.page.goto(url or self.url, wait_until="domcontentloaded", timeout=PAGE_LOAD_TIMEOUT)
        self.wait_kernel_idle(PAGE_LOAD_TIMEOUT, what="the notebook to open with an idle kernel")
        self.panel_id = self.page.evaluate("p => window.__aguiTest.panelId(p)", self.name) or ""
        assert self.panel_id, f"no notebook panel for {self.name} in {self.ui}"
        return self

    def reload(self) -> NotebookPage:
        """Reloads the page (same URL, same workspace); the kernel and its chat live on."""
        self.page.reload(wait_until="domcontentloaded", timeout=PAGE_LOAD_TIMEOUT)
        self.wait_kernel_idle(PAGE_LOAD_TIMEOUT, what="the notebook to come back after the reload")
        self.panel_id = self.page.evaluate("p => window.__aguiTest.panelId(p)", self.name) or ""
        return self

    def wait_kernel_idle(self, timeout: float = CELL_TIMEOUT, what: str = "the kernel to be idle") -> None:
        try:
            self.page.wait_for_function(
                "p => window.__aguiTest && window.__aguiTest.kernelIdle(p)", arg=self.name, timeout=timeout
            )
        except Exception as error:
            detail = self._describe()
            raise BrowserTestError(f"waited {timeout / 1000:.0f} s for {what} ({self.ui}): {detail}") from error

    def _describe(self) -> str:
        with contextlib.suppress(Exception):
            return str(
                self.page.evaluate("p => window.__aguiTest ? window.__aguiTest.describe(p) : 'no page helpers'", self.name)
            )
        return "the page did not answer"

    def _await(self, job: int, timeout: float, what: str) -> Any:
        try:
            self.page.wait_for_function("id => !!window.__aguiTest.results[id]", arg=job, timeout=timeout)
        except Exception as error:
            raise BrowserTestError(f"waited {timeout / 1000:.0f} s for {what} ({self.ui}): {self._describe()}") from error
        result = self.page.evaluate("id => window.__aguiTest.take(id)", job)
        if not result.get("ok"):
            raise BrowserTestError(f"{what} failed in the page: {result.get('error')}")
        return result.get("value")

    # -- cells ----------------------------------------------------------------------------------

    def run_all(self, timeout: float = CELL_TIMEOUT) -> list[CellResult]:
        """Run > Run All Cells; waits until every cell ran and fails on the first that raised."""
        job = self.page.evaluate("p => window.__aguiTest.runAll(p)", self.name)
        cells = [
            CellResult(c["source"], c["executionCount"], c["outputs"]) for c in self._await(job, timeout, "running all cells")
        ]
        for cell in cells:
            cell.check()
        return cells

    def run_cell(self, code: str, timeout: float = CELL_TIMEOUT, *, check: bool = True) -> CellResult:
        """Adds a code cell at the end of the notebook, runs it in the notebook's kernel and returns
        what it printed (``.text``); raises if it raised, unless ``check=False``."""
        job = self.page.evaluate("([p, code]) => window.__aguiTest.runCode(p, code)", [self.name, code])
        value = self._await(job, timeout, f"the cell {code!r} to run")
        cell = CellResult(value["source"], value["executionCount"], value["outputs"])
        return cell.check() if check else cell

    def save(self, timeout: float = CELL_TIMEOUT) -> None:
        dirty = self._await(self.page.evaluate("p => window.__aguiTest.save(p)", self.name), timeout, "saving the notebook")
        assert dirty is False, "the notebook was still marked modified after saving"

    # -- chats ----------------------------------------------------------------------------------

    @property
    def chat_roots(self) -> Locator:
        return self.page.locator(f'[id="{self.panel_id}"] .jp-OutputArea-output .agui-widget')

    def chat(self, index: int = 0, timeout: float = UI_TIMEOUT) -> ChatView:
        """The ``index``-th chat view shown in the notebook's outputs, once it is connected."""
        return ChatView(self, self.chat_roots.nth(index)).wait_ready(timeout)


class BrowserSession:
    """The browser side of one test: the notebooks it opened and what their pages reported."""

    def __init__(self, server: JupyterServer, browser: Browser, test_name: str) -> None:
        self.server = server
        self.browser = browser
        self.test_name = test_name
        self.notebooks: list[NotebookPage] = []
        self.page_errors: list[str] = []
        self._closed = False

    def write_notebook(self, cells: Sequence[str], name: str | None = None) -> str:
        """Writes a notebook with these code cells into the server's root; returns its name."""
        if name is None:
            stem = re.sub(r"[^A-Za-z0-9_-]+", "-", self.test_name).strip("-")[:60]
            name = f"{stem}-{uuid.uuid4().hex[:6]}.ipynb"
        notebook = nbformat.v4.new_notebook()
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
        notebook.metadata["language_info"] = {"name": "python"}
        notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
        nbformat.write(notebook, self.server.root / name)
        return name

    def open(self, cells: Sequence[str], *, ui: str = "lab", run: bool = True, name: str | None = None) -> NotebookPage:
        """Writes a notebook, opens it in a fresh browser context in JupyterLab (``ui="lab"``) or
        Notebook 7 (``ui="notebook"``), waits for its kernel, and runs all its cells."""
        assert ui in ("lab", "notebook"), ui
        name = name or self.write_notebook(cells)
        context = self.browser.new_context(viewport={"width": 1280, "height": 1000})
        context.set_default_timeout(UI_TIMEOUT)
        context.add_init_script(script=PAGE_HELPERS)
        page = context.new_page()
        label = f"{ui}:{name}"
        notebook = NotebookPage(self, context, page, name, ui, label)
        self.notebooks.append(notebook)
        page.on("pageerror", lambda error: self._on_page_error(notebook, error))
        page.on("console", lambda message: self._on_console(notebook, message))
        # A reload must never be held up by "leave the page?"; other dialogs are answered "no".
        page.on("dialog", lambda dialog: dialog.accept() if dialog.type == "beforeunload" else dialog.dismiss())
        notebook.load()
        if run:
            notebook.run_all()
        return notebook

    def _on_page_error(self, notebook: NotebookPage, error: Any) -> None:
        message = str(getattr(error, "message", error))
        stack = str(getattr(error, "stack", "") or "")
        if notebook.ui == "notebook" and message in KNOWN_NOTEBOOK7_STARTUP_ERRORS and "/static/notebook/" in stack:
            notebook.console.append(f"[known Notebook 7 error, ignored] {message}")
            return
        self.page_errors.append(f"{notebook.label}: {message}\n{stack}")
        notebook.console.append(f"[pageerror] {message}")

    def _on_console(self, notebook: NotebookPage, message: Any) -> None:
        text = f"[{message.type}] {message.text}"
        notebook.console.append(text)
        if "[agui-widget]" in message.text:
            self.page_errors.append(f"{notebook.label}: the chat logged a warning: {message.text}")

    def assert_no_page_errors(self) -> None:
        if self.page_errors:
            listing = "\n\n".join(self.page_errors)
            raise AssertionError(f"the browser reported {len(self.page_errors)} uncaught error(s) or chat warning(s):\n{listing}")

    def screenshots(self, test_name: str) -> list[Path]:
        if not _SCREENSHOT_DIR:
            _SCREENSHOT_DIR.append(Path(tempfile.mkdtemp(prefix="agui-widget-screenshots-")))
        stem = re.sub(r"[^A-Za-z0-9_-]+", "-", test_name).strip("-")[:80]
        paths = []
        for index, notebook in enumerate(self.notebooks):
            path = _SCREENSHOT_DIR[0] / f"{stem}-{index}-{notebook.ui}.png"
            with contextlib.suppress(Exception):
                notebook.page.screenshot(path=str(path), full_page=True, timeout=10_000)
                paths.append(path)
        return paths

    def console_tail(self, lines: int = 30) -> str:
        out = []
        for notebook in self.notebooks:
            out.append(f"--- {notebook.label}")
            out.extend(notebook.console[-lines:])
        return "\n".join(out) if self.notebooks else ""

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for notebook in self.notebooks:
            with contextlib.suppress(Exception):
                notebook.context.close()
            self.server.shutdown_kernels(notebook.name)
