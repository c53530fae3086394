"""The kernel side of tests/test_faults.py: agents that misbehave on purpose, and what the tests
read back from a chat.

The kernel a fault test starts imports this module (the repository is on its ``PYTHONPATH``). It
holds the agents of every adapter kind the tests stop at random moments (a plain function, an AG-UI
agent that streams a tool call in many small argument deltas, a LangChain ``create_agent`` agent and
a Langroid agent, both on their scripted fake models), agents that raise, hang or swallow
``asyncio.CancelledError`` at a chosen stage, and small drivers that run a scenario inside the
kernel and return plain JSON values for the test process to judge. No driver awaits a ``Run``
itself: awaiting one from a task that may be cancelled is one of the faults under test, so the
drivers poll ``Run.done`` with a deadline instead.

LangChain and Langroid are imported only by the builders that need them.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

STAGES = ("before_first_event", "after_run_started", "mid_text", "mid_tool_args", "after_tool_result")
"""Where a :class:`FaultAgent` misbehaves in its first run."""


class AgentFault(RuntimeError):
    """What a :class:`FaultAgent` raises: its message names the stage, so a test can find it in ``chat.error``."""


def _new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# -- (a) a plain callable agent ---------------------------------------------------------------------


def streaming_function(words: int = 24, delay: float = 0.01) -> Callable[[list[dict[str, Any]]], AsyncIterator[str]]:
    """A plain callable agent: an async generator of the transcript that streams ``words`` words."""

    async def stream_words(messages: list[dict[str, Any]]) -> AsyncIterator[str]:
        for index in range(words):
            await asyncio.sleep(delay)
            yield f"word{index} "

    return stream_words


# -- (b) an AG-UI agent: text, a tool call streamed in small pieces, its result, more text ---------


def tool_turn(input: RunAgentInput, *, arg_pieces: int = 32) -> tuple[list[BaseEvent], dict[str, int]]:
    """One run's events, and for each stage of :data:`STAGES` how many events come before it."""
    text_id, call_id, result_id, answer_id = (_new_id(p) for p in ("text", "call", "result", "answer"))
    args = json.dumps({"city": "Paris", "days": [1, 2, 3], "units": "metric", "note": "a forecast for the weekend"})
    size = max(1, -(-len(args) // arg_pieces))
    events: list[BaseEvent] = [RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)]
    stages = {"before_first_event": 0, "after_run_started": 1}
    events.append(TextMessageStartEvent(message_id=text_id, role="assistant"))
    for index, word in enumerate(["Let", "me", "look", "up", "the", "weather", "for", "you."]):
        events.append(TextMessageContentEvent(message_id=text_id, delta=word + " "))
        if index == 1:
            stages["mid_text"] = len(events)
    events.append(TextMessageEndEvent(message_id=text_id))
    events.append(ToolCallStartEvent(tool_call_id=call_id, tool_call_name="get_weather", parent_message_id=text_id))
    pieces = [args[i : i + size] for i in range(0, len(args), size)]
    for index, piece in enumerate(pieces):
        events.append(ToolCallArgsEvent(tool_call_id=call_id, delta=piece))
        if index == len(pieces) // 2:
            stages["mid_tool_args"] = len(events)
    events.append(ToolCallEndEvent(tool_call_id=call_id))
    result = {"city": "Paris", "forecast": ["sunny", "cloudy", "rain"]}
    events.append(ToolCallResultEvent(message_id=result_id, tool_call_id=call_id, content=json.dumps(result), role="tool"))
    stages["after_tool_result"] = len(events)
    events.append(TextMessageStartEvent(message_id=answer_id, role="assistant"))
    for word in ["Sunny", "first,", "then", "clouds,", "then", "rain."]:
        events.append(TextMessageContentEvent(message_id=answer_id, delta=word + " "))
    events.append(TextMessageEndEvent(message_id=answer_id))
    events.append(RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id))
    return events, stages


class FaultAgent:
    """An AG-UI agent that streams :func:`tool_turn`, and in its first run raises or hangs at ``stage``.

    ``mode``: ``"raise"`` (an :class:`AgentFault`), ``"hang"`` (awaits forever, until cancelled),
    or ``None`` (never misbehaves: the plain AG-UI agent of the stop tests). Later runs behave.
    ``reached`` is set when the first run gets to its fault.
    """

    def __init__(self, stage: str | None = None, mode: str | None = None, *, delay: float = 0.005, arg_pieces: int = 32) -> None:
        if mode is not None and stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}, not {stage!r}")
        self.stage = stage
        self.mode = mode
        self.delay = delay
        self.arg_pieces = arg_pieces
        self.runs = 0
        self.reached = asyncio.Event()

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        self.runs += 1
        events, stages = tool_turn(input, arg_pieces=self.arg_pieces)
        fault_at = stages[self.stage] if self.mode is not None and self.runs == 1 and self.stage else None
        for index, event in enumerate(events):
            if index == fault_at:
                await self._misbehave()
            if index:
                await asyncio.sleep(self.delay)
            yield event

    async def _misbehave(self) -> None:
        self.reached.set()
        if self.mode == "raise":
            raise AgentFault(f"the agent broke on purpose at {self.stage}")
        await asyncio.Event().wait()


class CancelSwallowingAgent:
    """An AG-UI agent that catches ``CancelledError`` and carries on, as careless agent code does.

    ``style``: ``"keeps_yielding"`` streams on after a cancellation, ``"keeps_sleeping"`` sleeps
    again. It gives up ``give_up_after`` seconds after the first cancellation it swallowed (and
    ends by itself after ``natural_end`` seconds), so a kernel is not left with it forever.
    Later runs answer at once.
    """

    def __init__(self, style: str, *, give_up_after: float = 6.0, natural_end: float = 8.0) -> None:
        if style not in ("keeps_yielding", "keeps_sleeping"):
            raise ValueError(f"unknown style {style!r}")
        self.style = style
        self.give_up_after = give_up_after
        self.natural_end = natural_end
        self.runs = 0
        self.swallowed = 0
        self.started = asyncio.Event()

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        self.runs += 1
        message_id = _new_id("text")
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id=message_id, role="assistant")
        yield TextMessageContentEvent(message_id=message_id, delta="Working ")
        if self.runs == 1:
            loop = asyncio.get_running_loop()
            end = loop.time() + self.natural_end
            self.started.set()
            count = 0
            while loop.time() < end:
                try:
                    await asyncio.sleep(0.01 if self.style == "keeps_yielding" else 0.5)
                except asyncio.CancelledError:
                    self.swallowed += 1
                    end = min(end, loop.time() + self.give_up_after)
                if self.style == "keeps_yielding":
                    count += 1
                    yield TextMessageContentEvent(message_id=message_id, delta=f"on{count} ")
        yield TextMessageContentEvent(message_id=message_id, delta="done.")
        yield TextMessageEndEvent(message_id=message_id)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


class FrontendToolAgent:
    """An AG-UI agent that asks the user through the first frontend tool it is given, then thanks them.

    Its run ends with the call pending (no result), which puts the chat in ``waiting``.
    """

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        message_id = _new_id("text")
        last = input.messages[-1] if input.messages else None
        if (last is not None and last.role == "tool") or not input.tools:
            yield TextMessageStartEvent(message_id=message_id, role="assistant")
            yield TextMessageContentEvent(message_id=message_id, delta="Thanks for the answer.")
            yield TextMessageEndEvent(message_id=message_id)
        else:
            call_id = _new_id("ask")
            yield ToolCallStartEvent(tool_call_id=call_id, tool_call_name=input.tools[0].name)
            yield ToolCallArgsEvent(tool_call_id=call_id, delta=json.dumps({"question": "Which city?"}))
            yield ToolCallEndEvent(tool_call_id=call_id)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


# -- (c) LangChain and (d) Langroid, on their scripted fake models ---------------------------------


def langchain_weather_agent(delay: float = 0.005) -> Any:
    """A LangChain ``create_agent`` agent with a Python tool, on the package's scripted chat model.

    The model first says something and calls ``get_weather`` (arguments streamed in 4-character
    chunks); once it sees the tool's answer it says what the weather is.
    """
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.tools import tool

    from agui_widget.adapters.langchain import ScriptedChatModel

    @tool
    async def get_weather(city: str, units: str = "metric") -> dict:
        """The weather in a city."""
        await asyncio.sleep(delay * 4)
        return {"city": city, "units": units, "conditions": "sunny"}

    def respond(messages: list[Any], tool_names: list[str]) -> AIMessage:
        if messages and isinstance(messages[-1], ToolMessage):
            return AIMessage(content="It is sunny in Paris today, says the weather tool.")
        call = {"id": _new_id("call"), "name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "type": "tool_call"}
        return AIMessage(content="Let me check the weather for you.", tool_calls=[call])

    model = ScriptedChatModel(respond=respond, delay=delay, args_piece=4)
    return create_agent(model, [get_weather])


_LANGROID_TOOL: Any = None


def _langroid_weather_tool() -> Any:
    global _LANGROID_TOOL
    if _LANGROID_TOOL is None:
        import langroid as lr

        class WeatherTool(lr.ToolMessage):
            request: str = "get_weather"
            purpose: str = "Get the weather in <city>."
            city: str

            async def handle_async(self) -> str:
                await asyncio.sleep(0.02)
                return json.dumps({"city": self.city, "conditions": "sunny"})

        _LANGROID_TOOL = WeatherTool
    return _LANGROID_TOOL


def langroid_weather_agent(delay: float = 0.005) -> Any:
    """A Langroid ``ChatAgent`` with a tool, on the package's MockLM-based scripted model (tools API)."""
    import langroid as lr

    from agui_widget.adapters.langroid.mock import Reply, ScriptedLM, ScriptedLMConfig, ToolCall

    def script(turn: Any) -> Reply:
        if turn.after_tool:
            return Reply("It is sunny in Paris today, says the weather tool.")
        return Reply("Let me check the weather for you.", tool_calls=[ToolCall("get_weather", {"city": "Paris"})])

    config = lr.ChatAgentConfig(
        name="weather",
        system_message="You answer questions about the weather.",
        llm=ScriptedLMConfig(script=script, delay=delay, chars_per_tool_chunk=3),
        use_tools=False,
        use_functions_api=True,
        use_tools_api=True,
    )
    agent = lr.ChatAgent(config)
    agent.llm = ScriptedLM(config.llm)
    agent.enable_message(_langroid_weather_tool())
    return agent


def make_agent(kind: str) -> Any:
    """The agent of one adapter kind of the stop tests."""
    if kind == "callable":
        return streaming_function()
    if kind == "ag_ui":
        return FaultAgent()
    if kind == "langchain":
        return langchain_weather_agent()
    if kind == "langroid":
        return langroid_weather_agent()
    raise ValueError(f"unknown adapter kind {kind!r}")


# -- stopping at a chosen moment -------------------------------------------------------------------


class StopSwitch:
    """An ``on_event`` hook that stops its chat once a number of events were delivered."""

    def __init__(self) -> None:
        self.chat: Any = None
        self.remaining: int | None = None
        self.delivered = 0
        self.fired_after: int | None = None

    def arm(self, chat: Any, after: int) -> None:
        self.chat, self.remaining = chat, after

    def __call__(self, event: BaseEvent) -> None:
        self.delivered += 1
        if self.remaining is None:
            return
        self.remaining -= 1
        if self.remaining <= 0:
            self.remaining = None
            self.fired_after = self.delivered
            self.chat.stop()


async def until(predicate: Callable[[], Any], timeout: float, step: float = 0.01) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` seconds passed; whether it held."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(step)
    return True


def turn_over(chat: Any, run: Any) -> bool:
    """Whether ``run``'s turn is over and the chat is at rest (idle, or showing the turn's error)."""
    return bool(run.done and chat.active_run is None and chat.status in ("idle", "error"))


async def calibrate(chat: Any, prompt: str, timeout: float = 20.0) -> dict[str, Any]:
    """One whole turn, undisturbed: how many events it delivers and how long it takes."""
    began = time.monotonic()
    run = chat.send(prompt)
    ended = await until(lambda: turn_over(chat, run), timeout)
    return {
        "ended": ended,
        "status": run.status,
        "error": run.error,
        "events": len(run.events),
        "seconds": time.monotonic() - began,
        "report": chat_report(chat),
    }


class StopScenario:
    """One stop at a chosen moment, in one chat whose ``on_event`` hook is ``switch``.

    Moments: ``at_once`` (in the same step as the send, before the run's task ran), ``after_start``
    (one loop step later: the run has started and waits for its first event), ``after_events``
    (from the ``on_event`` hook, once ``value`` events were delivered), ``after_delay`` (from
    another task, ``value`` seconds later), ``view`` (the test process sends a ``stop`` request).
    """

    def __init__(self, chat: Any, switch: StopSwitch) -> None:
        self.chat = chat
        self.switch = switch
        self.baseline = task_baseline()
        self.run: Any = None

    async def start(self, moment: str, value: float, prompt: str) -> dict[str, Any]:
        chat = self.chat
        self.run = run = chat.send(prompt)
        if moment == "at_once":
            chat.stop()
        elif moment == "after_start":
            await asyncio.sleep(0)
            chat.stop()
        elif moment == "after_events":
            self.switch.arm(chat, int(value))
            await until(lambda: self.switch.fired_after is not None or run.done, 20.0)
        elif moment == "after_delay":
            await asyncio.sleep(value)
            chat.stop()
        elif moment != "view":
            raise ValueError(f"unknown moment {moment!r}")
        return {"stopped_after_events": self.switch.fired_after}

    async def outcome(self, grace: float) -> dict[str, Any]:
        """How the stopped turn ended, waiting at most ``grace`` seconds for it to be over."""
        chat, run = self.chat, self.run
        began = time.monotonic()
        ended = await until(lambda: turn_over(chat, run), grace)
        events = run.events
        last = events[-1] if events else None
        outcome = getattr(getattr(last, "outcome", None), "type", None)
        return {
            "ended": ended,
            "waited": round(time.monotonic() - began, 3),
            "run_status": run.status,
            "last_event": last.type.value if last is not None else None,
            "last_outcome": outcome,
            "report": chat_report(chat),
        }

    async def leftover_tasks(self, grace: float) -> list[str]:
        return await leftover_tasks(self.baseline, grace)


async def follow_up(chat: Any, prompt: str, timeout: float) -> dict[str, Any]:
    """Send another message and wait (bounded) for its turn: the chat must still work."""
    run = chat.send(prompt)
    ended = await until(lambda: turn_over(chat, run), timeout)
    return {"ended": ended, "status": run.status, "error": run.error, "report": chat_report(chat)}


# -- what the tests read back ------------------------------------------------------------------------


def tool_call_answers(messages: Iterable[dict[str, Any]]) -> dict[str, int]:
    """For every assistant tool call in the transcript, how many tool messages answer it."""
    messages = list(messages)
    answers: dict[str, int] = {}
    for message in messages:
        if message.get("role") == "assistant":
            for call in message.get("toolCalls") or ():
                answers.setdefault(call.get("id"), 0)
    for message in messages:
        if message.get("role") == "tool" and message.get("toolCallId") in answers:
            answers[message["toolCallId"]] += 1
    return answers


def unanswered_tool_calls(messages: Iterable[dict[str, Any]]) -> dict[str, int]:
    """The tool calls not answered by exactly one tool message: call id -> number of answers."""
    return {call_id: count for call_id, count in tool_call_answers(messages).items() if count != 1}


def chat_report(chat: Any) -> dict[str, Any]:
    """The chat as a test judges it, in plain JSON."""
    messages = list(chat.messages)
    return {
        "status": chat.status,
        "error": chat.error,
        "active_run": None if chat.active_run is None else repr(chat.active_run),
        "unanswered": unanswered_tool_calls(messages),
        "pending_tool_calls": [p["toolCallId"] for p in chat.pending_tool_calls],
        "queued": len(chat.queued),
        "roles": [m.get("role") for m in messages],
    }


_KERNEL_PACKAGES = ("ipykernel", "IPython", "anyio", "tornado", "zmq", "jupyter_client", "comm", "traitlets")


def _code_file(task: asyncio.Task[Any]) -> str:
    coro = task.get_coro()
    code = getattr(coro, "cr_code", None) or getattr(coro, "gi_code", None)
    return getattr(code, "co_filename", "") or ""


def _is_kernel_task(task: asyncio.Task[Any]) -> bool:
    parts = Path(_code_file(task)).parts
    return any(name in parts for name in _KERNEL_PACKAGES)


def task_baseline() -> set[asyncio.Task[Any]]:
    """The tasks alive now; :func:`leftover_tasks` reports the ones started after."""
    return set(asyncio.all_tasks())


async def leftover_tasks(baseline: set[asyncio.Task[Any]], grace: float = 2.0) -> list[str]:
    """Tasks started since ``baseline`` and still alive after ``grace`` seconds, the kernel's own
    (message handlers, the cell being run) excepted."""
    current = asyncio.current_task()

    def left() -> list[asyncio.Task[Any]]:
        return [
            t for t in asyncio.all_tasks() if t not in baseline and t is not current and not t.done() and not _is_kernel_task(t)
        ]

    await until(lambda: not left(), grace, step=0.02)
    return [f"{t.get_name()} {t.get_coro()!r} ({_code_file(t)})" for t in left()]


# -- drivers for the other properties ---------------------------------------------------------------


async def run_outcome(chat: Any, run: Any, timeout: float) -> dict[str, Any]:
    """Wait (bounded) for ``run``'s turn to be over; how it ended, and the transcript's shape."""
    ended = await until(lambda: turn_over(chat, run), timeout)
    return {
        "ended": ended,
        "status": run.status,
        "error": run.error,
        "report": chat_report(chat),
        "shape": transcript_shape(chat.messages),
    }


async def reference_shape(agent: Any, prompt: str, timeout: float = 20.0) -> list[Any]:
    """The transcript's shape after one undisturbed turn of ``agent`` in a chat of its own."""
    from agui_widget import AgentChat

    chat = AgentChat(agent)
    try:
        run = chat.send(prompt)
        if not await until(lambda: turn_over(chat, run), timeout):
            raise TimeoutError(f"the reference turn did not end within {timeout} s")
        return transcript_shape(chat.messages)
    finally:
        chat.close()


def transcript_shape(messages: Iterable[dict[str, Any]]) -> list[Any]:
    """What a transcript says, without its ids: role, text, tool calls (name, arguments), and
    whether a tool message answers a call of the same transcript."""
    messages = list(messages)
    calls = {c.get("id") for m in messages for c in m.get("toolCalls") or ()}
    shape = []
    for message in messages:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        tool_calls = [
            [(c.get("function") or {}).get("name"), (c.get("function") or {}).get("arguments")]
            for c in message.get("toolCalls") or ()
        ]
        answers = message.get("toolCallId") in calls if message.get("role") == "tool" else None
        shape.append([message.get("role"), text, tool_calls, answers])
    return shape


async def after_interrupt(chat: Any, finish_within: float, stop_grace: float) -> dict[str, Any]:
    """After a cell awaiting a run was interrupted: let the run finish, or stop it; report how it went."""
    turn = chat.active_run
    by_itself = await until(lambda: chat.active_run is None and chat.status in ("idle", "error"), finish_within)
    stopped = False
    ended = by_itself
    if not by_itself:
        stopped = True
        chat.stop()
        ended = await until(lambda: chat.active_run is None and chat.status in ("idle", "error"), stop_grace)
    return {
        "turn": repr(turn),
        "turn_status": None if turn is None else turn.status,
        "finished_by_itself": by_itself,
        "stopped": stopped,
        "ended": ended,
        "report": chat_report(chat),
    }


async def provoke(chat: Any, agent: Any, mode: str, reach_within: float, grace: float) -> dict[str, Any]:
    """Send a message to a chat whose agent misbehaves; stop it once it hangs (``mode`` "hang" or
    "swallow"); report how the turn ended."""
    run = chat.send("weather in Paris?")
    reached = True
    stopped_at: float | None = None
    if mode in ("hang", "swallow"):
        signal = agent.reached if mode == "hang" else agent.started
        reached = await until(signal.is_set, reach_within)
        if mode == "hang":
            await asyncio.sleep(0.05)  # hanging for a while, not only at the instant it got there
        stopped_at = time.monotonic()
        chat.stop()
    ended = await until(lambda: turn_over(chat, run), grace)
    return {
        "reached": reached,
        "ended": ended,
        "seconds_after_stop": None if stopped_at is None else round(time.monotonic() - stopped_at, 3),
        "run_status": run.status,
        "run_error": run.error,
        "swallowed": getattr(agent, "swallowed", None),
        "report": chat_report(chat),
    }


async def settle(chat: Any, timeout: float) -> dict[str, Any]:
    """Wait (bounded) until the chat has nothing running or queued."""
    ended = await until(lambda: chat.active_run is None and not chat.queued and chat.status in ("idle", "error"), timeout)
    return {"ended": ended, "report": chat_report(chat)}


def utf8_problems(chat: Any) -> list[str]:
    """JSON pointers into the transcript and state of strings UTF-8 cannot encode (lone surrogates)."""
    found = []
    for name, value in (("messages", list(chat.messages)), ("state", chat.state)):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            found.append(f"{name}: {exc}")
    return found
