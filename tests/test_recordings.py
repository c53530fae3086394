"""Recording a chat: what each run sent and what came back, with times, kept and saved as JSON lines.

The format is docs/recordings.md: a header line, then per run a ``run`` line with its
``RunAgentInput`` and one ``event`` line per event with its time since the run started.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agui_widget import AgentChat, DemoAgent
from agui_widget.pipeline._recording import RecordingError, RunRecordings, parse_recording, read_recording
from agui_widget.teaching import lesson_chat

from .genui_support import Captured
from .support import make_input, split_runs, until


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


async def test_a_chat_saves_each_runs_input_and_its_events_with_their_times(tmp_path):
    chat = AgentChat(DemoAgent(delay=0.01))
    first = await chat.send("weather in Paris")
    await chat.send("add buy milk")
    path = chat.save_recording(tmp_path / "chat.agui.jsonl", label="the demo agent, offline")

    lines = lines_of(path.read_text(encoding="utf-8"))
    head, runs = lines[0], [line for line in lines if line["kind"] == "run"]
    assert head["kind"] == "recording" and head["version"] == 1 and head["label"] == "the demo agent, offline"
    assert head["agent"] == "DemoAgent" and [tool["name"] for tool in head["tools"]] == ["set_accent_color"]
    assert [run["input"]["messages"][-1]["content"] for run in runs] == ["weather in Paris", "add buy milk"]
    assert runs[0]["input"]["runId"] == first.run_ids[0] and runs[1]["input"]["state"] == {}

    recording = read_recording(path)
    assert [[event for _t, event in run.events] for run in recording.runs] == split_runs(chat.events)
    times = [at for at, _event in recording.runs[0].events]
    assert times == sorted(times) and times[-1] > 0.01  # paced by the agent, in seconds since the run started


async def test_record_writes_every_run_as_it_ends_and_continues_an_existing_recording(tmp_path):
    path = tmp_path / "live.agui.jsonl"
    chat = AgentChat(DemoAgent(delay=0), record=path)
    await chat.send("weather in Paris")
    assert len(read_recording(path).runs) == 1  # on disk before the next turn
    await chat.send("add buy milk")
    later = AgentChat(DemoAgent(delay=0), record=path)
    await later.send("show my list")
    recording = read_recording(path)
    assert len(recording.runs) == 3
    assert sum(1 for line in lines_of(path.read_text()) if line["kind"] == "recording") == 1


async def test_a_stopped_run_is_recorded_closed(tmp_path):
    path = tmp_path / "stopped.agui.jsonl"
    chat = AgentChat(DemoAgent(delay=0.05), record=path)
    run = chat.send("markdown")
    await until(lambda: len(run.events) >= 4, what="the run's first four events")
    chat.stop()
    await run
    (recorded,) = read_recording(path).runs
    last = recorded.events[-1][1]
    assert last.type.value == "RUN_FINISHED" and last.outcome.type == "cancelled"  # type: ignore[attr-defined]


def test_record_refuses_a_file_that_is_not_a_recording(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    with pytest.raises(RecordingError, match="is not an agui-widget recording"):
        AgentChat(record=notes)
    assert notes.read_text() == "my notes\n"  # untouched


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "is empty"),
        (['{"kind":"recording","version":2}'], "format version 2; this agui-widget reads up to 1"),
        (['{"kind":"recording","version":1}', '{"kind":"event","t":0,"event":{}}'], "line 2: an event before any run"),
        (['{"kind":"recording","version":1}', "{oops"], "line 2: not JSON"),
        (
            ['{"kind":"recording","version":1}', '{"kind":"run","input":{"threadId":"t"}}'],
            "line 2: not a valid RunAgentInput: runId",
        ),
        (['{"kind":"recording","version":1}', '{"kind":"note"}'], "line 2: unknown kind 'note'"),
    ],
)
def test_a_broken_recording_is_refused_naming_the_line(lines, message):
    with pytest.raises(RecordingError, match=message.replace("(", r"\(")):
        parse_recording(lines, "x.agui.jsonl")


def test_an_event_line_needs_a_valid_event_and_a_time():
    run = json.dumps({"kind": "run", "input": make_input("hi").model_dump(mode="json", by_alias=True)})
    head = '{"kind":"recording","version":1}'
    with pytest.raises(RecordingError, match="line 3: not a valid AG-UI event"):
        parse_recording([head, run, '{"kind":"event","t":0,"event":{"type":"NOPE"}}'])
    with pytest.raises(RecordingError, match="line 3: an event needs its time"):
        parse_recording([head, run, '{"kind":"event","event":{"type":"RUN_STARTED","threadId":"t","runId":"r"}}'])


def test_what_a_chat_keeps_is_bounded_by_runs_and_by_the_messages_their_inputs_carry():
    kept = RunRecordings(max_runs=3, max_input_messages=10)
    for count in range(5):
        kept.start(make_input([{"id": f"u{i}", "role": "user", "content": "x"} for i in range(count + 1)]))
    assert [len(run.input.messages) for run in kept.runs] == [4, 5]  # 3 + 4 + 5 > 10


# -- the view asks for a run ------------------------------------------------------------------


async def test_a_view_gets_a_run_as_recording_text_or_why_not():
    chat = Captured(DemoAgent(delay=0))
    run = await chat.send("weather in Paris")
    chat.view_says({"kind": "run_record", "runId": run.run_ids[0]})
    chat.view_says({"kind": "run_record", "runId": "run-long-gone"})
    found, gone = chat.of_kind("run_record")
    lines = lines_of(found["recording"])
    assert found["runId"] == run.run_ids[0] and found["error"] is None
    assert [line["kind"] for line in lines[:3]] == ["recording", "run", "event"]
    assert lines[1]["input"]["messages"][-1]["content"] == "weather in Paris"
    assert gone == {"kind": "run_record", "runId": "run-long-gone", "recording": None, "error": gone["error"]}
    assert "no longer kept" in gone["error"]


async def test_every_event_on_the_wire_carries_the_time_the_kernel_got_it():
    chat = Captured(DemoAgent(delay=0.01))
    await chat.send("weather in Paris")
    batches = chat.of_kind("events")
    assert batches and all(len(batch["times"]) == len(batch["events"]) for batch in batches)
    times = [at for batch in batches for at in batch["times"]]
    assert times == sorted(times) and times[-1] - times[0] > 10  # milliseconds, paced by the agent


# -- a lesson's chat --------------------------------------------------------------------------


async def test_a_lesson_chat_records_then_replays_with_no_model(tmp_path, capsys):
    folder = tmp_path / "recordings"
    recording = lesson_chat("01_quickstart", DemoAgent(delay=0), environ={"AGUI_RECORD_DIR": str(folder)})
    recorded = await recording.send("weather in Paris")
    assert "Recording every run to" in capsys.readouterr().out

    class NoModel:
        def run(self, input: Any) -> Any:
            raise AssertionError("the lesson's own agent must not run during a replay")

    replaying = lesson_chat("01_quickstart", NoModel(), environ={"AGUI_REPLAY_DIR": str(folder), "AGUI_REPLAY_SPEED": "0"})
    assert "Replaying" in capsys.readouterr().out
    run = await replaying.send("weather in Paris")
    assert run.status == "finished" and run.reply and run.reply == recorded.reply


async def test_a_lesson_chat_without_its_recording_runs_its_agent_and_says_so(tmp_path, capsys):
    chat = lesson_chat("02_agentic_chat", DemoAgent(delay=0), environ={"AGUI_REPLAY_DIR": str(tmp_path)})
    assert "has no 02_agentic_chat.agui.jsonl" in capsys.readouterr().out
    assert (await chat.send("weather in Paris")).status == "finished"
    plain = lesson_chat("02_agentic_chat", DemoAgent(delay=0), environ={})
    assert isinstance(plain, AgentChat) and capsys.readouterr().out == ""


def test_a_lesson_chat_checks_its_name_and_the_speed(tmp_path):
    with pytest.raises(ValueError, match="lesson_chat\\(\\) needs a name"):
        lesson_chat("../escape", None, environ={})
    recording = Path(tmp_path / "x.agui.jsonl")
    recording.write_text(Path(__file__).parent.parent.joinpath("agui_widget/recordings/demo_tour.agui.jsonl").read_text())
    with pytest.raises(ValueError, match="AGUI_REPLAY_SPEED must be a number"):
        lesson_chat("x", None, environ={"AGUI_REPLAY_DIR": str(tmp_path), "AGUI_REPLAY_SPEED": "fast"})
