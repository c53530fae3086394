"""Lone UTF-16 surrogates: rejoining split pairs, replacing what never pairs, refusing requests.

A JavaScript producer slices strings by UTF-16 code units, so an emoji can arrive as two deltas,
each holding one half of a surrogate pair (JSON escapes ``\\ud83d`` then ``\\ude00``). In a
JavaScript client the halves simply concatenate; in Python they stay two lone surrogates, which
no UTF-8 encoder accepts (Jupyter's message packer and the SSE encoder raise on them). The event
pipeline rejoins them and replaces a half that never pairs with U+FFFD; requests holding one are
refused, since nothing downstream could carry them.
"""

from __future__ import annotations

from typing import Any

REPLACEMENT = "\ufffd"


def has_surrogate(text: str) -> bool:
    """True when ``text`` holds a surrogate code point (paired or not): it cannot be UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def is_high_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udbff"


def rejoin_pairs(text: str) -> str:
    """``text`` with each adjacent high+low surrogate pair turned into the code point it encodes."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def replace_lone(text: str) -> str:
    """``text`` with every surrogate left (one that encodes nothing) replaced by U+FFFD."""
    if not has_surrogate(text):
        return text
    return "".join(REPLACEMENT if "\ud800" <= char <= "\udfff" else char for char in text)


def scrub(value: Any) -> tuple[Any, bool]:
    """``value`` (JSON-like) with split pairs rejoined and lone surrogates replaced, in strings and
    keys alike; and whether anything changed. Unchanged containers are returned as they are."""
    if isinstance(value, str):
        if not has_surrogate(value):
            return value, False
        fixed = replace_lone(rejoin_pairs(value))
        return fixed, fixed != value
    if isinstance(value, dict):
        changed = False
        items: list[tuple[Any, Any]] = []
        for key, item in value.items():
            new_key, key_changed = scrub(key) if isinstance(key, str) else (key, False)
            new_item, item_changed = scrub(item)
            changed = changed or key_changed or item_changed
            items.append((new_key, new_item))
        return (dict(items), True) if changed else (value, False)
    if isinstance(value, (list, tuple)):
        results = [scrub(item) for item in value]
        if any(changed for _, changed in results):
            return [item for item, _ in results], True
        return value, False
    return value, False


def lone_surrogate_path(value: Any, path: str = "") -> str | None:
    """The JSON pointer of the first string (or key) holding a surrogate, or None when none does."""
    if isinstance(value, str):
        return path or "/" if has_surrogate(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            token = str(key).replace("~", "~0").replace("/", "~1")
            if isinstance(key, str) and has_surrogate(key):
                return f"{path}/{token}"
            found = lone_surrogate_path(item, f"{path}/{token}")
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = lone_surrogate_path(item, f"{path}/{index}")
            if found is not None:
                return found
    return None
