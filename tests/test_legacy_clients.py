"""Clients of two eras against a real server: ``@ag-ui/client`` 0.0.59 (what CopilotKit 1.75 ships)
and 1.0.0, each in Node, chatting with the demo agent served by ``create_app`` over uvicorn.

A 0.0.59 client sends no ``protocolVersion`` and validates each event against the last 0.0.x
schema; a 1.0 client sends ``"1.0"`` and gets the 1.0 stream unchanged. For both: text, a backend
tool, a frontend tool the client answers, an approval (an interrupt and its resume), an error, and
the thread's events as the server sent them, replayed to a fresh client over HTTP (as a runtime
that stores a thread's events does when the page reloads).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from agui_widget.adapters import DemoAgent
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.server import create_app

from .live_server import live_server

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "js"

CLIENTS = {"0.0.59": "ag-ui-client-0.0.59", "1.0.0": "@ag-ui/client"}
"""Client version -> the package name it is installed under in js/node_modules."""

# Chats through one client version's HttpAgent (loaded by package name from js/node_modules) and
# prints, as one JSON line, every run (the events the client applied, the events exactly as the
# server sent them, the request's protocolVersion, and what the client's runAgent raised), the
# messages and state the client reduced, and the replay of the sent events to a fresh client.
_CHAT = r"""
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { join } from "node:path";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const { HttpAgent } = createRequire(join(input.js, "package.json"))(input.client);
const toStderr = (...args) => process.stderr.write(`${args.map(String).join(" ")}\n`);
Object.assign(console, { log: toStderr, info: toStderr, debug: toStderr, warn: toStderr, error: toStderr });

function sseEvents(text) {
  return text.split(/\r?\n\r?\n/).flatMap((block) => {
    const data = block.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart());
    return data.length ? [JSON.parse(data.join("\n"))] : [];
  });
}

function recordingFetch(sent) {
  return async (url, init) => {
    const response = await fetch(url, init);
    sent.request = JSON.parse(init.body);
    sent.wire = response.clone().text().then(sseEvents);
    return response;
  };
}

async function run(agent, sent, parameters, turn) {
  const events = [];
  let error = null;
  try {
    await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
  } catch (caught) {
    error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
  }
  const wire = sent.wire ? await sent.wire : [];
  return { turn, events, wire, protocolVersion: sent.request?.protocolVersion ?? null, error };
}

function unanswered(messages) {
  const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  return messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls ?? [] : [])).filter((c) => !answered.has(c.id));
}

async function chat(turns) {
  const sent = {};
  const agent = new HttpAgent({ url: input.url, threadId: input.threadId, fetch: recordingFetch(sent) });
  const runs = [];
  for (const [index, turn] of turns.entries()) {
    const tools = turn.tools ?? [];
    agent.addMessage({ id: `client-user-${index}`, role: "user", content: turn.user });
    runs.push(await run(agent, sent, { tools }, index));
    const pending = unanswered(agent.messages);
    if ("toolResult" in turn && pending.length) {
      for (const call of pending) {
        agent.addMessage({ id: `client-tool-${call.id}`, role: "tool", toolCallId: call.id, content: JSON.stringify(turn.toolResult) });
      }
      runs.push(await run(agent, sent, { tools }, index));
    }
    if ("resume" in turn && agent.pendingInterrupts.length) {
      const resume = agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: turn.resume }));
      runs.push(await run(agent, sent, { tools, resume }, index));
    }
  }
  return { runs, messages: agent.messages, state: agent.state };
}

async function replay(events) {
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { "Content-Type": "text/event-stream" });
    for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
    response.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const agent = new HttpAgent({ url: `http://127.0.0.1:${server.address().port}/`, threadId: input.threadId });
  const sent = {};
  try {
    const result = await run(agent, sent, {}, 0);
    return { error: result.error, events: result.events, messages: agent.messages, state: agent.state };
  } finally {
    server.close();
  }
}

const result = await chat(input.turns);
result.replay = await replay(result.runs.flatMap((r) => r.wire));
process.stdout.write(`${JSON.stringify(result)}\n`);
"""


def chat_with(client: str, url: str, turns: list[dict[str, Any]]) -> dict[str, Any]:
    """What one client version made of the chat (see ``_CHAT``)."""
    node = shutil.which("node")
    assert node, "Node.js is needed to run @ag-ui/client"
    package = JS / "node_modules" / CLIENTS[client] / "package.json"
    assert package.exists(), "js/node_modules is missing a client: run `make setup` (npm ci in js/)"
    assert json.loads(package.read_text())["version"] == client
    with tempfile.TemporaryDirectory(prefix="agui-legacy-client-") as folder:
        script = Path(folder) / "chat.mjs"
        script.write_text(_CHAT)
        payload = json.dumps({"js": str(JS), "client": CLIENTS[client], "url": url, "threadId": "thread-legacy", "turns": turns})
        done = subprocess.run([node, str(script)], input=payload, capture_output=True, text=True, timeout=180, cwd=JS)
    assert done.returncode == 0, f"the {client} client's chat failed: {done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def accent_tool() -> dict[str, Any]:
    return ACCENT_TOOL.to_agui().model_dump(mode="json", by_alias=True, exclude_none=True)


def assistant_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m.get("content") or "" for m in messages if m["role"] == "assistant"]


def call_named(messages: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(
        call
        for m in messages
        if m["role"] == "assistant"
        for call in m.get("toolCalls") or []
        if call["function"]["name"] == name
    )


def finished(run: dict[str, Any]) -> dict[str, Any]:
    """The RUN_FINISHED event of a run, as the server sent it."""
    (event,) = [e for e in run["wire"] if e["type"] == "RUN_FINISHED"]
    return event


def from_server(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages the server's events made (the client added the user's and its tools' own)."""
    return [m for m in messages if not m["id"].startswith("client-")]


@pytest.fixture(scope="module")
def served_url() -> Any:
    with live_server(create_app(DemoAgent(delay=0))) as url:
        yield url + "/"


@pytest.mark.parametrize("client", list(CLIENTS))
def test_a_thread_of_every_kind_of_turn_reaches_the_client_and_replays(client: str, served_url: str) -> None:
    result = chat_with(
        client,
        served_url,
        [
            {"user": "hello"},
            {"user": "weather in Oslo"},
            {"user": "make it teal", "tools": [accent_tool()], "toolResult": {"ok": True, "color": "teal"}},
            {"user": "add buy milk"},
            {"user": "delete my list", "resume": {"approved": True}},
            {"user": "fail"},
            {"user": "hello again"},
        ],
    )
    runs, messages = result["runs"], result["messages"]
    assert [run["error"] for run in runs] == [None] * 9, runs  # the client's own validation raised nothing
    assert {run["protocolVersion"] for run in runs} == ({None} if client == "0.0.59" else {"1.0"})
    ends = [run["events"][-1]["type"] for run in runs]
    assert all(run["events"][0]["type"] == "RUN_STARTED" for run in runs)
    assert ends == ["RUN_FINISHED"] * 7 + ["RUN_ERROR", "RUN_FINISHED"]
    assert [len(run["events"]) for run in runs] == [len(run["wire"]) for run in runs]  # every event was applied

    texts = assistant_texts(messages)
    assert any("scripted demo agent" in text for text in texts)  # text
    weather = call_named(messages, "get_weather")
    assert any(m["role"] == "tool" and m["toolCallId"] == weather["id"] and "Oslo" in m["content"] for m in messages)

    accent = call_named(messages, ACCENT_TOOL.name)  # a frontend tool: pending at the end of its run
    assert json.loads(accent["function"]["arguments"]) == {"color": "teal"}
    expected = {"type": "success"} if client == "0.0.59" else {"type": "success", "pendingToolCallIds": [accent["id"]]}
    assert finished(runs[2])["outcome"] == expected
    assert any("the accent is now **teal**" in text for text in texts)  # the follow-up run saw the answer

    delete = call_named(messages, "delete_todos")  # an approval: the run ends with an interrupt...
    (interrupt,) = finished(runs[5])["outcome"]["interrupts"]
    assert finished(runs[5])["outcome"]["type"] == "interrupt" and interrupt["toolCallId"] == delete["id"]
    assert any(m["role"] == "tool" and m["toolCallId"] == delete["id"] for m in messages)  # ...and the resume answers it
    assert "Approved: your list is now empty." in texts
    assert result["state"] == {"todos": []}

    (error,) = [e for e in runs[7]["events"] if e["type"] == "RUN_ERROR"]  # an error: the agent's, as its run's end
    assert "failed on purpose" in error["message"] and "About to fail on purpose" in texts[-2]
    assert "scripted demo agent" in texts[-1]  # and the chat goes on

    replayed = result["replay"]  # the events as sent, to a fresh client of the same version
    assert replayed["error"] is None, replayed["error"]
    assert [e["type"] for e in replayed["events"] if e["type"] in ("RUN_FINISHED", "RUN_ERROR")] == ends
    assert replayed["messages"] == from_server(messages)
    assert replayed["state"] == {"todos": []}


class NewShapesAgent:
    """An agent whose one run uses what AG-UI 1.0 added: a transcript snapshot with a tool message
    of content parts and a user file by provider id, a tool result of content parts (text and an
    image), and a run that finishes cancelled; its RUN_STARTED echoes the input."""

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id, protocol_version=PROTOCOL_VERSION, input=input)
        snapshot = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in input.messages]
        snapshot += [
            {"id": "file-msg", "role": "user", "content": [{"type": "text", "text": "read this"}, REPORT]},
            {"id": "asst-1", "role": "assistant", "toolCalls": [_call("call-1", "lookup")]},
            {"id": "tool-1", "role": "tool", "toolCallId": "call-1", "content": [{"type": "text", "text": "found "}, {"type": "text", "text": "it"}]},
        ]  # fmt: skip
        yield MessagesSnapshotEvent.model_validate({"messages": snapshot})
        yield ToolCallStartEvent(tool_call_id="call-2", tool_call_name="draw", parent_message_id="asst-2")
        yield ToolCallArgsEvent(tool_call_id="call-2", delta="{}")
        yield ToolCallEndEvent(tool_call_id="call-2")
        yield ToolCallResultEvent.model_validate(
            {"messageId": "tool-2", "toolCallId": "call-2", "content": DRAWING, "role": "tool"}
        )
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedCancelledOutcome())


REPORT = {"type": "document", "source": {"type": "file", "value": "file-123", "mimeType": "application/pdf"}, "metadata": {"filename": "report.pdf"}}  # fmt: skip
DRAWING = [{"type": "text", "text": "a red dot"}, {"type": "image", "source": {"type": "data", "value": "iVBORw0K", "mimeType": "image/png"}}]  # fmt: skip


def _call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


@pytest.mark.parametrize("client", list(CLIENTS))
def test_what_1_0_added_reaches_each_client_in_a_shape_its_schema_accepts(client: str) -> None:
    with live_server(create_app(NewShapesAgent())) as url:
        result = chat_with(client, url + "/", [{"user": "go"}])
    (run,) = result["runs"]
    assert run["error"] is None, run["error"]  # the client's own validation raised nothing
    assert [e["type"] for e in run["events"]] == [e["type"] for e in run["wire"]]
    messages = {m["id"]: m for m in result["messages"]}
    started, finished_event = run["wire"][0], run["wire"][-1]
    if client == "1.0.0":  # a 1.0 client: the stream exactly as the agent made it
        assert started["protocolVersion"] == started["input"]["protocolVersion"] == PROTOCOL_VERSION
        assert finished_event["outcome"] == {"type": "cancelled"}
        assert messages["file-msg"]["content"][1] == REPORT
        assert messages["tool-1"]["content"] == [{"type": "text", "text": "found "}, {"type": "text", "text": "it"}]
        assert messages["tool-2"]["content"] == DRAWING
    else:  # 0.0.59: each in the shape of its schema, nothing lost that it can hold
        assert "protocolVersion" not in started and "protocolVersion" not in started["input"]
        assert "outcome" not in finished_event  # it knows no cancelled outcome: the run just finished
        assert messages["file-msg"]["content"][1] == {
            "type": "binary", "mimeType": "application/pdf", "id": "file-123", "filename": "report.pdf"
        }  # fmt: skip
        assert messages["tool-1"]["content"] == "found it"
        assert json.loads(messages["tool-2"]["content"]) == DRAWING
    assert messages["file-msg"]["content"][0] == {"type": "text", "text": "read this"}
    assert result["replay"]["error"] is None and result["replay"]["messages"] == result["messages"]  # the snapshot has all


@pytest.mark.parametrize("client", list(CLIENTS))
def test_the_rest_of_the_demo_tour_reaches_the_client(client: str, served_url: str) -> None:
    prompts = ["add tea", "done 1", "plan a trip", "think about it", "write a document about tea", "delegate to a sub-agent"]
    turns: list[dict[str, Any]] = [{"user": prompt} for prompt in [*prompts, "activity", "suggest"]]
    turns.append({"user": "call set_accent_color with color=red", "tools": [accent_tool()], "toolResult": {"ok": True}})
    result = chat_with(client, served_url, turns)
    runs, messages = result["runs"], result["messages"]
    assert [run["error"] for run in runs] == [None] * 10, runs  # the client's own validation raised nothing
    assert all(run["events"][-1]["type"] == "RUN_FINISHED" for run in runs)
    assert [len(run["events"]) for run in runs] == [len(run["wire"]) for run in runs]
    assert result["state"]["todos"] == [{"text": "tea", "done": True}]  # a snapshot, then a delta
    assert result["state"]["plan"]["goal"] == "a trip"
    assert json.loads(call_named(messages, "write_document")["function"]["arguments"])["document"].startswith("Tea")
    assert any(m["role"] == "reasoning" and m["content"] for m in messages)
    assert any(m.get("subagentRunId") and "pretend" in (m.get("content") or "") for m in messages)
    (activity,) = [m for m in messages if m["role"] == "activity"]
    assert activity["content"] == {"markdown": "Indexing: **3** of 3 files"}  # a snapshot and its deltas
    assert any(e["type"] == "CUSTOM" for e in runs[7]["events"])  # the suggestions
    assert "The tool answered" in assistant_texts(messages)[-1]
    assert result["replay"]["error"] is None and result["replay"]["messages"] == from_server(messages)
