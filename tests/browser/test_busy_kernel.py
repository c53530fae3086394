"""A message typed while a cell blocks the kernel's loop, in a real JupyterLab.

The kernel reads the chat's requests only once the cell ends. Meanwhile the message shows at once,
marked as waiting for the kernel; once the kernel reads it, it runs like any other and the
transcript holds it once. If the kernel restarts instead, the text comes back into the message box.

The blocking cell waits for a file the test creates when it is done looking, so nothing here
depends on how long anything takes.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CELL_TIMEOUT, ChatView, NotebookPage
from tests.browser.test_transcript_and_liveness import kernel_banner, restart_kernel

pytestmark = pytest.mark.browser

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"
WAITING_TAG = "waiting for the kernel…"
CELL_START_TIMEOUT = 60.0  # s: the blocking cell has begun to run in the kernel


def start_blocking_cell(nb: NotebookPage, folder: Path) -> tuple[int, Path]:
    """Runs a cell that blocks the kernel's loop until the returned path exists; returns once the
    cell runs (it says so with a file of its own), with the page's job for the cell."""
    started, release = folder / "started", folder / "release"
    code = (
        f"import os, time\nopen({str(started)!r}, 'w').close()\nwhile not os.path.exists({str(release)!r}):\n    time.sleep(0.05)"
    )
    job = nb.page.evaluate("([p, code]) => window.__aguiTest.runCode(p, code)", [nb.name, code])
    wait_for_file(started, CELL_START_TIMEOUT)
    return job, release


def wait_for_file(path: Path, timeout: float) -> None:
    """Polls for ``path`` (bounded): the cell in the kernel creates it."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"the blocking cell did not start within {timeout:.0f} s"
        time.sleep(0.05)


def cell_finished(nb: NotebookPage, job: int) -> bool:
    return bool(nb.page.evaluate("id => !!window.__aguiTest.results[id]", job))


def waiting_bubble(chat: ChatView, text: str):
    return chat.root.locator(".agui-row-outgoing", has_text=text)


def test_a_message_sent_while_a_cell_blocks_the_kernel_waits_on_screen_then_runs_once(lab, tmp_path):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    job, release = start_blocking_cell(nb, tmp_path)

    chat.send("weather in Paris")

    bubble = waiting_bubble(chat, "weather in Paris")
    expect(bubble, "the message should show at once, while the cell runs").to_be_visible()
    expect(bubble.locator(".agui-waiting-tag"), "the message should say it waits for the kernel").to_contain_text(WAITING_TAG)
    expect(chat.root.locator(".agui-empty"), "the empty chat's line should give way to the message").to_have_count(0)
    assert not cell_finished(nb, job), "the blocking cell ended before the test released it"

    release.touch()
    nb._await(job, CELL_TIMEOUT, "the blocking cell to end once released")

    expect(chat.root.locator(".agui-row-outgoing"), "the kernel read the message: nothing should wait any more").to_have_count(0)
    expect(chat.root.locator(".agui-waiting-tag")).to_have_count(0)
    chat.wait_answer("in Paris (made-up numbers")
    expect(chat.user_bubbles, "the message should show once").to_have_text(["weather in Paris"])
    out = nb.run_cell("import json\nprint(json.dumps([m['content'] for m in chat.messages if m['role'] == 'user']))").text
    users = json.loads(out.strip().splitlines()[-1])
    assert users == ["weather in Paris"], f"the kernel's transcript holds these user messages: {users!r}"


def test_a_message_waiting_when_the_kernel_restarts_comes_back_into_the_box(lab, tmp_path):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    start_blocking_cell(nb, tmp_path)

    chat.send("do not lose me")
    expect(waiting_bubble(chat, "do not lose me")).to_be_visible()

    restart_kernel(nb)

    expect(kernel_banner(chat), "the chat should say its kernel restarted").to_have_count(1)
    expect(chat.root.locator(".agui-row-outgoing"), "the waiting message should leave the transcript").to_have_count(0)
    expect(chat.message_box, "the text should be back in the message box").to_have_value("do not lose me")
    expect(chat.root.locator(".agui-notice"), "a notice should say why").to_contain_text("back in the message box")
