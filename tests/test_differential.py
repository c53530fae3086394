"""Three readers of one AG-UI stream end with the same messages and the same state.

1. **The kernel** – ``EventConsumer``: the pipeline every event goes through in Python.
2. **The view** – ``Mirror`` (js/src/mirror/mirror.ts). It never sees the producer's stream: it gets
   what the kernel sends over the widget wire (docs/wire.md), a ``snapshot`` of the seed and then
   ``events`` messages holding the events the kernel delivered, serialised by ``event_to_wire``
   and coalesced by ``BatchingTransport`` (consecutive deltas merged, batches cut where the
   example says).
3. **The official client** – ``@ag-ui/client`` 1.0.0's ``AbstractAgent.runAgent()``, fed the raw
   events exactly as the producer sent them, chunks and all (enforcement, ``transformChunks``,
   ``verifyEvents``, ``defaultApplyEvents``). It is the reference: AG-UI's own reading.

Streams come from tests/agui_streams.py (valid ones, and invalid ones breaking one named rule)
and from this project's adapters (the demo agent, plain functions, LangChain and Langroid). For a
valid stream all three readers accept it and agree. For an invalid one the kernel and the client
both reject it, and what each holds at the violation (the events applied before it) is the same;
the view holds what the kernel delivered.

Messages and states are compared exactly, as JSON (``true`` is not ``1``, key order does not
matter). Where the AG-UI specification leaves room and this project deliberately differs from
the official client, :data:`KNOWN_DIFFERENCES` names the case and why, and only that is
normalised. Every other difference is a bug in one of the readers.

The Node side (js/scripts/differential.mjs) is one process for the whole session, answering a
JSON line per example. Examples are derandomised, so every run tries the same ones. Run with
``.venv/bin/python -m pytest -q -p no:cacheprovider tests/test_differential.py`` (Node and
``npm ci`` in js/ needed, as ``make setup`` does).
"""

from __future__ import annotations

import asyncio
import copy
import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agui_widget.adapters import DemoAgent
from agui_widget.pipeline._consumer import EventConsumer
from agui_widget.pipeline._verify import ProtocolError
from agui_widget.wire._codec import event_to_wire, snapshot_message
from agui_widget.wire._transport import BatchingTransport

from . import agui_streams as streams_
from .agui_streams import Stream, streams
from .node_module import end_process

ROOT = Path(__file__).resolve().parents[1]
HELPER = ROOT / "js" / "scripts" / "differential.mjs"

KNOWN_DIFFERENCES: dict[str, str] = {
    "lone surrogate": (
        "A UTF-16 surrogate that never pairs (a JavaScript producer cut a string inside a pair "
        "and never sent the other half) cannot be encoded as UTF-8, which Jupyter's comm and "
        "every Python serialiser require. The kernel replaces it with U+FFFD, and so the view "
        "holds U+FFFD too; the official client, living in JavaScript, keeps the lone surrogate."
    ),
    "predictive state": (
        "A CUSTOM 'PredictState' event (CopilotKit's predictive state) makes the widget's state "
        "follow a tool call's streamed arguments, in the kernel's session (agui_widget/chat/_predict.py) "
        "and in the view (Mirror.predictState). It is an extension: AG-UI's reducer ignores CUSTOM "
        "events, and so does the kernel's EventConsumer, which is the reader compared here."
    ),
}

# No deadline (an example is a round trip to Node); derandomised and without a database, so a run
# in CI tries exactly the examples a run on a laptop does.
PROFILE = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# =============================================================================================
# The readers
# =============================================================================================


@dataclass
class Reading:
    """What one reader ended with: its verdict on the stream, its messages and its state."""

    accepted: bool
    messages: Any
    state: Any
    error: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class KernelRun:
    """The kernel's reading, and what it would send a view: the seed it began from and the
    events it delivered (after chunk expansion, up to a violation)."""

    reading: Reading
    seed_messages: list[dict[str, Any]]
    seed_state: Any
    delivered: list[Any]


def as_received(event: dict[str, Any]) -> dict[str, Any]:
    """An event as a Python JSON parser gives it from a JavaScript producer's bytes: the JSON
    text escapes every non-ASCII code unit, so a pair sent whole arrives as one code point and a
    half sent alone arrives as a lone surrogate."""
    return json.loads(json.dumps(event, ensure_ascii=True))


def read_with_kernel(stream: Stream) -> KernelRun:
    """Reader 1: every event through ``EventConsumer.consume``, stopping at a ProtocolError."""
    warnings: list[str] = []
    consumer = EventConsumer(copy.deepcopy(stream.messages), copy.deepcopy(stream.state), on_warning=warnings.append)
    seed_messages = copy.deepcopy(consumer.messages)
    seed_state = copy.deepcopy(consumer.state)
    delivered: list[Any] = []
    error: str | None = None
    try:
        for event in stream.events:
            delivered += consumer.consume(as_received(event))
        consumer.end_of_stream()
    except ProtocolError as exc:
        delivered += exc.delivered
        error = str(exc)
    reading = Reading(error is None, copy.deepcopy(consumer.messages), copy.deepcopy(consumer.state), error, warnings)
    return KernelRun(reading, seed_messages, seed_state, delivered)


def wire_to_view(run: KernelRun, flushes: Sequence[bool]) -> list[dict[str, Any]]:
    """What the kernel sends a view for this run: a snapshot of the seed, then the delivered
    events as ``events`` messages. ``flushes`` cuts the batches (cyclically: ``flushes[i]`` says
    whether the batch is sent after event ``i``); the last batch is always sent."""
    sent: list[dict[str, Any]] = [snapshot_message(None, copy.deepcopy(run.seed_messages), copy.deepcopy(run.seed_state), [])]

    async def stream_events() -> None:
        # A window longer than any example: nothing goes out on a timer, only where we flush.
        transport = BatchingTransport(sent.append, window=3600.0)
        for index, event in enumerate(run.delivered):
            transport.event(event_to_wire(event), 0)
            if flushes and flushes[index % len(flushes)]:
                transport.flush()
        transport.flush()

    asyncio.run(stream_events())
    return sent


def unsendable(messages: Sequence[dict[str, Any]]) -> list[str]:
    """Why Jupyter could not send each of these messages, if it could not: its packer writes
    JSON as UTF-8, which has no encoding for a lone surrogate."""
    problems = []
    for index, message in enumerate(messages):
        try:
            json.dumps(message, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (UnicodeEncodeError, ValueError) as exc:
            problems.append(f"message {index} ({message.get('kind')}): {exc}")
    return problems


class NodeReaders:
    """Readers 2 and 3, in one long-lived Node process speaking JSON lines."""

    def __init__(self) -> None:
        node = shutil.which("node")
        assert node is not None, "Node.js is needed for the differential tests"
        assert (ROOT / "js" / "node_modules" / "@ag-ui" / "client").exists(), (
            "js/node_modules is missing: run `make setup` (npm ci in js/)"
        )
        self._stderr = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            [node, str(HELPER)], cwd=ROOT / "js", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr
        )
        self._next_id = 0
        ready = self._receive()
        assert ready == {"ready": True}, f"the Node helper did not start: {ready}"

    def _receive(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self._stderr.seek(0)
            raise RuntimeError(f"the Node helper exited: {self._stderr.read().decode('utf-8', 'replace')[-4000:]}")
        return json.loads(line.decode("utf-8"))

    def read(self, view_messages: Sequence[dict[str, Any]], stream: Stream) -> tuple[Reading, Reading]:
        """The view's reading of ``view_messages`` and the official client's of ``stream``."""
        self._next_id += 1
        request = {
            "id": self._next_id,
            "mirror": list(view_messages),
            "client": {"messages": stream.messages, "state": stream.state, "events": stream.events},
        }
        assert self._process.stdin is not None
        # ASCII JSON: a lone surrogate travels as the \udXXX escape a JavaScript producer writes.
        self._process.stdin.write(json.dumps(request, ensure_ascii=True).encode("ascii") + b"\n")
        self._process.stdin.flush()
        reply = self._receive()
        assert reply.get("id") == self._next_id and "failure" not in reply, f"the Node helper failed: {reply}"
        notes = reply.get("warnings", [])
        mirror = Reading(True, reply["mirror"]["messages"], reply["mirror"]["state"], notes=notes)
        client = reply["client"]
        official = Reading(client["accepted"], client["messages"], client["state"], client["error"], notes)
        return mirror, official

    def close(self) -> None:
        end_process(self._process)
        self._stderr.close()


@pytest.fixture(scope="session")
def node_readers() -> Iterator[NodeReaders]:
    readers = NodeReaders()
    yield readers
    readers.close()


# =============================================================================================
# Comparing
# =============================================================================================


def canonical(value: Any) -> str:
    """Exact JSON for comparison: key order is not meaningful, everything else is."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=1)


def _replace_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in value)
    if isinstance(value, list):
        return [_replace_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_replace_lone_surrogates(key): _replace_lone_surrogates(item) for key, item in value.items()}
    return value


def official_as_this_project_reads_it(reading: Reading) -> Reading:
    """The official client's reading with :data:`KNOWN_DIFFERENCES` applied ("lone surrogate":
    a string off Node's JSON holds a surrogate code point only where it never paired)."""
    return Reading(
        reading.accepted,
        _replace_lone_surrogates(reading.messages),
        _replace_lone_surrogates(reading.state),
        reading.error,
        reading.notes,
    )


def without_predicted_keys(state: Any, events: Sequence[dict[str, Any]]) -> Any:
    """The view's state without the keys a PredictState event told it to predict
    (:data:`KNOWN_DIFFERENCES`, "predictive state")."""
    keys = {
        rule.get("state_key") or rule.get("stateKey")
        for event in events
        if event.get("type") == "CUSTOM" and event.get("name") == "PredictState" and isinstance(event.get("value"), list)
        for rule in event["value"]
        if isinstance(rule, dict)
    }
    if not keys or not isinstance(state, dict):
        return state
    return {key: value for key, value in state.items() if key not in keys}


def shown(value: Any) -> str:
    """One-line JSON in which a surrogate code point (a half that did not pair) stays visible as
    its escape while a paired character shows as itself."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return "".join(f"\\u{ord(char):04x}" if "\ud800" <= char <= "\udfff" else char for char in text)


def report(stream: Stream, kernel: Reading, view: Reading, official: Reading, wire: Sequence[dict[str, Any]]) -> str:
    """The stream and what each reader made of it, for a failure message."""

    def block(name: str, reading: Reading) -> list[str]:
        verdict = "accepted" if reading.accepted else f"rejected: {reading.error}"
        messages = reading.messages if isinstance(reading.messages, list) else [reading.messages]
        return [f"--- {name}: {verdict}", *(f"  {shown(m)}" for m in messages), f"  state: {shown(reading.state)}"]

    return "\n".join(
        [
            repr(stream),
            *block("kernel (EventConsumer)", kernel),
            *block("view (Mirror)", view),
            *block("official client (@ag-ui/client)", official),
            "--- widget wire to the view:",
            *(f"  {json.dumps(message, ensure_ascii=True)}" for message in wire),
            "--- kernel warnings:",
            *(f"  {note}" for note in kernel.notes[:10]),
            "--- Node warnings:",
            *(f"  {note}" for note in official.notes[:10]),
        ]
    )


def assert_agreement(stream: Stream, node: NodeReaders, flushes: Sequence[bool] = ()) -> None:
    """The three readers' verdicts, messages and states are the same (each check on its own line,
    so hypothesis reports each kind of disagreement as a distinct failure)."""
    run = read_with_kernel(stream)
    wire = wire_to_view(run, flushes)
    view, raw_official = node.read(wire, stream)
    official = official_as_this_project_reads_it(raw_official)
    kernel = run.reading
    view.state = without_predicted_keys(view.state, stream.events)
    explain = report(stream, kernel, view, raw_official, wire)

    assert kernel.accepted == official.accepted, f"the kernel and the official client disagree on the verdict\n{explain}"
    if stream.violation is not None:
        assert not kernel.accepted, f"both readers accepted a stream breaking: {stream.violation}\n{explain}"
    assert canonical(kernel.messages) == canonical(official.messages), f"kernel and official client: messages differ\n{explain}"
    assert canonical(kernel.state) == canonical(official.state), f"kernel and official client: states differ\n{explain}"
    assert canonical(view.messages) == canonical(kernel.messages), f"view and kernel: messages differ\n{explain}"
    assert canonical(view.state) == canonical(kernel.state), f"view and kernel: states differ\n{explain}"
    problems = unsendable(wire)
    assert not problems, "the kernel sends the view messages Jupyter cannot encode:\n" + "\n".join(problems) + f"\n{explain}"


# Where the kernel's batches are cut: a cyclic pattern, shrinking to one batch for the stream.
batch_cuts = st.lists(st.booleans(), max_size=6)


# =============================================================================================
# Valid streams: one test per area, then everything at once
# =============================================================================================

AREAS: dict[str, frozenset[str]] = {
    "text split anywhere, surrogate pairs included": frozenset(
        {streams_.TEXT, streams_.SPLIT_PAIRS, streams_.LONE_SURROGATES, streams_.REOPEN, streams_.RUN_ERRORS}
    ),
    "tool calls, their arguments and results": frozenset({streams_.TEXT, streams_.TOOLS, streams_.RESULTS, streams_.SPLIT_PAIRS}),
    "reasoning": frozenset({streams_.REASONING, streams_.TEXT, streams_.REOPEN}),
    "state snapshots and JSON Patch deltas": frozenset({streams_.STATE}),
    "messages snapshots": frozenset({streams_.SNAPSHOTS, streams_.TEXT, streams_.TOOLS, streams_.RESULTS, streams_.REASONING}),
    "the chunk shorthand": frozenset({streams_.CHUNKS, streams_.TEXT, streams_.TOOLS, streams_.REASONING, streams_.SPLIT_PAIRS}),
    "metadata on what streams build": frozenset(
        {streams_.METADATA, streams_.TEXT, streams_.TOOLS, streams_.RESULTS, streams_.REASONING}
    ),
    "surrogates wherever a string goes": frozenset(
        {
            streams_.SPLIT_PAIRS,
            streams_.LONE_SURROGATES,
            streams_.TEXT,
            streams_.TOOLS,
            streams_.RESULTS,
            streams_.STATE,
            streams_.SNAPSHOTS,
            streams_.METADATA,
        }
    ),
}


@pytest.mark.parametrize("area", list(AREAS))
@settings(PROFILE, max_examples=100)
@given(data=st.data())
def test_a_valid_stream_leaves_all_three_readers_in_agreement(node_readers: NodeReaders, area: str, data: st.DataObject) -> None:
    stream = data.draw(streams(AREAS[area]), label="stream")
    assert_agreement(stream, node_readers, data.draw(batch_cuts, label="batch cuts"))


# One failure at a time here: shrinking a stream that uses everything is the slow part, and the
# areas above report their own failures separately.
@settings(PROFILE, max_examples=300, report_multiple_bugs=False)
@given(stream=streams(), flushes=batch_cuts)
def test_a_valid_stream_using_every_feature_leaves_all_three_readers_in_agreement(
    node_readers: NodeReaders, stream: Stream, flushes: list[bool]
) -> None:
    assert_agreement(stream, node_readers, flushes)


def _run(*events: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": "RUN_STARTED", "threadId": "th", "runId": "r"},
        *events,
        {"type": "RUN_FINISHED", "threadId": "th", "runId": "r"},
    ]


def _assistant_with_call(message_id: str, call_id: str, content: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {
        "id": message_id,
        "role": "assistant",
        "toolCalls": [{"id": call_id, "type": "function", "function": {"name": "f", "arguments": ""}}],
    }
    if content is not None:
        message["content"] = content
    return message


# Disagreements the generated streams found, shrunk, kept so each is tried on every run.
FOUND: dict[str, Stream] = {
    "a null patch value and a null snapshot reach the view": Stream(
        [],
        {"a": 1},
        _run(
            {
                "type": "STATE_DELTA",
                "delta": [{"op": "test", "path": "/a", "value": 1}, {"op": "add", "path": "/b", "value": None}],
            },
            {"type": "STATE_SNAPSHOT", "snapshot": None},
        ),
    ),
    "an emoji split across two deltas": Stream(
        [],
        {},
        _run(
            {"type": "TEXT_MESSAGE_START", "messageId": "m0", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": "a\ud83d"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": "\ude00"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m0"},
        ),
    ),
    "a lone half in a content event's metadata": Stream(
        [], {}, _run({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m0", "delta": "", "metadata": {"k": "\ud83d"}})
    ),
    "a held half, then a messages snapshot replacing its text": Stream(
        [],
        {},
        _run(
            {"type": "TEXT_MESSAGE_START", "messageId": "m0", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": "a\ud83d"},
            {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m0", "role": "assistant", "content": "x"}]},
            {"type": "TEXT_MESSAGE_END", "messageId": "m0"},
        ),
    ),
    "a tool result reusing an assistant message's id": Stream(
        [_assistant_with_call("a0", "c0", "said")],
        {},
        _run({"type": "TOOL_CALL_RESULT", "messageId": "a0", "toolCallId": "c0", "content": "x"}),
    ),
    "a call without a parent whose id an assistant message has": Stream(
        [{"id": "t0", "role": "assistant", "content": "x"}],
        {},
        _run({"type": "TOOL_CALL_START", "toolCallId": "t0", "toolCallName": "f"}, {"type": "TOOL_CALL_END", "toolCallId": "t0"}),
    ),
    "text streamed into a user message of parts": Stream(
        [{"id": "u0", "role": "user", "content": [{"type": "text", "text": "a"}]}],
        {},
        _run(
            {"type": "TEXT_MESSAGE_START", "messageId": "u0", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "u0", "delta": "b"},
            {"type": "TEXT_MESSAGE_END", "messageId": "u0"},
        ),
    ),
    "a result for a call two messages hold goes after the first": Stream(
        [_assistant_with_call("a0", "c0"), {"id": "u1", "role": "user", "content": "x"}, _assistant_with_call("a1", "c0", "")],
        {},
        _run(
            {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "x"},
            {"type": "TEXT_MESSAGE_END", "messageId": "a1"},
            {"type": "TOOL_CALL_RESULT", "messageId": "r0", "toolCallId": "c0", "content": "ok"},
        ),
    ),
    "a snapshot naming an id two messages share": Stream(
        [{"id": "t0", "role": "assistant", "content": "a"}, {"id": "t0", "role": "assistant", "content": "b"}],
        {},
        _run(
            {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "t0", "role": "assistant"}]},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", "parentMessageId": "t0"},
            {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        ),
    ),
    "a chunk-built message closed by its own END": Stream(
        [],
        {},
        _run({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m0", "delta": "a"}, {"type": "TEXT_MESSAGE_END", "messageId": "m0"}),
        violation="a chunk-built message closed by its own END",
    ),
    "a reasoning message started without its role": Stream(
        [],
        {},
        _run({"type": "REASONING_MESSAGE_START", "messageId": "m0"}, {"type": "REASONING_MESSAGE_END", "messageId": "m0"}),
        violation="REASONING_MESSAGE_START without role",
    ),
}


@pytest.mark.parametrize("case", list(FOUND))
def test_each_disagreement_found_so_far_stays_fixed(node_readers: NodeReaders, case: str) -> None:
    assert_agreement(FOUND[case], node_readers)


# =============================================================================================
# Invalid streams: the kernel and the official client both reject them, at the same point
# =============================================================================================


# Surrogates are left out: what a split pair or a lone half does is the valid streams' business.
INVALID_STREAM_FEATURES = streams_.ALL_FEATURES - {streams_.SPLIT_PAIRS, streams_.LONE_SURROGATES}


@pytest.mark.parametrize("violation", streams_.VIOLATIONS)
@settings(PROFILE, max_examples=30)
@given(data=st.data())
def test_an_invalid_stream_is_rejected_by_the_kernel_and_the_official_client_alike(
    node_readers: NodeReaders, violation: str, data: st.DataObject
) -> None:
    stream = data.draw(streams(INVALID_STREAM_FEATURES, violation=violation, max_runs=2, max_steps=8), label="stream")
    assert_agreement(stream, node_readers, data.draw(batch_cuts, label="batch cuts"))


# =============================================================================================
# What this project's own adapters produce
# =============================================================================================


def _user(text: str) -> dict[str, Any]:
    return {"id": "user-1", "role": "user", "content": text}


TODOS = {"todos": [{"text": "buy milk", "done": False}]}

# A prompt for each scenario of agui_widget/adapters/_demo.py, with the state it starts from.
DEMO_TURNS: dict[str, dict[str, Any]] = {
    "hello": {},
    "help": {},
    "weather in Oslo": {},
    "add buy milk": {},
    "add eggs": TODOS,
    "done 1": TODOS,
    "show my list": TODOS,
    "delete my list": TODOS,
    "plan a trip": {},
    "think about it": {},
    "markdown": {},
    "write a document about tea": {},
    "ask a sub-agent": {},
    "activity": {},
    "suggest": {},
    "make it teal": {},
    "fail": {},
}


async def _demo_stream(prompt: str, state: dict[str, Any]) -> Stream:
    """The demo agent's events for one user turn, as it would put them on the wire; the seed is
    that turn's user message and the state the scenario needs."""
    agent = DemoAgent(delay=0)
    messages = [_user(prompt)]
    tools = [tool.to_agui().model_dump(mode="json", by_alias=True) for tool in agent.frontend_tools]
    run_input = RunAgentInput.model_validate(
        {
            "threadId": "thread-demo",
            "runId": "run-demo",
            "messages": messages,
            "state": copy.deepcopy(state),
            "tools": tools,
            "context": [],
            "forwardedProps": {},
        }
    )
    events = [event.model_dump(mode="json", by_alias=True) async for event in agent.run(run_input)]
    return Stream(messages, copy.deepcopy(state), events)


@pytest.mark.parametrize("prompt", list(DEMO_TURNS))
def test_the_demo_agents_stream_leaves_all_three_readers_in_agreement(node_readers: NodeReaders, prompt: str) -> None:
    stream = asyncio.run(_demo_stream(prompt, DEMO_TURNS[prompt]))
    assert_agreement(stream, node_readers)


async def _langchain_stream(prompt: str, *replies: Any) -> Stream:
    """A LangChain ``create_agent`` agent's events (a scripted fake model, the weather tool)."""
    from langchain.agents import create_agent

    from agui_widget.adapters.langchain import LangChainAgent

    from .langchain_fakes import get_weather, model
    from .support import make_input

    run_input = make_input(prompt)
    agent = LangChainAgent(create_agent(model(*replies), [get_weather]))
    events = [event.model_dump(mode="json", by_alias=True) async for event in agent.run(run_input)]
    messages = [message.model_dump(mode="json", by_alias=True) for message in run_input.messages]
    return Stream(messages, copy.deepcopy(run_input.state), events)


LANGCHAIN_TURNS = (
    "a plain answer",
    "a tool call, its result, then the answer",
    "reasoning, then an answer",
    "two tool calls at once",
)


def _langchain_replies(turn: str) -> tuple[Any, ...]:
    """What the fake model says in ``turn`` (imported late: LangChain is an optional extra)."""
    from .langchain_fakes import ai, call

    return {
        "a plain answer": ("Hello there, how can I help?",),
        "a tool call, its result, then the answer": (
            ai("Let me check.", call("get_weather", {"city": "Paris"}, "c1")),
            "It is sunny in Paris.",
        ),
        "reasoning, then an answer": (ai("Sunny, I think.", reasoning="The user asks about weather."),),
        "two tool calls at once": (
            ai("", call("get_weather", {"city": "Oslo"}, "c1"), call("get_weather", {"city": "Rome"}, "c2")),
            "Oslo and Rome are both sunny 😀.",
        ),
    }[turn]


@pytest.mark.parametrize("turn", LANGCHAIN_TURNS)
def test_a_langchain_agents_stream_leaves_all_three_readers_in_agreement(node_readers: NodeReaders, turn: str) -> None:
    stream = asyncio.run(_langchain_stream("weather?", *_langchain_replies(turn)))
    assert_agreement(stream, node_readers)


async def _events_of(agent: Any, prompt: str) -> Stream:
    """Any agent's events for one user turn, as it would put them on the wire."""
    from .support import make_input

    run_input = make_input(prompt)
    events = [event.model_dump(mode="json", by_alias=True) async for event in agent.run(run_input)]
    messages = [message.model_dump(mode="json", by_alias=True) for message in run_input.messages]
    return Stream(messages, copy.deepcopy(run_input.state), events)


def _langroid_agent(turn: str) -> Any:
    """A Langroid ChatAgent on a scripted model (imported late: Langroid is an optional extra)."""
    import langroid as lr

    from agui_widget.adapters.langroid import LangroidAgent

    from .langroid_fakes import Recorder, Reply, ToolCall, make_agent

    class Weather(lr.ToolMessage):
        request: str = "get_weather"
        purpose: str = "Get the weather in <city>."
        city: str

        def handle(self) -> str:
            return json.dumps({"city": self.city, "sky": "clear 😀"})

    replies = {
        "a streamed answer": lambda turn: Reply("Hello there 👋, how can I help?"),
        "two tool calls, their results, then the answer": lambda turn: (
            Reply(f"Results: {turn.tool_result}")
            if turn.after_tool
            else Reply(
                "Let me look.", tool_calls=[ToolCall("get_weather", {"city": "Oslo"}), ToolCall("get_weather", {"city": "Rome"})]
            )
        ),
    }
    return LangroidAgent(make_agent(Recorder(replies[turn]), tools=[Weather]))


@pytest.mark.parametrize("turn", ["a streamed answer", "two tool calls, their results, then the answer"])
def test_a_langroid_agents_stream_leaves_all_three_readers_in_agreement(node_readers: NodeReaders, turn: str) -> None:
    stream = asyncio.run(_events_of(_langroid_agent(turn), "weather?"))
    assert_agreement(stream, node_readers)


def _words(messages: list[dict[str, Any]]) -> Iterator[str]:
    yield from ["one ", "tw", "o 😀", " three"]


def _echo(messages: list[dict[str, Any]]) -> str:
    return "you said " + str(messages[-1]["content"])


@pytest.mark.parametrize("fn", [_words, _echo], ids=["a generator", "a function"])
def test_a_plain_functions_stream_leaves_all_three_readers_in_agreement(node_readers: NodeReaders, fn: Any) -> None:
    from agui_widget.adapters import as_agent

    stream = asyncio.run(_events_of(as_agent(fn), "hi"))
    assert_agreement(stream, node_readers)
