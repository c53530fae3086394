"""The tools a chat gives its agent from the notebook: frontend tools the chat UI executes or the
user answers, and Python functions the kernel runs (:class:`PythonTool`).

They travel to the agent in ``RunAgentInput.tools``. When the model calls one, the run ends with the
call pending; the answer (from the browser, from ``chat.respond``, or the function's return value,
see ``_python_tools``) becomes a tool message and the session starts the follow-up run.
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ag_ui.core import Tool
from pydantic import BaseModel

from ..wire import _codec

ToolUI = Literal["handler", "confirm", "ask", "form", "manual", "kernel"]
"""How a call is answered; ``kernel``: a Python function the kernel runs (:class:`PythonTool`)."""

_TOOL_UIS: tuple[str, ...] = typing.get_args(ToolUI)

_EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True)
class FrontendTool:
    """A tool whose call is answered in the notebook rather than by the agent's own code.

    ``ui`` says how the view answers it: ``handler`` runs ``handler`` (the body of an async
    JavaScript function of ``(args, ctx)``) in the browser; ``confirm`` asks Approve / Deny;
    ``ask`` asks for text; ``form`` renders ``parameters`` as a form; ``manual`` shows the
    arguments and a box for any answer. Whatever the ``ui``, Python can answer with
    ``chat.respond(tool_call_id, result)``.
    """

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: dict(_EMPTY_OBJECT_SCHEMA))
    ui: ToolUI = "manual"
    handler: str | None = None

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ValueError("a frontend tool needs a non-empty name")
        if not isinstance(self.description, str):
            raise TypeError(f"frontend tool {self.name!r}: the description is text, not {type(self.description).__name__}")
        if self.ui not in _TOOL_UIS:
            raise ValueError(f"frontend tool {self.name!r}: ui is one of {', '.join(_TOOL_UIS)}, not {self.ui!r}")
        if self.ui == "handler" and not self.handler:
            raise ValueError(f"frontend tool {self.name!r}: ui='handler' needs handler JavaScript")

    def to_agui(self) -> Tool:
        """The tool as the agent sees it in RunAgentInput.tools."""
        return Tool(name=self.name, description=self.description, parameters=dict(self.parameters))

    def spec(self) -> dict[str, Any]:
        """The tool as the view sees it (the ``frontend_tools`` trait)."""
        return _codec.tool_spec(
            self.name,
            self.description,
            copy.deepcopy(dict(self.parameters)),
            self.ui,
            self.handler,
            bool(getattr(self, "approve", False)),
            getattr(self, "app_uri", None),
        )


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
        what = "a lambda" if tool_name else f"a {type(fn).__name__}"
        raise ValueError(f"python_tool(): {what} has no name of its own; pass name=...")
    from ._tool_schema import arguments_model, parameter_docs, summary_of, tool_schema  # pydantic's schema machinery

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


def js_tool(name: str, description: str, parameters: Mapping[str, Any], handler: str) -> FrontendTool:
    """A tool the browser runs: ``handler`` is the body of ``async (args, ctx) => ...``."""
    return FrontendTool(name, description, parameters, ui="handler", handler=handler)


def confirm_tool(
    name: str = "confirm",
    description: str = "Ask the user to approve or deny an action. Returns {approved: bool}.",
) -> FrontendTool:
    """Approve / Deny, answered ``{"approved": bool}``."""
    parameters = {
        "type": "object",
        "properties": {"message": {"type": "string", "description": "What the user is asked to approve."}},
        "required": ["message"],
    }
    return FrontendTool(name, description, parameters, ui="confirm")


def ask_tool(
    name: str = "ask",
    description: str = "Ask the user a question. Optional choices. Returns {answer: str}.",
) -> FrontendTool:
    """A question for the user, answered ``{"answer": str}``."""
    parameters = {
        "type": "object",
        "properties": {
            "question": {"type": "string"},
            "choices": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["question"],
    }
    return FrontendTool(name, description, parameters, ui="ask")


def form_tool(name: str, description: str, schema: Mapping[str, Any]) -> FrontendTool:
    """A form the user fills in, rendered from ``schema`` (a JSON Schema object); answered with its values.

    The model calls the tool with prefilled values as arguments; the view shows the form with them.
    """
    if schema.get("type", "object") != "object":
        raise ValueError(f"form tool {name!r}: the schema must describe an object")
    return FrontendTool(name, description, dict(schema), ui="form")


def coerce_tools(tools: Iterable[FrontendTool | Tool | Mapping[str, Any] | Callable[..., Any]]) -> list[FrontendTool]:
    """Accept FrontendTool, ag_ui ``Tool``, a plain dict, or a Python function (a tool the kernel
    runs); reject anything else clearly."""
    result: list[FrontendTool] = []
    for tool in tools:
        if isinstance(tool, FrontendTool):
            result.append(tool)
        elif callable(tool) and not isinstance(tool, (Tool, Mapping, type)):
            result.append(python_tool(tool))
        elif isinstance(tool, Tool):
            result.append(FrontendTool(tool.name, tool.description, tool.parameters or dict(_EMPTY_OBJECT_SCHEMA)))
        elif isinstance(tool, Mapping):
            known = {"name", "description", "parameters", "ui", "handler"}
            unknown = set(tool) - known
            if unknown:
                raise TypeError(f"frontend tool dict has unknown keys {sorted(unknown)}; allowed: {sorted(known)}")
            result.append(
                FrontendTool(
                    name=tool["name"],
                    description=tool.get("description", ""),
                    parameters=tool.get("parameters") or dict(_EMPTY_OBJECT_SCHEMA),
                    ui=tool.get("ui", "handler" if tool.get("handler") else "manual"),
                    handler=tool.get("handler"),
                )
            )
        else:
            raise TypeError(
                f"tools=[...] takes functions, FrontendTool, ag_ui.core.Tool or dict items, not {type(tool).__name__}"
            )
    names = [t.name for t in result]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"frontend tool names must be unique; repeated: {duplicates}")
    return result
