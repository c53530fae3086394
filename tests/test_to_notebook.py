"""``chat.to_notebook(path)``: the conversation as a notebook that runs again.

Each message is a Markdown cell; the code the agent ran (``run_python``) and each Python tool's
call, written as a call of its function, are code cells with the outputs the chat showed. The file
is valid nbformat, and run again in a kernel it gives the same outputs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import matplotlib
import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agui_widget import AgentChat, python_tool
from agui_widget.adapters import DemoAgent
from agui_widget.chat._notebook import notebook_of, write_notebook
from agui_widget.inputs._tools import FrontendTool

from . import notebook_support as tools
from .kernel_harness import FakeFrontEnd
from .support import png, until

matplotlib.use("Agg")

REPO_ROOT = Path(__file__).resolve().parent.parent
RUN_CODE = 'total = 420 + 380\nprint("total", total)'


def code_cells(notebook: Any) -> list[Any]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def cell_with(notebook: Any, source: str) -> Any:
    [cell] = [cell for cell in notebook.cells if cell.source == source]
    return cell


def markdown_text(notebook: Any) -> str:
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


async def analysis(tmp_path: Path) -> AgentChat:
    """A conversation in which the demo agent calls Python tools, runs code, calls its own tool and a
    frontend tool, and reads attachments."""
    chat = AgentChat(
        DemoAgent(delay=0),
        thread_id="sales-review",
        tools=[tools.top_customers, tools.sales_chart, tools.run_python, tools.refund, tools.explode],
    )
    notes = tmp_path / "notes.txt"
    notes.write_text("Q3 sales, by customer.")
    chart = tmp_path / "sales.png"
    chart.write_bytes(png(4, 3))
    await chat.send("Here are my notes and last year's chart", attachments=[notes, chart])
    await chat.send("call top_customers n=3")
    await chat.send('call sales_chart title="Sales by customer"')
    await chat.send("call run_python " + json.dumps({"code": RUN_CODE}))
    await chat.send('call refund {"order": "A-1", "amount": 12.5, "reason": "late"}')
    await chat.send("call explode message=boom")
    await chat.send("weather in Paris")  # the demo agent's own tool
    run = chat.send("make the accent green")  # a frontend tool the view answers
    await until(lambda: chat.pending_tool_calls, what="the frontend tool's call")
    chat.respond(chat.pending_tool_calls[0]["toolCallId"], {"ok": True})
    await run
    assert chat.status == "idle", chat.error
    return chat


async def test_the_notebook_has_a_cell_for_each_message_and_a_code_cell_for_each_call(tmp_path):
    chat = await analysis(tmp_path)
    path = chat.to_notebook(tmp_path / "review.ipynb")
    assert path == tmp_path / "review.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata.kernelspec.name == "python3"
    assert notebook.metadata.agui_widget == {"threadId": "sales-review", "agent": "DemoAgent"}

    title = notebook.cells[0]
    assert title.cell_type == "markdown" and "DemoAgent" in title.source and "`sales-review`" in title.source
    assert [cell.source for cell in code_cells(notebook)] == [
        "# The code cells below call the chat's Python tools: their functions must be defined (or imported)\n"
        "# before the notebook runs again.\n"
        "from tests.notebook_support import top_customers\n"
        "from tests.notebook_support import sales_chart\n"
        "from tests.notebook_support import refund\n"
        "from tests.notebook_support import explode",
        "top_customers(n=3)",
        "sales_chart(title='Sales by customer')",
        RUN_CODE,
        "refund('A-1', amount=12.5, reason='late')",
        "explode(message='boom')",
    ], "the code the agent ran, and each Python tool's call as a call of its function"

    text = markdown_text(notebook)
    assert "**User:**\n\n> call top_customers n=3" in text, "the user's messages are quoted as theirs"
    assert "📎 *notes.txt*" in text and "![sales.png](data:image/png;base64," in text, "attachments are named"
    assert "**Assistant:**\n\nCalling `top_customers`." in text
    assert "**Tool call:** `get_weather`, a tool the agent runs itself." in text and '"city": "Paris"' in text
    assert "**Tool call:** `set_accent_color`, a tool the chat's view or the user answered." in text
    assert '"ok": true' in text, "a note keeps the result"
    assert "call run_python" in text and "Result:" not in text.split("call run_python")[1].split("**User:**")[0]


async def test_the_outputs_the_chat_showed_are_kept(tmp_path):
    notebook = nbformat.read((await analysis(tmp_path)).to_notebook(tmp_path / "review.ipynb"), as_version=4)

    [table] = cell_with(notebook, "top_customers(n=3)").outputs
    assert table.output_type == "execute_result" and table.execution_count is None
    assert "Ada" in table.data["text/html"] and "Edsger" not in table.data["text/plain"]

    [chart] = cell_with(notebook, "sales_chart(title='Sales by customer')").outputs
    assert chart.output_type == "execute_result" and chart.data["image/png"] and "Sales by customer" in chart.data["text/plain"]

    [shown] = cell_with(notebook, RUN_CODE).outputs
    assert shown.output_type == "display_data", "the code's card, as the chat showed it"
    assert shown.data["text/markdown"] == "total 800\n" and "total 800" in shown.data["text/html"]

    [refunded] = cell_with(notebook, "refund('A-1', amount=12.5, reason='late')").outputs
    assert refunded.output_type == "stream" and json.loads(refunded.text) == {"order": "A-1", "amount": 12.5, "reason": "late"}

    failing = cell_with(notebook, "explode(message='boom')")
    assert failing.metadata.tags == ["raises-exception"], "the notebook runs on past the cell that raises"
    [error] = failing.outputs
    assert error.name == "stderr" and "RuntimeError: boom" in error.text


@pytest.mark.kernel
async def test_run_again_in_a_kernel_the_notebook_gives_the_same_outputs(tmp_path):
    import nbclient  # Jupyter's executor (nbconvert's): the notebook is run as Jupyter runs one

    written = nbformat.read((await analysis(tmp_path)).to_notebook(tmp_path / "review.ipynb"), as_version=4)
    again = nbformat.from_dict(json.loads(json.dumps(written)))
    client = nbclient.NotebookClient(again, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(REPO_ROOT)}})
    await client.async_execute()

    def outputs(notebook: Any, source: str) -> list[Any]:
        return cell_with(notebook, source).outputs

    [before], [after] = outputs(written, "top_customers(n=3)"), outputs(again, "top_customers(n=3)")
    assert after.output_type == "execute_result"
    assert (after.data["text/plain"], after.data["text/html"]) == (before.data["text/plain"], before.data["text/html"])
    assert [o.text for o in outputs(again, RUN_CODE) if o.output_type == "stream"] == ["total 800\n"]
    assert any("image/png" in o.get("data", {}) for o in outputs(again, "sales_chart(title='Sales by customer')"))
    [refunded] = outputs(again, "refund('A-1', amount=12.5, reason='late')")
    assert refunded.data["text/plain"] == "{'order': 'A-1', 'amount': 12.5, 'reason': 'late'}"
    [raised] = outputs(again, "explode(message='boom')")
    assert (raised.output_type, raised.ename, raised.evalue) == ("error", "RuntimeError", "boom")


async def test_a_denied_call_is_a_note_not_code_that_runs(tmp_path):
    chat = AgentChat(DemoAgent(delay=0), tools=[python_tool(tools.top_customers, approve=True)])
    run = chat.send("call top_customers n=2")
    await until(lambda: chat.pending_tool_calls, what="the approval")
    chat.respond(chat.pending_tool_calls[0]["toolCallId"], False)
    await run
    notebook = nbformat.read(chat.to_notebook(tmp_path / "denied.ipynb"), as_version=4)
    assert code_cells(notebook) == [], "no setup cell, no call: nothing ran"
    assert "**Tool call:** `top_customers`, denied by the user: it did not run." in markdown_text(notebook)


def test_a_function_defined_where_the_chat_ran_is_named_in_the_setup_cell(tmp_path):
    def lookup(key: str, *, strict: bool = False) -> str:
        return key

    messages = transcript_calling("lookup", {"key": "x-1", "strict": True, "class": 1, "x-y": [1, {"a": None}]}, "found")
    notebook = notebook_of(messages, [python_tool(lookup)], agent="Scripted", thread_id="t")
    setup, call = code_cells(notebook)
    assert "# lookup: from tests.test_to_notebook, not importable by that name; define it here." in setup.source
    assert call.source == "lookup(key='x-1', strict=True, **{'class': 1, 'x-y': [1, {'a': None}]})"
    assert [o.text for o in call.outputs] == ["found\n"]


def test_a_call_that_is_not_a_python_tools_is_a_note():
    messages = transcript_calling("confirm", {"message": "Delete?"}, '{"approved": true}')
    messages += transcript_calling("run_python", {"script": "no code argument"}, "?", call_id="c2")
    notebook = notebook_of(messages, [FrontendTool("confirm", "Ask.", ui="confirm")], agent="Scripted", thread_id="t")
    assert code_cells(notebook) == []
    text = markdown_text(notebook)
    assert "`confirm`, a tool the chat's view or the user answered" in text
    assert "`run_python`, code the agent ran, with arguments that hold no code" in text


def test_an_mcp_servers_tool_is_called_again_through_mcp_tools_started_in_the_setup_cell():
    from agui_widget import mcp_tools
    from agui_widget.inputs._mcp_connection import stop_all
    from agui_widget.teaching.mcp_demo import COMMAND

    try:
        demo = mcp_tools(COMMAND, prefix="demo_")
        messages = transcript_calling("demo_add", {"a": 2, "b": 3}, "5.0")
        setup, call = code_cells(notebook_of(messages, demo, agent="Scripted", thread_id="t"))
        assert "from agui_widget import mcp_tools" in setup.source
        assert f"mcp_server_1 = {{tool.remote_name: tool for tool in mcp_tools({list(COMMAND)!r})}}" in setup.source
        assert "demo_add = mcp_server_1['add']" in setup.source
        assert call.source == "demo_add(a=2, b=3)"
        assert [o.text for o in call.outputs] == ["5.0\n"], "the output the chat showed"
        namespace: dict[str, Any] = {}
        exec(setup.source, namespace)  # the cells run again: the server is started and called
        again = eval(call.source, namespace)
        assert [part.text for part in again.content] == ["5.0"]
    finally:
        stop_all()


def test_a_directory_or_a_missing_folder_is_refused_and_nothing_is_written(tmp_path):
    chat = AgentChat(DemoAgent(delay=0))
    with pytest.raises(IsADirectoryError, match="is a folder"):
        chat.to_notebook(tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        chat.to_notebook(tmp_path / "no" / "chat.ipynb")
    assert list(tmp_path.iterdir()) == []


async def test_writing_again_replaces_the_file_whole(tmp_path):
    chat = AgentChat(DemoAgent(delay=0))
    target = tmp_path / "chat.ipynb"
    chat.to_notebook(target)
    await chat.send("hello")
    chat.to_notebook(target)
    assert [p.name for p in tmp_path.iterdir()] == ["chat.ipynb"], "no temporary file is left behind"
    assert "> hello" in markdown_text(nbformat.read(target, as_version=4))


def test_nbformat_loads_with_the_first_notebook_not_with_the_chat():
    code = (
        "import sys\n"
        "from agui_widget import AgentChat\n"
        "AgentChat()\n"
        "assert 'nbformat' not in sys.modules and 'agui_widget.chat._notebook' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def transcript_calling(name: str, arguments: Any, result: str, call_id: str = "c1") -> list[dict[str, Any]]:
    return [
        {"id": f"u-{call_id}", "role": "user", "content": f"use {name}"},
        {
            "id": f"a-{call_id}",
            "role": "assistant",
            "toolCalls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}],
        },
        {"id": f"t-{call_id}", "role": "tool", "toolCallId": call_id, "content": result},
    ]


# -- any transcript makes a valid notebook ------------------------------------------------------

_TOOLS = [python_tool(tools.top_customers), python_tool(tools.run_python), python_tool(tools.refund)]
_NAMES = st.sampled_from(["top_customers", "run_python", "refund", "get_weather", "", "x y", "class"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_MIMES = st.sampled_from(
    ["text/plain", "text/html", "image/png", "application/json", "application/vnd.vegalite.v5+json", "nota mime", "x"]
)
_PART = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=20)),
    st.builds(
        lambda kind, mime, value, meta: {
            "type": kind,
            "source": {"type": "data", "value": value, "mimeType": mime},
            "metadata": meta,
        },
        st.sampled_from(["image", "document", "audio", "video"]),
        st.sampled_from(["image/png", "application/pdf", "text/plain", ""]),
        st.text(alphabet="QUJD=+/", max_size=12),
        st.dictionaries(st.sampled_from(["filename", "other"]), st.text(max_size=10), max_size=2),
    ),
    st.builds(lambda url: {"type": "image", "source": {"type": "url", "value": url}}, st.text(max_size=15)),
)


@st.composite
def _calls(draw: Any) -> dict[str, Any]:
    arguments = draw(
        st.one_of(st.builds(json.dumps, st.dictionaries(st.text(max_size=6), _JSON, max_size=3)), st.text(max_size=10))
    )
    if draw(st.booleans()):
        arguments = json.dumps({"code": draw(st.text(max_size=30)), "n": draw(_JSON)})
    return {
        "id": draw(st.sampled_from(["c1", "c2", "c3"])),
        "type": "function",
        "function": {"name": draw(_NAMES), "arguments": arguments},
    }


_MESSAGE = st.one_of(
    st.builds(lambda c: {"role": "user", "content": c}, st.text(max_size=40) | st.lists(_PART, max_size=3)),
    st.builds(
        lambda c, calls: {"role": "assistant", "content": c, "toolCalls": calls},
        st.none() | st.text(max_size=40),
        st.lists(_calls(), max_size=2),
    ),
    st.builds(
        lambda i, c, display, error: {
            "role": "tool",
            "toolCallId": i,
            "content": c,
            "metadata": {"agui_widget": {"display": display}},
            **({"error": c} if error else {}),
        },
        st.sampled_from(["c1", "c2", "c3"]),
        st.text(max_size=30),
        st.none()
        | _JSON
        | st.dictionaries(_MIMES, _JSON | st.text(max_size=10) | st.lists(st.text(max_size=4), max_size=2), max_size=3),
        st.booleans(),
    ),
    st.builds(
        lambda role, c: {"role": role, "content": c},
        st.sampled_from(["system", "developer", "reasoning", "activity", "odd"]),
        _JSON,
    ),
)


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_MESSAGE, max_size=8))
def test_any_transcript_makes_a_notebook_that_validates(messages):
    notebook = notebook_of(messages, _TOOLS, agent="Any <agent>", thread_id="t`1")
    nbformat.validate(notebook)
    text = nbformat.writes(notebook)
    nbformat.validate(nbformat.reads(text, as_version=4))
    for cell in code_cells(notebook):
        if cell.source.startswith(("top_customers(", "refund(")):
            compile(cell.source, "<a tool's call>", "eval")  # the arguments are Python literals


def test_a_written_notebook_validates_whatever_the_transcript(tmp_path):
    messages = [
        {"role": "tool", "toolCallId": "c", "content": None, "metadata": {"agui_widget": {"display": {"image/png": b"raw"}}}}
    ]
    path = write_notebook(notebook_of(messages, _TOOLS, agent="a", thread_id="t"), tmp_path / "n.ipynb")
    nbformat.validate(nbformat.read(path, as_version=4))


# -- in a kernel, with notebook_tools()' own run_python -----------------------------------------------

KERNEL_CODE = "import pandas as pd\nframe = pd.DataFrame({'x': [1, 2, 3]})\nprint('rows', len(frame))\nint(frame.x.sum())"


@pytest.mark.kernel
async def test_in_a_kernel_the_code_run_python_ran_is_a_cell_that_runs_again(tmp_path):
    import nbclient  # Jupyter's executor (nbconvert's): the notebook is run as Jupyter runs one

    path = tmp_path / "kernel.ipynb"
    async with FakeFrontEnd.running() as fe:
        await fe.execute(
            "import json\n"
            "from agui_widget import AgentChat, DemoAgent\n"
            "from agui_widget import notebook_tools\n"
            "from tests.notebook_support import top_customers\n"
            "chat = AgentChat(DemoAgent(delay=0.001), tools=[*notebook_tools(approve=False), top_customers])\n"
            f"run = chat.send('call run_python ' + json.dumps({{'code': {KERNEL_CODE!r}}}))\n"
        )
        for line in ("call list_variables", "call top_customers n=2"):
            assert await _idle(fe), "the chat's turn ended"
            await fe.execute(f"run = chat.send({line!r})")
        assert await _idle(fe)
        await fe.execute(f"chat.to_notebook({str(path)!r})")

    written = nbformat.read(path, as_version=4)
    assert [cell.source for cell in code_cells(written)][1:] == [KERNEL_CODE, "top_customers(n=2)"]
    [card] = cell_with(written, KERNEL_CODE).outputs
    assert card.output_type == "display_data" and "rows 3" in card.data["text/plain"] and "]: 6" in card.data["text/plain"]
    assert "**Tool call:** `list_variables`, one of agui-widget's notebook tools." in markdown_text(written)

    again = nbformat.from_dict(json.loads(json.dumps(written)))
    await nbclient.NotebookClient(
        again, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(REPO_ROOT)}}
    ).async_execute()
    rerun = cell_with(again, KERNEL_CODE).outputs
    assert [o.text for o in rerun if o.output_type == "stream"] == ["rows 3\n"]
    assert [o.data["text/plain"] for o in rerun if o.output_type == "execute_result"] == ["6"]


async def _idle(fe: FakeFrontEnd, timeout: float = 20.0) -> bool:
    """Whether the kernel's chat is idle (its turn, and the tools' runs, over) within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await fe.evaluate("chat.status == 'idle' and chat.active_run is None and run.done"):
            return True
    return False
