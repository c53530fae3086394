"""The chat as a web app: ``notebooks/apps/chat_app.ipynb`` served by Voilà, used in Chromium.

One ``voila`` server for the module (from this interpreter's environment, on a free port of
127.0.0.1, with a token, serving a copy of the example notebook from a temporary directory with the
Jupyter directories of its own, as ``conftest.py`` does for JupyterLab). Voilà is not a
``ServerApp``: it needs neither ``--allow-root`` nor the JupyterLab settings of
``jupyter-config/jupyter_server_config.py``; ``--no-browser`` is its ``open_browser = False``.
Each test opens the app as a new visitor (a fresh browser context, so a kernel of its own) and
uses it as a person does: the page shows the outputs only, the answer streams in, the agent calls
its own tool and the page's Python functions (one after an Approve click), and the shared state
reaches the chat's State panel and an ipywidgets display beside the chat. Voilà draws widgets with
its own widget manager, so this is the anywidget chat's comm and display path outside Jupyter.

The page is kept offline: requests to anything but the server are refused. A failing test gets the
page's screenshot, the browser console and the Voilà log attached, through the hooks of
``conftest.py``; a page that raised an uncaught error or a chat that logged a warning fails the
test there too. Every wait is bounded, and the server is always stopped.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.browser.conftest import (
    PAGE_LOAD_TIMEOUT,
    REPO_ROOT,
    SESSION_KEY,
    UI_TIMEOUT,
    BrowserSession,
    BrowserTestError,
    ChatView,
    JupyterServer,
)
from tests.browser.helpers_ui import show_panel

pytestmark = pytest.mark.browser

APP = REPO_ROOT / "notebooks" / "apps" / "chat_app.ipynb"
KEPT = "[data-agui-transcript]"

# Lines of the notebook's code cells: none may reach the page.
SOURCE_LINES = ("def compound(", "def book_room(", "python_tool(book_room", "import ipywidgets", "chat.observe(")


# -- the Voilà server -----------------------------------------------------------------------------


class VoilaServer(JupyterServer):
    """``voila chat_app.ipynb`` in a subprocess; the notebook is served at ``/``.

    Voilà has no kernel listing, so the kernels the tests' pages started are remembered here and
    shut down by id (``DELETE /api/kernels/<id>``)."""

    def __init__(self, notebook: Path) -> None:
        super().__init__()
        self.notebook = self.root / notebook.name
        shutil.copyfile(notebook, self.notebook)
        self.kernels: set[str] = set()

    name = "Voilà"

    def _check_installed(self) -> None:
        if not (Path(sys.executable).parent / "voila").exists():
            raise BrowserTestError(f"no `voila` next to {sys.executable}: install the dev extras (`make setup`)")

    def _write_lab_settings(self) -> None:
        """Voilà is not JupyterLab: no settings to write."""

    def _argv(self) -> list[str]:
        return [
            str(Path(sys.executable).parent / "voila"),
            str(self.notebook),
            "--no-browser",
            "--Voila.ip=127.0.0.1",
            f"--Voila.port={self.port}",
            "--Voila.port_retries=0",
            f"--Voila.token={self.token}",
            "--show_tracebacks=True",
        ]

    def _is_up(self) -> bool:
        # A static file: asking for the page itself would start a kernel.
        with urllib.request.urlopen(f"{self.base_url}/voila/static/voila.js", timeout=2) as response:
            return response.status == 200

    def shutdown_kernels(self, notebook: str | None = None) -> None:
        """Shuts down one kernel (``notebook`` is its id here), or every kernel a page started."""
        for kernel_id in [notebook] if notebook is not None else sorted(self.kernels):
            with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                self.api("DELETE", f"api/kernels/{kernel_id}", timeout=10)
            self.kernels.discard(kernel_id)


@pytest.fixture(scope="module")
def voila_server() -> Iterator[VoilaServer]:
    server = VoilaServer(APP)
    try:
        server.start()
        yield server
    finally:
        server.cleanup()


# -- a visitor's page -----------------------------------------------------------------------------


@dataclass
class AppPage:
    """The app open in one browser page: one visitor, one kernel."""

    context: BrowserContext
    page: Page
    label: str
    ui: str = "voila"
    kernel_id: str = ""
    console: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.kernel_id

    def chat(self, timeout: float = PAGE_LOAD_TIMEOUT) -> AppChat:
        return AppChat(self, self.page.locator(".agui-widget")).wait_ready(timeout)

    @property
    def todo_list(self) -> Locator:
        """The notebook's ipywidgets ``HTML`` display of the to-do list, beside the chat."""
        return self.page.locator(".todo-list")


class AppChat(ChatView):
    """The chat on the app's page. Voilà's kernels take no code from the page, so a wait that
    times out says what the page showed instead of probing the kernel."""

    def __init__(self, app: AppPage, root: Locator) -> None:
        super().__init__(app, root)  # type: ignore[arg-type]

    def wait_ready(self, timeout: float = UI_TIMEOUT) -> AppChat:
        super().wait_ready(timeout)
        return self

    def _diagnosed(self, error: AssertionError, target: Locator, contains: str) -> AssertionError:
        headline = str(error).strip().splitlines()[0]
        with contextlib.suppress(Exception):
            status = self.status_line.get_attribute("data-status", timeout=2_000)
            said = self.status_line.inner_text(timeout=2_000)
            waiting = self.pending.count()
            return AssertionError(
                f"{headline}\nthe page showed: status {status!r} ({said!r}), {waiting} 'Waiting for you' region(s)"
            )
        return AssertionError(headline)


class VoilaSession(BrowserSession):
    """The browser side of one test: the visitors it opened and what their pages reported."""

    server: VoilaServer

    def visit(self) -> AppPage:
        """Opens the app in a fresh browser context, as a new visitor; waits until Voilà has run
        the notebook and sent the page, and remembers the visitor's kernel."""
        context = self.browser.new_context(viewport={"width": 1280, "height": 1000})
        context.set_default_timeout(UI_TIMEOUT)
        # Offline: the page may ask for web fonts on a CDN; only the server is reachable.
        context.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())
        page = context.new_page()
        app = AppPage(context, page, label=f"voila:{len(self.notebooks) + 1}")
        self.notebooks.append(app)  # type: ignore[arg-type]
        page.on("pageerror", lambda error: self._on_page_error(app, error))  # type: ignore[arg-type,call-overload]
        page.on("console", lambda message: self._on_console(app, message))  # type: ignore[arg-type,call-overload]
        page.on("dialog", lambda dialog: dialog.accept() if dialog.type == "beforeunload" else dialog.dismiss())
        page.goto(self.server.url("/"), wait_until="domcontentloaded", timeout=PAGE_LOAD_TIMEOUT)
        app.kernel_id = page.evaluate(
            "() => { const c = document.getElementById('jupyter-config-data');"
            " return c ? JSON.parse(c.textContent).kernelId || '' : ''; }"
        )
        assert app.kernel_id, "the page Voilà sent names no kernel (#jupyter-config-data)"
        self.server.kernels.add(app.kernel_id)
        return app


@pytest.fixture
def visitors(request: pytest.FixtureRequest, voila_server: VoilaServer, browser: Browser) -> Iterator[VoilaSession]:
    session = VoilaSession(voila_server, browser, request.node.name)
    request.node.stash[SESSION_KEY] = session  # conftest's hooks: page errors, screenshots, the log
    try:
        yield session
    finally:
        session.close()


def badge(chat: ChatView, tool: str) -> Locator:
    return chat.tool_card(tool).locator(".agui-tool-head .agui-badge")


# -- the tests ------------------------------------------------------------------------------------


def test_the_page_shows_the_app_and_none_of_its_code(visitors):
    app = visitors.visit()
    chat = app.chat()

    expect(app.page.get_by_role("heading", name="A chat app"), "the notebook's Markdown introduces the app").to_be_visible()
    expect(chat.message_box, "the chat should take a message").to_be_editable()
    expect(app.todo_list, "the to-do list display should be beside the chat").to_contain_text("empty")
    code = app.page.locator(".jp-CodeCell .jp-InputArea, .jp-InputPrompt, .jp-OutputPrompt, .cm-editor, textarea.jp-Editor")
    expect(code, "no code cell, prompt or editor should be on the page").to_have_count(0)
    text, html = app.page.locator("body").inner_text(), app.page.content()
    shown = [line for line in SOURCE_LINES if line in text or line in html]
    assert not shown, f"the page holds the notebook's code: {shown}"

    # The conversation a displayed chat keeps for saved notebooks is on the page, hidden with its row.
    kept = app.page.locator(KEPT)
    expect(kept, "the kept conversation should be in the page").to_have_count(1)
    expect(kept, "the chat should hide the copy of its own conversation").to_be_hidden()
    row = app.page.locator(".jp-OutputArea-child").filter(has=app.page.locator(KEPT))
    expect(row, "the copy's output row should be hidden too").to_be_hidden()


def test_an_answer_streams_in_and_the_agent_calls_its_tool(visitors):
    chat = visitors.visit().chat()
    recording = chat.record()

    chat.send("weather in Paris")

    # "Let me look up the weather in Paris.", the tool's card, then the answer: bubble 2.
    chat.wait_answer("°C", bubble=2)
    recording.stop()
    recording.assert_streamed(2, "the app's chat")
    expect(badge(chat, "get_weather"), "the agent's tool call should be shown done").to_have_text("done")
    card = chat.tool_card("get_weather")
    card.locator(".agui-tool-result summary").click()
    expect(card.locator(".agui-tool-result"), "the tool's result, in its card").to_contain_text("temperature_c")
    expect(chat.user_bubbles, "the user's message, once").to_have_count(1)


def test_the_kernel_runs_the_pages_python_functions_one_after_approval(visitors):
    chat = visitors.visit().chat()

    chat.send("call compound principal=100 rate=5 years=2")
    chat.wait_answer("The tool answered: 110.25")
    expect(badge(chat, "compound")).to_have_text("done")

    chat.send("call book_room room=Atlas hours=2")
    region = chat.tool_card("book_room").get_by_role("region", name="Waiting for you: book_room")
    expect(region, "the function should ask before it runs").to_be_visible()
    expect(region.locator(".agui-card-args"), "the arguments are shown before approving").to_contain_text("Atlas")
    region.get_by_role("button", name="Approve", exact=True).click()
    chat.wait_answer("The tool answered: Atlas is booked for 2 h")
    expect(badge(chat, "book_room")).to_have_text("done")
    expect(chat.error_line).to_have_count(0)


def test_shared_state_reaches_the_state_panel_and_the_page_and_each_visitor_has_their_own(visitors):
    first = visitors.visit()
    chat = first.chat()

    chat.send("add buy milk")
    chat.wait_answer("Added “buy milk”")
    expect(show_panel(chat, "state"), "the State panel should show the new to-do").to_contain_text('"buy milk"')
    expect(first.todo_list, "the ipywidgets display should follow the chat's state").to_contain_text("buy milk")

    chat.send("done 1")
    chat.wait_answer("Ticked off")
    expect(first.todo_list.locator("s"), "a ticked item is struck through beside the chat").to_have_text("buy milk")

    # A second visitor gets a kernel, a chat and a state of their own.
    second = visitors.visit()
    other = second.chat()
    assert second.kernel_id != first.kernel_id, "two visitors were given the same kernel"
    expect(other.root.locator(".agui-empty"), "the second visitor's chat should start empty").to_be_visible()
    expect(second.todo_list).to_contain_text("empty")
    expect(first.todo_list).to_contain_text("buy milk")

    # The second visitor leaves; the first one's chat goes on.
    second.page.close(run_before_unload=True)
    chat.send("show my list")
    chat.wait_answer("buy milk")
