"""JSON Patch (RFC 6902) for the shared state, at the cost of what changed rather than of the state.

A state may be megabytes while a change is one key. Two operations, both linear in the change:

- :func:`diff` says what changed between two states. A subtree that is the same object in both is
  skipped at once, and an equal one after one C-level ``==``; only a subtree that differs is
  walked. So a one-key change costs a pass over the top-level keys and a comparison of the rest
  in C.
- :func:`apply_patch` applies a patch without touching the document: only the containers on each
  operation's path are copied (shallowly), the rest is shared with the old document. A one-key
  change in a 1 MB state copies one dict of pointers, not the megabyte.

Sharing is safe because nothing in the kernel changes a state in place: the reducer, the session
and the widget only ever replace a container by a changed copy. :func:`json_copy` copies what comes
from outside (a user's value, a view's patch) so that the caller changing it later in place cannot
reach the shared state.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import jsonpointer

__all__ = ["PATCH_ERRORS", "apply_patch", "diff", "json_copy", "mirror"]

PATCH_ERRORS = (
    jsonpatch.JsonPatchException,
    jsonpointer.JsonPointerException,
    KeyError,
    IndexError,
    TypeError,
    ValueError,
)
"""What applying a patch that does not fit its document raises."""

LIST_EDIT_LIMIT = 16
"""A list whose changed middle needs more operations than this is replaced whole (one op)."""


def diff(old: Any, new: Any) -> list[dict[str, Any]]:
    """The RFC 6902 operations that turn ``old`` into ``new`` (their values are ``new``'s own
    objects: copy them before keeping them elsewhere)."""
    operations: list[dict[str, Any]] = []
    _diff(old, new, "", operations)
    return operations


def _same(old: Any, new: Any) -> bool:
    """Equal as JSON values, as far as one C-level ``==`` can tell.

    A leaf that turns from ``1`` into ``True`` or ``1.0`` is a change (the types differ); inside
    containers that compare equal such a flip goes unseen, as Python's ``==`` has ``True == 1 ==
    1.0`` (a full typed walk would cost what this module exists to avoid).
    """
    if old is new:
        return True
    if type(old) is not type(new):
        return False
    return bool(old == new)


def _diff(old: Any, new: Any, path: str, operations: list[dict[str, Any]]) -> None:
    if old is new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                operations.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, value in new.items():
            if key not in old:
                operations.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})
            else:
                before = old[key]
                if not _same(before, value):
                    _diff(before, value, f"{path}/{_escape(key)}", operations)
        return
    if isinstance(old, list) and isinstance(new, list):
        _diff_list(old, new, path, operations)
        return
    if not _same(old, new):
        operations.append({"op": "replace", "path": path, "value": new})


def _diff_list(old: list[Any], new: list[Any], path: str, operations: list[dict[str, Any]]) -> None:
    """Common head and tail kept; the middle as per-index changes, removals and insertions when
    that is short, else the whole list replaced."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and (old[head] is new[head] or _same(old[head], new[head])):
        head += 1
    tail = 0
    while tail < limit - head and (old[-1 - tail] is new[-1 - tail] or _same(old[-1 - tail], new[-1 - tail])):
        tail += 1
    old_middle = old[head : len(old) - tail]
    new_middle = new[head : len(new) - tail]
    if not old_middle and not new_middle:
        return
    changed = min(len(old_middle), len(new_middle))
    if max(len(old_middle), len(new_middle)) > LIST_EDIT_LIMIT:
        operations.append({"op": "replace", "path": path, "value": new})
        return
    for offset in range(changed):
        _diff(old_middle[offset], new_middle[offset], f"{path}/{head + offset}", operations)
    for index in range(len(old_middle) - 1, changed - 1, -1):  # from the end, so indexes stay put
        operations.append({"op": "remove", "path": f"{path}/{head + index}"})
    for index in range(changed, len(new_middle)):
        operations.append({"op": "add", "path": f"{path}/{head + index}", "value": new_middle[index]})


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1") if ("~" in key or "/" in key) else key


def json_copy(value: Any) -> Any:
    """A copy of a JSON value whose containers are all new (strings and numbers are shared: they
    cannot change). Faster than ``copy.deepcopy``, which keeps a memo for cycles JSON cannot have."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    return value


_ABSENT = object()


def mirror(new: Any, old: Any, old_copy: Any) -> Any:
    """A private copy of ``new``, given that ``old_copy`` is a private copy of ``old``.

    ``new`` came from ``old`` by copy on write (:func:`apply_patch`), so a subtree of ``new``
    that is the very object it was in ``old`` is unchanged, and its copy in ``old_copy`` is reused;
    only the containers that were replaced are copied again. A change of any other kind (a
    snapshot, say) shares nothing by identity and is copied whole, as :func:`json_copy` would.
    Where ``old_copy`` no longer has the shape of ``old`` (changed in place by its owner), the
    part that does not fit is copied from ``new``.
    """
    if new is old and _fits(new, old_copy):
        return old_copy
    if isinstance(new, dict):
        if not (isinstance(old, dict) and isinstance(old_copy, dict)):
            return json_copy(new)
        copied: dict[str, Any] = {}
        for key, value in new.items():
            before = old.get(key, _ABSENT)
            if value is before and not isinstance(value, (dict, list)):
                copied[key] = value  # an unchanged leaf (the common case, inlined: states are wide)
            else:
                copied[key] = mirror(value, before, old_copy.get(key, _ABSENT))
        return copied
    if isinstance(new, list):
        if not (isinstance(old, list) and isinstance(old_copy, list)):
            return json_copy(new)
        return [
            mirror(value, old[index] if index < len(old) else _ABSENT, old_copy[index] if index < len(old_copy) else _ABSENT)
            for index, value in enumerate(new)
        ]
    return new


def _fits(value: Any, copied: Any) -> bool:
    """Whether ``copied`` can stand for ``value``: a container of the same kind and size, or the
    same leaf."""
    if isinstance(value, (dict, list)):
        return type(copied) is type(value) and len(copied) == len(value)
    return copied is value or (type(copied) is type(value) and copied == value)


def apply_patch(document: Any, operations: list[dict[str, Any]]) -> Any:
    """Apply an RFC 6902 patch without touching ``document``: all or nothing, copy on write.

    Only the containers on each operation's paths are copied (shallowly), so a one-key change in
    a large state costs about the size of the containers it passes through, not a deep copy of
    everything. The operations' values are taken as they are (copy them first if their owner may
    change them). Raises when any operation fails; ``document`` is then unchanged.
    """
    copied: set[int] = set()
    root = _shallow(document, copied)
    for operation in operations:
        for field in ("path", "from"):
            pointer = operation.get(field)
            if isinstance(pointer, str) and pointer:
                root = _copy_along(root, pointer, copied)
        root = jsonpatch.JsonPatch([operation]).apply(root, in_place=True)
        if isinstance(root, (dict, list)):
            copied.add(id(root))
    return root


def _shallow(value: Any, copied: set[int]) -> Any:
    if isinstance(value, dict):
        value = dict(value)
    elif isinstance(value, list):
        value = list(value)
    else:
        return value
    copied.add(id(value))
    return value


def _copy_along(root: Any, pointer: str, copied: set[int]) -> Any:
    """Replace each container on ``pointer``'s way (not its target) by a private shallow copy."""
    try:
        tokens = jsonpointer.JsonPointer(pointer).parts
    except jsonpointer.JsonPointerException:
        return root
    node = root
    for token in tokens[:-1]:
        if isinstance(node, dict):
            key: Any = token
            if key not in node:
                return root
        elif isinstance(node, list):
            if not token.isdigit() or int(token) >= len(node):
                return root
            key = int(token)
        else:
            return root
        child = node[key]
        if isinstance(child, (dict, list)) and id(child) not in copied:
            child = _shallow(child, copied)
            node[key] = child
        node = child
    return root
