"""benchmarks/serve_load.py runs: a quick load (20 streams of 40 tokens, one worker then two)
against the real ``agui-widget serve`` command, and every stream ends with RUN_FINISHED."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_quick_load_benchmark_finishes_every_stream() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "serve_load.py"), "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "All 40 streams finished with RUN_FINISHED, no errors." in done.stdout
    streams_table = done.stdout.split("The server's memory")[0]
    rows = re.findall(r"^\| (\d) \| 20 \| (\d+) \| ([^|]*?) \|", streams_table, re.MULTILINE)
    assert rows == [("1", "20", "none"), ("2", "20", "none")], done.stdout  # workers, finished, errors
