"""Tools that let the agent work in the notebook: see the kernel's variables, look into one, run
code as a cell (after the user approves), and read the cells run so far and the last error.

They are Python tools (``_tools.PythonTool``): they travel to any agent as client-side tools and
the kernel runs each call, so they work with the user's live objects. Every answer is text of at
most ``max_chars`` characters, cut in one place (:func:`_bounded`).
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from ._cell_history import NO_IPYTHON, cell_history_text, last_error_text
from ._cell_runner import run_cell_code
from ._namespace import describe, fit, ipython_shell, size_text, user_namespace, variables
from ._python_tools import ToolAnswer
from ._tools import PythonTool, python_tool

DEFAULT_MAX_CHARS = 8_000
"""About 2,000 tokens: room for a DataFrame's head and describe() of some twenty columns, or a
traceback of sixty lines, while a dozen calls in one turn still leave a model's context free."""
MIN_MAX_CHARS = 200
"""Less leaves no room for the one line that says what went wrong."""
DEFAULT_TIMEOUT = 60.0
"""Seconds a ``run_python`` cell may run: enough for loading data or fitting a small model, short
enough that a runaway loop does not hold the chat for long."""
MAX_HISTORY = 50

LIST_VARIABLES = (
    "List the variables in the user's Jupyter notebook (the live Python kernel): each name with its "
    "type, its shape or length and its size in memory; functions and classes are listed apart. Names "
    "that look like secrets are listed without their value. Use it first to see what data the user has."
)
INSPECT_VARIABLE = (
    "Look at one variable in the user's notebook: a DataFrame's shape, dtypes, first rows and summary "
    "statistics; a Series' or an array's shape, dtype and statistics; a collection's length and a "
    "preview; anything else its repr. Use the exact name list_variables gives."
)
RUN_PYTHON = (
    "Run Python code in the user's notebook kernel, as a new cell: it sees and changes the user's "
    "variables, IPython magics work (%time, %pip...), and figures and displayed tables are shown to the "
    "user. Returns what the cell printed, its last expression's value and the traceback if it failed. "
    "The user may be asked to approve each run first. Keep the code short and do not repeat long outputs."
)
CELL_HISTORY = (
    "The last cells run in the user's notebook, oldest first: their code and the text of their outputs "
    "(cells you ran with run_python are marked). Use it to see what the user has been doing."
)
LAST_ERROR = (
    "The last error in the user's notebook as IPython showed it: the exception's type and message, the "
    "traceback, and the code of the cell that raised it. Use it when the user asks what went wrong."
)


def notebook_tools(
    *,
    run_code: bool = True,
    approve: bool = True,
    max_chars: int = DEFAULT_MAX_CHARS,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> list[PythonTool]:
    """Tools for ``AgentChat(tools=...)`` that let the agent work in this notebook's kernel:
    ``list_variables``, ``inspect_variable``, ``run_python`` (left out with ``run_code=False``; it
    asks the user to approve each run unless ``approve=False``; ``timeout`` seconds per run, None
    for no limit), ``cell_history`` and ``last_error``. No answer is longer than ``max_chars``."""
    run_code = _flag("run_code", run_code)
    approve = _flag("approve", approve)
    max_chars = _max_chars(max_chars)
    timeout = _timeout(timeout)

    def list_variables() -> str:
        namespace = user_namespace()
        return NO_IPYTHON if namespace is None else variables_text(variables(namespace))

    def inspect_variable(name: str) -> str:
        """Args:
        name: The variable's name, exactly as list_variables gives it (e.g. "df").
        """
        namespace = user_namespace()
        return NO_IPYTHON if namespace is None else describe(namespace, name, max_chars)

    async def run_python(code: str) -> ToolAnswer:
        """Args:
        code: The Python code to run as one notebook cell (IPython syntax: magics work).
        """
        return ToolAnswer(await run_cell_code(code, timeout=timeout, max_chars=max_chars))

    def cell_history(n: Annotated[int, Field(ge=1, le=MAX_HISTORY)] = 5) -> str:
        """Args:
        n: How many of the last cells to show (1 to 50).
        """
        return cell_history_text(ipython_shell(), n)

    def last_error() -> str:
        return last_error_text(ipython_shell())

    made = [
        _tool(list_variables, LIST_VARIABLES, max_chars),
        _tool(inspect_variable, INSPECT_VARIABLE, max_chars),
        _tool(run_python, RUN_PYTHON, max_chars, approve=approve) if run_code else None,
        _tool(cell_history, CELL_HISTORY, max_chars),
        _tool(last_error, LAST_ERROR, max_chars),
    ]
    return [tool for tool in made if tool is not None]


def _tool(fn: Callable[..., Any], description: str, max_chars: int, *, approve: bool = False) -> PythonTool:
    """A Python tool whose every answer is bounded to ``max_chars``."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def bounded_async(*args: Any, **kwargs: Any) -> Any:
            return _bounded(await fn(*args, **kwargs), max_chars)

        wrapped: Callable[..., Any] = bounded_async
    else:

        @functools.wraps(fn)
        def bounded(*args: Any, **kwargs: Any) -> Any:
            return _bounded(fn(*args, **kwargs), max_chars)

        wrapped = bounded
    tool: PythonTool = python_tool(wrapped, name=fn.__name__, description=description, approve=approve)
    return tool


def _bounded(answer: Any, max_chars: int) -> Any:
    """The one place an answer is cut to ``max_chars``: a text, or a tool message's content."""
    if isinstance(answer, ToolAnswer):
        content = answer.message.get("content")
        if isinstance(content, str) and len(content) > max_chars:
            return ToolAnswer({**answer.message, "content": fit(content, max_chars)})
        return answer
    return fit(str(answer), max_chars)


def variables_text(rows: list[dict[str, Any]]) -> str:
    """``list_variables``' answer: the data first, one line each, then the functions and the classes."""
    if not rows:
        return "The notebook has no variables yet (modules, private names and IPython's own names are not listed)."
    data = [row for row in rows if row["kind"] == "data"]
    lines = [f"{len(rows)} variable{'s' if len(rows) != 1 else ''} in the notebook."]
    if data:
        lines.append("Data (name: type, shape or length, size in memory):")
        lines.extend(_data_line(row) for row in data)
    for kind, title in (("function", "Functions"), ("class", "Classes")):
        names = [row["name"] for row in rows if row["kind"] == kind]
        if names:
            lines.append(f"{title}: " + ", ".join(names))
    return "\n".join(lines)


def _data_line(row: dict[str, Any]) -> str:
    if row["secret"]:
        return f"- {row['name']}: {row['type']} (value withheld: the name looks like a secret)"
    details = [row["type"]]
    if row["shape"]:
        details.append(row["shape"])
    if row["size"] is not None:
        details.append(size_text(row["size"]))
    return f"- {row['name']}: " + ", ".join(details)


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"notebook_tools({name}=...) takes True or False, not {value!r}")
    return value


def _max_chars(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"notebook_tools(max_chars=...) takes a whole number of characters, not {value!r}")
    if value < MIN_MAX_CHARS:
        raise ValueError(f"notebook_tools(max_chars=...) must be at least {MIN_MAX_CHARS}, not {value}")
    return int(value)


def _timeout(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"notebook_tools(timeout=...) takes seconds (a number) or None, not {value!r}")
    if not float(value) > 0:
        raise ValueError(f"notebook_tools(timeout=...) must be a positive number of seconds (or None), not {value}")
    return float(value)


__all__ = ["notebook_tools"]
