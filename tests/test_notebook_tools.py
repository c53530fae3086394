"""The agent's tools for the notebook: the namespace read safely, one variable described, code run
as a cell (in ``In``/``Out``, magics, displays in the card, approval, timeout, Stop), the cells run
so far and the last error; and no answer longer than ``max_chars``.

The pure parts run on plain dicts; the rest in a real ipykernel driven by a fake front end, through
a chat with the demo agent, as a notebook would.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from types import SimpleNamespace
from typing import Any
from unittest import mock

import numpy
import pandas
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from agui_widget.inputs import _notebook_tools
from agui_widget.inputs._cell_capture import STREAM_LIMIT, STREAM_TAIL, CellOutput
from agui_widget.inputs._cell_runner import _Ran, cell_answer, run_cell_code
from agui_widget.inputs._namespace import describe, fit, variables
from agui_widget.inputs._notebook_tools import DEFAULT_MAX_CHARS, DEFAULT_TIMEOUT, MIN_MAX_CHARS, notebook_tools
from agui_widget.inputs._python_tools import ToolAnswer

from .kernel_harness import FakeFrontEnd, WidgetComm
from .test_kernel import say, until_turn_ends

# -- what a namespace holds -----------------------------------------------------------------------


def a_function(x: int) -> int:
    return x


class AClass:
    pass


class Tripwire:
    """A value whose every reading is recorded: a secret's value must never be read."""

    touched: list[str] = []

    def __repr__(self) -> str:
        Tripwire.touched.append("repr")
        return "sk-secret"

    def __str__(self) -> str:
        Tripwire.touched.append("str")
        return "sk-secret"

    def __len__(self) -> int:
        Tripwire.touched.append("len")
        return 9

    def __iter__(self) -> Any:
        Tripwire.touched.append("iter")
        return iter(())

    def __sizeof__(self) -> int:
        Tripwire.touched.append("sizeof")
        return 9


class BadRepr:
    def __repr__(self) -> str:
        raise ValueError("no repr today")


def sample_namespace() -> dict[str, Any]:
    return {
        "df": pandas.DataFrame({"a": range(48), "b": numpy.linspace(0, 1, 48), "c": ["x"] * 47 + ["y"], "d": [True] * 48}),
        "s": pandas.Series([1.0, 2.0, float("nan"), 4.0], name="score"),
        "arr": numpy.arange(12, dtype=float).reshape(3, 4),
        "config": {"alpha": 1, "beta": [1, 2, 3]},
        "items": [1, "two", 3.0],
        "point": (1, 2),
        "tags": {"a", "b"},
        "count": 7,
        "text": "hello",
        "a_function": a_function,
        "AClass": AClass,
        "json": json,
        "_private": 1,
        "In": ["", "x = 1"],
        "Out": {},
        "exit": object(),
        "get_ipython": lambda: None,
        "OPENAI_API_KEY": Tripwire(),
        "db_password": Tripwire(),
        "bad": BadRepr(),
    }


def test_the_listing_gives_type_shape_size_and_kind_and_leaves_out_modules_private_and_ipython_names():
    Tripwire.touched.clear()
    rows = {row["name"]: row for row in variables(sample_namespace())}
    assert list(rows) == sorted(rows), "sorted by name"
    assert set(rows).isdisjoint({"json", "_private", "In", "Out", "exit", "get_ipython"})
    assert rows["df"] == {
        "name": "df",
        "type": "DataFrame",
        "kind": "data",
        "shape": "(48, 4)",
        "size": rows["df"]["size"],
        "secret": False,
    }
    assert rows["df"]["size"] == int(sample_namespace()["df"].memory_usage(deep=False).sum())
    assert (rows["s"]["type"], rows["s"]["shape"]) == ("Series", "(4,)")
    assert (rows["arr"]["type"], rows["arr"]["shape"], rows["arr"]["size"]) == ("ndarray", "(3, 4)", 96)
    assert (rows["config"]["type"], rows["config"]["shape"]) == ("dict", "len 2")
    assert (rows["items"]["shape"], rows["point"]["shape"], rows["tags"]["shape"], rows["text"]["shape"]) == (
        "len 3",
        "len 2",
        "len 2",
        "len 5",
    )
    assert rows["count"]["shape"] is None and rows["count"]["size"] == sys.getsizeof(7)
    assert (rows["a_function"]["kind"], rows["AClass"]["kind"]) == ("function", "class")
    for name in ("OPENAI_API_KEY", "db_password"):
        assert rows[name]["secret"] is True and rows[name]["shape"] is None and rows[name]["size"] is None
    assert not any(row["secret"] for name, row in rows.items() if name not in {"OPENAI_API_KEY", "db_password"})
    text = _notebook_tools.variables_text(list(rows.values()))
    assert "- df: DataFrame, (48, 4), 1." in text and "Functions: a_function" in text and "Classes: AClass" in text
    assert "- OPENAI_API_KEY: Tripwire (value withheld" in text and "sk-secret" not in text
    assert Tripwire.touched == [], "a secret's value was read"


def test_inspecting_a_dataframe_gives_its_shape_dtypes_head_and_describe():
    text = describe(sample_namespace(), "df", 8000)
    assert text.startswith("df: DataFrame, 48 rows × 4 columns")
    assert "a: int64" in text and "b: float64" in text and "c: object" in text and "d: bool" in text
    assert "First 5 rows:" in text and "0.021277" in text, "the head"
    assert "Summary (describe()):" in text and "mean" in text and "23.5" in text


def test_inspecting_a_series_an_array_and_collections():
    namespace = sample_namespace()
    series = describe(namespace, "s", 8000)
    assert series.startswith("s: Series 'score', 4 values, dtype float64") and "mean" in series and "count" in series
    array = describe(namespace, "arr", 8000)
    assert array.startswith("arr: ndarray, shape (3, 4), dtype float64, 96 bytes")
    assert "min 0, max 11, mean 5.5" in array and "[[ 0.  1.  2.  3.]" in array
    config = describe(namespace, "config", 8000)
    assert config.startswith("config: dict of 2 items") and "Keys: 'alpha', 'beta'" in config and "'beta': [1, 2, 3]" in config
    items = describe(namespace, "items", 8000)
    assert items.startswith("items: list of 3 elements") and "int ×1" in items and "[1, 'two', 3.0]" in items
    big = describe({"big": list(range(1_000_000))}, "big", 8000)
    assert big.startswith("big: list of 1,000,000 elements") and "..." in big and len(big) < 2000, "a preview, not the list"


def test_inspecting_anything_else_a_secret_and_an_unknown_name():
    Tripwire.touched.clear()
    namespace = sample_namespace()
    assert describe(namespace, "count", 8000) == "count: int\n7"
    assert describe(namespace, "a_function", 8000) == "a_function: function a_function(x: int) -> int"
    assert describe(namespace, "AClass", 8000).startswith("AClass: class AClass()")
    assert describe(namespace, "bad", 8000) == "bad: BadRepr\n<its repr raised ValueError: no repr today>"
    secret = describe(namespace, "OPENAI_API_KEY", 8000)
    assert secret == "OPENAI_API_KEY: Tripwire. Its value is withheld: the name looks like a secret."
    assert Tripwire.touched == []
    assert describe(namespace, "dff", 8000) == "There is no variable named 'dff' in the notebook. Close names: df."
    assert describe(namespace, "DF", 8000) == "There is no variable named 'DF' in the notebook. Close names: df."
    assert "list_variables lists the variables" in describe(namespace, "zzzzzz", 8000)
    assert "Give the name of a variable" in describe(namespace, "", 8000)


def test_a_long_description_is_cut_with_a_visible_marker():
    text = describe({"long": "x" * 50_000}, "long", 500)
    assert len(text) == 500 and "characters cut]" in text
    assert text.startswith("long: str of length 50,000")
    assert fit("abcdef", 6) == "abcdef" and fit("abcdef", 3) == "abc"


# -- notebook_tools() -----------------------------------------------------------------------------


def test_a_cells_output_keeps_its_order_its_start_and_its_end_when_it_prints_without_end():
    output = CellOutput()
    output.write("stdout", "a")
    output.write("stdout", "b")
    output.write("stderr", "warned\n")
    output.display({"text/plain": "shown"})
    lines = [f"{i}\n" for i in range(STREAM_LIMIT)]  # far more than is kept
    for line in lines:
        output.write("stdout", line)
    items = output.snapshot()
    assert items[:3] == [
        ("stdout", "ab"),
        ("stderr", "warned\n"),
        ("display", {"data": {"text/plain": "shown"}, "display_id": None}),
    ]
    (_, kept), (_, note), (_, tail) = items[3:]
    printed = "".join(lines)
    assert kept == printed[: STREAM_LIMIT - 9] and printed.endswith(tail) and STREAM_TAIL <= len(tail) < STREAM_TAIL + 10
    assert note == f"\n… [{len(printed) - len(kept) - len(tail):,} characters of output cut] …\n"


def test_notebook_tools_gives_five_tools_and_run_code_false_leaves_run_python_out():
    tools = {tool.name: tool for tool in notebook_tools()}
    assert list(tools) == ["list_variables", "inspect_variable", "run_python", "cell_history", "last_error"]
    assert tools["run_python"].approve is True and not any(t.approve for n, t in tools.items() if n != "run_python")
    assert tools["inspect_variable"].parameters["required"] == ["name"]
    assert tools["cell_history"].parameters["properties"]["n"] == {
        "type": "integer",
        "default": 5,
        "minimum": 1,
        "maximum": 50,
        "description": "How many of the last cells to show (1 to 50).",
    }
    assert all(tool.description for tool in tools.values())
    assert [tool.name for tool in notebook_tools(run_code=False)] == [
        "list_variables",
        "inspect_variable",
        "cell_history",
        "last_error",
    ]
    assert [tool.approve for tool in notebook_tools(approve=False) if tool.name == "run_python"] == [False]
    assert (DEFAULT_MAX_CHARS, DEFAULT_TIMEOUT) == (8000, 60.0)


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"run_code": "yes"}, TypeError, r"run_code=\.\.\.\) takes True or False"),
        ({"approve": None}, TypeError, r"approve=\.\.\.\) takes True or False"),
        ({"max_chars": 10}, ValueError, "must be at least 200"),
        ({"max_chars": 1000.0}, TypeError, "a whole number of characters"),
        ({"max_chars": True}, TypeError, "a whole number of characters"),
        ({"timeout": 0}, ValueError, "positive number of seconds"),
        ({"timeout": "60"}, TypeError, "seconds"),
    ],
)
def test_notebook_tools_refuses_bad_arguments_clearly(arguments, error, message):
    with pytest.raises(error, match=message):
        notebook_tools(**arguments)
    with pytest.raises(TypeError):
        notebook_tools(True)  # type: ignore[misc]


async def test_outside_ipython_every_tool_says_so():
    tools = {tool.name: tool for tool in notebook_tools()}
    assert "no IPython kernel here" in tools["list_variables"]()
    assert "no IPython kernel here" in tools["inspect_variable"]("df")
    assert "no IPython kernel here" in tools["cell_history"]()
    answer = await run_cell_code("1 + 1", timeout=5, max_chars=500)
    assert answer["error"].startswith("running code needs an IPython kernel")
    ran = await tools["run_python"](code="1 + 1")
    assert isinstance(ran, ToolAnswer) and ran.message["error"] == answer["error"]


# -- no answer is longer than max_chars -----------------------------------------------------------

NAMES = st.one_of(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True),
    st.sampled_from(["OPENAI_API_KEY", "db_password", "token", "df", "In", "_hidden", "x" * 300]),
)
VALUES = st.one_of(
    st.integers(),
    st.floats(),
    st.text(max_size=3000),
    st.binary(max_size=3000),
    st.lists(st.integers(), max_size=400),
    st.lists(st.text(max_size=50), max_size=100).map(tuple),
    st.dictionaries(st.text(max_size=40), st.text(max_size=400), max_size=60),
    st.lists(st.floats(), max_size=300).map(lambda values: numpy.array(values, dtype=float)),
    st.lists(st.tuples(st.integers(), st.text(max_size=30)), max_size=60).map(
        lambda rows: pandas.DataFrame(rows, columns=["n", "s"])
    ),
    st.lists(st.floats(), max_size=100).map(pandas.Series),
    st.builds(BadRepr),
)
HISTORY = st.lists(st.tuples(st.text(min_size=1, max_size=4000), st.text(max_size=4000)), max_size=8)


def fake_shell(cells: list[tuple[str, str]]) -> SimpleNamespace:
    """The parts of IPython the history reads: the raw inputs and each cell's result text."""
    history = SimpleNamespace(
        input_hist_raw=["", *(source for source, _ in cells)],
        output_hist_reprs={i + 1: out for i, (_, out) in enumerate(cells) if out},
    )
    return SimpleNamespace(history_manager=history, user_ns={})


def raised(message: str) -> BaseException:
    try:
        raise RuntimeError(message)
    except RuntimeError as exc:
        return exc


@seed(29)
@settings(max_examples=60, deadline=None)
@given(
    namespace=st.dictionaries(NAMES, VALUES, max_size=12),
    cells=HISTORY,
    printed=st.text(max_size=20_000),
    error_message=st.text(max_size=5000),
    max_chars=st.integers(MIN_MAX_CHARS, 3000),
)
def test_no_tool_answers_with_more_than_max_chars(namespace, cells, printed, error_message, max_chars):
    tools = {tool.name: tool for tool in notebook_tools(max_chars=max_chars)}
    error = raised(error_message)
    with (
        mock.patch.object(_notebook_tools, "user_namespace", lambda: namespace),
        mock.patch.object(_notebook_tools, "ipython_shell", lambda: fake_shell(cells)),
        mock.patch.object(sys, "last_value", error, create=True),
        mock.patch.object(sys, "last_type", RuntimeError, create=True),
        mock.patch.object(sys, "last_traceback", error.__traceback__, create=True),
    ):
        answers = [tools["list_variables"](), tools["cell_history"](n=50), tools["last_error"]()]
        answers += [tools["inspect_variable"](name) for name in [*namespace, "not_there"]]
    stb = traceback.format_exception(error)
    ran = _Ran(3, [("stdout", printed), ("stderr", printed[:100])], {"text/plain": error_message}, (RuntimeError, error, stb))
    answers.append(cell_answer(ran, max_chars)["content"])
    for answer in answers:
        assert isinstance(answer, str) and len(answer) <= max_chars


# -- in a real kernel -----------------------------------------------------------------------------

SETUP = (
    "import asyncio, json, threading\n"
    "from agui_widget import AgentChat, DemoAgent\n"
    "from agui_widget import notebook_tools\n"
    "from agui_widget.vocabulary._marks import DISPLAY, mark_of\n"
    "def tool_answers():\n"
    "    return [m for m in chat.messages if m['role'] == 'tool']\n"
)


@pytest.fixture
async def fe():
    async with FakeFrontEnd.running() as front:
        yield front


async def open_chat(fe: FakeFrontEnd, arguments: str = "approve=False") -> WidgetComm:
    return await fe.create_widget(SETUP + f"chat = AgentChat(DemoAgent(delay=0), tools=notebook_tools({arguments}))\n")


def call(tool: str, **arguments: Any) -> str:
    """What a user types for the demo agent to call a tool."""
    return f"call {tool} {json.dumps(arguments)}"


async def last_answer(fe: FakeFrontEnd) -> dict[str, Any]:
    return await fe.evaluate("tool_answers()[-1]")


async def run_python(fe: FakeFrontEnd, chat: WidgetComm, code: str, timeout: float = 30.0) -> dict[str, Any]:
    """Have the agent run ``code`` (no approval asked) and return the tool message answering it."""
    assert await say(fe, chat, call("run_python", code=code), timeout) == "idle"
    return await last_answer(fe)


async def run_stored(fe: FakeFrontEnd, code: str, *, check: bool = True) -> Any:
    """Run a cell as a notebook does: kept in the kernel's history (the harness's cells are not)."""
    execute = fe.kc.execute
    fe.kc.execute = lambda source, **kwargs: execute(source, **{**kwargs, "store_history": True})
    try:
        return await fe.execute(code, check=check)
    finally:
        fe.kc.execute = execute


@pytest.mark.kernel
async def test_in_a_kernel_the_listing_leaves_out_what_ipython_put_there(fe):
    chat = await open_chat(fe)
    await fe.execute(
        "import os\nimport pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})\n_scratch = 1\nAPI_TOKEN = 'x'\ndef helper(): pass\n"
        # as IPython does for what it puts in the namespace before the user runs anything
        "get_ipython().push({'preloaded': object(), 'rebound': object()}, interactive=False)\n"
        "rebound = 'the user bound it again'\n"
    )
    rows = await fe.evaluate(
        "[(r['name'], r['kind'], r['secret']) for r in __import__('agui_widget.inputs._namespace', fromlist=['_'])"
        ".variables(get_ipython().user_ns)]"
    )
    names = [name for name, _, _ in rows]
    assert {"frame", "API_TOKEN", "helper", "chat", "tool_answers", "rebound"} <= set(names)
    left_out = {"os", "pd", "In", "Out", "exit", "quit", "get_ipython", "_scratch", "_", "_ih", "_oh", "_dh", "preloaded"}
    assert set(names).isdisjoint(left_out)
    assert ["API_TOKEN", "data", True] in rows and ["helper", "function", False] in rows
    assert await say(fe, chat, call("list_variables")) == "idle"
    answer = await last_answer(fe)
    assert "- frame: DataFrame, (2, 1)," in answer["content"] and "- API_TOKEN: str (value withheld" in answer["content"]
    assert "'x'" not in answer["content"] and "error" not in answer


@pytest.mark.kernel
async def test_run_python_lands_in_in_and_out_runs_magics_and_shows_its_output_in_the_card(fe):
    chat = await open_chat(fe)
    answer = await run_python(fe, chat, "print('hello')\nanswer = 6 * 7\nanswer")
    number = await fe.evaluate("len(In) - 1")
    assert answer["content"] == f"In [{number}] ran.\nhello\nOut[{number}]: 42" and "error" not in answer
    assert await fe.evaluate(f"[In[{number}], Out[{number}], answer, _]") == [
        "print('hello')\nanswer = 6 * 7\nanswer",
        42,
        42,
        42,
    ]
    card = answer["metadata"]["agui_widget"]["display"]
    assert '<pre class="agui-cell-stdout">hello\n</pre>' in card["text/html"] and "Out[" in card["text/html"]

    timed = await run_python(fe, chat, "%time total = sum(range(1000))")
    assert "Wall time" in timed["content"] and await fe.evaluate("total") == 499500
    assert await fe.evaluate("In[-1]") == "get_ipython().run_line_magic('time', 'total = sum(range(1000))')"

    shown = await run_python(
        fe,
        chat,
        "import matplotlib.pyplot as plt\nimport pandas as pd\nfrom IPython.display import display\n"
        "plt.plot([1, 2, 3]); plt.title('A line')\ndisplay(pd.DataFrame({'col': [1, 2]}))\n",
    )
    html = shown["metadata"]["agui_widget"]["display"]["text/html"]
    assert '<img src="data:image/png;base64,' in html and "<table" in html and ">col<" in html
    assert shown["content"].count("[display]") == 2 and "[display] <Figure size" in shown["content"]
    assert await fe.evaluate("__import__('matplotlib.pyplot').pyplot.get_fignums()") == [], (
        "the figure was shown once, in the card"
    )
    assert not fe.errors, "nothing reached the front end's cells"
    kernel_states = {entry.get("kernel") for value in chat.trait_values("pending") for entry in value or ()}
    assert kernel_states == {"running"}, "approve=False runs without asking"


@pytest.mark.kernel
async def test_a_lone_result_is_its_own_bundle_and_a_failure_is_an_answer_with_its_traceback(fe):
    chat = await open_chat(fe)
    await fe.execute("import pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})")
    table = await run_python(fe, chat, "frame")
    card = table["metadata"]["agui_widget"]["display"]
    assert "<table" in card["text/html"] and card["text/plain"] == table["content"]

    failed = await run_python(fe, chat, "def broken():\n    return 1 / 0\nprint('before')\nbroken()")
    assert failed["error"] == "ZeroDivisionError: division by zero"
    content = failed["content"]
    assert content.startswith("In [") and "failed with ZeroDivisionError: division by zero" in content
    assert "before" in content and "----> 4 broken()" in content and "return 1 / 0" in content
    assert "\x1b" not in content, "no colour codes for the model"
    assert "ZeroDivisionError" in failed["metadata"]["agui_widget"]["display"]["text/html"]
    assert not fe.errors, "the traceback went to the card, not under a cell"
    assert await fe.evaluate("chat.status") == "idle", "a failed cell is an answer, the chat goes on"


@pytest.mark.kernel
async def test_with_the_extension_loaded_the_agents_failing_cell_gets_no_ask_the_chat_button(fe):
    chat = await open_chat(fe)
    await fe.execute("get_ipython().run_line_magic('load_ext', 'agui_widget')")
    widgets_before = set(fe.widgets)
    failed = await run_python(fe, chat, "1 / 0")
    assert failed["error"] == "ZeroDivisionError: division by zero"
    bundle = failed["metadata"]["agui_widget"]["display"]
    assert "application/vnd.jupyter.widget-view+json" not in bundle and "Ask the chat" not in str(bundle)
    assert set(fe.widgets) == widgets_before, "no button widget was made for the agent's own cell"
    assert not fe.errors


@pytest.mark.kernel
async def test_the_cells_output_never_leaks_into_the_cell_the_front_end_is_running(fe):
    await open_chat(fe)
    code = "print('from the agent')\nfrom IPython.display import display, HTML\ndisplay(HTML('<b>agent</b>'))\n'agent result'"
    cell = await fe.execute(
        f"print('from the cell')\nrun = await chat.send({call('run_python', code=code)!r})\nprint(run.status)",
        timeout=30,
    )
    assert cell.stdout == "from the cell\nfinished\n"
    assert cell.outputs == [] and cell.result is None, "no display and no execute_result under the cell"
    answer = await last_answer(fe)
    assert "from the agent" in answer["content"] and "Out[" in answer["content"] and "'agent result'" in answer["content"]
    assert "<b>agent</b>" in answer["metadata"]["agui_widget"]["display"]["text/html"]
    after = await fe.execute("print('still mine')")
    assert after.stdout == "still mine\n", "the routes were taken away"


@pytest.mark.kernel
async def test_a_denied_run_python_never_runs_and_an_approved_one_does(fe):
    chat = await open_chat(fe, "")
    for approved in (False, True):
        since = len(chat.updates)
        fe.send_custom(chat, {"kind": "send", "text": call("run_python", code="side_effect = 'ran'")})
        pending = await fe.wait_for_trait(chat, "pending", lambda p: bool(p) and p[0].get("kernel") == "approve")
        assert await fe.evaluate("'side_effect' in globals()") is False, "nothing runs before the answer"
        fe.send_custom(chat, {"kind": "tool_result", "toolCallId": pending[0]["toolCallId"], "result": approved})
        assert await until_turn_ends(fe, chat, since) == "idle"
        answer = await last_answer(fe)
        if not approved:
            assert '"approved": false' in answer["content"]
            assert await fe.evaluate("'side_effect' in globals()") is False, "a denied call never runs"
            assert await fe.evaluate("len(In)") == 1, "nothing landed in the history either"
    assert await fe.evaluate("side_effect") == "ran"
    assert answer["content"] == "In [1] ran, with no output." and "error" not in answer


@pytest.mark.kernel
async def test_a_timeout_ends_a_busy_loop_and_the_kernel_goes_on(fe):
    chat = await open_chat(fe, "approve=False, timeout=0.5")
    answer = await run_python(fe, chat, "started = True\nwhile True:\n    pass")
    assert answer["error"] == "the code did not finish within 0.5 s; it was interrupted"
    assert "KeyboardInterrupt" in answer["content"]
    assert await fe.evaluate("started") is True
    names = "[t.name for t in threading.enumerate() if t.name == 'agui-widget cell']"
    await until_evaluates(fe, names, [])
    assert (await run_python(fe, chat, "1 + 1"))["content"].endswith("]: 2"), "the next cell runs"


async def until_evaluates(fe: FakeFrontEnd, expression: str, expected: Any, timeout: float = 10.0) -> None:
    """Wait until a kernel expression has the expected value (asked again at each message)."""
    values: list[Any] = []

    async def check() -> bool:
        values.append(await fe.evaluate(expression))
        return values[-1] == expected

    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, f"{expression} stayed {values[-1]!r}"
        await fe.wait_for(lambda: True)


@pytest.mark.kernel
async def test_stop_ends_a_running_call(fe):
    chat = await open_chat(fe, "approve=False, timeout=None")
    since = len(chat.updates)
    fe.send_custom(chat, {"kind": "send", "text": call("run_python", code="started = True\nwhile True:\n    pass")})
    await until_evaluates(fe, "globals().get('started')", True)
    fe.send_custom(chat, {"kind": "stop"})
    assert await until_turn_ends(fe, chat, since) == "idle"
    answer = await last_answer(fe)
    assert answer["error"] == "cancelled", "the stopped call is answered, never left dangling"
    await until_evaluates(fe, "[t.name for t in threading.enumerate() if t.name == 'agui-widget cell']", [])
    assert await fe.evaluate("type(__import__('sys').last_value).__name__") == "KeyboardInterrupt"
    assert (await run_python(fe, chat, "'after'"))["content"].endswith("]: 'after'")


@pytest.mark.kernel
async def test_cell_history_and_last_error(fe):
    chat = await open_chat(fe)
    assert await say(fe, chat, call("last_error")) == "idle"
    assert (await last_answer(fe))["content"] == "No error yet: no cell has raised an exception in this kernel session."
    await run_stored(fe, "x = 20")
    await run_stored(fe, "print('twice', x * 2)")
    await run_stored(fe, "x + 1")
    await run_python(fe, chat, "y = x * 3")
    failing = await run_stored(fe, "def broken():\n    return {}['missing']\nbroken()", check=False)
    assert failing.error and failing.error["ename"] == "KeyError"

    assert await say(fe, chat, call("cell_history", n=4)) == "idle"
    history = (await last_answer(fe))["content"]
    first = await fe.evaluate("len(In) - 5")
    assert history.startswith("The last 4 cells run, oldest first:")
    assert f"In [{first}]:\nx = 20" not in history, "only the last four"
    assert f"In [{first + 1}]:\nprint('twice', x * 2)\nOutput:\ntwice 40" in history
    assert f"In [{first + 2}]:\nx + 1\nOutput:\nOut[{first + 2}]: 21" in history
    assert f"In [{first + 3}] (run by the agent with run_python):\ny = x * 3" in history
    assert f"In [{first + 4}]:\ndef broken():" in history

    assert await say(fe, chat, call("last_error")) == "idle"
    error = (await last_answer(fe))["content"]
    assert error.startswith("The last error: KeyError: 'missing'")
    assert f"In [{first + 4}] raised it:\ndef broken():\n    return {{}}['missing']\nbroken()" in error
    assert "Traceback:" in error and "----> 3 broken()" in error and "\x1b" not in error

    assert await say(fe, chat, call("cell_history", n=0)) == "idle"
    assert "greater than or equal to 1" in (await last_answer(fe))["error"]


@pytest.mark.kernel
async def test_every_answer_in_a_kernel_holds_to_max_chars(fe):
    chat = await open_chat(fe, "approve=False, max_chars=300")
    await run_stored(fe, "import pandas as pd\nwide = pd.DataFrame({f'column_{i}': range(500) for i in range(40)})")
    await run_stored(fe, "raise ValueError('x' * 5000)", check=False)
    answers = [await run_python(fe, chat, "for i in range(2000):\n    print('line', i)")]
    for text in (call("list_variables"), call("inspect_variable", name="wide"), call("cell_history", n=50), call("last_error")):
        assert await say(fe, chat, text) == "idle"
        answers.append(await last_answer(fe))
    for answer in answers:
        assert len(answer["content"]) <= 300, answer["content"]
    assert "characters cut]" in answers[0]["content"] and "line 1999" in answers[0]["content"], "the end is kept"
