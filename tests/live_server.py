"""A real uvicorn server on 127.0.0.1 for the tests that need real sockets.

Started in a thread of the test process (so a test can watch what the served agent does), on a
port the OS picks, bounded in time at both ends, and always stopped.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

START_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Serve ``app``; yields its base URL (``http://127.0.0.1:PORT``) and stops it afterwards."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=f"uvicorn:{port}", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start on 127.0.0.1:{port}")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(STOP_TIMEOUT)
        if thread.is_alive():
            server.force_exit = True
            thread.join(STOP_TIMEOUT)
        sock.close()


@contextmanager
def serve_command(args: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``python -m agui_widget serve ARGS`` in a process of its own, on a free port; yields its base
    URL once it answers ``/health``, and stops it afterwards (killed if it will not stop)."""
    port = closed_port()
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), **(env or {})}
    command = [sys.executable, "-m", "agui_widget", "serve", "--port", str(port), "--log-level", "warning", *args]
    process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)


def wait_for_health(url: str, process: subprocess.Popen[str], timeout: float = 30.0) -> dict[str, Any]:
    """``GET {url}/health`` once the server in ``process`` answers it (its stderr if it exits)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {process.communicate()[1]}")
        try:
            health: dict[str, Any] = httpx.get(url + "/health", timeout=1).json()
            return health
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("the server did not answer /health in time")


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
