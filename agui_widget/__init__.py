"""agui-widget: an AG-UI agent chat inside a Jupyter notebook.

``AgentChat(agent)`` shows a chat that runs ``agent`` in the kernel and speaks AG-UI to the view.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ._session import Run
from ._tools import FrontendTool, ask_tool, confirm_tool, form_tool, js_tool
from ._widget import AgentChat
from .adapters import AgentAdapter, CallableAgent, DemoAgent, EventStream, FunctionAgent

try:
    __version__ = version("agui-widget")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "AgentAdapter",
    "AgentChat",
    "CallableAgent",
    "DemoAgent",
    "EventStream",
    "FrontendTool",
    "FunctionAgent",
    "Run",
    "__version__",
    "ask_tool",
    "confirm_tool",
    "form_tool",
    "js_tool",
]
