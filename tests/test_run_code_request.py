""" "Run in kernel": a view's ``run_code`` request, in a real ipykernel driven by a fake front end.

The code runs as the agent's ``run_python`` runs it (IPython's cell machinery: ``In``/``Out``, the
user's namespace), and lands in the transcript as an assistant's ``run_python`` call, at once and
marked as the user's run while it runs, then its tool message with the output, which the agent
reads in its next turn. A run_code while the agent answers, or while other code runs, is refused
with a notice and changes nothing; so is a message a view sends while code runs. A failing cell is
an answer with its error, and a stop from a view interrupts the code.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from .kernel_harness import FakeFrontEnd, WidgetComm

pytestmark = pytest.mark.kernel

SETUP = """\
import threading
from agui_widget import AgentChat

gate = threading.Event()
seen = []

def agent(messages):
    seen.append([{k: m.get(k) for k in ("role", "toolCalls", "toolCallId", "content")} for m in messages])
    return "noted"

chat = AgentChat(agent)
"""


@pytest.fixture
async def fe():
    async with FakeFrontEnd.running() as front:
        yield front


async def open_chat(fe: FakeFrontEnd) -> WidgetComm:
    return await fe.create_widget(SETUP)


async def transcript(fe: FakeFrontEnd) -> list[dict[str, Any]]:
    return await fe.evaluate("chat.messages")


def tool_ids_shown(chat: WidgetComm) -> set[str]:
    """The tool messages the view was sent (in ``messages`` splices)."""
    return {m["id"] for splice in chat.of_kind("messages") for m in splice["messages"] if m["role"] == "tool"}


async def until_answered(fe: FakeFrontEnd, chat: WidgetComm, count: int = 1) -> list[dict[str, Any]]:
    """Wait until the view was shown ``count`` tool messages; returns the kernel's transcript."""
    await fe.wait_for(lambda: len(tool_ids_shown(chat)) >= count, 30, f"{count} tool message(s) shown")
    return await transcript(fe)


async def until_evaluates(fe: FakeFrontEnd, expression: str, expected: Any, timeout: float = 10.0) -> None:
    """Wait until a kernel expression has the expected value (asked again each time)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while (value := await fe.evaluate(expression)) != expected:
        assert asyncio.get_running_loop().time() < deadline, f"{expression} stayed {value!r}"


def notices(chat: WidgetComm) -> list[str]:
    return [n["text"] for n in chat.of_kind("notice")]


def the_call(message: dict[str, Any]) -> dict[str, Any]:
    (call,) = message["toolCalls"]
    return call


async def test_the_code_runs_as_a_cell_and_lands_as_a_run_python_call_and_its_output(fe):
    chat = await open_chat(fe)
    code = "gate.wait(30)\nprint('hello')\nanswer = 6 * 7\nanswer"
    fe.send_custom(chat, {"kind": "run_code", "code": code})

    await fe.wait_for(lambda: any(m["messages"] for m in chat.of_kind("messages")), 10, "the call sent to the view")
    (running,) = await transcript(fe)
    assert running["role"] == "assistant" and the_call(running)["function"]["name"] == "run_python"
    assert json.loads(the_call(running)["function"]["arguments"]) == {"code": code}
    assert running["metadata"]["agui_widget"]["code_run"] == "running", "the card reads running in the kernel"
    shown = chat.of_kind("messages")[-1]["messages"]
    assert [m["role"] for m in shown] == ["assistant"], "the view was shown the call before its output"

    await fe.execute("gate.set()")
    messages = await until_answered(fe, chat)
    caller, answer = messages
    assert caller["metadata"]["agui_widget"]["code_run"] == "done"
    assert answer["toolCallId"] == the_call(caller)["id"] and "error" not in answer
    number = await fe.evaluate("[i for i, source in enumerate(In) if source.startswith('gate.wait')][-1]")
    assert answer["content"] == f"In [{number}] ran.\nhello\nOut[{number}]: 42"
    assert "hello" in answer["metadata"]["agui_widget"]["display"]["text/html"], "the card shows the output"
    assert await fe.evaluate(f"[answer, Out[{number}]]") == [42, 42], "it ran in the user's namespace, as a cell"
    assert not fe.errors, "nothing reached the cells the front end runs"

    fe.send_custom(chat, {"kind": "send", "text": "what did it print?"})
    await fe.wait_for(
        lambda: chat.trait_values("status")[-1:] == ["idle"] and "running" in chat.trait_values("status"), 20, "a turn"
    )
    first_input = (await fe.evaluate("seen"))[0]
    assert [m["role"] for m in first_input] == ["assistant", "tool", "user"], "the agent reads the run in its next turn"
    assert "Out[" in first_input[1]["content"]


async def test_a_failing_cell_is_an_answer_with_its_error_and_traceback(fe):
    chat = await open_chat(fe)
    fe.send_custom(chat, {"kind": "run_code", "code": "def broken():\n    return 1 / 0\nbroken()"})
    _caller, answer = await until_answered(fe, chat)
    assert answer["error"] == "ZeroDivisionError: division by zero"
    assert "failed with ZeroDivisionError: division by zero" in answer["content"]
    assert "Traceback (most recent call last)" in answer["content"] and "return 1 / 0" in answer["content"]


async def test_refused_while_the_agent_answers_or_other_code_runs_and_a_message_waits_for_the_code(fe):
    chat = await fe.create_widget(
        SETUP.replace(
            "chat = AgentChat(agent)",
            "from agui_widget import DemoAgent\nchat = AgentChat(DemoAgent(delay=0))",
        )
    )
    # The demo agent's "make it teal" waits for the browser's frontend tool: a turn stays active.
    fe.send_custom(chat, {"kind": "send", "text": "make it teal"})
    await fe.wait_for(lambda: "waiting" in chat.trait_values("status"), 20, "the turn waiting on the browser")
    before = await transcript(fe)
    fe.send_custom(chat, {"kind": "run_code", "code": "ran_during_a_turn = True"})
    await fe.wait_for(lambda: any(t.startswith("run_code: ") for t in notices(chat)), 10, "the refusal")
    assert "the agent is answering" in next(t for t in notices(chat) if t.startswith("run_code: "))
    assert await transcript(fe) == before and await fe.evaluate("'ran_during_a_turn' in globals()") is False

    fe.send_custom(chat, {"kind": "stop"})
    await fe.wait_for(lambda: chat.trait_values("status")[-1:] == ["idle"], 20, "the turn stopped")
    fe.send_custom(chat, {"kind": "run_code", "code": "gate.wait(30)\n'first'"})
    await fe.wait_for(lambda: len(chat.of_kind("messages")) >= 2, 10, "the call shown")
    fe.send_custom(chat, {"kind": "run_code", "code": "second_ran = True"})
    fe.send_custom(chat, {"kind": "send", "text": "hello while code runs"})
    await fe.wait_for(lambda: any(t.startswith("send: ") for t in notices(chat)), 10, "the message refused")
    refusals = [t for t in notices(chat) if t.startswith(("run_code: ", "send: "))]
    assert "code is running in the kernel" in refusals[-2] and "code is running in the kernel" in refusals[-1]
    answered = len(tool_ids_shown(chat))
    await fe.execute("gate.set()")
    messages = await until_answered(fe, chat, count=answered + 1)
    assert messages[-1]["content"].endswith("'first'")
    assert await fe.evaluate("'second_ran' in globals()") is False
    assert all(m.get("content") != "hello while code runs" for m in messages), "the message went back to its view"


async def test_a_stop_from_a_view_interrupts_the_code(fe):
    chat = await open_chat(fe)
    fe.send_custom(chat, {"kind": "run_code", "code": "gate.set()\nwhile True:\n    pass"})
    await fe.wait_for(lambda: any(m["messages"] for m in chat.of_kind("messages")), 10, "the call shown")
    await until_evaluates(fe, "gate.is_set()", True)
    fe.send_custom(chat, {"kind": "stop"})
    _caller, answer = await until_answered(fe, chat)
    assert answer["error"] == "the code was stopped; it was interrupted"
    assert await fe.evaluate("1 + 1") == 2, "the kernel goes on"


async def test_from_python_a_message_is_refused_while_code_runs_and_chat_stop_interrupts_it(fe):
    chat = await open_chat(fe)
    fe.send_custom(chat, {"kind": "run_code", "code": "gate.set()\nwhile True:\n    pass"})
    await fe.wait_for(lambda: any(m["messages"] for m in chat.of_kind("messages")), 10, "the call shown")
    await until_evaluates(fe, "gate.is_set()", True)
    refused = await fe.execute("try:\n    chat.send('hello')\nexcept RuntimeError as exc:\n    print(exc)")
    assert "code is running in the kernel" in refused.stdout, "the call has no answer yet: no turn may start"
    await fe.execute("chat.stop()")
    _caller, answer = await until_answered(fe, chat)
    assert answer["error"] == "the code was stopped; it was interrupted"
    assert await fe.evaluate("[m['role'] for m in chat.messages]") == ["assistant", "tool"], "nothing was sent"
