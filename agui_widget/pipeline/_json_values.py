"""Values an event carries as "any JSON", in the JSON form the wire would give them.

An agent run in the kernel hands its events over as Python objects, and a field the protocol
types as any JSON value (a state snapshot, a patch operation's value, a CUSTOM value, activity
content, a tool result) may hold whatever its framework keeps there: LangChain messages,
dataclasses, datetimes. Sent over HTTP, the encoder (pydantic) turns them into JSON; in process
nothing would, and ``chat.state``, the transcript and a thread store would hold objects ``json``
cannot write. So the pipeline gives such values pydantic's JSON form here, as the wire would,
and refuses one pydantic cannot serialise with a :class:`ProtocolError` naming where it is,
before anything of the event is applied. Plain JSON, the usual case, is recognised by a quick
walk and passed on untouched.

``rawEvent`` (and a RAW event's ``event``) stay in the kernel and are never sent, so they are not
held to this; neither are undescribed fields, which the pipeline strips next.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ag_ui.core import ActivitySnapshotEvent, BaseEvent, CustomEvent, StateSnapshotEvent
from pydantic_core import PydanticSerializationError, to_jsonable_python

from ..vocabulary._errors import ProtocolError

__all__ = ["VALUE_FIELDS", "is_plain", "plain_values", "wire_form"]

VALUE_FIELDS: dict[type[BaseEvent], str] = {
    StateSnapshotEvent: "snapshot",
    CustomEvent: "value",
    ActivitySnapshotEvent: "content",
}
"""The events the pipeline otherwise passes on as they are whose field holds any JSON, and that
field (its wire name is the same). Every other event with such a field is re-read from
:func:`wire_form`."""

_MARK = "\x00agui-widget: not JSON-serialisable #"
_FAILURES = (ValueError, RecursionError)  # PydanticSerializationError is a ValueError


def is_plain(value: Any) -> bool:
    """True when ``value`` is JSON already: str/int/float/bool/None, lists, str-keyed dicts (exact
    types, so a model, a tuple or a subclass takes pydantic's form). A walk, no copy."""
    kind = type(value)
    try:
        if kind is dict:
            for key, item in value.items():
                if type(key) is not str:
                    return False
                item_kind = type(item)
                if item_kind is str or item_kind is int or item_kind is float or item_kind is bool or item is None:
                    continue
                if not is_plain(item):
                    return False
            return True
        if kind is list:
            for item in value:
                item_kind = type(item)
                if item_kind is str or item_kind is int or item_kind is float or item_kind is bool or item is None:
                    continue
                if not is_plain(item):
                    return False
            return True
    except RecursionError:  # nested too deep, or holding itself: pydantic tells which
        return False
    return kind is str or kind is int or kind is float or kind is bool or value is None


def _is_numpy(value: Any) -> bool:
    """A numpy scalar or array: a notebook's everyday values, taken as the Python values they
    hold (``tolist()``), though pydantic has no JSON form for them."""
    return type(value).__module__ == "numpy" and hasattr(value, "tolist")


def _numpy(value: Any) -> Any:
    """pydantic's fallback: numpy values taken, anything else it cannot serialise refused."""
    if _is_numpy(value):
        return value.tolist()
    raise PydanticSerializationError(f"Unable to serialize unknown type: {type(value)}")


def plain_values(event: BaseEvent) -> BaseEvent:
    """``event`` (one of :data:`VALUE_FIELDS`) with its value in JSON form: the same event when it
    is plain JSON, a copy holding pydantic's JSON form of it otherwise."""
    name = VALUE_FIELDS[type(event)]
    value = getattr(event, name)
    if is_plain(value):
        return event
    try:
        converted = to_jsonable_python(value, by_alias=True, fallback=_numpy)
    except _FAILURES as exc:
        raise _refused(event, lambda mark: {name: to_jsonable_python(value, by_alias=True, fallback=mark)}, exc) from None
    return event.model_copy(update={name: converted})


def wire_form(event: BaseEvent) -> dict[str, Any]:
    """``event`` as the JSON the wire carries (camelCase), to be read back as a peer's would be.

    A value pydantic cannot serialise is refused, except in ``rawEvent`` and undescribed fields,
    which keep their ``repr`` as before (the one stays in the kernel, the others are stripped)."""
    extra = event.__pydantic_extra__
    loose = {"raw_event", *extra} if extra else {"raw_event"}
    try:
        data: dict[str, Any] = event.model_dump(mode="json", by_alias=True, exclude=loose, fallback=_numpy)
    except _FAILURES as exc:
        raise _refused(
            event, lambda mark: event.model_dump(mode="json", by_alias=True, exclude=loose, fallback=mark), exc
        ) from None
    if extra or event.raw_event is not None:
        data.update(event.model_dump(mode="json", by_alias=True, include=loose, fallback=repr))
    return data


def _refused(event: BaseEvent, dump: Callable[[Callable[[Any], Any]], Any], error: BaseException) -> ProtocolError:
    """The error naming the first value pydantic could not serialise: ``dump`` is run again with
    each such value marked, and the first mark found is where it is, as a JSON pointer."""
    kinds: list[str] = []

    def mark(value: Any) -> Any:
        if _is_numpy(value):
            return value.tolist()
        kinds.append(type(value).__name__)
        return f"{_MARK}{len(kinds) - 1}"

    where = None
    with contextlib.suppress(*_FAILURES):
        where = _first_mark(dump(mark), "")
    label = event.type.value
    if where is None:  # not an unknown type: a reference cycle, too deep, a serialiser that failed
        return ProtocolError(f"{label}: a value is not JSON-serialisable ({error}).")
    pointer, index = where
    return ProtocolError(
        f"{label} at {pointer}: object of type {kinds[index]} is not JSON-serialisable. Values in an event "
        "must be JSON, or something pydantic can serialise (a model, a dataclass, a datetime...)."
    )


def _first_mark(data: Any, path: str) -> tuple[str, int] | None:
    """Where the first marked value is in ``data`` (pydantic's JSON form), and which it is."""
    if isinstance(data, str):
        return (path or "/", int(data[len(_MARK) :])) if data.startswith(_MARK) else None
    if isinstance(data, dict):
        for key, item in data.items():
            if key.startswith(_MARK):  # the key itself: the object holding it is named
                return path or "/", int(key[len(_MARK) :])
            found = _first_mark(item, f"{path}/{key.replace('~', '~0').replace('/', '~1')}")
            if found is not None:
                return found
    elif isinstance(data, list):
        for index, item in enumerate(data):
            found = _first_mark(item, f"{path}/{index}")
            if found is not None:
                return found
    return None
