"""The chat in marimo, in Chromium: the example notebook (notebooks/marimo_chat.py) served by
``marimo edit`` and by ``marimo run`` (app mode), worked as a user does.

In each mode: one exchange with a backend tool card, a frontend tool the page runs, an approval
clicked for a Python tool, Stop, and the shared state changed by the agent and by a Python tool and
seen by a cell that reads the chat's element (``mo.ui.anywidget(chat)``): marimo re-runs it with no
bridge of the user's. In app mode also: a slider moved during a run updates
its cell while the answer still streams (runs never block marimo's kernel), and the State panel and
the event inspector show what happened.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.servers import WebServer, free_port, serving

pytestmark = pytest.mark.browser

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "marimo_chat.py"
MARIMO = [sys.executable, "-m", "marimo"]
ANSWER_TIMEOUT = 20_000


@pytest.fixture(scope="module")
def marimo_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, WebServer]]:
    """``marimo run`` and ``marimo edit`` on a copy of the example (edit mode may save it)."""
    root = tmp_path_factory.mktemp("marimo")
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    common = ["--headless", "--no-token", "--host", "127.0.0.1"]
    run_port, edit_port = free_port(), free_port()
    with (
        serving("marimo-run", [*MARIMO, "run", NOTEBOOK.name, *common, "--port", str(run_port)], root, run_port) as run,
        serving("marimo-edit", [*MARIMO, "edit", NOTEBOOK.name, *common, "--port", str(edit_port)], root, edit_port) as edit,
    ):
        yield {"run": run, "edit": edit}


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(ANSWER_TIMEOUT)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
    finally:
        if errors and not request.session.shouldfail:
            print("page errors:", *errors, sep="\n")
        context.close()


class MarimoChat:
    """The example's chat on a marimo page."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.root = page.locator(".agui-widget").first
        self.box = self.root.get_by_role("textbox", name="Message", exact=True)
        expect(self.box, "the chat should render in marimo").to_be_visible(timeout=60_000)
        expect(self.root.get_by_text("Connecting to the kernel")).to_have_count(0)

    def send(self, text: str) -> None:
        self.box.click()
        self.box.fill(text)
        self.box.press("Enter")
        expect(self.box).to_have_value("")

    @property
    def last_answer(self) -> Locator:
        return self.root.locator(".agui-bubble-assistant .agui-text").last

    def wait_answer(self, text: str) -> None:
        expect(self.last_answer).to_contain_text(text, timeout=ANSWER_TIMEOUT)
        expect(self.root.get_by_role("button", name="Send", exact=True)).to_be_visible()

    def badge(self, tool: str) -> Locator:
        card = self.root.locator(".agui-tool", has=self.page.locator(".agui-tool-name", has_text=tool)).last
        return card.locator(".agui-tool-head .agui-badge")


def reactive_list(page: Page) -> Locator:
    """The paragraph a reactive cell writes from the shared state."""
    return page.locator("strong", has_text="To-do list, read by a cell:").locator("xpath=..")


def work_the_chat(page: Page, *, state_panel: bool = False) -> MarimoChat:
    """What both modes must do: an exchange, a browser tool, state seen by a reactive cell (changed
    by the agent, by the State panel when ``state_panel``, and by a Python tool), an approval for a
    Python tool, and Stop."""
    chat = MarimoChat(page)

    chat.send("weather in Paris")
    chat.wait_answer("in Paris (made-up numbers")
    expect(chat.badge("get_weather")).to_have_text("done")

    chat.send("make it teal")
    chat.wait_answer("the accent is now teal")
    expect(chat.badge("set_accent_color"), "the page ran the browser tool").to_have_text("done")

    expect(reactive_list(page)).to_contain_text("empty")
    chat.send("add buy milk")
    chat.wait_answer("Added “buy milk”")
    expect(reactive_list(page), "a cell reading the element re-ran when the agent changed the state").to_contain_text("buy milk")
    if state_panel:
        state_button = chat.root.get_by_role("button", name="State")
        state_button.click()
        panel = chat.root.get_by_role("region", name="State")
        panel.get_by_role("switch", name="done").click()
        expect(reactive_list(page).locator("del, s"), "the cell re-ran when the State panel changed the state").to_have_text(
            "buy milk"
        )
        state_button.click()
        expect(panel).to_have_count(0)

    chat.send("call forget_todos")
    approval = chat.root.get_by_role("region", name="Waiting for you: forget_todos")
    expect(approval.locator(".agui-card-title")).to_have_text("Run forget_todos in the kernel?")
    approval.get_by_role("button", name="Approve", exact=True).click()
    chat.wait_answer("The list is empty")
    expect(reactive_list(page), "the Python tool's change reached the reactive cell").to_contain_text("empty")

    chat.send("markdown")
    stop = chat.root.get_by_role("button", name="Stop", exact=True)
    expect(stop).to_be_visible()
    stop.click()
    expect(chat.root.get_by_role("button", name="Send", exact=True), "Stop ends the run").to_be_visible()
    expect(chat.root.locator(".agui-stopped"), "the cut-short answer is marked stopped").to_be_visible()
    return chat


def test_the_chat_works_in_marimo_run_app_mode(marimo_servers: dict[str, WebServer], page: Page) -> None:
    page.goto(marimo_servers["run"].url)
    chat = work_the_chat(page, state_panel=True)
    expect(page.locator(".cm-editor"), "app mode shows no code").to_have_count(0)

    # The notebook stays live during a run: the slider's cell reacts while the answer streams.
    chat.send("markdown")
    stop = chat.root.get_by_role("button", name="Stop", exact=True)
    expect(stop).to_be_visible()
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("ArrowRight")
    expect(page.get_by_text("The slider reads 4"), "a cell ran while the agent answered").to_be_visible(timeout=5_000)
    expect(stop, "and the answer was still streaming").to_be_visible()
    chat.wait_answer("mean of")

    chat.root.get_by_role("button", name="State").click()
    expect(chat.root.get_by_role("region", name="State")).to_contain_text("todos")
    chat.root.get_by_role("button", name="Events").click()
    expect(chat.root.locator(".agui-event", has_text="RUN_STARTED").first, "the event inspector lists the runs").to_be_visible()


def test_the_chat_works_in_marimo_edit_mode(marimo_servers: dict[str, WebServer], page: Page) -> None:
    page.goto(marimo_servers["edit"].url)
    expect(page.locator(".cm-editor").first, "the editor shows the notebook's code").to_be_visible(timeout=60_000)
    # marimo edit opens a notebook without running it: run every cell, as a user does. The key is
    # "Run all stale cells": one pressed before marimo listens is lost, and pressing it again once
    # the cells ran changes nothing, so it is pressed until the chat shows.
    box = page.locator(".agui-widget").first.get_by_role("textbox", name="Message", exact=True)
    for _ in range(4):
        page.locator("body").press("ControlOrMeta+Shift+R")
        try:
            expect(box).to_be_visible(timeout=20_000)
            break
        except AssertionError:
            continue
    work_the_chat(page)
