"""The demo agent's notebook commands: "variables", "inspect NAME", "run CODE" and "what went wrong"
call the notebook tools a chat offers, and the follow-up run says what their answers mean.

The tools here are plain functions with the notebook tools' names, so the demo is tested on its own:
it calls tools by name, whoever made them.
"""

from __future__ import annotations

import json

import pytest

from agui_widget import AgentChat, python_tool
from agui_widget.adapters import DemoAgent
from agui_widget.adapters._demo_notebook import (
    INSPECT_VARIABLE,
    LAST_ERROR,
    LIST_VARIABLES,
    RUN_PYTHON,
    NotebookRequest,
    exception_in,
    fenced,
    notebook_request,
    unfenced,
)

from .agui_check import assert_valid_streams
from .support import collect, make_input, split_runs, text_of, until

NAME_ERROR = """Traceback (most recent call last):
  Cell In[4], line 1
----> 1 dff.head()

NameError: name 'dff' is not defined"""


def calls_made(chat: AgentChat) -> list[tuple[str, dict]]:
    """Each tool call in the transcript, as (name, arguments)."""
    return [
        (call["function"]["name"], json.loads(call["function"]["arguments"] or "{}"))
        for message in chat.messages
        for call in message.get("toolCalls") or ()
    ]


def tool_answers(chat: AgentChat) -> list[str]:
    return [m["content"] for m in chat.messages if m["role"] == "tool"]


# -- which tool a message asks for ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "variables",
        "Variables?",
        "list variables",
        "show my variables",
        "what variables do I have?",
        "which variables are there",
        "vars",
    ],
)
def test_ways_of_asking_for_the_variables(text):
    request = notebook_request(text)
    assert isinstance(request, NotebookRequest) and (request.tool, request.args) == (LIST_VARIABLES, {})


@pytest.mark.parametrize(
    "text",
    ["what went wrong?", "What went wrong with my cell", "why did that fail?", "Explain the error", "explain this traceback"],
)
def test_ways_of_asking_what_went_wrong(text):
    request = notebook_request(text)
    assert isinstance(request, NotebookRequest) and (request.tool, request.args) == (LAST_ERROR, {})


def test_inspect_takes_a_name_and_says_how_to_ask_otherwise():
    for text in ("inspect df", "inspect `df`", "Inspect df?", "inspect model.weights"):
        request = notebook_request(text)
        assert isinstance(request, NotebookRequest) and request.tool == INSPECT_VARIABLE
        assert request.args["name"] in {"df", "model.weights"}
    assert "for example `inspect df`" in str(notebook_request("inspect"))
    assert "say `run df['a']`" in str(notebook_request("inspect df['a']"))


def test_run_takes_everything_after_it_and_drops_a_fence():
    assert notebook_request("run 1 + 1") == NotebookRequest(RUN_PYTHON, {"code": "1 + 1"}, notebook_request("run x").intro)  # type: ignore[union-attr]
    fenced_code = "run\n```python\nimport math\nprint(math.pi)\n```"
    assert notebook_request(fenced_code).args == {"code": "import math\nprint(math.pi)"}  # type: ignore[union-attr]
    assert notebook_request("Run: `x = 2`").args == {"code": "x = 2"}  # type: ignore[union-attr]
    assert notebook_request("run for i in range(2):\n    print(i)").args == {"code": "for i in range(2):\n    print(i)"}  # type: ignore[union-attr]
    assert unfenced("````\nprint('```')\n````") == "print('```')"
    assert "Say `run` and the code" in str(notebook_request("run"))


def test_other_messages_are_left_to_the_other_scenarios():
    for text in (
        "help",
        "show my list",
        "list",
        "add buy milk",
        "error",
        "weather in Paris",
        "running late",
        "call run_python code=1",
    ):
        assert notebook_request(text) is None, text


def test_exceptions_are_read_from_a_traceback_or_from_fields():
    assert exception_in(NAME_ERROR) == ("NameError", "name 'dff' is not defined")
    assert exception_in("\x1b[0;31mZeroDivisionError\x1b[0m: division by zero") == ("ZeroDivisionError", "division by zero")
    assert exception_in(json.dumps({"ename": "KeyError", "evalue": "'price'"})) == ("KeyError", "'price'")
    assert exception_in(json.dumps({"error": {"type": "pandas.errors.ParserError", "message": "bad"}}))[1] == "bad"  # type: ignore[index]
    assert exception_in("all fine\n3") is None


def test_an_answer_is_fenced_so_nothing_inside_closes_the_block():
    shown = fenced("print('```')")
    assert shown.startswith("````\n") and shown.endswith("\n````")
    assert len(fenced("x" * 10_000)) < 1_600


# -- through a chat: the calls and what the demo says of the answers ------------------------------


async def test_variables_calls_list_variables_and_shows_its_answer():
    def list_variables() -> str:
        """The user's variables."""
        return "df: DataFrame (3, 2)\nx: int"

    chat = AgentChat(DemoAgent(delay=0), tools=[list_variables])
    run = await chat.send("what variables do I have?")
    assert calls_made(chat) == [("list_variables", {})]
    assert tool_answers(chat) == ["df: DataFrame (3, 2)\nx: int"]
    assert run.status == "finished" and len(run.run_ids) == 2, "the answer started the follow-up run"
    assert "as `list_variables` reports it" in run.reply and "df: DataFrame (3, 2)" in run.reply
    assert_valid_streams(split_runs(run.events))


async def test_inspect_calls_inspect_variable_with_the_name():
    def inspect_variable(name: str) -> str:
        """One variable, summarised."""
        return f"{name}: DataFrame, shape (3, 2)" if name == "df" else f"There is no variable named {name!r}."

    chat = AgentChat(DemoAgent(delay=0), tools=[inspect_variable])
    run = await chat.send("inspect df")
    assert calls_made(chat) == [("inspect_variable", {"name": "df"})]
    assert "Here is `df`" in run.reply and "shape (3, 2)" in run.reply
    unknown = await chat.send("inspect nothing_here")
    assert "There is no variable named 'nothing_here'." in unknown.reply


async def test_run_asks_first_then_runs_the_code_and_reports_its_output():
    ran: list[str] = []

    def run_python(code: str) -> str:
        """Run code in the kernel."""
        ran.append(code)
        return "3.14159\n" if "pi" in code else ""

    chat = AgentChat(DemoAgent(delay=0), tools=[python_tool(run_python, approve=True)])
    run = chat.send("run\n```python\nimport math\nprint(round(math.pi, 5))\n```")
    await until(lambda: bool(chat.pending_tool_calls), what="the call to wait for approval")
    assert ran == [], "nothing runs before the approval"
    chat.respond(chat.pending_tool_calls[0]["toolCallId"], True)
    await run
    assert ran == ["import math\nprint(round(math.pi, 5))"]
    assert "It ran. Its output:" in run.reply and "3.14159" in run.reply
    assert_valid_streams(split_runs(run.events))

    denied = chat.send("run print('no')")
    await until(lambda: bool(chat.pending_tool_calls))
    chat.respond(chat.pending_tool_calls[0]["toolCallId"], False)
    await denied
    assert len(ran) == 1, "a denied call never runs"
    assert "You said no" in denied.reply

    quiet = chat.send("run x = 1")
    await until(lambda: bool(chat.pending_tool_calls))
    chat.respond(chat.pending_tool_calls[0]["toolCallId"], True)
    assert "It ran, with no output." in (await quiet).reply


async def test_code_that_fails_is_reported_with_its_exception_and_a_tip():
    def run_python(code: str) -> str:
        """Run code in the kernel."""
        return "Traceback (most recent call last):\n  Cell In[7], line 1\n----> 1 1/0\n\nZeroDivisionError: division by zero"

    chat = AgentChat(DemoAgent(delay=0), tools=[run_python])
    run = await chat.send("run 1/0")
    assert calls_made(chat) == [("run_python", {"code": "1/0"})]
    assert "raised **ZeroDivisionError**: `division by zero`" in run.reply
    assert "divided by zero" in run.reply


async def test_what_went_wrong_names_the_error_and_suggests_a_fix():
    answers = {"name": NAME_ERROR}

    def last_error() -> str:
        """The last exception."""
        return answers["name"]

    chat = AgentChat(DemoAgent(delay=0), tools=[last_error])
    run = await chat.send("what went wrong?")
    assert calls_made(chat) == [("last_error", {})]
    assert "**NameError**: `name 'dff' is not defined`" in run.reply
    assert "`dff` is not defined: run the cell that defines it first" in run.reply
    assert_valid_streams(split_runs(run.events))

    answers["name"] = json.dumps({"type": "KeyError", "message": "'price'", "source": "df['price']"})
    assert "The key `price` is not there" in (await chat.send("why did that fail?")).reply

    answers["name"] = "ValueError: could not convert string to float: 'abc'"
    other = (await chat.send("explain the error")).reply
    assert "**ValueError**" in other and "scripted demo" in other

    answers["name"] = "No error has been raised yet."
    assert "There is no error to explain" in (await chat.send("what went wrong")).reply


async def test_without_the_tool_it_says_how_to_offer_it():
    chat = AgentChat(DemoAgent(delay=0))
    for text in ("variables", "inspect df", "run 1 + 1", "what went wrong"):
        run = await chat.send(text)
        assert "AgentChat(tools=notebook_tools())" in run.reply, text
    assert calls_made(chat) == []

    def list_variables() -> str:
        """The user's variables."""
        return ""

    partly = AgentChat(DemoAgent(delay=0), tools=[list_variables])
    reply = (await partly.send("run 1 + 1")).reply
    assert "`list_variables`" in reply and "`run_python`" in reply and "run_code=False" in reply
    assert "found no variables" in (await partly.send("variables")).reply


async def test_help_lists_the_notebook_commands():
    text = text_of(await collect(DemoAgent(delay=0), make_input("help")))
    for command in ("`variables`", "`inspect df`", "`run df.describe()`", "`what went wrong`", "notebook_tools()"):
        assert command in text


async def test_the_other_commands_keep_their_meaning():
    agent = DemoAgent(delay=0)
    assert "Your list is empty" in text_of(await collect(agent, make_input("show my list")))
    failed = await collect(agent, make_input("error"))
    assert failed[-1].type == "RUN_ERROR"

    def list_variables() -> str:
        """The user's variables."""
        return "x: int"

    chat = AgentChat(DemoAgent(delay=0), tools=[list_variables])
    run = await chat.send("call list_variables")
    assert calls_made(chat) == [("list_variables", {})] and "x: int" in run.reply
