"""Python functions as tools: the agent calls them, the kernel runs them.

A :class:`PythonTool` is a frontend tool like any other to the agent (it travels in
``RunAgentInput.tools``, so every agent kind can call it: a LangChain or Langroid model, any AG-UI
agent, a remote server), but nobody has to answer it by hand: when a run ends with a call to one
pending, the session validates the arguments against the function's signature, runs the function
(a coroutine function on the kernel's loop, any other in a worker thread, so the kernel keeps
serving cells and the chat) and answers the call with what it returned. An exception or a timeout
is an answer too, which the model reads and can recover from.

The arguments' JSON Schema is pydantic's, from the signature: type hints (``Annotated[...,
Field(description=...)]`` included), defaults, and the docstring (its text is the tool's
description, and a Google-style ``Args:`` section or ``:param x:`` lines describe the parameters).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from ._display import release_figure, tool_result_parts
from ._tools import FrontendTool, ToolUI

log = logging.getLogger("agui_widget")

KernelStage = Literal["approve", "running"]
"""Where a Python tool's call is: waiting for the user's approval, or running in the kernel."""

DENIED = {"approved": False, "reason": "The user denied this call; the function did not run."}
"""The answer to a call the user denied."""


@dataclass(frozen=True)
class PythonTool(FrontendTool):
    """A Python function the agent can call; the kernel runs it and answers the call.

    Made by :func:`python_tool` (or from a plain function in ``AgentChat(tools=[...])``). Calling
    the tool object calls the function, so a decorated function still works in cells.
    """

    ui: ToolUI = "kernel"
    fn: Callable[..., Any] | None = None
    approve: bool = False
    """Ask the user (or Python: ``chat.respond(call_id, True)``) before each call runs."""
    timeout: float | None = None
    """Seconds a call may take; past them the call is answered with a timeout error."""
    arguments: type[BaseModel] | None = field(default=None, compare=False, repr=False)
    """The model the arguments are validated with (built from the signature)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not callable(self.fn):
            raise TypeError(f"python tool {self.name!r} needs a function, not {type(self.fn).__name__}")
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(f"python tool {self.name!r}: timeout must be a positive number of seconds (or None)")
        if self.ui != "kernel":
            raise ValueError(f"python tool {self.name!r} runs in the kernel; its ui cannot be {self.ui!r}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        assert self.fn is not None
        return self.fn(*args, **kwargs)


def python_tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    approve: bool = False,
    timeout: float | None = None,
) -> Any:
    """A Python function as a tool the agent can call and the kernel runs.

    ``python_tool(fn, approve=True)``, or as a decorator: ``@python_tool`` or
    ``@python_tool(timeout=30)``. ``name`` and ``description`` override the function's name and
    docstring; ``approve`` asks before each call runs; ``timeout`` bounds each call (seconds).
    """

    def make(function: Callable[..., Any]) -> PythonTool:
        return _tool_of(function, name=name, description=description, approve=approve, timeout=timeout)

    return make if fn is None else make(fn)


def _tool_of(
    fn: Callable[..., Any], *, name: str | None, description: str | None, approve: bool, timeout: float | None
) -> PythonTool:
    if isinstance(fn, PythonTool):
        fn = fn.fn  # type: ignore[assignment]
    if not callable(fn):
        raise TypeError(f"python_tool() takes a function, not {type(fn).__name__}")
    tool_name = name or getattr(fn, "__name__", "")
    if not tool_name or tool_name == "<lambda>":
        raise ValueError("python_tool(): a lambda has no name; pass name=...")
    doc = inspect.getdoc(fn) or ""
    arguments = arguments_model(fn, tool_name, parameter_docs(doc))
    return PythonTool(
        name=tool_name,
        description=description if description is not None else summary_of(doc),
        parameters=tool_schema(arguments),
        fn=fn,
        approve=approve,
        timeout=timeout,
        arguments=arguments,
    )


# -- the schema -----------------------------------------------------------------------------------


def arguments_model(fn: Callable[..., Any], tool_name: str, docs: Mapping[str, str]) -> type[BaseModel]:
    """A pydantic model of ``fn``'s parameters (unknown arguments are refused)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"python tool {tool_name!r}: cannot read the function's signature ({exc})") from None
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # a hint naming something not importable here: read them as written
        hints = {}
    fields: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue  # a model calls with named JSON values only
        if parameter.name.startswith("_"):
            raise ValueError(
                f"python tool {tool_name!r}: parameter {parameter.name!r} starts with '_', which JSON Schema tools cannot name"
            )
        annotation = hints.get(parameter.name, parameter.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        doc = docs.get(parameter.name)
        info = Field(default, description=doc) if doc and not _described(annotation) else Field(default)
        fields[parameter.name] = (annotation, info)
    try:
        model = create_model(
            f"{tool_name}_arguments",
            __config__=ConfigDict(extra="forbid"),
            __module__=getattr(fn, "__module__", None) or __name__,  # where names in string hints resolve
            **fields,
        )
        model.model_json_schema()
    except Exception as exc:
        raise TypeError(
            f"python tool {tool_name!r}: its parameters must be JSON values a model can send "
            f"(str, int, float, bool, lists, dicts, Literal, pydantic models...): {exc}"
        ) from None
    return typing.cast(type[BaseModel], model)


def tool_schema(arguments: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema a model sees: pydantic's, without the titles it makes up from names."""
    schema = arguments.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    schema.setdefault("properties", {})
    return schema


def _described(annotation: Any) -> bool:
    """``Annotated[..., Field(description=...)]`` already describes the parameter."""
    if typing.get_origin(annotation) is not typing.Annotated:
        return False
    return any(isinstance(extra, FieldInfo) and extra.description for extra in typing.get_args(annotation)[1:])


_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?|See Also):\s*$")
_GOOGLE_PARAM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[\w\[\], .]+\s+)?(\w+):\s*(.*)$")


def summary_of(doc: str) -> str:
    """The docstring up to its first section (``Args:``, ``Returns:``...) or ``:param`` line."""
    lines: list[str] = []
    for line in doc.splitlines():
        stripped = line.strip()
        if _SECTION.match(stripped) or stripped.startswith((":param", ":return", ":raises", ":type", ":rtype")):
            break
        lines.append(line)
    return "\n".join(lines).strip()


def parameter_docs(doc: str) -> dict[str, str]:
    """Each parameter's description from a Google-style ``Args:`` section or ``:param x:`` lines."""
    docs: dict[str, str] = {}
    in_args = False
    current: str | None = None
    name_indent = 0  # where the names of an Args: section start; deeper lines continue a description
    for line in doc.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        sphinx = _SPHINX_PARAM.match(stripped)
        section = _SECTION.match(stripped)
        google = _GOOGLE_PARAM.match(stripped) if in_args else None
        if sphinx:
            current, in_args = sphinx.group(1), False
            docs[current] = sphinx.group(2).strip()
        elif section:
            in_args = section.group(1) in {"Args", "Arguments", "Parameters", "Params"}
            current = None
        elif not stripped:
            current = None if not in_args else current
        elif google and (current is None or indent <= name_indent):
            current, name_indent = google.group(1).lstrip("*"), indent
            docs[current] = google.group(2).strip()
        elif current is not None and not stripped.startswith(":"):
            docs[current] = f"{docs[current]} {stripped}".strip()  # a description continued
        else:
            current = None
    return {name: text for name, text in docs.items() if text}


# -- running a call -------------------------------------------------------------------------------


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

    Never raises (but for cancellation): whatever goes wrong is an answer the model can read."""
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


__all__ = ["DENIED", "KernelStage", "PythonTool", "approval_of", "python_tool", "run_python_tool", "tool_message"]
