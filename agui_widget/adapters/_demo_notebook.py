"""The demo agent's notebook commands: which notebook tool a message asks for and with which
arguments, and what the demo can honestly say about the tool's answer.

The tools themselves are ``notebook_tools()``'s Python tools, run by the kernel; the demo only
calls them by name, so it works with whatever the chat offers under those names. Having no model,
it reads answers with a few patterns: an exception's type and message, and a tip for the common
ones. Anything else it shows as the tool gave it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..vocabulary._display import strip_ansi

LIST_VARIABLES = "list_variables"
INSPECT_VARIABLE = "inspect_variable"
RUN_PYTHON = "run_python"
LAST_ERROR = "last_error"
NOTEBOOK_TOOL_NAMES = (LIST_VARIABLES, INSPECT_VARIABLE, RUN_PYTHON, LAST_ERROR, "cell_history")

SHOWN_CHARS = 1500
"""How much of a tool's answer the demo repeats; the whole answer is in the tool's card."""

_VARIABLES = re.compile(
    r"(?:(?:list|show(?: me)?)\s+)?(?:(?:my|the|all|all the|all my)\s+)?(?:variables|vars)"
    r"(?:\s+(?:in|of)\s+(?:my|the)\s+(?:kernel|notebook|namespace))?"
    r"|(?:what|which)\s+variables\b.*|whos"
)
_INSPECT = re.compile(r"(?is)inspect\b\s*(.*)")
_RUN = re.compile(r"(?s)run\b[ \t]*:?[ \t]*(.*)", re.IGNORECASE)
_WHAT_WENT_WRONG = re.compile(
    r"\bwhat went wrong\b"
    r"|\bwhy did (?:that|it|this|my code|the code|the cell|my cell) (?:fail|break|crash)"
    r"|\bexplain (?:the|this|that|my) (?:last )?(?:error|exception|traceback)"
    r"|\bwhat(?:'s| is| was) (?:the|this|that) error\b"
)
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_FENCED = re.compile(r"(?s)\s*(`{3,})[^\n]*\n(.*?)\n?[ \t]*\1\s*")
_INLINE = re.compile(r"\s*`([^`\n]+)`\s*")
_EXCEPTION_LINE = re.compile(
    r"^[ \t]*([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning|StopIteration))(?::[ \t]*(.*))?$", re.MULTILINE
)
_NO_ERROR = re.compile(r"\bno (?:error|exception|traceback)\b", re.IGNORECASE)


@dataclass(frozen=True)
class NotebookRequest:
    """A notebook tool to call: its name, its arguments and what the demo says before calling it."""

    tool: str
    args: dict[str, Any]
    intro: str


def notebook_request(text: str) -> NotebookRequest | str | None:
    """The notebook tool ``text`` asks for; a sentence saying how to ask when it names one but
    cannot be read; None when it asks for something else."""
    stripped = text.strip()
    lowered = stripped.lower().rstrip(" ?.!")
    if _VARIABLES.fullmatch(lowered):
        return NotebookRequest(LIST_VARIABLES, {}, "Listing the variables in your kernel.")
    if (inspect := _INSPECT.fullmatch(stripped)) is not None:
        return _inspect_request(inspect.group(1))
    if (run := _RUN.fullmatch(stripped)) is not None:
        return _run_request(run.group(1))
    if _WHAT_WENT_WRONG.search(lowered):
        return NotebookRequest(LAST_ERROR, {}, "Let me look at the last error in your kernel.")
    return None


def _inspect_request(rest: str) -> NotebookRequest | str:
    name = rest.strip().strip("`'\"").rstrip(" ?.!")
    if not name:
        return "Say `inspect` and a variable's name, for example `inspect df`."
    if not _NAME.fullmatch(name):
        return (
            f"`inspect` takes a variable's name, and `{_quoted(name)}` is not one. "
            f"To evaluate an expression, say `run {_quoted(name)}`."
        )
    return NotebookRequest(INSPECT_VARIABLE, {"name": name}, f"Inspecting `{name}`.")


def _run_request(rest: str) -> NotebookRequest | str:
    code = unfenced(rest)
    if not code.strip():
        return "Say `run` and the code, for example `run df.describe()`; a ```python block works too."
    return NotebookRequest(RUN_PYTHON, {"code": code}, "I'll run it in your kernel with `run_python`, as a cell would.")


def unfenced(text: str) -> str:
    """The code in ``text`` without a Markdown fence (```python ... ```) or inline backticks around it."""
    if (fenced := _FENCED.fullmatch(text)) is not None:
        return fenced.group(2)
    if (inline := _INLINE.fullmatch(text)) is not None:
        return inline.group(1)
    return text.strip("\n")


def not_offered(tool: str, offered: list[str]) -> str:
    """Why the demo cannot do it, and how to give it the tool."""
    if offered:
        leaving_out = " (`notebook_tools(run_code=False)` leaves it out)" if tool == RUN_PYTHON else ""
        return (
            f"This chat gives me some notebook tools ({', '.join(f'`{n}`' for n in offered)}) but not "
            f"`{tool}`{leaving_out}. To give me all of them: `AgentChat(tools=notebook_tools())`."
        )
    return (
        f"This chat gives me no `{tool}` tool, so I cannot see into your kernel. Give me the notebook tools "
        "and ask again:\n\n```python\nfrom agui_widget import AgentChat, notebook_tools\n\n"
        "chat = AgentChat(tools=notebook_tools())\nchat\n```"
    )


def notebook_summary(tool: str, args: dict[str, Any], content: str) -> str | None:
    """What the demo says about a notebook tool's answer, or None for a tool it does not know."""
    if tool == LIST_VARIABLES:
        if not content.strip():
            return "`list_variables` found no variables of yours: run a cell that defines some, then ask again."
        return "Here is what your kernel holds, as `list_variables` reports it:\n\n" + fenced(content)
    if tool == INSPECT_VARIABLE:
        name = args.get("name") if isinstance(args.get("name"), str) else "it"
        return f"Here is `{name}`, as `inspect_variable` sees it:\n\n" + fenced(content)
    if tool == RUN_PYTHON:
        return _ran(content)
    if tool == LAST_ERROR:
        return _last_error(content)
    return None


def _ran(content: str) -> str:
    failure = exception_in(content)
    if failure is not None:
        kind, message = failure
        return f"The code raised **{kind}**{_said(message)}. {tip(kind, message)}"
    if not content.strip():
        return "It ran, with no output."
    return "It ran. Its output:\n\n" + fenced(content)


def _last_error(content: str) -> str:
    failure = exception_in(content)
    if failure is None:
        if _NO_ERROR.search(content) or not content.strip():
            return "There is no error to explain: nothing has failed in your kernel yet."
        return "Here is what `last_error` reports:\n\n" + fenced(content)
    kind, message = failure
    return (
        f"The last error was **{kind}**{_said(message)}.\n\n{tip(kind, message)}\n\n"
        "The traceback and the cell's source are in the tool's card above."
    )


def exception_in(content: str) -> tuple[str, str] | None:
    """The type and message of the exception an answer reports: from the last line of a
    traceback, or from a JSON object's ``type``/``ename`` and ``message``/``evalue``."""
    text = strip_ansi(content)
    found = _fields_of(text)
    if found is not None:
        return found
    lines = _EXCEPTION_LINE.findall(text)
    if not lines:
        return None
    kind, message = lines[-1]
    return kind.rsplit(".", 1)[-1], message.strip()


def _fields_of(text: str) -> tuple[str, str] | None:
    """An exception named by a JSON object's fields, also one nested under ``error``."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    for candidate in (value, value.get("error") if isinstance(value, dict) else None):
        if not isinstance(candidate, dict):
            continue
        kind = candidate.get("type") or candidate.get("ename") or candidate.get("exception")
        if isinstance(kind, str) and kind:
            message = candidate.get("message", candidate.get("evalue", ""))
            return kind, message if isinstance(message, str) else str(message)
        traceback = candidate.get("traceback")
        if isinstance(traceback, str) and (lines := _EXCEPTION_LINE.findall(traceback)):
            return lines[-1][0].rsplit(".", 1)[-1], lines[-1][1].strip()
    return None


def tip(kind: str, message: str) -> str:
    """A fix for a few common exceptions; for the rest, an honest word about the demo."""
    quoted = re.search(r"'([^']+)'", message)
    named = f"`{_quoted(quoted.group(1))}`" if quoted else None
    if kind == "NameError":
        return f"{named or 'A name'} is not defined: run the cell that defines it first, or check the spelling."
    if kind == "ZeroDivisionError":
        return "Something was divided by zero: check the divisor first (`if b != 0: ...`), or see where it became 0."
    if kind == "KeyError":
        key = named or (f"`{_quoted(message)}`" if message else "you asked for")
        return (
            f"The key {key} is not there: look at the keys the object has (`d.keys()`, or `df.columns` for a "
            "DataFrame), or use `d.get(key, default)`."
        )
    if kind in {"ModuleNotFoundError", "ImportError"} and named:
        return f"Python cannot find {named}: install the package that provides it (`%pip install ...`) and run the cell again."
    return (
        "I'm a scripted demo, so that is as far as I can go; a model given the same tool reads the traceback "
        "and the cell's source and suggests a fix."
    )


def fenced(text: str) -> str:
    """``text`` in a code block whose fence no run of backticks inside it can close, clipped."""
    text = strip_ansi(text)
    if len(text) > SHOWN_CHARS:
        text = text[:SHOWN_CHARS] + "\n… (the rest is in the tool's card)"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text.rstrip()}\n{fence}"


def _said(message: str) -> str:
    return f": `{_quoted(message)}`" if message else ""


def _quoted(text: str, limit: int = 200) -> str:
    """``text`` fit for an inline code span: one line, no backticks, bounded."""
    text = " ".join(text.replace("`", "'").split())
    return text if len(text) <= limit else text[:limit] + "…"


__all__ = [
    "NOTEBOOK_TOOL_NAMES",
    "NotebookRequest",
    "exception_in",
    "fenced",
    "not_offered",
    "notebook_request",
    "notebook_summary",
    "tip",
    "unfenced",
]
