"""Web servers other than JupyterLab that show a chat (marimo, Voilà), for the browser tests.

Each is a subprocess on a free port of 127.0.0.1, waited for (bounded) until it answers HTTP,
logging to a file whose tail a failing test prints, and always stopped.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.browser.conftest import free_port as free_port  # re-exported for the server fixtures

START_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0


class WebServer:
    """A server process; ``url`` once it answers, ``log_tail()`` for a failure's report."""

    def __init__(self, name: str, command: Sequence[str], cwd: Path, port: int, ready_path: str = "/") -> None:
        self.name = name
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = cwd / f"{name}.log"
        self._log = self.log_path.open("wb")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            list(command), cwd=cwd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
        )
        self._wait(ready_path)

    def _wait(self, path: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(self.url + path, timeout=5) as response:
                    if response.status < 500:
                        return
            except urllib.error.HTTPError as error:
                if error.code < 500:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not start on {self.url}:\n{self.log_tail()}")
            time.sleep(0.25)

    def log_tail(self, lines: int = 40) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(STOP_TIMEOUT)
        self._log.close()


@contextlib.contextmanager
def serving(name: str, command: Sequence[str], cwd: Path, port: int, ready_path: str = "/") -> Iterator[WebServer]:
    server = WebServer(name, command, cwd, port, ready_path)
    try:
        yield server
    finally:
        server.stop()
