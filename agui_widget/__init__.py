"""agui-widget: an AG-UI agent chat inside a Jupyter notebook.

``AgentChat(agent)`` shows a chat that runs ``agent`` in the kernel and speaks AG-UI to the view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .adapters import AgentAdapter, CallableAgent, DemoAgent, EventStream, FunctionAgent
from .chat._widget import AgentChat
from .inputs._live_context import LiveContext
from .inputs._tools import FrontendTool, PythonTool, ask_tool, confirm_tool, form_tool, js_tool, python_tool
from .session._run import Run
from .stores._store import MemoryThreadStore, SQLiteThreadStore, ThreadOwnedElsewhere, ThreadRecord, ThreadStore, open_store
from .vocabulary._display import HTML, Markdown, display_bundle, steps_checklist
from .vocabulary._hooks import ErrorInfo

if TYPE_CHECKING:
    from .adapters import RemoteAgent, ReplayAgent
    from .inputs._mcp_tools import mcp_tools
    from .inputs._notebook_tools import notebook_tools
    from .stores._postgres import PostgresThreadStore


def __getattr__(name: str) -> Any:
    """``__version__``, read from the installed metadata on first use: the lookup scans the
    installed distributions, which ``import agui_widget`` need not pay for. ``PostgresThreadStore``,
    ``RemoteAgent``, ``ReplayAgent``, ``notebook_tools`` and ``mcp_tools`` on first use too."""
    if name == "PostgresThreadStore":  # psycopg loads only for a chat or server that uses one
        from .stores._postgres import PostgresThreadStore

        return PostgresThreadStore
    if name == "notebook_tools":  # the namespace reader and the cell runner, for a chat that uses them
        from .inputs._notebook_tools import notebook_tools

        return notebook_tools
    if name == "mcp_tools":  # MCP servers' tools: the SDK itself loads when a server is named
        from .inputs._mcp_tools import mcp_tools

        return mcp_tools
    if name in ("RemoteAgent", "ReplayAgent"):  # the HTTP client's and recordings' code, when used
        from . import adapters

        return getattr(adapters, name)
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("agui-widget")
    except PackageNotFoundError:  # running from a source tree
        found = "0.0.0"
    globals()["__version__"] = found
    return found


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext agui_widget``: the ``%%chat`` and ``%chat`` magics and the "Ask the chat about
    this error" button under a failing cell's traceback (:mod:`agui_widget.notebook`)."""
    from .notebook import load_ipython_extension as load

    load(ip)


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext agui_widget``: takes the magics and the button out again."""
    from .notebook import unload_ipython_extension as unload

    unload(ip)


def __dir__() -> list[str]:
    """Every public name, those loaded on first use too (for completion in a notebook)."""
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "HTML",
    "AgentAdapter",
    "AgentChat",
    "CallableAgent",
    "DemoAgent",
    "ErrorInfo",
    "EventStream",
    "FrontendTool",
    "FunctionAgent",
    "LiveContext",
    "Markdown",
    "MemoryThreadStore",
    "PostgresThreadStore",
    "PythonTool",
    "RemoteAgent",
    "ReplayAgent",
    "Run",
    "SQLiteThreadStore",
    "ThreadOwnedElsewhere",
    "ThreadRecord",
    "ThreadStore",
    "__version__",
    "ask_tool",
    "confirm_tool",
    "display_bundle",
    "form_tool",
    "js_tool",
    "mcp_tools",
    "notebook_tools",
    "open_store",
    "python_tool",
    "steps_checklist",
]
