"""The event inspector by run, in a real JupyterLab, in Chromium: a run's header (outcome, duration,
time to first token), what the UI sent (the run's ``RunAgentInput``, asked of the kernel), its
timeline, its export as a recording, and its times after a reload.

The demo agent answers (agui_widget/adapters/_demo.py): ``weather in Paris`` is one run with text
and a backend tool call.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers_ui import kernel_json, show_panel

pytestmark = pytest.mark.browser

QUICKSTART = "from agui_widget import AgentChat\n\nchat = AgentChat()\nchat"
SECONDS = re.compile(r"^\d+\.\d\d s$")


def run_name(run_id: str) -> str:
    """A run as the inspector's headers name it: the kernel's ids begin with "run-"."""
    short = f"{run_id[:12]}…" if len(run_id) > 14 else run_id
    return short if run_id.startswith("run") else f"run {short}"


def test_inspector_shows_a_run_what_it_sent_its_timeline_and_exports_it(lab, tmp_path: Path):
    nb = lab.open([QUICKSTART])
    chat = nb.chat()
    chat.send("weather in Paris")
    chat.wait_answer("in Paris (made-up numbers")
    run_id = kernel_json(nb, "chat.events[0].run_id")

    panel = show_panel(chat, "events")
    run = panel.get_by_role("group", name=run_name(run_id), exact=True)
    expect(run, "the exchange should be one run group").to_have_count(1)
    expect(run.locator(".agui-run-outcome")).to_have_text("finished")
    expect(run.locator(".agui-run-duration"), "a live run has its duration").to_have_text(SECONDS)
    expect(run.locator(".agui-run-ttft")).to_have_text(re.compile(r"^first token \d+\.\d\d s$"))
    times = run.locator(".agui-event-time")
    expect(times.first, "RUN_STARTED is the run's time 0").to_have_text("+0.000 s")
    later = times.evaluate_all("els => els.map((e) => e.textContent)")
    assert all(re.fullmatch(r"\+\d+\.\d{3} s", t) for t in later), f"every live event has its time: {later}"

    # What was sent: the RunAgentInput, from the kernel's record of the run.
    run.locator("summary", has_text=re.compile(r"^Sent$")).click()
    sent = run.locator(".agui-run-sent")
    user = sent.locator(".agui-sent-message").filter(has=nb.page.locator(".agui-sent-role", has_text=re.compile(r"^user$")))
    expect(user, "the user's message is in the run's input").to_have_count(1)
    expect(user.locator(".agui-sent-preview")).to_have_text("weather in Paris")
    user.locator("summary").click()
    message = json.loads(user.locator("pre").text_content() or "")
    assert message["role"] == "user" and message["content"] == "weather in Paris", message
    expect(sent.locator("dt", has_text="state")).to_have_count(1)

    # The timeline: a text lane and a tool lane, named and titled.
    run.locator("summary", has_text=re.compile(r"^Timeline$")).click()
    svg = run.locator("svg.agui-timeline")
    expect(svg).to_have_attribute("role", "img")
    expect(svg).to_have_attribute("aria-label", re.compile(r"^run timeline: \d+ text messages?, 1 tool call.* over \d+\.\d s$"))
    lanes = svg.locator(".agui-tl-lane").evaluate_all("els => els.map((e) => e.textContent)")
    assert "text" in lanes and "tools" in lanes, f"the timeline's lanes: {lanes}"
    expect(svg.locator(".agui-tl-label"), "the tool bar is labelled with the tool's name").to_have_text(["get_weather"])
    expect(svg.locator("rect title").first).to_have_text(re.compile(r"^text message \(assistant\): "))
    box = svg.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 20, f"the timeline is drawn: {box}"

    # Export: the run as a recording, named after the run.
    with nb.page.expect_download() as info:
        run.get_by_role("button", name=f"Export {run_name(run_id)}", exact=True).click()
    download = info.value
    assert download.suggested_filename == f"{run_id}.agui.jsonl", download.suggested_filename
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["kind"] == "recording" and lines[0]["version"] == 1, lines[0]
    assert lines[1]["kind"] == "run" and lines[1]["input"]["runId"] == run_id, lines[1]
    events = lines[2:]
    assert events and all(line["kind"] == "event" for line in events), [line.get("kind") for line in events]
    assert events[0]["event"]["type"] == "RUN_STARTED" and events[-1]["event"]["type"] == "RUN_FINISHED", (events[0], events[-1])
    assert [e["t"] for e in events] == sorted(e["t"] for e in events), "the times go forward"
    assert any(m.get("content") == "weather in Paris" for m in lines[1]["input"]["messages"]), lines[1]["input"]["messages"]

    # After a reload the log's tail has no times; the run's record brings them back.
    nb.save()
    nb.reload()
    chat = nb.chat()
    panel = show_panel(chat, "events")
    run = panel.get_by_role("group", name=run_name(run_id), exact=True)
    expect(run.locator(".agui-run-duration"), "no times before the record comes").to_have_text("—")
    expect(run.locator(".agui-event-time").first).to_have_text("—")
    run.locator("summary", has_text=re.compile(r"^Sent$")).click()
    expect(run.locator(".agui-run-sent .agui-sent-preview").first).to_have_text("weather in Paris")
    expect(run.locator(".agui-run-duration"), "the record's times").to_have_text(SECONDS)
    expect(run.locator(".agui-event-time").first).to_have_text("+0.000 s")
    expect(run.locator(".agui-event-time").last).to_have_text(re.compile(r"^\+\d+\.\d{3} s$"))
