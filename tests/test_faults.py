"""Fault injection in a real kernel: what the chat promises when things go wrong.

1. A stop at any moment (before the first event, right after the run started, after a random
   number of events, after a random delay, from a view) leaves the chat idle, with every tool call
   answered once, able to run again, and without tasks left behind; for every adapter kind.
2. A cell awaiting a run that is interrupted (the kernel's interrupt, an ``asyncio.wait_for``
   timeout) does not jam the chat.
3. A view's comm closed mid-run does not disturb the run.
4. Fuzzed view messages and view writes to kernel-owned traits never raise in the kernel, never
   change what the kernel owns, and are refused with a ``notice`` when they are refused.
5. An agent that raises or hangs at any stage, or swallows ``CancelledError``, still lets its run
   end, leaves no tool call unanswered, and leaves views with the kernel's transcript.

One kernel serves the whole module and every scenario runs in chats of its own. Every wait is
bounded, and every random choice comes from ``random.Random`` seeded from ``SEED`` (set
``AGUI_FAULT_SEED`` to try others); a failure names its scenario and the seed. The agents and the
kernel-side drivers are in tests/fault_agents.py. Each test checks all its scenarios before it
fails, and its message lists every scenario that broke a promise.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any, get_args

import pytest
import pytest_asyncio

from agui_widget.wire import _requests
from agui_widget.wire._codec import REQUEST_KINDS

from .kernel_harness import ExecResult, FakeFrontEnd, Mark, ViewMirror, WidgetComm, transcript

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]

SEED = int(os.environ.get("AGUI_FAULT_SEED", "20250611"))

STOP_GRACE = 2.0
"""Seconds a stopped turn may take to be over."""
FOLLOW_UP_TIMEOUT = 15.0
"""Seconds the turn after a fault may take (a LangChain or Langroid turn takes well under one)."""
JAMMED_FOLLOW_UP_TIMEOUT = 3.0
"""The same, for a chat already seen stuck: enough to see it recover, not to wait on it."""
TASK_GRACE = 2.0
"""Seconds background closers get to finish before a task counts as left behind."""
SWALLOW_GRACE = 3.5
"""Seconds a stopped turn may take when its agent swallows the cancellation: the chat may give such
an agent a moment to unwind, but must end the turn well before the agent gives up by itself (6 s)."""

ADAPTER_KINDS = ["callable", "ag_ui", "langchain", "langroid"]
RANDOM_STOPS_PER_KIND = 6
PROMPT = "weather in Paris?"

KERNEL_SETUP = """\
import asyncio, json
from agui_widget import AgentChat, ask_tool
from tests import fault_agents as fa
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kernel() -> AsyncIterator[FakeFrontEnd]:
    """One kernel for the module: starting one takes seconds, a fresh chat takes milliseconds."""
    async with FakeFrontEnd.running() as front:
        await front.execute(KERNEL_SETUP)
        yield front


# -- helpers ----------------------------------------------------------------------------------------


async def new_chat(fe: FakeFrontEnd, code: str) -> WidgetComm:
    """Run ``code``, which binds ``chat`` in the kernel, and return that chat's comm."""
    return await fe.create_widget(code, timeout=60)


async def connect_view(fe: FakeFrontEnd, comm: WidgetComm, view_id: str) -> ViewMirror:
    """Say ``hello`` as a view and wait for the snapshot addressed to it."""
    fe.send_custom(comm, {"kind": "hello", "viewId": view_id})
    await fe.wait_for(
        lambda: any(s.get("viewId") == view_id for s in comm.of_kind("snapshot")), 10, f"the snapshot for {view_id}"
    )
    return ViewMirror(view_id)


def notices_since(comm: WidgetComm, count: int) -> list[dict[str, Any]]:
    return [c for c in comm.customs[count:] if isinstance(c, dict) and c.get("kind") == "notice"]


def problems_besides(fe: FakeFrontEnd, since: Mark, *cells: ExecResult) -> list[str]:
    """The kernel's tracebacks since ``since``, less the errors of ``cells`` (interrupted on purpose)."""
    found = fe.problems(since)
    for cell in cells:
        if cell.error:
            own = f"{cell.error.get('ename')}: {cell.error.get('evalue')}"
            if own in found:
                found.remove(own)
    return found


def turn_report_problems(report: dict[str, Any], *, status: str = "idle") -> list[str]:
    """What is wrong with a chat that should be at rest in ``status``."""
    problems = []
    if report["status"] != status:
        problems.append(f"chat.status is {report['status']!r}, not {status!r} (chat.error: {report['error']!r})")
    if report["active_run"] is not None:
        problems.append(f"chat.active_run is still {report['active_run']}")
    if report["unanswered"]:
        problems.append(f"tool calls not answered by exactly one tool message (id: answers): {report['unanswered']}")
    return problems


async def follow_up_problems(fe: FakeFrontEnd, jammed: bool) -> list[str]:
    """The next ``chat.send`` must finish, and leave the chat idle with every call answered."""
    timeout = JAMMED_FOLLOW_UP_TIMEOUT if jammed else FOLLOW_UP_TIMEOUT
    follow = await fe.evaluate(f"await fa.follow_up(chat, 'and tomorrow?', {timeout})", timeout=timeout + 30)
    if follow["status"] != "finished":
        return [
            f"the next send did not finish within {timeout} s: its status is {follow['status']!r}, "
            f"error {follow['error']!r}; chat {follow['report']}"
        ]
    return [f"after the next send: {p}" for p in turn_report_problems(follow["report"])]


@contextlib.contextmanager
def deeper_recursion(limit: int = 10_000) -> Iterator[None]:
    """Serialising a 1000-deep payload in this process needs more than the default recursion limit."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def nested(depth: int, leaf: Any = "leaf") -> Any:
    """A JSON value ``depth`` containers deep, lists and objects in turn."""
    value = leaf
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


def fail_with(title: str, failures: list[str]) -> None:
    assert not failures, f"{title} (seed {SEED}):\n  - " + "\n  - ".join(failures)


# -- 1. stops at random moments, for each adapter kind ---------------------------------------------


def stop_moments(rng: random.Random, events: int, seconds: float) -> list[tuple[str, float]]:
    """Before the first event, right after the run started, then random ones within the run."""
    moments: list[tuple[str, float]] = [("at_once", 0), ("after_start", 0)]
    for _ in range(RANDOM_STOPS_PER_KIND):
        moment = rng.choice(["after_events", "after_events", "after_delay", "view"])
        if moment == "after_events":
            moments.append((moment, rng.randint(1, max(1, events - 2))))
        else:
            moments.append((moment, round(rng.uniform(0.0, seconds * 0.9), 3)))
    return moments


@pytest.mark.parametrize("kind", ADAPTER_KINDS)
async def test_a_stop_at_any_moment_leaves_the_chat_idle_answered_and_usable(kernel: FakeFrontEnd, kind: str) -> None:
    """Stop is the user's emergency exit: wherever it lands, the chat must come back whole."""
    fe = kernel
    rng = random.Random(f"{SEED}:stops:{kind}")
    await new_chat(fe, f"chat = AgentChat(fa.make_agent({kind!r}))")
    calibration = await fe.evaluate(f"await fa.calibrate(chat, {PROMPT!r})", timeout=90)
    assert calibration["status"] == "finished", f"{kind}: an undisturbed turn did not finish: {calibration}"
    failures: list[str] = []
    for number, (moment, value) in enumerate(stop_moments(rng, calibration["events"], calibration["seconds"])):
        scenario = f"{kind} stop #{number} {moment}({value})"
        failures += [f"{scenario}: {p}" for p in await stop_scenario(fe, kind, moment, value)]
    fail_with(f"{kind}: stops that broke the chat", failures)


async def stop_scenario(fe: FakeFrontEnd, kind: str, moment: str, value: float) -> list[str]:
    comm = await new_chat(
        fe,
        "switch = fa.StopSwitch()\n"
        f"chat = AgentChat(fa.make_agent({kind!r}), on_event=switch)\n"
        "scenario = fa.StopScenario(chat, switch)\n",
    )
    await fe.evaluate(f"await scenario.start({moment!r}, {value!r}, {PROMPT!r})", timeout=60)
    if moment == "view":
        await asyncio.sleep(value)
        fe.send_custom(comm, {"kind": "stop"})
    outcome = await fe.evaluate(f"await scenario.outcome({STOP_GRACE})", timeout=60)
    report = outcome["report"]
    problems = []
    if not outcome["ended"]:
        problems.append(f"the turn was not over {STOP_GRACE} s after the stop (turn status {outcome['run_status']!r})")
    problems += turn_report_problems(report)
    surely_mid_run = moment in ("at_once", "after_start", "after_events")
    if surely_mid_run or outcome["run_status"] != "finished":
        recorded = (outcome["run_status"], outcome["last_event"], outcome["last_outcome"])
        if recorded != ("cancelled", "RUN_FINISHED", "cancelled"):
            problems.append(
                "the stopped turn is not recorded as cancelled (turn status, its last event, outcome): "
                f"{recorded}, expected ('cancelled', 'RUN_FINISHED', 'cancelled')"
            )
    problems += await follow_up_problems(fe, jammed=bool(problems))
    leftovers = await fe.evaluate(f"await scenario.leftover_tasks({TASK_GRACE})", timeout=30)
    if leftovers:
        problems.append(f"asyncio tasks left behind after {TASK_GRACE} s: {leftovers}")
    return problems


# -- 2. a cell awaiting a run is interrupted --------------------------------------------------------


@pytest.mark.parametrize("how", ["kernel_interrupt", "wait_for_timeout"])
async def test_an_interrupted_cell_awaiting_a_run_does_not_jam_the_chat(kernel: FakeFrontEnd, how: str) -> None:
    """An awaiter giving up is not a stop: the run goes on (or a stop ends it) and the chat stays usable."""
    fe = kernel
    rng = random.Random(f"{SEED}:interrupt:{how}")
    comm = await new_chat(fe, "chat = AgentChat(fa.streaming_function(words=30, delay=0.05))")  # about 1.5 s
    mark = fe.mark()
    if how == "kernel_interrupt":
        cell = fe.submit("run = await chat.send('take your time')")
        await fe.wait_for(lambda: comm.state.get("status") == "running" and comm.events(), 10, "the run to stream")
        await asyncio.sleep(round(rng.uniform(0.05, 0.5), 3))
        await fe.interrupt()
        cell = await fe.finish(cell, timeout=15)
        expected = {"KeyboardInterrupt", "CancelledError"}
    else:
        cell = await fe.execute("await asyncio.wait_for(chat.send('take your time'), 0.2)", check=False, timeout=15)
        expected = {"TimeoutError"}
    scenario = f"{how} (seed {SEED})"
    ename = (cell.error or {}).get("ename")
    assert cell.status == "error" and ename in expected, (
        f"{scenario}: the awaiting cell should have ended with one of {sorted(expected)}, "
        f"it ended {cell.status!r} with {ename!r}: {cell.stdout}{cell.stderr}"
    )

    after = await fe.evaluate("await fa.after_interrupt(chat, finish_within=4.0, stop_grace=2.0)", timeout=30)
    failures = []
    if not after["ended"]:
        failures.append(
            f"the run neither finished by itself within 4 s nor ended within 2 s of chat.stop(): "
            f"turn {after['turn']} (status {after['turn_status']!r})"
        )
    failures += turn_report_problems(after["report"])
    failures += await follow_up_problems(fe, jammed=bool(failures))
    failures += [f"the kernel printed a traceback: {p}" for p in problems_besides(fe, mark, cell)]
    fail_with(f"{scenario}: the interrupted await jammed the chat", failures)


# -- 3. a view's comm closed mid-run ---------------------------------------------------------------


COMM_CLOSE_AGENTS = {
    "ag_ui tool call": "fa.FaultAgent(delay=0.02)",
    "callable": "fa.streaming_function(words=40, delay=0.02)",
}


async def test_a_view_comm_closed_mid_run_does_not_disturb_the_run(kernel: FakeFrontEnd) -> None:
    """A tab closing is not the kernel's problem: the run finishes and the transcript is whole."""
    fe = kernel
    failures: list[str] = []
    for name, agent in COMM_CLOSE_AGENTS.items():
        expected = await fe.evaluate(f"await fa.reference_shape({agent}, {PROMPT!r})", timeout=60)
        comm = await new_chat(fe, f"chat = AgentChat({agent})")
        await connect_view(fe, comm, "closing-view")
        mark = fe.mark()
        await fe.execute(f"run = chat.send({PROMPT!r})")
        await fe.wait_for(lambda: any(e.get("type") == "TEXT_MESSAGE_CONTENT" for e in comm.events()), 10, "the first tokens")
        fe.close_comm(comm)
        outcome = await fe.evaluate("await fa.run_outcome(chat, run, 15)", timeout=60)
        problems = []
        if outcome["status"] != "finished":
            problems.append(f"the run ended {outcome['status']!r} (error {outcome['error']!r}), not 'finished'")
        problems += turn_report_problems(outcome["report"])
        if outcome["shape"] != expected:
            problems.append(f"chat.messages is not the whole turn:\n    got      {outcome['shape']}\n    expected {expected}")
        problems += await follow_up_problems(fe, jammed=bool(problems))
        problems += [f"the kernel printed a traceback: {p}" for p in fe.problems(mark)]
        failures += [f"{name}: {p}" for p in problems]
    fail_with("closing the view's comm mid-run disturbed the chat", failures)


# -- 4. fuzzed view messages, trait writes included ---------------------------------------------------


NOT_FUZZED = {
    "run_code": "it runs the code it carries, as the user's Run asks: random code fails as code, with a traceback, not as a request",
}


def declared_request_fields() -> dict[str, list[str]]:
    """Every request kind the wire declares (wire/_requests.py) with its fields' wire names, so a
    kind added later is fuzzed too."""
    models = [
        model
        for model in vars(_requests).values()
        if isinstance(model, type) and issubclass(model, _requests._Request) and model is not _requests._Request
    ]
    fields = {
        get_args(model.model_fields["kind"].annotation)[0]: [
            info.alias or name for name, info in model.model_fields.items() if name != "kind"
        ]
        for model in models
    }
    assert set(fields) == set(REQUEST_KINDS), "every declared request kind is found"
    return {kind: names for kind, names in fields.items() if kind not in NOT_FUZZED}


REQUEST_FIELDS = declared_request_fields()
LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d"]
FUZZ_MESSAGES = 150
DEEP = 1000
"""About as deep as a Jupyter message can carry (its JSON parser stops at 1024 levels)."""


def random_text(rng: random.Random, surrogates: bool = True) -> str:
    alphabet = "abc xyz 0123 é ü ß 中文 🙂 \n\t\"'\\<>{}"
    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
    if surrogates and rng.random() < 0.2:
        cut = rng.randint(0, len(text))
        text = text[:cut] + rng.choice(LONE_SURROGATES) + text[cut:]
    return text


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """A JSON value of any type: scalars, odd numbers and texts, containers, now and then deep ones."""
    choice = rng.randint(0, 11 if depth < 3 else 7)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 2**31, 2**63 - 1, -(2**63)])
    if choice == 3:
        return rng.choice([0.5, -1e308, 1e-308, 3.14159])
    if choice in (4, 5, 6):
        return random_text(rng)
    if choice == 7:
        return ""
    if choice == 8:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if choice == 9:
        return {random_text(rng, surrogates=False): random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    if choice == 10:
        return "x" * rng.choice([70_000, 1_000_001, 1_500_000])
    return nested(rng.randint(20, 200))


def random_request(rng: random.Random) -> Any:
    """One message a broken or hostile view could send."""
    roll = rng.random()
    if roll < 0.12:  # not an object at all
        return rng.choice([None, True, 12, -3.5, "send", "", [1, 2, 3], [{"kind": "stop"}], random_text(rng)])
    if roll < 0.25:  # an unknown kind, or a kind that is not a string
        kind = rng.choice([random_text(rng), "SEND", "send ", "stop!", 7, None, ["send"], {"kind": "send"}])
        return {"kind": kind, "text": random_text(rng), "payload": random_value(rng)}
    kind = rng.choice(sorted(REQUEST_FIELDS))
    message: dict[str, Any] = {"kind": kind}
    if roll < 0.45:  # the right fields, of plausible types
        plausible = {
            "viewId": f"view-{rng.randint(0, 9)}",
            "text": random_text(rng) or "hi",
            "toolCallId": f"call-{rng.randint(0, 9)}",
            "result": random_value(rng),
            "interruptId": f"interrupt-{rng.randint(0, 9)}",
            "status": rng.choice(["resolved", "cancelled"]),
            "payload": random_value(rng),
            "patch": [
                {"op": rng.choice(["add", "replace", "remove"]), "path": f"/k{rng.randint(0, 3)}", "value": random_value(rng)}
            ],
            "messageId": f"user-{rng.randint(0, 9)}",
            "name": rng.choice(["vega", "default", "nobody"]),
        }
        message.update({field: plausible[field] if field in plausible else random_value(rng) for field in REQUEST_FIELDS[kind]})
    elif roll < 0.85:  # the right fields, of any type
        message.update({field: random_value(rng) for field in REQUEST_FIELDS[kind]})
    else:  # a field ~1000 levels deep (and nothing else odd: Jupyter's fallback JSON parser could not read it)
        fields = REQUEST_FIELDS[kind] or ["extra"]
        message[rng.choice(fields)] = nested(DEEP - rng.randint(0, 10))
        return message
    if rng.random() < 0.1:
        message[random_text(rng, surrogates=False) or "extra"] = random_value(rng)
    return message


KERNEL_OWNED_TRAITS: dict[str, list[Any]] = {
    # trait: [a value of the right type a view should not be able to set, a value of a wrong type]
    "status": ["idle", 42],
    "error": ["written by a view", ["not", "text"]],
    "thread_id": ["thread-from-a-view", None],
    "run_id": ["run-from-a-view", 7],
    "queued": [[{"id": "q-1", "text": "injected"}], "not a list"],
    "pending": [[], {"not": "a list"}],
    "frontend_tools": [[], 3],
    "agent_names": [["intruder"], [1, 2]],
    "agent_name": ["intruder", False],
    "suggestions": [[{"title": "From a view", "message": "injected"}], "not a list"],
    "suggestions_after": ["message-from-a-view", 1],
    "predict_state": [[], [{"no": "rule"}]],
    "saved_output_id": ["output-from-a-view", 1.5],
}


async def test_fuzzed_view_messages_and_trait_writes_never_break_the_chat(kernel: FakeFrontEnd) -> None:
    """A view is outside the kernel's trust: nothing it sends may raise, jam, or overwrite the kernel's truth."""
    fe = kernel
    rng = random.Random(f"{SEED}:fuzz")
    failures: list[str] = []
    failures += [f"random requests: {p}" for p in await fuzz_random_requests(fe, rng)]
    failures += [f"refused requests: {p}" for p in await refused_requests_get_a_notice(fe)]
    failures += [f"lone surrogates: {p}" for p in await lone_surrogates_in_send(fe)]
    failures += [f"deep tool_result: {p}" for p in await deep_tool_result(fe)]
    failures += [f"trait writes: {p}" for p in await trait_writes(fe)]
    fail_with("view messages that broke the kernel's promises", failures)


async def fuzz_random_requests(fe: FakeFrontEnd, rng: random.Random) -> list[str]:
    comm = await new_chat(fe, "chat = AgentChat(fa.streaming_function(words=3, delay=0.001))")
    problems = []
    with deeper_recursion():
        for number in range(FUZZ_MESSAGES):
            request = random_request(rng)
            mark = fe.mark()
            fe.send_custom(comm, request, ascii_json=True)
            await fe.execute("pass", timeout=60)  # the shell channel is in order: the request was handled
            problems += [
                f"request #{number} {_short(request, 160)}: the kernel printed a traceback: {_short(p, 400)}"
                for p in fe.problems(mark)
            ]
    settled = await fe.evaluate("await fa.settle(chat, 20)", timeout=60)
    if not settled["ended"]:
        problems.append(f"the chat did not settle within 20 s after the requests: {settled['report']}")
    problems += await follow_up_problems(fe, jammed=not settled["ended"])
    return problems


async def refused_requests_get_a_notice(fe: FakeFrontEnd) -> list[str]:
    comm = await new_chat(fe, "chat = AgentChat(fa.streaming_function(words=3, delay=0.001))")
    refused = [
        {"kind": "tool_result", "toolCallId": "no-such-call", "result": {"answer": 1}},
        {"kind": "resume", "interruptId": "no-such-interrupt", "status": "resolved"},
        {"kind": "edit", "messageId": "no-such-message", "text": "hi"},
        {"kind": "state_edit", "patch": [{"op": "remove", "path": "/no/such/key"}]},
        {"kind": "select_agent", "name": "nobody"},
        {"kind": "regenerate"},
    ]
    problems = []
    for request in refused:
        mark, count = fe.mark(), len(comm.customs)
        fe.send_custom(comm, request)
        await fe.execute("pass")
        if not notices_since(comm, count):
            problems.append(f"{request} was refused without a notice")
        problems += [f"{request['kind']}: the kernel printed a traceback: {_short(p)}" for p in fe.problems(mark)]
    return problems


async def lone_surrogates_in_send(fe: FakeFrontEnd) -> list[str]:
    comm = await new_chat(fe, "chat = AgentChat(fa.streaming_function(words=3, delay=0.001))")
    await connect_view(fe, comm, "surrogate-view")
    problems = []
    for text in ["hi \ud800 there", "\udfff", "split \ud83d", "\ude00 late half"]:
        mark, count = fe.mark(), len(comm.customs)
        users_before = (await fe.evaluate("[m['role'] for m in chat.messages]")).count("user")
        fe.send_custom(comm, {"kind": "send", "text": text}, ascii_json=True)
        await fe.execute("pass")
        settled = await fe.evaluate("await fa.settle(chat, 10)", timeout=30)
        accepted = settled["report"]["roles"].count("user") > users_before
        if not notices_since(comm, count) and not accepted:
            problems.append(f"send {text!r} was neither taken nor refused with a notice")
        problems += [f"send {text!r}: the kernel printed a traceback: {_short(p)}" for p in fe.problems(mark)]
        unencodable = await fe.evaluate("fa.utf8_problems(chat)")
        if unencodable:
            problems.append(f"send {text!r} left text UTF-8 cannot carry in the chat: {unencodable}")
        if not settled["ended"]:
            problems.append(f"send {text!r}: the chat did not settle: {settled['report']}")
    problems += await follow_up_problems(fe, jammed=bool(problems))
    return problems


async def deep_tool_result(fe: FakeFrontEnd) -> list[str]:
    comm = await new_chat(fe, "chat = AgentChat(fa.FrontendToolAgent(), tools=[ask_tool()])")
    await fe.execute("run = chat.send('ask me something')")
    pending = await fe.wait_for_trait(comm, "pending", lambda p: bool(p), 10)
    call_id = pending[0]["toolCallId"]
    mark, count = fe.mark(), len(comm.customs)
    with deeper_recursion():
        fe.send_custom(comm, {"kind": "tool_result", "toolCallId": call_id, "result": nested(DEEP)})
    await fe.execute("pass")
    problems = [f"the kernel printed a traceback: {_short(p)}" for p in fe.problems(mark)]
    still_pending = await fe.evaluate("[p['toolCallId'] for p in chat.pending_tool_calls]")
    answers = (await fe.evaluate("fa.tool_call_answers(chat.messages)")).get(call_id, 0)
    if call_id in still_pending:
        if answers:
            problems.append(f"the call is still pending, yet {answers} tool message(s) answer it in chat.messages")
        if not notices_since(comm, count):
            problems.append("the kernel did not take the 1000-deep result, and said nothing (no notice)")
        fe.send_custom(comm, {"kind": "tool_result", "toolCallId": call_id, "result": {"answer": "Paris"}})
        await fe.execute("pass")
    elif answers != 1:
        problems.append(
            f"the call is no longer pending (chat.pending_tool_calls: {still_pending}) but {answers} tool messages answer it"
        )
    outcome = await fe.evaluate("await fa.run_outcome(chat, run, 10)", timeout=30)
    if outcome["status"] != "finished":
        problems.append(
            f"the call could not be answered after the deep result: turn {outcome['status']!r} "
            f"(error {outcome['error']!r}), chat {outcome['report']}"
        )
    else:
        problems += turn_report_problems(outcome["report"])
    return problems


async def trait_writes(fe: FakeFrontEnd) -> list[str]:
    comm = await new_chat(
        fe,
        "chat = AgentChat(fa.FrontendToolAgent(), tools=[ask_tool()], suggestions=['Hello there'],\n"
        "                 predict_state=[{'state_key': 'question', 'tool': 'ask', 'tool_argument': 'question'}])\n"
        "run = chat.send('ask me something')\n",
    )
    await fe.wait_for_trait(comm, "pending", lambda p: bool(p), 10)  # waiting: most traits have a value
    names = sorted(KERNEL_OWNED_TRAITS)
    problems = []
    for name in names:
        before = await fe.evaluate(f"chat.{name}")
        sent = await fe.evaluate(f"chat.get_state({name!r})[{name!r}]")  # as views get it (camelCase payloads)
        for foreign in KERNEL_OWNED_TRAITS[name]:
            mark, updates = fe.mark(), len(comm.updates)
            fe.send_update(comm, {name: foreign})
            await fe.execute("pass")
            after = await fe.evaluate(f"chat.{name}")
            write = f"{name} = {foreign!r}"
            if after != before:
                problems.append(f"a view's {write} changed the kernel's value from {before!r} to {after!r}")
            told = [u[name] for u in comm.updates[updates:] if name in u]
            if sent not in told or comm.state.get(name) != sent:
                problems.append(
                    f"after a view's {write}, the view was not told the kernel's value {sent!r} "
                    f"(updates it got for {name}: {told})"
                )
            problems += [f"{write}: the kernel printed a traceback: {_short(p)}" for p in fe.problems(mark)]
    untouched = await fe.evaluate("[chat.messages, chat.state]")
    mark = fe.mark()
    fe.send_update(comm, {"messages": [], "state": {"from": "a view"}})
    await fe.execute("pass")
    if await fe.evaluate("[chat.messages, chat.state]") != untouched:
        problems.append("an update message writing the unsynced messages and state traits changed them")
    problems += [f"messages/state update: the kernel printed a traceback: {_short(p)}" for p in fe.problems(mark)]
    answered = await fe.evaluate(
        "chat.respond(chat.pending_tool_calls[0]['toolCallId'], {'answer': 'Paris'}) if chat.pending_tool_calls else 'nothing pending'"
    )
    if answered == "nothing pending":
        problems.append("the pending frontend tool call was gone after the trait writes")
    outcome = await fe.evaluate("await fa.run_outcome(chat, run, 10)", timeout=30)
    if outcome["status"] != "finished":
        problems.append(f"the chat did not finish its turn after the trait writes: {outcome['status']!r}, {outcome['report']}")
    else:
        problems += turn_report_problems(outcome["report"])
    return problems


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


# -- 5. agents that raise or hang at every stage, or swallow cancellation ------------------------------


FAULT_STAGES = ["before_first_event", "after_run_started", "mid_text", "mid_tool_args", "after_tool_result"]


async def test_an_agent_that_raises_hangs_or_swallows_cancellation_never_breaks_the_chat(kernel: FakeFrontEnd) -> None:
    """The agent is the least trusted code in the chat: whatever it does, the run ends and the chat recovers."""
    fe = kernel
    scenarios = [(stage, mode) for mode in ("raise", "hang") for stage in FAULT_STAGES]
    scenarios += [("keeps_yielding", "swallow"), ("keeps_sleeping", "swallow")]
    failures: list[str] = []
    for stage, mode in scenarios:
        agent = f"fa.CancelSwallowingAgent({stage!r})" if mode == "swallow" else f"fa.FaultAgent({stage!r}, {mode!r})"
        failures += [f"{mode} {stage}: {p}" for p in await fault_scenario(fe, agent, stage, mode)]
    fail_with("agent faults the chat did not survive", failures)


async def fault_scenario(fe: FakeFrontEnd, agent: str, stage: str, mode: str) -> list[str]:
    comm = await new_chat(fe, f"agent = {agent}\nchat = AgentChat(agent)")
    view = await connect_view(fe, comm, "fault-view")
    grace = {"raise": 5.0, "hang": STOP_GRACE, "swallow": SWALLOW_GRACE}[mode]
    outcome = await fe.evaluate(f"await fa.provoke(chat, agent, {mode!r}, 5.0, {grace})", timeout=60)
    report = outcome["report"]
    problems = []
    if not outcome["reached"]:
        problems.append("the agent never got to its fault (the scenario did not happen)")
    if not outcome["ended"]:
        after = "after the agent raised" if mode == "raise" else "after chat.stop()"
        problems.append(f"the turn was not over {grace} s {after}: turn status {outcome['run_status']!r}")
    if mode == "raise":
        problems += turn_report_problems(report, status="error")
        error = report["error"] or ""
        if f"at {stage}" not in error or "Traceback" in error:
            problems.append(f"chat.error does not say what went wrong in readable words: {error!r}")
    else:
        problems += turn_report_problems(report)
        if outcome["run_status"] != "cancelled":
            problems.append(f"the stopped turn's status is {outcome['run_status']!r}, not 'cancelled'")
    jammed = bool(problems)
    problems += await follow_up_problems(fe, jammed=jammed and mode != "swallow")
    kernel_messages = await fe.evaluate("chat.messages")
    if view.feed(comm).transcript() != transcript(kernel_messages):
        problems.append(
            "a view that followed the wire does not hold the kernel's transcript:\n"
            f"    view   {view.transcript()}\n    kernel {transcript(kernel_messages)}"
        )
    return problems
