"""A TypeScript module of the view, bundled for Node, behind a line-oriented JSON process.

Tests hold a Python half to its TypeScript half by asking both the same questions: the module is
bundled with the project's esbuild, and a small Node program answers one JSON line per request
(``[function name, ...arguments]`` in, the function's result out), so a property-based test can
ask hundreds of questions in one process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "js"

_SERVER = """
import * as module from "./module.mjs";
import { createInterface } from "node:readline";
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [name, ...args] = JSON.parse(line);
  let reply;
  try { reply = { ok: module[name](...args) }; } catch (error) { reply = { error: String(error) }; }
  process.stdout.write(JSON.stringify(reply) + "\\n");
}
"""


class NodeModule:
    """``NodeModule("src/mirror/fingerprint.ts").call("fingerprint", value)``; close() when done."""

    def __init__(self, entry: str) -> None:
        node = shutil.which("node")
        assert node, "Node.js is needed to run the view's TypeScript"
        esbuild = JS / "node_modules" / ".bin" / "esbuild"
        assert esbuild.exists(), "js/node_modules is missing: run `make setup` (npm ci in js/)"
        self._dir = tempfile.TemporaryDirectory(prefix="agui-node-module-")
        out = Path(self._dir.name)
        subprocess.run(
            [
                str(esbuild),
                str(JS / entry),
                "--bundle",
                "--format=esm",
                "--platform=node",
                f"--outfile={out / 'module.mjs'}",
                "--log-level=warning",
            ],
            check=True,
            cwd=JS,
            timeout=120,
        )
        (out / "server.mjs").write_text(_SERVER)
        self._process = subprocess.Popen(
            [node, str(out / "server.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8", cwd=out
        )

    def call(self, name: str, *args: Any) -> Any:
        """The function's result; ``ensure_ascii`` keeps lone surrogates as ``\\uXXXX`` escapes."""
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps([name, *args], ensure_ascii=True) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        assert line, f"the Node process ended (exit code {self._process.poll()})"
        reply = json.loads(line)
        if "error" in reply:
            raise AssertionError(f"{name} failed in Node: {reply['error']}")
        return reply.get("ok")

    def close(self) -> None:
        end_process(self._process)
        self._dir.cleanup()


def end_process(process: subprocess.Popen[Any]) -> None:
    """Closes a helper process's input, so it ends by itself; killed after 10 s if it does not."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
