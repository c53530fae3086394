"""The model settings a run may take from ``RunAgentInput.forwardedProps``, checked: the five keys
the framework adapters read (``model``, ``temperature``, ``max_tokens``, ``top_p``, ``stop``).

A value of the wrong type is left out with a warning; ``None`` means not set (a turn's way to drop
a chat-wide setting). Each adapter decides where a setting goes in its framework.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Container, Mapping
from typing import Any

log = logging.getLogger("agui_widget")

MODEL_SETTINGS = ("model", "temperature", "max_tokens", "top_p", "stop")
"""Every forwarded prop the framework adapters read."""


def props_of(forwarded: object) -> dict[str, Any]:
    """``RunAgentInput.forwarded_props`` as a dict (AG-UI allows any JSON; only an object has keys)."""
    return dict(forwarded) if isinstance(forwarded, Mapping) else {}


def model_settings(forwarded: object, *, fixed: Container[str] = ()) -> dict[str, Any]:
    """The model settings among the forwarded props (any JSON; only an object has keys), checked;
    those named in ``fixed`` are left out."""
    props = props_of(forwarded)
    settings: dict[str, Any] = {}
    for key in MODEL_SETTINGS:
        value = props.get(key)
        if value is None or key in fixed:
            continue
        checked = _checked(key, value)
        if checked is None:
            log.warning("agui-widget: forwarded prop %s=%r is not %s; it is not used", key, value, _EXPECTED[key])
            continue
        settings[key] = checked
    return settings


_EXPECTED = {
    "model": "a non-empty string",
    "temperature": "a number of at least 0",
    "top_p": "a number of at least 0",
    "max_tokens": "a whole number of at least 1",
    "stop": "a string or a list of strings",
}


def _checked(key: str, value: Any) -> Any:
    """The value as the model takes it, or None when it is not one."""
    if key == "model":
        return value if isinstance(value, str) and value.strip() else None
    if key in ("temperature", "top_p"):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return value if number and math.isfinite(value) and value >= 0 else None
    if key == "max_tokens":
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None
    if key == "stop":
        if isinstance(value, str):
            return [value] if value else None
        if isinstance(value, (list, tuple)) and value and all(isinstance(item, str) and item for item in value):
            return list(value)
        return None
    return None  # pragma: no cover - every key of MODEL_SETTINGS is checked above
