"""Running a Python tool's call in the kernel: the arguments validated, the function run (a
coroutine function on the kernel's loop, any other in a worker thread, so the kernel keeps serving
cells and the chat), and what it returned, raised or took too long for turned into the tool
message that answers the call: an answer the model reads and can recover from.

The session starts each call (``_waiting.AnswerWaiting._start_python_tool``) when a run ends with it
pending, and after the user approved it when the tool asks first.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from ..vocabulary._display import release_figure, tool_result_parts
from ._tools import PythonTool

log = logging.getLogger("agui_widget")

DENIED = {"approved": False, "reason": "The user denied this call; the function did not run."}
"""The answer to a call the user denied."""


@dataclass(frozen=True)
class ToolAnswer:
    """A tool message a Python tool made itself: a function that returns one answers its call with
    ``message`` (``content``, and ``metadata`` and ``error`` when it has them) as it is, as
    ``run_python`` does to show a cell's outputs in its card and mark a failed cell as failed."""

    message: Mapping[str, Any]


def tool_message(content: Any, *, error: str | None = None) -> dict[str, Any]:
    """The parts of a tool message answering a call with ``content`` (without its ids)."""
    text, metadata = tool_result_parts(content)
    message: dict[str, Any] = {"content": text}
    if metadata is not None:
        message["metadata"] = metadata
    if error is not None:
        message["error"] = error
    return message


def failed(text: str) -> dict[str, Any]:
    """A call that failed: the model reads the error, the card shows it."""
    return tool_message(f"Error: {text}", error=text)


async def run_python_tool(tool: PythonTool, args_text: str) -> dict[str, Any]:
    """Validate a call's arguments, run the function, and return the tool message's parts.

    Never raises (but for cancellation): whatever goes wrong is an answer the model can read. A
    tool answered otherwise (an MCP server's) has its own ``answer_call(args_text)``."""
    answer_call = getattr(tool, "answer_call", None)
    if answer_call is not None:
        return dict(await answer_call(args_text))
    assert tool.fn is not None and tool.arguments is not None
    try:
        arguments = tool.arguments.model_validate_json(args_text.strip() or "{}")
    except ValidationError as exc:
        return failed(f"invalid arguments for {tool.name}: {_errors_text(exc)}")
    args, kwargs = _call_arguments(tool.fn, arguments)
    try:
        if inspect.iscoroutinefunction(tool.fn):
            work: Any = tool.fn(*args, **kwargs)
        else:
            work = asyncio.to_thread(tool.fn, *args, **kwargs)
        result = await (asyncio.wait_for(work, tool.timeout) if tool.timeout else work)
        if inspect.isawaitable(result):  # a plain function that returned a coroutine
            result = await (asyncio.wait_for(result, tool.timeout) if tool.timeout else result)
    except TimeoutError:
        return failed(f"{tool.name} did not finish within {tool.timeout:g} s")
    except Exception as exc:
        log.info("agui-widget: the python tool %s raised %s", tool.name, type(exc).__name__, exc_info=True)
        return failed(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    if isinstance(result, ToolAnswer):
        return dict(result.message)
    try:
        return tool_message(result)
    except Exception as exc:  # a value that cannot be shown or sent
        return failed(f"{tool.name} returned a {type(result).__name__} that cannot be sent to the agent ({exc})")
    finally:
        release_figure(result)


def _call_arguments(fn: Callable[..., Any], arguments: BaseModel) -> tuple[list[Any], dict[str, Any]]:
    """The validated values, positional-only parameters by position and the rest by name."""
    values = {name: getattr(arguments, name) for name in type(arguments).model_fields}
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.name not in values:
            continue
        if parameter.kind is parameter.POSITIONAL_ONLY:
            args.append(values[parameter.name])
        else:
            kwargs[parameter.name] = values[parameter.name]
    return args, kwargs


def _errors_text(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def approval_of(answer: Any) -> bool:
    """What answering a Python tool's approval means: True/False, or ``{"approved": bool}``."""
    if isinstance(answer, bool):
        return answer
    if isinstance(answer, Mapping) and isinstance(answer.get("approved"), bool):
        return bool(answer["approved"])
    raise ValueError('this call waits for approval: answer True (run it) or False (deny it), or {"approved": bool}')


__all__ = ["DENIED", "ToolAnswer", "approval_of", "failed", "run_python_tool", "tool_message"]
