"""``make demo`` greets a newcomer with the quickstart notebook and nothing else.

The server is started with the very command the Makefile's ``demo`` target runs (read from the
Makefile, so the two cannot drift apart), on a free port and without opening a browser. It starts
with no warning in its log, and JupyterLab does not ask whether to fetch its news: a toast the
demo has no use for, and offline no answer to.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.browser.servers import free_port, serving

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "demo-test-token"


def demo_command(port: int) -> list[str]:
    """The Makefile's ``demo`` recipe line that starts JupyterLab, made runnable here."""
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert recipe, "the Makefile has a demo target"
    [line] = [line for line in recipe.group(1).splitlines() if "jupyter lab" in line]
    words = shlex.split(line.strip().replace("$(PORT)", str(port)))
    assert words[:2] == ["$(VENV)/bin/jupyter", "lab"]
    words = [absolute(w) for w in words[2:] if not w.startswith("--ServerApp.open_browser")]
    return [sys.executable, "-m", "jupyter", "lab", *words, "--ServerApp.open_browser=False", f"--IdentityProvider.token={TOKEN}"]


def absolute(word: str) -> str:
    """``word`` with a path of the checkout in it made absolute (make runs from the checkout)."""
    option, _, path = word.rpartition("=")
    if path and (ROOT / path).exists():
        return f"{option}={ROOT / path}" if option else str(ROOT / path)
    return word


def get_json(url: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory):
    port = free_port()
    # Run from elsewhere (the log goes there): the config puts the server's root in the checkout.
    with serving("demo", demo_command(port), tmp_path_factory.mktemp("demo"), port, ready_path="/api/status") as server:
        yield server


def test_jupyterlab_does_not_ask_to_fetch_its_news(demo_server):
    settings = get_json(f"{demo_server.url}/lab/api/settings/@jupyterlab/apputils-extension:notification")
    assert settings["schema"]["properties"]["fetchNews"]["default"] == "false"


def test_the_quickstart_notebook_is_there(demo_server):
    contents = get_json(f"{demo_server.url}/api/contents/notebooks/01_quickstart.ipynb?content=0")
    assert contents["type"] == "notebook"


def test_the_server_starts_without_a_warning(demo_server):
    get_json(f"{demo_server.url}/api/status")
    log = demo_server.log_tail(400)
    assert "Warning" not in log and "Traceback" not in log, log
