"""Schema enforcement: a raw event dict held to the AG-UI schemas the way ``@ag-ui/client`` holds it.

The generated models of ``ag_ui`` are compiled once into shapes. A walk over each incoming dict
strips what the schema does not describe (an undescribed property, an unrecognised union member:
an unknown outcome, patch operation, content part, message role inside a list), each with a
warning naming its path, and turns the few nulls older peers sent where 1.0 omits a field into
absent ones; then pydantic validates strictly, and a described field holding a malformed value is
fatal, told the way the reference client tells it.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, TypeVar, Union

from ag_ui._generated import models as _models
from ag_ui.core import BaseEvent, EventType
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from ..vocabulary._errors import ProtocolError

__all__ = ["EVENT_MODELS", "FLAT_EVENT_MODELS", "enforce"]


# =============================================================================================
# Schema shapes: what the generated models describe, compiled once for the strip walk
# =============================================================================================

_DROP = object()
"""What a shape's ``strip`` returns for a value that is itself unrecognised, for its container to remove."""


class _Strip:
    """One walk's findings: the paths removed, the legacy nulls converted."""

    __slots__ = ("legacy", "stripped")

    def __init__(self) -> None:
        self.stripped: list[str] = []
        self.legacy: list[str] = []


class _NullValue(Exception):
    def __init__(self, path: str, kind: str) -> None:
        super().__init__(path)
        self.path = path
        self.kind = kind


def _pointer_token(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


# The strip walk removes what the schema does not describe and never judges what it does. Each
# shape's ``strip(value, path, found)`` is the walk at that shape: ``value`` without undescribed
# material, or ``_DROP`` when it is itself unrecognised. A value of the wrong kind is returned
# untouched: it is the validator's to reject, fatally.


class _Leaf:
    """A scalar or literal position; ``kind`` names what it expects, for error messages."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def strip(self, value: Any, path: str, found: _Strip) -> Any:
        return value


class _Opaque:
    """Arbitrary JSON (state, metadata values, rawEvent…): open by key, passed through whole."""

    kind = "any JSON value"

    def strip(self, value: Any, path: str, found: _Strip) -> Any:
        return value


class _Field:
    __slots__ = ("name", "nested", "required", "shape")

    def __init__(self, name: str, shape: Any, required: bool) -> None:
        self.name = name
        self.shape = shape
        self.required = required
        self.nested = not isinstance(shape, (_Leaf, _Opaque))


class _Object:
    kind = "object"

    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model
        self.fields: dict[str, _Field] = {}
        # RFC 6902 operations are open: members an operation does not define are ignored, not
        # unrecognised material, so a remove carrying a leftover value arrives whole.
        self.open = model in _OPEN_MODELS
        self.flat: bool = True
        self.label = _label(model)

    def strip(self, value: Any, path: str, found: _Strip) -> Any:
        if not isinstance(value, dict):
            return value
        fields = self.fields
        result: dict[str, Any] = {}
        for key, item in value.items():
            field = fields.get(key)
            if field is None:
                if self.open:
                    result[key] = item
                else:
                    found.stripped.append(f"{path}/{_pointer_token(key)}")
                continue
            if item is None and not field.required:
                # An optional field is absent, never null: a legacy null is converted, a null where
                # the field holds arbitrary JSON is left out, any other is malformed.
                if (self.model, key) in _LEGACY_NULLS:
                    found.legacy.append(f"{self.label}.{key}: null")
                elif field.shape is not _OPAQUE:
                    raise _NullValue(f"{path}/{_pointer_token(key)}", field.shape.kind)
                continue
            if not field.nested:
                result[key] = item
                continue
            mark = len(found.stripped)
            child = field.shape.strip(item, f"{path}/{_pointer_token(key)}", found)
            if child is _DROP:
                del found.stripped[mark:]
                if field.required:
                    return _DROP  # an unrecognisable required member: the container goes too
                found.stripped.append(f"{path}/{_pointer_token(key)}")
                continue
            result[key] = child
        return result


class _Array:
    kind = "array"

    def __init__(self, item: Any) -> None:
        self.item = item

    def strip(self, value: Any, path: str, found: _Strip) -> Any:
        if not isinstance(value, list):
            return value
        items: list[Any] = []
        for index, item in enumerate(value):
            mark = len(found.stripped)
            child = self.item.strip(item, f"{path}/{index}", found)
            if child is _DROP:
                del found.stripped[mark:]
                found.stripped.append(f"{path}/{index}")
                continue
            items.append(child)
        return items


class _Record:
    kind = "object"

    def __init__(self, value: Any) -> None:
        self.value = value

    def strip(self, value: Any, path: str, found: _Strip) -> Any:
        if not isinstance(value, dict):
            return value
        entries: dict[str, Any] = {}
        for key, item in value.items():
            mark = len(found.stripped)
            child = self.value.strip(item, f"{path}/{_pointer_token(key)}", found)
            if child is _DROP:
                del found.stripped[mark:]
                found.stripped.append(f"{path}/{_pointer_token(key)}")
                continue
            entries[key] = child
        return entries


class _Tagged:
    """A discriminated union: an unrecognised tag is an unrecognised member, removable."""

    kind = "object"

    def __init__(self, discriminator: str, options: dict[Any, Any]) -> None:
        self.discriminator = discriminator
        self.options = options

    def strip(self, value: Any, path: str, found: _Strip) -> Any:
        if not isinstance(value, dict):
            return value  # an array in an object slot is malformed, never "unrecognised"
        tag = value.get(self.discriminator)
        option = self.options.get(tag) if isinstance(tag, str) else None
        if option is None:
            return _DROP
        return option.strip(value, path, found)


class _Either:
    """A structural union (``string | array of parts``): recurse into the matching kind."""

    def __init__(self, options: list[Any]) -> None:
        self.options = options
        self.kind = " | ".join(option.kind for option in options)

    def strip(self, value: Any, path: str, found: _Strip) -> Any:
        for option in self.options:
            if isinstance(option, _Array) and isinstance(value, list):
                return option.strip(value, path, found)
            if isinstance(option, (_Object, _Tagged)) and isinstance(value, dict):
                return option.strip(value, path, found)
        return value


# =============================================================================================
# The compiler: annotations of the generated models to shapes
# =============================================================================================

_OPEN_MODELS = frozenset(
    {
        _models.AddOperation,
        _models.RemoveOperation,
        _models.ReplaceOperation,
        _models.MoveOperation,
        _models.CopyOperation,
        _models.TestOperation,
    }
)
_OPAQUE = _Opaque()
_OBJECTS: dict[type, _Object] = {}
_MEDIA_PARTS = (_models.ImagePart, _models.AudioPart, _models.VideoPart, _models.DocumentPart)


def _label(model: type) -> str:
    type_field = getattr(model, "model_fields", {}).get("type")
    if type_field is not None and isinstance(type_field.default, EventType):
        return type_field.default.value
    return model.__name__


def _literal_kind(values: tuple[Any, ...]) -> str:
    texts = [f'"{v.value if isinstance(v, Enum) else v}"' for v in values]
    return texts[0] if len(texts) == 1 else "one of " + "|".join(texts)


def _compile(annotation: Any, discriminator: str | None = None) -> Any:
    """The shape of one annotation of the generated models."""
    if annotation is Any or annotation is object:
        return _OPAQUE
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _compile_annotated(annotation, discriminator)
    if origin is Union or origin is types.UnionType:
        return _compile_union(typing.get_args(annotation), discriminator)
    if origin is list:
        (item,) = typing.get_args(annotation) or (Any,)
        return _Array(_compile(item))
    if origin is dict:
        args = typing.get_args(annotation)
        value = _compile(args[1]) if len(args) == 2 else _OPAQUE
        return _OPAQUE if value is _OPAQUE else _Record(value)
    if origin is typing.Literal:
        return _Leaf(_literal_kind(typing.get_args(annotation)))
    if isinstance(annotation, type):
        return _compile_class(annotation)
    return _OPAQUE


def _compile_annotated(annotation: Any, discriminator: str | None) -> Any:
    """``Annotated[inner, ...]``: the inner type, under the discriminator a ``Field`` names."""
    inner, *extras = typing.get_args(annotation)
    for extra in extras:
        if isinstance(extra, FieldInfo) and isinstance(extra.discriminator, str):
            discriminator = extra.discriminator
    return _compile(inner, discriminator)


def _compile_union(members: tuple[Any, ...], discriminator: str | None) -> Any:
    """An optional value is its one member; a discriminated union is tagged, any other structural."""
    options = [member for member in members if member is not type(None)]
    if len(options) == 1:
        return _compile(options[0], discriminator)
    if discriminator is None:
        return _Either([_compile(option) for option in options])
    tagged: dict[Any, Any] = {}
    for option in options:
        tag_annotation = option.model_fields[discriminator].annotation
        for tag in typing.get_args(tag_annotation):
            tagged[tag.value if isinstance(tag, Enum) else tag] = _object_shape(option)
    return _Tagged(discriminator, tagged)


def _compile_class(annotation: type) -> Any:
    """A model is an object; a scalar class is a leaf of its JSON kind; anything else is opaque."""
    if issubclass(annotation, BaseModel):
        return _object_shape(annotation)
    if issubclass(annotation, bool):
        return _Leaf("boolean")
    if issubclass(annotation, Enum) or issubclass(annotation, str):
        return _Leaf("string")
    if issubclass(annotation, int):
        return _Leaf("int")
    if issubclass(annotation, float):
        return _Leaf("number")
    return _OPAQUE


def _object_shape(model: type[BaseModel]) -> _Object:
    shape = _OBJECTS.get(model)
    if shape is not None:
        return shape
    shape = _OBJECTS[model] = _Object(model)
    for name, info in model.model_fields.items():
        field_shape = _compile(info.annotation, info.discriminator if isinstance(info.discriminator, str) else None)
        field = _Field(name, field_shape, info.is_required())
        shape.flat = shape.flat and not field.nested
        # The wire spelling, and the attribute name (the models populate by either).
        shape.fields[info.alias or name] = field
        shape.fields.setdefault(name, field)
    return shape


# Every event the protocol describes, by its type name, its shape compiled at import.
EVENT_MODELS: dict[str, type[BaseEvent]] = {}
for _model in typing.get_args(typing.get_args(_models.Event)[0]):
    EVENT_MODELS[_model.model_fields["type"].default.value] = _model
    _object_shape(_model)

# Nulls older peers sent where 1.0 omits the field: converted to absent, with a warning. Any
# other null on an optional field is malformed (an optional field is absent, never null),
# except where the field holds arbitrary JSON.
_LEGACY_NULLS: frozenset[tuple[type, str]] = frozenset(
    {(model, "rawEvent") for model in EVENT_MODELS.values()}
    | {
        (_models.RunFinishedEvent, "result"),
        (_models.SubagentFinishedEvent, "result"),
        (_models.RunFinishedEvent, "outcome"),
        (_models.ToolCallStartEvent, "parentMessageId"),
        (_models.ToolCallChunkEvent, "parentMessageId"),
        (_models.RunAgentInput, "forwardedProps"),
        (_models.Tool, "parameters"),
        (_models.ResumeEntry, "payload"),
    }
    | {(part, "metadata") for part in _MEDIA_PARTS}
)
# Events with nothing nested (no object, array or union inside): a typed one built in this process
# is already what the wire would carry, once its values are JSON.
FLAT_EVENT_MODELS = frozenset(model for model in EVENT_MODELS.values() if _OBJECTS[model].flat)

# Fields the protocol requires on the wire that the Python models give a default (so a typed
# event built here may leave them out, but a peer's JSON may not).
_REQUIRED_ON_THE_WIRE: dict[type, tuple[str, ...]] = {_models.ReasoningMessageStartEvent: ("role",)}


# =============================================================================================
# Malformed values: pydantic's findings, told the way the reference client tells them
# =============================================================================================

_TYPE_ERRORS = {
    "string_type": "string",
    "int_type": "int",
    "int_from_float": "int",
    "int_parsing": "int",
    "float_type": "number",
    "float_parsing": "number",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "dataclass_type": "object",
    "list_type": "array",
    "none_required": "null",
    "enum": "string",
}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _issue_message(error: Mapping[str, Any]) -> str:
    kind = error["type"]
    value = error.get("input")
    context = error.get("ctx") or {}
    if kind == "missing":
        return "Invalid input: expected a value, received undefined"
    if kind in _TYPE_ERRORS:
        return f"Invalid input: expected {_TYPE_ERRORS[kind]}, received {_json_kind(value)}"
    if kind == "literal_error":
        allowed = re.findall(r"'((?:[^'\\]|\\.)*)'", str(context.get("expected", "")))
        received = json.dumps(value) if isinstance(value, (str, int, float, bool)) or value is None else _json_kind(value)
        if len(allowed) == 1:
            return f'Invalid input: expected "{allowed[0]}", received {received}'
        options = "|".join(f'"{option}"' for option in allowed)
        return f"Invalid option: expected one of {options}, received {received}"
    if kind == "too_short":
        return f"Too small: expected {_json_kind(value)} to have >={context.get('min_length')} items"
    if kind in ("greater_than_equal", "greater_than"):
        bound = context.get("ge", context.get("gt"))
        return (
            f"Too small: expected number to be >={bound}"
            if kind == "greater_than_equal"
            else f"Too small: expected number to be >{bound}"
        )
    if kind in ("less_than_equal", "less_than"):
        return f"Too big: expected number to be <={context.get('le', context.get('lt'))}"
    if kind == "string_pattern_mismatch":
        return f"Invalid string: must match pattern {context.get('pattern')}"
    return str(error.get("msg", kind))


def _malformed(label: str, issues: list[dict[str, str]]) -> ProtocolError:
    return ProtocolError(
        f"Malformed {label}: a described field holds a value the protocol does not allow: "
        + json.dumps(issues, ensure_ascii=False)
    )


def _issues(error: ValidationError, shape: Any) -> list[dict[str, str]]:
    return [{"path": _data_path(item["loc"], shape), "message": _issue_message(item)} for item in error.errors(include_url=False)]


def _data_path(loc: tuple[Any, ...], shape: Any) -> str:
    """pydantic's error location as a JSON pointer into the document, without union-member steps."""
    tokens: list[str] = []
    index = 0
    while index < len(loc):
        step = loc[index]
        index += 1
        if isinstance(shape, _Tagged):
            shape = shape.options.get(step, _OPAQUE)  # the member's tag, not a place in the document
            continue
        if isinstance(shape, _Either):
            arrays = [option for option in shape.options if isinstance(option, _Array)]
            shape = arrays[0] if arrays and str(step).startswith("list") else _OPAQUE
            continue
        tokens.append(_pointer_token(step))
        if isinstance(shape, _Object):
            field = shape.fields.get(step)
            shape = field.shape if field is not None else _OPAQUE
        elif isinstance(shape, _Array):
            shape = shape.item
        elif isinstance(shape, _Record):
            shape = shape.value
        else:
            shape = _OPAQUE
    return "/" + "/".join(tokens)


_Model = TypeVar("_Model", bound=BaseModel)


def enforce(raw: Mapping[str, Any], model: type[_Model], label: str, warn: Callable[[str], None], where: str) -> _Model:
    """Strip undescribed material (warning per path), then validate strictly; malformed is fatal."""
    found = _Strip()
    shape = _object_shape(model)
    for name in _REQUIRED_ON_THE_WIRE.get(model, ()):
        if name not in raw:
            expected = model.model_fields[name].default
            raise _malformed(
                label, [{"path": f"/{name}", "message": f'Invalid input: expected "{expected}", received undefined'}]
            )
    try:
        cleaned = shape.strip(dict(raw), "", found)
    except _NullValue as null:
        raise _malformed(label, [{"path": null.path, "message": f"Invalid input: expected {null.kind}, received null"}]) from None
    if cleaned is _DROP:
        raise _malformed(label, [{"path": "/", "message": "Invalid input: the value is not recognisable"}])
    for what in found.legacy:
        warn(f"Converting deprecated {what} to an absent field.")
    for path in found.stripped:
        warn(f"Removed unrecognised material at '{path}' {where}. Nothing handled it.")
    try:
        return model.model_validate(cleaned, strict=True)
    except ValidationError as exc:
        raise _malformed(label, _issues(exc, shape)) from None
