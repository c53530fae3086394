"""The JSON Schema of a Python function's parameters, for a model to call it as a tool.

pydantic's, from the signature: type hints (``Annotated[..., Field(description=...)]`` included),
defaults, and the docstring (its text is the tool's description, and a Google-style ``Args:``
section or ``:param x:`` lines describe the parameters). The model it builds also validates the
arguments of each call.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo


def arguments_model(fn: Callable[..., Any], tool_name: str, docs: Mapping[str, str]) -> type[BaseModel]:
    """A pydantic model of ``fn``'s parameters (unknown arguments are refused)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"python tool {tool_name!r}: cannot read the function's signature ({exc})") from None
    try:
        hints = typing.get_type_hints(_defined(fn), include_extras=True)
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
            __module__=getattr(_defined(fn), "__module__", None) or __name__,  # where names in string hints resolve
            **fields,
        )
        model.model_json_schema()
    except Exception as exc:
        raise TypeError(
            f"python tool {tool_name!r}: its parameters must be JSON values a model can send "
            f"(str, int, float, bool, lists, dicts, Literal, pydantic models...): {exc}"
        ) from None
    return typing.cast(type[BaseModel], model)


def _defined(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function as written (under a ``functools.partial``), whose hints and module name its types."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


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


_SECTION = r"^(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?|See Also):\s*$"
_GOOGLE_PARAM = r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$"
_SPHINX_PARAM = r"^:param\s+(?:[\w\[\], .]+\s+)?(\w+):\s*(.*)$"


def summary_of(doc: str) -> str:
    """The docstring up to its first section (``Args:``, ``Returns:``...) or ``:param`` line."""
    lines: list[str] = []
    for line in doc.splitlines():
        stripped = line.strip()
        if re.match(_SECTION, stripped) or stripped.startswith((":param", ":return", ":raises", ":type", ":rtype")):
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
        sphinx = re.match(_SPHINX_PARAM, stripped)
        section = re.match(_SECTION, stripped)
        google = re.match(_GOOGLE_PARAM, stripped) if in_args else None
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
