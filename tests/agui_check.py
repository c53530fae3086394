"""Outside checks on captured event streams.

Every stream our adapters produce is run through the real ``verifyEvents`` of the official
``@ag-ui/client`` package in Node (js/scripts/verify-events.mjs), so the framing rules are checked
by code nobody here wrote, and through our own Python verifier as well.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ag_ui.core import BaseEvent

from agui_widget.pipeline._verify import EventVerifier, ProtocolError

ROOT = Path(__file__).resolve().parents[1]
VERIFY_SCRIPT = ROOT / "js" / "scripts" / "verify-events.mjs"


def wire(events: Sequence[BaseEvent]) -> list[dict]:
    return [e.model_dump(mode="json", by_alias=True) for e in events]


def official_verdicts(streams: Sequence[Sequence[BaseEvent]]) -> list[str | None]:
    """For each stream: None when @ag-ui/client's verifyEvents accepts it, else its error."""
    node = shutil.which("node")
    assert node, "Node.js is needed to run @ag-ui/client's verifier"
    assert VERIFY_SCRIPT.exists(), f"{VERIFY_SCRIPT} is missing"
    payload = json.dumps({"streams": [wire(s) for s in streams]})
    done = subprocess.run([node, str(VERIFY_SCRIPT)], input=payload, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"verify-events.mjs failed: {done.stderr}"
    results = json.loads(done.stdout.strip().splitlines()[-1])["results"]
    return [None if r["ok"] else r["error"] for r in results]


def python_verdict(events: Sequence[BaseEvent]) -> str | None:
    verifier = EventVerifier()
    try:
        for event in events:
            verifier.check(event)
    except ProtocolError as exc:
        return str(exc)
    return None


def assert_valid_streams(streams: Sequence[Sequence[BaseEvent]]) -> None:
    """Both verifiers accept every stream."""
    for index, verdict in enumerate(official_verdicts(streams)):
        assert verdict is None, f"stream {index} rejected by @ag-ui/client verifyEvents: {verdict}\n{wire(streams[index])}"
    for index, stream in enumerate(streams):
        verdict = python_verdict(stream)
        assert verdict is None, f"stream {index} rejected by agui_widget's verifier: {verdict}"
