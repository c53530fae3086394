"""A class without keys replays a recorded session in a lesson (docs/teaching.md).

Each lesson here runs twice in a real kernel: once with ``AGUI_RECORD_DIR`` (its own agent answers
and every chat records), then with ``AGUI_REPLAY_DIR`` pointing at those recordings. The replayed
lesson runs through with every chat answered by a ``ReplayAgent``, and its chats end with the
same transcripts. Lessons chosen for what waits for an answer: a frontend tool
(04), interrupts (05), a Langroid agent with a browser tool (langroid_01).
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

TRANSCRIPTS = """
import json as _json
from agui_widget import AgentChat as _AgentChat
_chats = {name: value for name, value in globals().items() if isinstance(value, _AgentChat) and not name.startswith("_")}
print("TRANSCRIPTS " + _json.dumps({
    name: [type(chat.agent).__name__, [(m["role"], _json.dumps(m.get("content"))) for m in chat.messages]]
    for name, chat in sorted(_chats.items())
}))
"""


def run_lesson(stem: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, list[object]]:
    """Run the lesson in a fresh kernel with ``env``; each chat's agent class and transcript at the end."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    notebook = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(TRANSCRIPTS))
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    printed = "".join(output.get("text", "") for output in notebook.cells[-1].outputs)
    (line,) = [line for line in printed.splitlines() if line.startswith("TRANSCRIPTS ")]
    return json.loads(line.removeprefix("TRANSCRIPTS "))


@pytest.mark.parametrize("stem", ["04_human_in_the_loop", "05_interrupts", "langroid_01_agentic_chat"])
def test_a_lesson_replays_its_recorded_session_with_no_model(stem, tmp_path, monkeypatch):
    recorded = run_lesson(stem, {"AGUI_RECORD_DIR": str(tmp_path)}, monkeypatch)
    assert recorded and all(transcript for _agent, transcript in recorded.values())
    assert (tmp_path / f"{stem}.agui.jsonl").exists()

    monkeypatch.delenv("AGUI_RECORD_DIR")
    replayed = run_lesson(stem, {"AGUI_REPLAY_DIR": str(tmp_path), "AGUI_REPLAY_SPEED": "0"}, monkeypatch)
    assert {name: agent for name, (agent, _transcript) in replayed.items()} == dict.fromkeys(recorded, "ReplayAgent")
    assert {name: transcript for name, (_agent, transcript) in replayed.items()} == {
        name: transcript for name, (_agent, transcript) in recorded.items()
    }
