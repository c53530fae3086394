"""A chat's conversation as a Jupyter notebook that runs again (``chat.to_notebook``).

Each message is a Markdown cell. The code the agent ran (a ``run_python`` call's ``code``) and
each call of a Python tool (written as a call of its function, ``top_customers(n=3)``) or of an
MCP server's tool (its server started again by ``mcp_tools`` in the first cell) are code cells,
with the outputs the chat showed for them; run top to bottom, with the tools' functions defined,
the notebook does the analysis again. A call the notebook cannot run again (a frontend
tool's, the agent's own tool's, a denied or unanswered call) is a Markdown note with its
arguments and result. Imported with the first ``to_notebook``, and with it ``nbformat``.
"""

from __future__ import annotations

import datetime
import inspect
import json
import keyword
import math
import os
import pathlib
import re
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from ..inputs._mcp_tools import McpTool
from ..inputs._python_tools import DENIED
from ..inputs._tools import FrontendTool, PythonTool
from ..vocabulary._live_widgets import WIDGET_VIEW
from ..vocabulary._marks import DISPLAY, REFUSED, STOPPED, mark_of
from ._export import _attachment_markdown, _content_text, _fenced, _json, _message_markdown, _one_line, escape_html

RUN_CODE_TOOL = "run_python"
"""The tool whose ``code`` argument is code the agent ran in the kernel (``notebook_tools()``)."""
RERAISES = "raises-exception"
"""The cell tag that lets a notebook run on past a cell that raises (nbclient, JupyterLab)."""
NOTE_RESULT_CHARS = 2_000
"""At most this much of a result the notebook cannot run again is kept in its note."""

_MIME = re.compile(r"[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+")
_JSON_MIME = re.compile(r"application/(.*\+)?json")
_KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def notebook_of(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[FrontendTool],
    *,
    agent: str,
    thread_id: str,
    now: datetime.datetime | None = None,
    assistant: str | None = None,
) -> NotebookNode:
    """The conversation as an nbformat v4 notebook (not yet validated or written); the answers
    under ``assistant`` (the name the chat shows), else "Assistant"."""
    cells = _Cells({tool.name: tool for tool in tools}, _answers(messages), assistant or "Assistant")
    for message in messages:
        cells.add(message)
    when = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d %H:%M %Z").strip()
    head = [new_markdown_cell(_title(agent, thread_id, when))]
    if cells.called or cells.mcp_called:
        head.append(new_code_cell(_setup_source(cells.called, cells.mcp_called)))
    metadata = {
        "kernelspec": dict(_KERNELSPEC),
        "language_info": {"name": "python"},
        "agui_widget": {"threadId": thread_id, "agent": agent},
    }
    return new_notebook(cells=head + cells.cells, metadata=metadata)


def write_notebook(notebook: NotebookNode, path: str | os.PathLike[str]) -> pathlib.Path:
    """Validate ``notebook`` and write it to ``path`` at once (a temporary file, then a rename), so
    a reader never sees half a notebook and a failed write leaves the old file as it was."""
    target = pathlib.Path(path).expanduser()
    if target.is_dir():
        raise IsADirectoryError(f"chat.to_notebook: {target} is a folder; give a file's path, such as {target / 'chat.ipynb'}")
    if not target.parent.is_dir():
        raise FileNotFoundError(f"chat.to_notebook: the folder {target.parent} does not exist")
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as exc:
        raise ValueError(f"chat.to_notebook: the notebook is not valid nbformat, nothing was written: {exc.message}") from exc
    text = nbformat.writes(notebook)
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8", errors="replace") as file:  # "x": a new file, the umask's mode
            file.write(text)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target


# -- the cells -------------------------------------------------------------------------------


class _Cells:
    """The cells of the conversation, message by message; a tool call's cell takes the tool
    message that answered it, which then has no cell of its own."""

    def __init__(self, tools: Mapping[str, FrontendTool], answers: Mapping[str, Mapping[str, Any]], assistant: str) -> None:
        self._tools = tools
        self._assistant_name = assistant
        self._answers = answers
        self._used: set[str] = set()
        self.cells: list[NotebookNode] = []
        self.called: dict[str, Callable[..., Any]] = {}
        """The Python tools the code cells call, by the name they are called with."""
        self.mcp_called: dict[str, McpTool] = {}
        """The MCP servers' tools the code cells call, by the name they are called with."""

    def add(self, message: Mapping[str, Any]) -> None:
        role = message.get("role")
        if role == "user":
            self.cells.append(new_markdown_cell(_user_markdown(message)))
        elif role == "assistant":
            self._assistant(message)
        elif role == "tool" and message.get("toolCallId") in self._used:
            return
        else:
            self.cells.append(new_markdown_cell("\n".join(_message_markdown(dict(message))).rstrip()))

    def _assistant(self, message: Mapping[str, Any]) -> None:
        text = _content_text(message.get("content"))
        lines = [f"**{escape_html(self._assistant_name)}:**", "", escape_html(text)] if text else []
        if mark_of(message, STOPPED):
            lines += ["", "*(stopped)*"]
        if lines:
            self.cells.append(new_markdown_cell("\n".join(lines).rstrip()))
        for call in message.get("toolCalls") or ():
            if isinstance(call, Mapping):
                self._tool_call(call)

    def _tool_call(self, call: Mapping[str, Any]) -> None:
        """A code cell for a call that ran code or a Python tool, else a note."""
        call_id = call.get("id")
        answer = self._answers.get(call_id) if isinstance(call_id, str) else None
        if answer is not None:
            self._used.add(str(call_id))
        found = call.get("function")
        function: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        name = str(function.get("name") or "")
        tool = self._tools.get(name)
        ran = answer is not None and not _denied(answer)
        source = self._rerun_source(name, _parsed_arguments(function.get("arguments")), tool) if ran else None
        if answer is None or source is None:
            self.cells.append(new_markdown_cell(_note(name, function.get("arguments"), answer, tool)))
        else:
            self.cells.append(_code_cell(source, _outputs(answer, result=name != RUN_CODE_TOOL), answer))

    def _rerun_source(self, name: str, arguments: dict[str, Any] | None, tool: FrontendTool | None) -> str | None:
        """The code that does the call again: ``run_python``'s code, or the Python tool's function
        called with the arguments (noted in :attr:`called`); None for any other call."""
        if arguments is None:
            return None
        if name == RUN_CODE_TOOL:
            code = arguments.get("code")
            return code if isinstance(code, str) else None
        if isinstance(tool, McpTool) and tool.server is not None:
            if not tool.name.isidentifier() or keyword.iskeyword(tool.name):
                return None
            self.mcp_called.setdefault(tool.name, tool)
            return _call_source(tool.name, None, arguments)
        if not isinstance(tool, PythonTool) or tool.fn is None or _is_ours(tool):
            return None
        callable_name = _callable_name(tool)
        if callable_name is None:
            return None
        self.called.setdefault(callable_name, tool.fn)
        return _call_source(callable_name, tool.fn, arguments)


def _answers(messages: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Each tool call's answer (its tool message), by the call's id."""
    return {str(m["toolCallId"]): m for m in messages if m.get("role") == "tool" and isinstance(m.get("toolCallId"), str)}


def _title(agent: str, thread_id: str, when: str) -> str:
    thread = _one_line(thread_id).replace("`", "'")
    return "\n".join(
        [
            f"# A conversation with {_one_line(agent)}",
            "",
            f"Thread `{thread}`, written {when} by `chat.to_notebook()`.",
            "",
            "Each message is a Markdown cell. The code the agent ran and the calls of its Python tools are code",
            "cells, with the outputs the chat showed: run them top to bottom to do the analysis again.",
        ]
    )


def _setup_source(called: Mapping[str, Callable[..., Any]], mcp_called: Mapping[str, McpTool]) -> str:
    """The first code cell: where each called tool's function comes from, or a reminder to define it."""
    lines = ["# The code cells below call the chat's Python tools: their functions must be defined (or imported)"]
    lines.append("# before the notebook runs again.")
    lines += _mcp_setup(mcp_called)
    for name, fn in called.items():
        module = getattr(fn, "__module__", None)
        if _importable(fn, name, module):
            lines.append(f"from {module} import {name}")
        elif module == "__main__":
            lines.append(f"# {name}: defined in the notebook the chat ran in; define it here.")
        else:
            lines.append(f"# {name}: from {module or 'an unknown module'}, not importable by that name; define it here.")
    return "\n".join(lines)


def _mcp_setup(called: Mapping[str, McpTool]) -> list[str]:
    """Lines that start each MCP server the cells call again and bind its tools' names; headers
    and environment variables the chat was given are not written (they may hold secrets)."""
    if not called:
        return []
    lines = ["from agui_widget import mcp_tools", ""]
    servers: dict[Any, str] = {}
    for name, tool in called.items():
        assert tool.server is not None
        spec = tool.server.spec
        variable = servers.get(spec)
        if variable is None:
            variable = servers[spec] = f"mcp_server_{len(servers) + 1}"
            where = spec.url or list(spec.command)
            if spec.headers or spec.env:
                given = "headers=" if spec.headers else "env="
                lines.append(f"# The chat gave this server {given}...; pass it again here (it is not written down).")
            lines.append(
                f"{variable} = {{tool.remote_name: tool for tool in mcp_tools({where!r})}}  # a call returns its CallToolResult"
            )
        lines.append(f"{name} = {variable}[{tool.remote_name!r}]")
    return lines


def _importable(fn: Any, name: str, module: Any) -> bool:
    """Whether ``from module import name`` gives back ``fn``: a top-level function of a module that
    is not the notebook's own namespace."""
    if not isinstance(module, str) or module in ("__main__", "builtins") or module not in sys.modules:
        return False
    if getattr(fn, "__qualname__", None) != name:
        return False
    found = getattr(sys.modules[module], name, None)
    return found is fn or (isinstance(found, PythonTool) and found.fn is fn)  # a function, or its @python_tool


def _is_ours(tool: PythonTool) -> bool:
    """One of agui-widget's own tools (``notebook_tools()``'s inspections): a look at the kernel
    rather than a step of the analysis, so a note rather than a call to run again."""
    module = getattr(tool.fn, "__module__", None) or ""
    return module == "agui_widget" or module.startswith("agui_widget.")


def _user_markdown(message: Mapping[str, Any]) -> str:
    heading = "**User:**" if not mark_of(message, REFUSED) else "**User** (not sent):"
    content = message.get("content")
    text = _content_text(content)
    lines = [heading, ""]
    if text:
        lines += [f"> {line}" if line else ">" for line in escape_html(text).split("\n")]
    for part in content if isinstance(content, list) else ():
        if isinstance(part, Mapping) and part.get("type") not in (None, "text"):
            lines += ["", _attachment_markdown(dict(part))]
    refused = mark_of(message, REFUSED)
    if refused:
        lines += ["", f"*Not sent: {_one_line(str(refused))}*"]
    return "\n".join(lines).rstrip()


def _code_cell(source: str, outputs: list[NotebookNode], answer: Mapping[str, Any] | None) -> NotebookNode:
    metadata = {"tags": [RERAISES]} if answer is not None and answer.get("error") else {}
    return new_code_cell(source, outputs=outputs, metadata=metadata)


def _outputs(answer: Mapping[str, Any] | None, *, result: bool) -> list[NotebookNode]:
    """What the chat showed for a call, as a code cell's outputs: its display (the rich result of a
    Python tool, as the call's result; ``run_python``'s card, which holds all the cell's output, as
    a display), else its text as a stream (stderr when the call failed)."""
    if answer is None:
        return []
    bundle = _mime_bundle(mark_of(answer, DISPLAY))
    if bundle is not None:
        if result:
            return [new_output("execute_result", data=bundle, execution_count=None)]
        return [new_output("display_data", data=bundle)]
    text = _content_text(answer.get("content"))
    if not text:
        return []
    stream = "stderr" if answer.get("error") else "stdout"
    return [new_output("stream", name=stream, text=text if text.endswith("\n") else text + "\n")]


def _mime_bundle(value: Any) -> dict[str, Any] | None:
    """The parts of a display mark a notebook output can hold: text for text types, any JSON value
    for JSON types; not a live widget's view (its model lives with the kernel, the file outlives it)."""
    if not isinstance(value, Mapping):
        return None
    bundle: dict[str, Any] = {}
    for mime, data in value.items():
        if not isinstance(mime, str) or not _MIME.fullmatch(mime) or mime == WIDGET_VIEW:
            continue
        if _JSON_MIME.fullmatch(mime):
            try:
                json.dumps(data, allow_nan=False)
            except (TypeError, ValueError):
                continue
            bundle[mime] = data
        elif isinstance(data, str):
            bundle[mime] = data
        elif isinstance(data, list) and all(isinstance(line, str) for line in data):
            bundle[mime] = "".join(data)
    return bundle or None


def _denied(answer: Mapping[str, Any]) -> bool:
    """Whether the user denied the call (so it never ran)."""
    content = answer.get("content")
    if not isinstance(content, str) or '"approved"' not in content:
        return False
    try:
        value = json.loads(content)
    except ValueError:
        return False
    return value == DENIED


def _parsed_arguments(arguments: Any) -> dict[str, Any] | None:
    """A call's arguments as a dict, or None when they are not a JSON object."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not isinstance(arguments, str):
        return None
    try:
        value = json.loads(arguments.strip() or "{}")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _callable_name(tool: PythonTool) -> str | None:
    """The name a cell calls the tool's function by: the function's own (what a cell that defines
    or imports it binds), else the tool's; None when neither is a Python identifier."""
    for name in (getattr(tool.fn, "__name__", None), tool.name):
        if isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name):
            return name
    return None


def _call_source(name: str, fn: Any, arguments: Mapping[str, Any]) -> str:
    """``name(a=1, b='x')``: the call with its arguments as Python literals, by keyword (by
    position for positional-only parameters; ``**{...}`` for keys that are no Python name)."""
    positional = _positional_only(fn)
    parts = [_literal(arguments[p]) for p in positional if p in arguments]
    odd: dict[str, Any] = {}
    for key, value in arguments.items():
        if key in positional:
            continue
        if key.isidentifier() and not keyword.iskeyword(key):
            parts.append(f"{key}={_literal(value)}")
        else:
            odd[key] = value
    if odd:
        parts.append(f"**{_literal(odd)}")
    return f"{name}({', '.join(parts)})"


def _positional_only(fn: Any) -> list[str]:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in parameters if p.kind is p.POSITIONAL_ONLY]


def _literal(value: Any) -> str:
    """A JSON value as Python source that evaluates to it."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def _note(name: str, arguments: Any, answer: Mapping[str, Any] | None, tool: FrontendTool | None) -> str:
    """A call the notebook does not run again: what was called, with what, and what came back."""
    shown = _one_line(name).replace("`", "'") or "(unnamed)"
    lines = [f"**Tool call:** `{shown}`, {_why_not_rerun(name, answer, tool)}."]
    code = _parsed_arguments(arguments)
    if name == RUN_CODE_TOOL and code is not None and isinstance(code.get("code"), str):
        lines += ["", *_fenced(code["code"], "python")]
    elif arguments not in (None, "", "{}", {}):
        pretty = _json(code) if code is not None else str(arguments)
        lines += ["", *_fenced(pretty, "json")]
    if answer is not None:
        result = _content_text(answer.get("content"))
        if len(result) > NOTE_RESULT_CHARS:
            result = result[:NOTE_RESULT_CHARS] + "…"
        lines += ["", "Result:" if not answer.get("error") else "Error:", "", *_fenced(result)]
    return "\n".join(lines)


def _why_not_rerun(name: str, answer: Mapping[str, Any] | None, tool: FrontendTool | None) -> str:
    if answer is not None and _denied(answer):
        return "denied by the user: it did not run"
    if answer is None:
        return "never answered: it did not run"
    if isinstance(tool, PythonTool):
        if _is_ours(tool):
            return "one of agui-widget's notebook tools"
        return "a Python tool whose call could not be written as Python"
    if tool is not None:
        return "a tool the chat's view or the user answered"
    if name == RUN_CODE_TOOL:
        return "code the agent ran, with arguments that hold no code"
    return "a tool the agent runs itself"


__all__ = ["RUN_CODE_TOOL", "notebook_of", "write_notebook"]
