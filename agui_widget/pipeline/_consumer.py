"""The client pipeline an AG-UI event stream goes through before it reaches the transcript.

For each event, in the order ``@ag-ui/client`` (the reference TypeScript client) runs them:

1. **compatibility** – retired ``THINKING_*`` events become their ``REASONING_*`` equivalents,
   legacy ``binary`` content parts become media parts, the few nulls older peers sent where 1.0
   omits a field become absent (each with a warning); for a peer pinned at or below 0.0.57 the
   subagent additions are removed (``SUBAGENT_*`` dropped with a warning, attribution stripped);
2. **enforcement** – a raw dict is parsed into an ``ag_ui.core`` event: an unrecognised event
   type is dropped, an undescribed property or an unrecognised union member (an unknown
   outcome, patch operation, content part, message role inside a list) is stripped, each with a
   warning naming its path; a described field holding a malformed value is fatal;
3. **chunk expansion** – ``*_CHUNK`` shorthand becomes start/content/end triads;
4. **verification** – :class:`~agui_widget.pipeline._verify.EventVerifier`;
5. **reduction** – :class:`~agui_widget.pipeline._reducer.EventReducer`.

Typed ``BaseEvent`` objects built in this process take the same path (flat events skip the
re-parse), so an adapter and a remote endpoint are held to the same rules. Their values are made
what the wire would carry first (:mod:`~agui_widget.pipeline._json_values`): a value pydantic can serialise
takes its JSON form, one it cannot is fatal.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import types
import typing
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar, Union

from ag_ui._generated import models as _models
from ag_ui.core import (
    BaseEvent,
    EventType,
    Interrupt,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.core.version import PROTOCOL_VERSION
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from ..vocabulary._deltas import BY_END, DELTAS, PLAIN_FIELDS
from ..vocabulary._unicode import REPLACEMENT, has_surrogate, is_high_surrogate, rejoin_pairs, replace_lone, scrub
from ._json_values import VALUE_FIELDS, plain_values, wire_form
from ._reducer import EventReducer, TranscriptIndex
from ._verify import EventVerifier, ProtocolError

__all__ = ["EventConsumer"]

log = logging.getLogger("agui_widget")


# =============================================================================================
# Schema shapes: what the generated models describe, compiled once for the strip walk
# =============================================================================================


class _Leaf:
    """A scalar or literal position; ``kind`` names what it expects, for error messages."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind


class _Opaque:
    """Arbitrary JSON (state, metadata values, rawEvent…): open by key, passed through whole."""

    kind = "any JSON value"


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


class _Array:
    kind = "array"

    def __init__(self, item: Any) -> None:
        self.item = item


class _Record:
    kind = "object"

    def __init__(self, value: Any) -> None:
        self.value = value


class _Tagged:
    """A discriminated union: an unrecognised tag is an unrecognised member, removable."""

    kind = "object"

    def __init__(self, discriminator: str, options: dict[Any, Any]) -> None:
        self.discriminator = discriminator
        self.options = options


class _Either:
    """A structural union (``string | array of parts``): recurse into the matching kind."""

    def __init__(self, options: list[Any]) -> None:
        self.options = options
        self.kind = " | ".join(option.kind for option in options)


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
        inner, *extras = typing.get_args(annotation)
        for extra in extras:
            if isinstance(extra, FieldInfo) and isinstance(extra.discriminator, str):
                discriminator = extra.discriminator
        return _compile(inner, discriminator)
    if origin is Union or origin is types.UnionType:
        options = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(options) == 1:
            return _compile(options[0], discriminator)
        if discriminator is not None:
            tagged: dict[Any, Any] = {}
            for option in options:
                tag_annotation = option.model_fields[discriminator].annotation
                for tag in typing.get_args(tag_annotation):
                    tagged[tag.value if isinstance(tag, Enum) else tag] = _object_shape(option)
            return _Tagged(discriminator, tagged)
        return _Either([_compile(option) for option in options])
    if origin in (list, list):
        (item,) = typing.get_args(annotation) or (Any,)
        return _Array(_compile(item))
    if origin in (dict, dict):
        args = typing.get_args(annotation)
        value = _compile(args[1]) if len(args) == 2 else _OPAQUE
        return _OPAQUE if value is _OPAQUE else _Record(value)
    if origin is typing.Literal:
        return _Leaf(_literal_kind(typing.get_args(annotation)))
    if isinstance(annotation, type):
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


_EVENT_MODELS: dict[str, type[BaseEvent]] = {}
for _model in typing.get_args(typing.get_args(_models.Event)[0]):
    _EVENT_MODELS[_model.model_fields["type"].default.value] = _model
    _object_shape(_model)

# Nulls older peers sent where 1.0 omits the field: converted to absent, with a warning. Any
# other null on an optional field is malformed (an optional field is absent, never null),
# except where the field holds arbitrary JSON.
_LEGACY_NULLS: frozenset[tuple[type, str]] = frozenset(
    {(model, "rawEvent") for model in _EVENT_MODELS.values()}
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
# Flat events passed on as they are; those whose field holds any JSON have it made JSON first.
_FLAT_EVENT_CLASSES = frozenset(model for model in _EVENT_MODELS.values() if _OBJECTS[model].flat) - VALUE_FIELDS.keys()

# Fields the protocol requires on the wire that the Python models give a default (so a typed
# event built here may leave them out, but a peer's JSON may not).
_REQUIRED_ON_THE_WIRE: dict[type, tuple[str, ...]] = {_models.ReasoningMessageStartEvent: ("role",)}


# =============================================================================================
# The strip walk: remove what the schema does not describe, never judge what it does
# =============================================================================================

_DROP = object()


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


def _strip(value: Any, shape: Any, path: str, found: _Strip) -> Any:
    """``value`` without undescribed material, or ``_DROP`` when it is itself unrecognised.

    A value of the wrong kind is returned untouched: it is the validator's to reject, fatally.
    """
    if isinstance(shape, _Object):
        if not isinstance(value, dict):
            return value
        fields = shape.fields
        result: dict[str, Any] = {}
        for key, item in value.items():
            field = fields.get(key)
            if field is None:
                if shape.open:
                    result[key] = item
                else:
                    found.stripped.append(f"{path}/{_pointer_token(key)}")
                continue
            if item is None and not field.required:
                if (shape.model, key) in _LEGACY_NULLS:
                    found.legacy.append(f"{shape.label}.{key}: null")
                    continue
                if field.shape is _OPAQUE:
                    continue
                raise _NullValue(f"{path}/{_pointer_token(key)}", field.shape.kind)
            if not field.nested:
                result[key] = item
                continue
            mark = len(found.stripped)
            child = _strip(item, field.shape, f"{path}/{_pointer_token(key)}", found)
            if child is _DROP:
                del found.stripped[mark:]
                if field.required:
                    return _DROP  # an unrecognisable required member: the container goes too
                found.stripped.append(f"{path}/{_pointer_token(key)}")
                continue
            result[key] = child
        return result
    if isinstance(shape, _Array):
        if not isinstance(value, list):
            return value
        items: list[Any] = []
        for index, item in enumerate(value):
            mark = len(found.stripped)
            child = _strip(item, shape.item, f"{path}/{index}", found)
            if child is _DROP:
                del found.stripped[mark:]
                found.stripped.append(f"{path}/{index}")
                continue
            items.append(child)
        return items
    if isinstance(shape, _Tagged):
        if not isinstance(value, dict):
            return value  # an array in an object slot is malformed, never "unrecognised"
        tag = value.get(shape.discriminator)
        option = shape.options.get(tag) if isinstance(tag, str) else None
        if option is None:
            return _DROP
        return _strip(value, option, path, found)
    if isinstance(shape, _Record):
        if not isinstance(value, dict):
            return value
        entries: dict[str, Any] = {}
        for key, item in value.items():
            mark = len(found.stripped)
            child = _strip(item, shape.value, f"{path}/{_pointer_token(key)}", found)
            if child is _DROP:
                del found.stripped[mark:]
                found.stripped.append(f"{path}/{_pointer_token(key)}")
                continue
            entries[key] = child
        return entries
    if isinstance(shape, _Either):
        for option in shape.options:
            if isinstance(option, _Array) and isinstance(value, list):
                return _strip(value, option, path, found)
            if isinstance(option, (_Object, _Tagged)) and isinstance(value, dict):
                return _strip(value, option, path, found)
        return value
    return value


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


def _enforce(raw: Mapping[str, Any], model: type[_Model], label: str, warn: Callable[[str], None], where: str) -> _Model:
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
        cleaned = _strip(dict(raw), shape, "", found)
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


# =============================================================================================
# Compatibility with older peers (the always-on boundary and the version-gated shims)
# =============================================================================================

_THINKING = {
    "THINKING_START": "REASONING_START",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
    "THINKING_END": "REASONING_END",
}
_SUBAGENT_LIFECYCLE = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})


def _media_kind(mime_type: str) -> str:
    for prefix in ("image", "audio", "video"):
        if mime_type.startswith(prefix + "/"):
            return prefix
    return "document"


def _upgrade_binary_parts(message: Any, warn: Callable[[str], None] | None) -> Any:
    """A message whose legacy ``{"type": "binary"}`` parts are media parts with a source."""
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return message
    content = message["content"]
    if not any(isinstance(part, dict) and part.get("type") == "binary" for part in content):
        return message
    if warn is not None:
        warn("Converting deprecated binary input content to the modern media content parts.")
    upgraded: list[Any] = []
    for part in content:
        if not (isinstance(part, dict) and part.get("type") == "binary" and isinstance(part.get("mimeType"), str)):
            upgraded.append(part)
            continue
        mime_type = part["mimeType"]
        if part.get("data"):
            source = {"type": "data", "value": part["data"], "mimeType": mime_type}
        elif part.get("url"):
            source = {"type": "url", "value": part["url"], "mimeType": mime_type}
        else:
            if warn is not None:
                warn(
                    f"A binary content part carries only an id ('{part.get('id', '')}') and cannot be "
                    "converted to a media part; a 1.0 peer will not accept it."
                )
            upgraded.append(part)
            continue
        modern: dict[str, Any] = {"type": _media_kind(mime_type), "source": source}
        if part.get("filename"):
            modern["metadata"] = {"filename": part["filename"]}
        if any(_same_media(other, modern) for other in content):
            continue  # the modern twin is already there: the legacy mirror adds nothing
        upgraded.append(modern)
    return {**message, "content": upgraded}


def _same_media(part: Any, modern: dict[str, Any]) -> bool:
    if not isinstance(part, dict) or part.get("type") != modern["type"]:
        return False
    source = part.get("source")
    if not isinstance(source, dict) or any(source.get(k) != modern["source"][k] for k in ("type", "value", "mimeType")):
        return False
    filename = (modern.get("metadata") or {}).get("filename")
    return not filename or (isinstance(part.get("metadata"), dict) and part["metadata"].get("filename") == filename)


def _without_attribution(value: Any) -> Any:
    if isinstance(value, dict) and "subagentRunId" in value:
        return {k: v for k, v in value.items() if k != "subagentRunId"}
    return value


def _version(text: str) -> tuple[int, ...]:
    if not isinstance(text, str) or not re.fullmatch(r"\d+(\.\d+)*", text):
        raise ValueError(f"max_protocol_version {text!r} is not a version this client can compare (e.g. '0.0.57')")
    return tuple(int(part) for part in text.split("."))


def _at_most(version: tuple[int, ...], limit: tuple[int, ...]) -> bool:
    """``version <= limit``, reading missing trailing components as 0."""
    width = max(len(version), len(limit))
    return version + (0,) * (width - len(version)) <= limit + (0,) * (width - len(limit))


# =============================================================================================
# Chunk expansion
# =============================================================================================

_CHUNK_TYPES = frozenset({EventType.TEXT_MESSAGE_CHUNK, EventType.TOOL_CALL_CHUNK, EventType.REASONING_MESSAGE_CHUNK})
# An explicit event closes only its own lane (its subagent's, or the parent's when untagged).
_CLOSES_OWN_LANE = frozenset(
    {
        EventType.TEXT_MESSAGE_START,
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TEXT_MESSAGE_END,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
        EventType.TOOL_CALL_RESULT,
        EventType.STATE_SNAPSHOT,
        EventType.STATE_DELTA,
        EventType.CUSTOM,
        EventType.STEP_STARTED,
        EventType.STEP_FINISHED,
        EventType.REASONING_START,
        EventType.REASONING_MESSAGE_START,
        EventType.REASONING_MESSAGE_CONTENT,
        EventType.REASONING_MESSAGE_END,
        EventType.REASONING_END,
    }
)
# Run-level events describe the whole run: every lane closes.
_CLOSES_ALL_LANES = frozenset({EventType.RUN_STARTED, EventType.RUN_FINISHED, EventType.RUN_ERROR, EventType.MESSAGES_SNAPSHOT})
_SUBAGENT_TERMINALS = frozenset({EventType.SUBAGENT_FINISHED, EventType.SUBAGENT_ERROR})


@dataclass
class _Lane:
    kind: str  # "text" | "tool" | "reasoning"
    entity_id: str
    subagent_run_id: str | None = None
    role: _models.TextMessageRole | None = None  # a text lane's
    name: str | None = None
    parent_message_id: str | None = None


def _require_agreement(entity: str, entity_id: str, field: str, incoming: str | None, established: str | None) -> None:
    """A continuation may repeat what its opener said, never contradict it."""
    if incoming is not None and incoming != established:
        said = "(absent)" if established is None else f"'{established}'"
        raise ProtocolError(
            f"Cannot continue {entity} '{entity_id}': chunk {field} '{incoming}' does not match the open stream's {field} {said}."
        )


class _ChunkExpander:
    """Turns ``*_CHUNK`` events into start/content/end triads, one open stream per lane.

    A lane is the subagent the chunks are attributed to (``None`` is the parent agent), so two
    subagents can stream at once. An explicit event of the lane closes it first, an explicit END
    too: an item built from chunks is closed by the expansion, so an END of its own after that is
    a protocol error, as in ``@ag-ui/client``. (A caller closing a stream hands the lanes over to
    :meth:`EventVerifier.open_events` with :meth:`release`.)
    """

    def __init__(self) -> None:
        self.lanes: dict[str | None, _Lane] = {}

    def expand(self, event: Any) -> list[BaseEvent]:
        event_type = event.type
        if event_type == EventType.TEXT_MESSAGE_CHUNK:
            return self._text(event)
        if event_type == EventType.TOOL_CALL_CHUNK:
            return self._tool(event)
        if event_type == EventType.REASONING_MESSAGE_CHUNK:
            return self._reasoning(event)
        if not self.lanes:
            return [event]
        if event_type in _CLOSES_OWN_LANE:
            return [*self._close(event.subagent_run_id), event]
        if event_type in _CLOSES_ALL_LANES:
            return [*self.close_all(), event]
        if event_type in _SUBAGENT_TERMINALS:
            return [*self._close(event.subagent_run_id), event]
        return [event]

    def release(self) -> None:
        """Forget the open lanes: their items are closed by explicit ENDs from here on."""
        self.lanes.clear()

    def close_all(self) -> list[BaseEvent]:
        closing: list[BaseEvent] = []
        for owner in list(self.lanes):
            closing.extend(self._close(owner))
        return closing

    def _close(self, owner: str | None) -> list[BaseEvent]:
        lane = self.lanes.pop(owner, None)
        if lane is None:
            return []
        if lane.kind == "text":
            return [TextMessageEndEvent(message_id=lane.entity_id, subagent_run_id=lane.subagent_run_id)]
        if lane.kind == "tool":
            return [ToolCallEndEvent(tool_call_id=lane.entity_id, subagent_run_id=lane.subagent_run_id)]
        return [ReasoningMessageEndEvent(message_id=lane.entity_id, subagent_run_id=lane.subagent_run_id)]

    def _resolve(self, kind: str, entity_id: str | None, tag: str | None, chunk: str, entity: str) -> str | None:
        """Which lane a chunk belongs to; a continuation may omit both its id and its tag."""
        if entity_id is not None:
            for owner, lane in self.lanes.items():
                if lane.kind == kind and lane.entity_id == entity_id:
                    if tag is not None and tag != owner:
                        held = "(the parent agent)" if owner is None else f"'{owner}'"
                        raise ProtocolError(
                            f"Cannot continue {entity} '{entity_id}': chunk subagentRunId '{tag}' does not "
                            f"match the open stream's subagent {held}."
                        )
                    return owner
            return tag
        if tag is not None:
            return tag
        parent = self.lanes.get(None)
        if parent is not None and parent.kind == kind:
            return None
        candidates = [owner for owner, lane in self.lanes.items() if lane.kind == kind]
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            id_field = "toolCallId" if kind == "tool" else "messageId"
            raise ProtocolError(
                f"Ambiguous {chunk}: it carries neither a {id_field} nor a subagentRunId, but "
                f"{len(candidates)} lanes have an open {entity}. Attribute the chunk to its subagent."
            )
        return None

    def _text(self, chunk: Any) -> list[BaseEvent]:
        key = self._resolve("text", chunk.message_id, chunk.subagent_run_id, "TEXT_MESSAGE_CHUNK", "text message")
        lane = self.lanes.get(key)
        out: list[BaseEvent] = []
        if lane is not None and lane.kind == "text" and chunk.message_id in (None, lane.entity_id):
            _require_agreement("text message", lane.entity_id, "role", chunk.role, lane.role)
            _require_agreement("text message", lane.entity_id, "name", chunk.name, lane.name)
        else:
            out.extend(self._close(key))
            if chunk.message_id is None:
                raise ProtocolError("First TEXT_MESSAGE_CHUNK must have a messageId")
            lane = self.lanes[key] = _Lane(
                "text", chunk.message_id, chunk.subagent_run_id, role=chunk.role or "assistant", name=chunk.name
            )
            out.append(
                TextMessageStartEvent(
                    message_id=lane.entity_id,
                    role=lane.role,
                    name=chunk.name,
                    subagent_run_id=chunk.subagent_run_id,
                    metadata=chunk.metadata,
                )
            )
        if chunk.delta is not None or chunk.raw_event is not None or (not out and chunk.metadata is not None):
            out.append(
                TextMessageContentEvent(
                    message_id=lane.entity_id,
                    delta=chunk.delta or "",
                    subagent_run_id=chunk.subagent_run_id if chunk.subagent_run_id is not None else lane.subagent_run_id,
                    metadata=chunk.metadata,
                    raw_event=chunk.raw_event,
                )
            )
        return out

    def _tool(self, chunk: Any) -> list[BaseEvent]:
        key = self._resolve("tool", chunk.tool_call_id, chunk.subagent_run_id, "TOOL_CALL_CHUNK", "tool call")
        lane = self.lanes.get(key)
        out: list[BaseEvent] = []
        if lane is not None and lane.kind == "tool" and chunk.tool_call_id in (None, lane.entity_id):
            _require_agreement("tool call", lane.entity_id, "toolCallName", chunk.tool_call_name, lane.name)
            _require_agreement("tool call", lane.entity_id, "parentMessageId", chunk.parent_message_id, lane.parent_message_id)
        else:
            out.extend(self._close(key))
            if chunk.tool_call_id is None:
                raise ProtocolError("First TOOL_CALL_CHUNK must have a toolCallId")
            if chunk.tool_call_name is None:
                raise ProtocolError(f"First TOOL_CALL_CHUNK must have a toolCallName (tool call '{chunk.tool_call_id}')")
            lane = self.lanes[key] = _Lane(
                "tool",
                chunk.tool_call_id,
                chunk.subagent_run_id,
                name=chunk.tool_call_name,
                parent_message_id=chunk.parent_message_id,
            )
            out.append(
                ToolCallStartEvent(
                    tool_call_id=lane.entity_id,
                    tool_call_name=chunk.tool_call_name,
                    parent_message_id=chunk.parent_message_id,
                    subagent_run_id=chunk.subagent_run_id,
                    metadata=chunk.metadata,
                )
            )
        if chunk.delta is not None or chunk.raw_event is not None or (not out and chunk.metadata is not None):
            out.append(
                ToolCallArgsEvent(
                    tool_call_id=lane.entity_id,
                    delta=chunk.delta or "",
                    subagent_run_id=chunk.subagent_run_id if chunk.subagent_run_id is not None else lane.subagent_run_id,
                    metadata=chunk.metadata,
                    raw_event=chunk.raw_event,
                )
            )
        return out

    def _reasoning(self, chunk: Any) -> list[BaseEvent]:
        key = self._resolve("reasoning", chunk.message_id, chunk.subagent_run_id, "REASONING_MESSAGE_CHUNK", "reasoning message")
        lane = self.lanes.get(key)
        out: list[BaseEvent] = []
        if lane is None or lane.kind != "reasoning" or chunk.message_id not in (None, lane.entity_id):
            out.extend(self._close(key))
            if chunk.message_id is None:
                raise ProtocolError("First REASONING_MESSAGE_CHUNK must have a messageId")
            lane = self.lanes[key] = _Lane("reasoning", chunk.message_id, chunk.subagent_run_id)
            out.append(
                ReasoningMessageStartEvent(
                    message_id=lane.entity_id, subagent_run_id=chunk.subagent_run_id, metadata=chunk.metadata
                )
            )
        if chunk.delta is not None or chunk.raw_event is not None or (not out and chunk.metadata is not None):
            out.append(
                ReasoningMessageContentEvent(
                    message_id=lane.entity_id,
                    delta=chunk.delta or "",
                    subagent_run_id=chunk.subagent_run_id if chunk.subagent_run_id is not None else lane.subagent_run_id,
                    metadata=chunk.metadata,
                    raw_event=chunk.raw_event,
                )
            )
        return out


# =============================================================================================
# Unicode repair
# =============================================================================================


class _SurrogateRepair:
    """Rejoins UTF-16 surrogate pairs split across deltas, and replaces halves that never pair.

    A JavaScript producer slices text by UTF-16 code units, so an emoji may come as two deltas
    holding one half each. The official client simply concatenates them; here a delta ending in a
    high surrogate is held back until the next delta of the same message (or tool call) brings
    the low half. A half that never pairs (an END, another run, a lone low half) becomes U+FFFD,
    with one warning per stream, so nothing downstream meets a string UTF-8 cannot encode. Other
    events are checked whole (their strings rarely hold a surrogate, and then are repaired too).
    """

    __slots__ = ("held", "warn", "warned")

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.held: dict[tuple[Any, str], str] = {}
        self.warn = warn
        self.warned = False

    def delta(self, event: Any, id_field: str) -> Any:
        if event.metadata is not None or event.raw_event is not None or event.__pydantic_extra__:
            event = self._beside_the_text(event)
        held = self.held.pop((event.type, getattr(event, id_field)), None) if self.held else None
        delta = event.delta
        text = delta if held is None else held + delta
        if held is None and not has_surrogate(text):
            return event
        text = rejoin_pairs(text)
        if text and is_high_surrogate(text[-1]):
            self.held[(event.type, getattr(event, id_field))] = text[-1]
            text = text[:-1]
        fixed = replace_lone(text)
        if fixed != text:
            self._replaced(event.type.value)
        return event.model_copy(update={"delta": fixed})

    def _beside_the_text(self, event: Any) -> Any:
        """A delta carrying more than its text (metadata, a raw payload: rare), with those repaired;
        the text itself is left to the pairing."""
        if not _may_hold_surrogate(event):
            return event
        data = event.model_dump(by_alias=True)
        delta = data.pop("delta")
        data, changed = scrub(data)
        if not changed:
            return event
        self._replaced(event.type.value)
        data["delta"] = delta
        return type(event).model_validate(data)

    def flush(self, event: Any) -> list[BaseEvent]:
        """Before an END: the half it held, as U+FFFD; before a run's end: every half held; a
        messages snapshot replaces what they would have ended, so they are dropped."""
        if not self.held:
            return []
        ends = BY_END.get(event.type)
        if ends is not None:
            keys = [(ends.type, getattr(event, ends.id_attr))]
        elif event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR, EventType.RUN_STARTED):
            keys = list(self.held)
        elif event.type == EventType.MESSAGES_SNAPSHOT:
            self.held.clear()  # the snapshot replaces the text the half would have ended
            return []
        else:
            return []
        flushed: list[BaseEvent] = []
        for key in keys:
            if self.held.pop(key, None) is not None:
                self._replaced(key[0].value)
                flushed.append(DELTAS[key[0]].build(key[1], REPLACEMENT))
        return flushed

    def whole(self, event: Any) -> Any:
        """A non-delta event whose strings hold a surrogate, repaired (rare: checked cheaply)."""
        deep = bool(event.__pydantic_extra__)
        for value in event.__dict__.values():
            if isinstance(value, str):
                if has_surrogate(value):
                    deep = True
                    break
            elif value is not None and not isinstance(value, (int, float)):
                deep = True  # a container or a model: its JSON encoding tells
        if not deep or not _may_hold_surrogate(event):
            return event
        data, changed = scrub(event.model_dump(by_alias=True))
        if not changed:
            return event
        self._replaced(event.type.value)
        return type(event).model_validate(data)

    def _replaced(self, where: str) -> None:
        if not self.warned:
            self.warned = True
            self.warn(
                f"Replaced a lone UTF-16 surrogate (half of a character that never got its other half) in "
                f"{where} with U+FFFD; later ones in this stream are replaced without a warning."
            )


def _may_hold_surrogate(event: BaseEvent) -> bool:
    """False when ``event`` surely holds no surrogate (its JSON encodes as UTF-8)."""
    try:
        event.__pydantic_serializer__.to_json(event, by_alias=True, fallback=repr)
    except Exception:  # pydantic-core refuses a surrogate it cannot encode
        return True
    return False


# =============================================================================================
# The consumer
# =============================================================================================

_TEXT_CONTENT = EventType.TEXT_MESSAGE_CONTENT.value
_TOOL_CALL_ARGS = EventType.TOOL_CALL_ARGS.value

_RUN_BOOKKEEPING = frozenset(
    {
        EventType.RUN_STARTED,
        EventType.RUN_FINISHED,
        EventType.RUN_ERROR,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_RESULT,
    }
)
_DECLARED_VERSION = re.compile(r"\d+\.\d+")


class _Warnings:
    """Where a consumer's warnings go: its list, the ``agui_widget`` logger, and ``on_warning``."""

    __slots__ = ("on_warning", "texts")

    def __init__(self, on_warning: Callable[[str], None] | None) -> None:
        self.texts: list[str] = []
        self.on_warning = on_warning

    def __call__(self, text: str) -> None:
        self.texts.append(text)
        log.warning("agui-widget: %s", text)
        if self.on_warning is not None:
            self.on_warning(text)


class EventConsumer:
    """One stream of runs, from the wire (or an in-process adapter) to ``messages`` and ``state``.

    ``consume()`` returns the events delivered to the application (after chunk expansion) and
    raises :class:`ProtocolError` when the stream breaks a rule a client must reject; everything
    delivered before that stays applied. Warnings (stripped material, retired shapes, a newer
    producer) go to the ``agui_widget`` logger, to ``on_warning`` and to :attr:`warnings`.

    ``max_protocol_version`` pins the peer's protocol ceiling (``None``: a current 1.x peer).
    At or below 0.0.57 the subagent additions are removed in both directions; at or below 0.0.39
    outgoing message content is flattened to text (see :meth:`outgoing_input`).
    """

    def __init__(
        self,
        messages: Iterable[Mapping[str, Any]] | None = None,
        state: Any = None,
        *,
        on_warning: Callable[[str], None] | None = None,
        max_protocol_version: str | None = None,
        carried: TranscriptIndex | None = None,
    ) -> None:
        """``carried``: the index an earlier consumer left (``carried_index``), given up to be
        extended when this transcript starts with the same message objects (see
        :class:`~agui_widget.pipeline._reducer.TranscriptIndex`)."""
        # The parts of the pipeline that warn are handed this object, not a method of the consumer:
        # one would make every consumer a reference cycle, so a finished stream's pipeline (and the
        # transcript its reducer holds) would wait for the cyclic garbage collector to be freed.
        self._warn = _Warnings(on_warning)
        ceiling = _version(max_protocol_version) if max_protocol_version is not None else None
        self._flatten_content = ceiling is not None and _at_most(ceiling, (0, 0, 39))
        self._pre_subagent = ceiling is not None and _at_most(ceiling, (0, 0, 57))
        # protocolVersion entered RunAgentInput with 1.0: an older peer's parser may reject it.
        self._declares_version = ceiling is None or _at_most(_version(PROTOCOL_VERSION), ceiling)
        self._reducer = EventReducer(messages, state, on_warning=self._warn, carried=carried)
        self.carried_index: TranscriptIndex = self._reducer.carried
        """The index of the transcript handed in, for the next consumer to extend."""
        self._verifier = EventVerifier()
        self._chunks = _ChunkExpander()
        self._unicode = _SurrogateRepair(self._warn)
        self._thinking_span: str | None = None
        self._thinking_message: str | None = None
        self._last_finished: RunFinishedEvent | None = None
        self._last_error: RunErrorEvent | None = None
        self._run_tool_calls: dict[str, None] = {}
        self._answered: set[str] = set()

    # -- the pipeline ------------------------------------------------------------------------

    def consume(self, event: BaseEvent | Mapping[str, Any]) -> list[BaseEvent]:
        """Run one event (typed, or a raw camelCase dict off the wire) through the pipeline."""
        if isinstance(event, BaseEvent):
            parsed = self._typed(event)
        elif isinstance(event, Mapping):
            parsed = self._parse(event)
        else:
            raise ProtocolError(f"An AG-UI event must be a JSON object, not {type(event).__name__}")
        if parsed is None:
            return []
        expanded = self._chunks.expand(parsed) if self._chunks.lanes or parsed.type in _CHUNK_TYPES else (parsed,)
        delivered: list[BaseEvent] = []
        verifier, reducer, unicode = self._verifier, self._reducer, self._unicode
        for original in expanded:
            delta_kind = DELTAS.get(original.type)
            if delta_kind is not None:
                repaired: Any = (unicode.delta(original, delta_kind.id_attr),)
            elif unicode.held:
                repaired = (*unicode.flush(original), unicode.whole(original))
            else:
                repaired = (unicode.whole(original),)
            for item in repaired:
                try:
                    verifier.check(item)
                except ProtocolError as exc:
                    exc.delivered = delivered
                    raise
                if item.type in _RUN_BOOKKEEPING:
                    self._note(item)
                reducer.apply(item)
                delivered.append(item)
        return delivered

    def consume_plain_delta(self, event: BaseEvent) -> tuple[str, str, str] | None:
        """The hot path, most of a stream: a plain text or tool-argument delta (only its id and
        its delta set) that continues what is streaming now is checked and folded in as
        :meth:`consume` would, and returned as the event log keeps it, ``(type, id, delta)``.
        Anything else (the first delta of a message, a tagged or repaired one, chunks pending)
        returns None with nothing changed, for :meth:`consume` to take."""
        cls = type(event)
        if cls is not TextMessageContentEvent and cls is not ToolCallArgsEvent:
            return None
        if event.__pydantic_extra__ or not event.__pydantic_fields_set__ <= PLAIN_FIELDS:
            return None
        if self._pre_subagent or self._chunks.lanes or self._unicode.held:
            return None
        delta: str = event.delta  # type: ignore[attr-defined]
        if not delta.isascii() and has_surrogate(delta):
            return None
        if cls is TextMessageContentEvent:
            ident: str = event.message_id  # type: ignore[attr-defined]
            if self._verifier.continues_text(ident) and self._reducer.continue_text(ident, delta):
                return _TEXT_CONTENT, ident, delta
            return None
        ident = event.tool_call_id  # type: ignore[attr-defined]
        if self._verifier.continues_tool_call(ident) and self._reducer.continue_args(ident, delta):
            return _TOOL_CALL_ARGS, ident, delta
        return None

    def end_of_stream(self) -> None:
        """The transport ended. Raise :class:`ProtocolError` if a run was left without an outcome.

        A truncated run MUST NOT be reported as having succeeded; everything it delivered before
        the break stays delivered.
        """
        self._chunks.lanes.clear()
        if self._verifier.run_active:
            raise ProtocolError(
                f"The stream ended while run '{self._verifier.run_id}' was still active: no RUN_FINISHED or "
                "RUN_ERROR arrived, so the run is truncated and has no outcome."
            )

    def reset_stream(self) -> None:
        """Begin a new stream (a new request): forget sequencing state, keep messages and state."""
        self._verifier = EventVerifier()
        self._chunks = _ChunkExpander()
        self._unicode = _SurrogateRepair(self._warn)
        self._thinking_span = self._thinking_message = None

    # -- what the pipeline built -------------------------------------------------------------

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The transcript as camelCase AG-UI message dicts (read-only: assign to replace it)."""
        return self._reducer.messages

    @messages.setter
    def messages(self, messages: Iterable[Mapping[str, Any]]) -> None:
        self._reducer.messages = messages

    @property
    def state(self) -> Any:
        """The shared state (any JSON value)."""
        return self._reducer.state

    @state.setter
    def state(self, value: Any) -> None:
        self._reducer.state = value

    @property
    def warnings(self) -> list[str]:
        """Every warning so far, in order."""
        return self._warn.texts

    @property
    def last_run_finished(self) -> RunFinishedEvent | None:
        """The RUN_FINISHED of the latest run, if it has one."""
        return self._last_finished

    @property
    def last_run_error(self) -> RunErrorEvent | None:
        """The RUN_ERROR of the latest run (or of the stream before any run), if any."""
        return self._last_error

    @property
    def run_active(self) -> bool:
        """True between a RUN_STARTED and the event that ends that run."""
        return self._verifier.run_active

    @property
    def changed_from(self) -> int | None:
        """The smallest message index added or changed since :meth:`reset_changes`."""
        return self._reducer.changed_from

    def reset_changes(self) -> None:
        """Start a new window for :attr:`changed_from`."""
        self._reducer.reset_changes()

    def open_events(self) -> list[BaseEvent]:
        """END events closing everything the current run left open, innermost first.

        For closing a stream (a stop, a failure): items still streaming as chunks are handed over
        to these ENDs, so consume them next."""
        self._chunks.release()
        return self._verifier.open_events()

    def error_closing(self, thread_id: str, run_id: str, message: str, code: str) -> list[BaseEvent]:
        """What ends a failed run cleanly: RUN_STARTED if none came, the open ENDs, RUN_ERROR."""
        closing: list[BaseEvent] = []
        if not self.run_active and self.last_run_finished is None and self._last_error is None:
            closing.append(RunStartedEvent(thread_id=thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION))
        if self.run_active:
            closing.extend(self.open_events())
        closing.append(RunErrorEvent(message=message, code=code))
        return closing

    def pending_tool_call_ids(self) -> list[str]:
        """Tool calls the latest run left for the client to answer.

        The success outcome's ``pendingToolCallIds`` when it names any; otherwise the calls the
        run started that got no TOOL_CALL_RESULT, in order. Empty after a RUN_ERROR and after an
        interrupt or cancelled outcome (an interrupt is answered through :meth:`interrupts`).
        """
        if self._last_error is not None:
            return []
        finished = self._last_finished
        outcome = finished.outcome if finished is not None else None
        if outcome is not None:
            if outcome.type != "success":
                return []
            if outcome.pending_tool_call_ids:
                return list(outcome.pending_tool_call_ids)
        return [call_id for call_id in self._run_tool_calls if call_id not in self._answered]

    def interrupts(self) -> list[Interrupt]:
        """The interrupts of the latest run's interrupt outcome (empty otherwise)."""
        finished = self._last_finished
        if finished is None or finished.outcome is None or finished.outcome.type != "interrupt":
            return []
        return list(finished.outcome.interrupts)

    # -- the request direction ---------------------------------------------------------------

    def outgoing_input(self, run_input: RunAgentInput | Mapping[str, Any]) -> RunAgentInput:
        """The ``RunAgentInput`` to send to this peer: shaped for its era, then enforced.

        Activity messages (display state no producer owns) are left out and a null attribution
        is omitted; a current peer is told ``protocolVersion``, a pinned older one is not. Legacy
        binary parts become media parts for everyone. For a peer at or below 0.0.57 attribution
        is removed; at or below 0.0.39 content is flattened to its text (saying which parts were
        lost). Undescribed material is stripped with a warning; a malformed field is fatal.
        """
        if isinstance(run_input, BaseModel):
            data: dict[str, Any] = run_input.model_dump(mode="json", by_alias=True)
        else:
            data = copy.deepcopy(dict(run_input))
        messages = [
            {k: v for k, v in message.items() if not (k == "subagentRunId" and v is None)}
            if isinstance(message, dict)
            else message
            for message in data.get("messages") or []
            if not (isinstance(message, dict) and message.get("role") == "activity")
        ]
        if self._declares_version:
            data["protocolVersion"] = PROTOCOL_VERSION
        else:
            data.pop("protocolVersion", None)
        if self._pre_subagent:
            messages = [_without_attribution(message) for message in messages]
        if self._flatten_content:
            data.pop("parentRunId", None)
            messages = [self._flatten(message) for message in messages]
        data["messages"] = [_upgrade_binary_parts(message, None) for message in messages]
        return _enforce(data, RunAgentInput, "RunAgentInput", self._warn, "from the outgoing input")

    def _flatten(self, message: Any) -> Any:
        """A 0.0.39 peer reads message content as a string: keep the text, report the rest."""
        if not isinstance(message, dict):
            return message
        content = message.get("content")
        if isinstance(content, list):
            claims_text = [isinstance(p, dict) and p.get("type") == "text" for p in content]
            if any(claim and not isinstance(p.get("text"), str) for claim, p in zip(claims_text, content, strict=False)):
                self._warn(
                    'Not flattening message content for a <=0.0.39 peer: a part claims type "text" but '
                    "carries a malformed 'text'; it is passed on for enforcement to report."
                )
                return message
            dropped = [
                str(p.get("type")) if isinstance(p, dict) else type(p).__name__
                for claim, p in zip(claims_text, content, strict=False)
                if not claim
            ]
            if dropped:
                self._warn(
                    f"Flattening message content for a <=0.0.39 peer DROPS non-text parts ({', '.join(dropped)}). "
                    "The peer cannot receive them."
                )
            return {**message, "content": "".join(p["text"] for claim, p in zip(claims_text, content, strict=False) if claim)}
        if "content" not in message:
            return {**message, "content": ""}
        return message

    # -- internals ---------------------------------------------------------------------------

    def _typed(self, event: BaseEvent) -> BaseEvent | None:
        """A typed event as the wire form would give it: flat events pass (a value that is not JSON
        given its JSON form), the rest re-parse; a value with no JSON form is a ProtocolError."""
        if type(event) in _FLAT_EVENT_CLASSES and not event.__pydantic_extra__ and not self._pre_subagent:
            return event
        if type(event) in VALUE_FIELDS and not event.__pydantic_extra__ and not self._pre_subagent:
            return plain_values(event)
        return self._parse(wire_form(event))

    def _parse(self, raw: Mapping[str, Any]) -> BaseEvent | None:
        type_name = raw.get("type")
        if type_name in _THINKING:
            raw = self._translate_thinking(raw)
            type_name = raw["type"]
        elif type_name == "MESSAGES_SNAPSHOT" and isinstance(raw.get("messages"), list):
            raw = {**raw, "messages": [_upgrade_binary_parts(m, self._warn) for m in raw["messages"]]}
        elif type_name == "RUN_STARTED" and isinstance(raw.get("input"), dict) and isinstance(raw["input"].get("messages"), list):
            run_input = raw["input"]
            raw = {
                **raw,
                "input": {**run_input, "messages": [_upgrade_binary_parts(m, self._warn) for m in run_input["messages"]]},
            }
        if self._pre_subagent:
            if type_name in _SUBAGENT_LIFECYCLE:
                self._warn(
                    f"AG-UI is dropping {type_name} because the target agent predates subagent support "
                    "(protocol 0.0.57 or older)."
                )
                return None
            raw = self._strip_attribution(raw)
        model = _EVENT_MODELS.get(type_name) if isinstance(type_name, str) else None
        if model is None:
            self._warn(f"Dropping unrecognised event '{type_name}': the protocol does not describe it.")
            return None
        return _enforce(raw, model, f"{type_name} event", self._warn, f"on {type_name}")

    def _translate_thinking(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Retired THINKING_* shapes become REASONING_* events (ids minted where none existed)."""
        old = raw["type"]
        new = _THINKING[old]
        self._warn(f"Converting deprecated {old} to {new}.")
        event = {k: v for k, v in raw.items() if k != "type"}
        event["type"] = new
        if old == "THINKING_START":
            title = event.pop("title", None)
            if title is not None:
                self._warn(f"Dropping {old}.title {json.dumps(title)}: {new} has no title field.")
            self._thinking_span = event["messageId"] = str(uuid.uuid4())
        elif old == "THINKING_TEXT_MESSAGE_START":
            self._thinking_message = event["messageId"] = str(uuid.uuid4())
            event["role"] = "reasoning"
        elif old == "THINKING_END":
            event["messageId"] = self._thinking_span or self._minted(old)
            self._thinking_span = None
        else:
            event["messageId"] = self._thinking_message or self._minted(old)
            if old == "THINKING_TEXT_MESSAGE_END":
                self._thinking_message = None
        return event

    def _minted(self, old: str) -> str:
        minted = str(uuid.uuid4())
        self._warn(f"Minting a messageId ('{minted}') for {old}: no THINKING opener preceded it.")
        return minted

    @staticmethod
    def _strip_attribution(raw: Mapping[str, Any]) -> dict[str, Any]:
        """Remove the subagent additions a pre-0.0.58 peer cannot have meant."""
        event: dict[str, Any] = _without_attribution(dict(raw))
        if isinstance(event.get("messages"), list):
            event["messages"] = [_without_attribution(m) for m in event["messages"]]
        run_input = event.get("input")
        if isinstance(run_input, dict) and isinstance(run_input.get("messages"), list):
            event["input"] = {**run_input, "messages": [_without_attribution(m) for m in run_input["messages"]]}
        outcome = event.get("outcome")
        if isinstance(outcome, dict) and isinstance(outcome.get("interrupts"), list):
            event["outcome"] = {**outcome, "interrupts": [_without_attribution(i) for i in outcome["interrupts"]]}
        return event

    def _note(self, event: Any) -> None:
        """Per-run bookkeeping for pending tool calls, interrupts and the run's end."""
        event_type = event.type
        if event_type == EventType.TOOL_CALL_START:
            self._run_tool_calls[event.tool_call_id] = None
        elif event_type == EventType.TOOL_CALL_RESULT:
            self._answered.add(event.tool_call_id)
        elif event_type == EventType.RUN_STARTED:
            self._run_tool_calls = {}
            self._answered = set()
            self._last_finished = None
            self._last_error = None
            self._check_declared_version(event.protocol_version)
        elif event_type == EventType.RUN_FINISHED:
            self._last_finished = event
        else:
            self._last_error = event

    def _check_declared_version(self, declared: str | None) -> None:
        """Older or absent is a quiet downgrade; newer or uninterpretable is served with a warning."""
        if declared is None or declared == PROTOCOL_VERSION:
            return
        if not _DECLARED_VERSION.fullmatch(declared):
            self._warn(f"The producer declared protocol version '{declared}', which this client cannot interpret; proceeding.")
        elif not _at_most(_version(declared), _version(PROTOCOL_VERSION)):
            self._warn(
                f"The producer speaks protocol {declared}; this client speaks {PROTOCOL_VERSION}. "
                "Unrecognised material will be stripped with warnings."
            )
