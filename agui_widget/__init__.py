"""agui-widget: an AG-UI agent chat inside a Jupyter notebook.

``AgentChat(agent)`` shows a chat that runs ``agent`` in the kernel and speaks AG-UI to the view.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ._display import HTML, Markdown, display_bundle, steps_checklist
from ._hooks import ErrorInfo
from ._session import Run
from ._store import MemoryThreadStore, SQLiteThreadStore, ThreadRecord, ThreadStore, open_store
from ._tools import FrontendTool, ask_tool, confirm_tool, form_tool, js_tool
from ._widget import AgentChat
from .adapters import AgentAdapter, CallableAgent, DemoAgent, EventStream, FunctionAgent
from .adapters import RemoteAgent

try:
    __version__ = version("agui-widget")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "AgentAdapter",
    "AgentChat",
    "CallableAgent",
    "DemoAgent",
    "ErrorInfo",
    "EventStream",
    "FrontendTool",
    "FunctionAgent",
    "HTML",
    "Markdown",
    "MemoryThreadStore",
    "RemoteAgent",
    "Run",
    "SQLiteThreadStore",
    "ThreadRecord",
    "ThreadStore",
    "__version__",
    "ask_tool",
    "confirm_tool",
    "display_bundle",
    "form_tool",
    "js_tool",
    "open_store",
    "steps_checklist",
]
