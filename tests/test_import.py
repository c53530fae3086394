"""What ``import agui_widget`` loads: the chat and the AG-UI types, nothing a chat may never use.

Frameworks (Langroid, LangChain), the HTTP client and server, SQLite and the plotting and data
libraries are imported when an agent, a remote URL, a store or a rich result needs them
(benchmarks/import_time.py measures the time this saves)."""

from __future__ import annotations

import subprocess
import sys


def run_python(code: str) -> None:
    """Run ``code`` in a fresh interpreter (nothing imported yet); its assertions must hold."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


OPTIONAL = (
    "sqlite3",
    "psycopg",
    "psycopg_pool",
    "httpx",
    "httpx_sse",
    "fastapi",
    "starlette",
    "uvicorn",
    "langroid",
    "langchain_core",
    "langgraph",
    "pydantic_ai",
    "matplotlib",
    "pandas",
    "altair",
    "mcp",
)


def test_importing_agui_widget_loads_none_of_the_optional_libraries():
    code = (
        "import sys, agui_widget\n"
        f"loaded = [m for m in {OPTIONAL!r} if m in sys.modules]\n"
        "assert not loaded, loaded\n"
        "assert isinstance(agui_widget.__version__, str) and agui_widget.__version__\n"
        "assert set(agui_widget.__all__) <= set(dir(agui_widget)) | {'__version__', 'PostgresThreadStore'}\n"
        "assert agui_widget.PostgresThreadStore.__name__ == 'PostgresThreadStore'  # on first use\n"
    )
    run_python(code)


def test_a_sqlite_store_imports_sqlite_when_it_opens(tmp_path):
    code = (
        "import sys, agui_widget\n"
        "assert 'sqlite3' not in sys.modules\n"
        f"store = agui_widget.open_store({str(tmp_path / 'chats.db')!r})\n"
        "assert 'sqlite3' in sys.modules and store.list_threads() == []\n"
    )
    run_python(code)


def test_a_chat_loads_its_event_pipeline_with_its_first_run():
    """The pipeline's module builds tables of every AG-UI event model: a chat made and never run
    (or not run yet) does not pay for it."""
    code = (
        "import asyncio, sys\n"
        "from agui_widget import AgentChat\n"
        "steps = ('_consumer', '_compat', '_enforce', '_chunks', '_surrogates', '_verify', '_reducer', '_message_dicts')\n"
        "pipeline = tuple('agui_widget.pipeline.' + step for step in steps)\n"
        "chat = AgentChat()\n"
        "assert not [m for m in pipeline if m in sys.modules], [m for m in pipeline if m in sys.modules]\n"
        "async def turn():\n"
        "    return await chat.send('hello')\n"
        "run = asyncio.run(turn())\n"
        "assert run.status == 'finished', (run.status, run.error)\n"
        "assert all(m in sys.modules for m in pipeline)\n"
    )
    run_python(code)


def test_a_chat_loads_the_wire_declarations_only_when_a_view_speaks():
    """Building the declarations' classes was most of what importing the package cost: a chat
    loads the requests' when the first request arrives, and never the payloads' (only the schema
    generator and the tests read them)."""
    code = (
        "import sys\n"
        "from agui_widget import AgentChat\n"
        "chat = AgentChat()\n"
        "assert 'agui_widget.wire._requests' not in sys.modules\n"
        "sent = []\n"
        "chat._link.transport.send = sent.append\n"
        "chat._link.on_view_message(chat, {'kind': 'hello', 'viewId': 'v1'}, [])\n"
        "assert [m['kind'] for m in sent] == ['snapshot'], sent\n"
        "assert 'agui_widget.wire._requests' in sys.modules\n"
        "assert 'agui_widget.wire._payloads' not in sys.modules\n"
    )
    run_python(code)


def test_the_remote_and_replay_agents_load_when_named():
    code = (
        "import sys, agui_widget\n"
        "lazy = ('agui_widget.adapters._remote', 'agui_widget.adapters._replay')\n"
        "agui_widget.AgentChat()\n"
        "assert not [m for m in lazy if m in sys.modules], [m for m in lazy if m in sys.modules]\n"
        "assert {'RemoteAgent', 'ReplayAgent'} <= set(dir(agui_widget))\n"
        "from agui_widget import RemoteAgent, ReplayAgent\n"
        "from agui_widget.adapters import as_agent\n"
        "assert type(as_agent('http://127.0.0.1:9/agent')) is RemoteAgent\n"
        "assert ReplayAgent.__module__ == 'agui_widget.adapters._replay'\n"
    )
    run_python(code)


def test_the_notebook_tools_and_the_magics_load_when_used():
    """The namespace reader, the cell runner and the IPython extension are for chats (and notebooks)
    that use them: a chat made and run without them does not load them."""
    code = (
        "import asyncio, sys, agui_widget\n"
        "lazy = ('agui_widget.inputs._notebook_tools', 'agui_widget.inputs._cell_runner', 'agui_widget.inputs._namespace',\n"
        "        'agui_widget.notebook', 'agui_widget.chat._notebook', 'agui_widget.chat._code_runs', 'nbformat')\n"
        "chat = agui_widget.AgentChat()\n"
        "async def turn():\n"
        "    return await chat.send('hello')\n"
        "assert asyncio.run(turn()).status == 'finished'\n"
        "assert not [m for m in lazy if m in sys.modules], [m for m in lazy if m in sys.modules]\n"
        "assert 'notebook_tools' in dir(agui_widget)\n"
        "from agui_widget import notebook_tools\n"
        "assert [tool.name for tool in notebook_tools(run_code=False)] == ['list_variables', 'inspect_variable', 'cell_history', 'last_error']\n"
    )
    run_python(code)


def test_mcp_tools_loads_the_sdk_only_when_a_server_is_named():
    """The MCP SDK costs about half a second to import: a chat, and naming ``mcp_tools``, do not pay it."""
    code = (
        "import sys, agui_widget\n"
        "agui_widget.AgentChat()\n"
        "from agui_widget import mcp_tools\n"
        "assert 'mcp' not in sys.modules and 'mcp_tools' in dir(agui_widget)\n"
        "from agui_widget.teaching.mcp_demo import COMMAND\n"
        "assert [tool.name for tool in mcp_tools(COMMAND, include=['add'])] == ['add']\n"
    )
    run_python(code)
