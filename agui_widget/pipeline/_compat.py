"""Compatibility with older peers: retired shapes become their 1.0 forms, and what a pinned older
peer cannot read is taken out of what it is sent and of what it sends.

The always-on boundary: retired ``THINKING_*`` events become ``REASONING_*`` events, legacy
``binary`` content parts become media parts. The version-gated shims, for a peer pinned at an
older protocol: at or below 0.0.57 the subagent additions are removed, at or below 0.0.39
outgoing message content is flattened to text.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from ag_ui.core.version import PROTOCOL_VERSION

__all__ = [
    "SUBAGENT_LIFECYCLE",
    "THINKING",
    "ThinkingTranslator",
    "at_most",
    "check_declared_version",
    "flatten_content",
    "parse_version",
    "strip_attribution",
    "upgrade_binary_parts",
    "without_attribution",
]

THINKING = {
    "THINKING_START": "REASONING_START",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
    "THINKING_END": "REASONING_END",
}
SUBAGENT_LIFECYCLE = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})
_DECLARED_VERSION = re.compile(r"\d+\.\d+")


# =============================================================================================
# Retired THINKING_* events
# =============================================================================================


class ThinkingTranslator:
    """Retired THINKING_* shapes become REASONING_* events (ids minted where none existed).

    THINKING events carried no ids: the span and the message open now are remembered, for the
    events that continue and end them.
    """

    __slots__ = ("message", "span", "warn")

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.warn = warn
        self.span: str | None = None
        self.message: str | None = None

    def translate(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        old = raw["type"]
        new = THINKING[old]
        self.warn(f"Converting deprecated {old} to {new}.")
        event = {k: v for k, v in raw.items() if k != "type"}
        event["type"] = new
        if old == "THINKING_START":
            title = event.pop("title", None)
            if title is not None:
                self.warn(f"Dropping {old}.title {json.dumps(title)}: {new} has no title field.")
            self.span = event["messageId"] = str(uuid.uuid4())
        elif old == "THINKING_TEXT_MESSAGE_START":
            self.message = event["messageId"] = str(uuid.uuid4())
            event["role"] = "reasoning"
        elif old == "THINKING_END":
            event["messageId"] = self.span or self._minted(old)
            self.span = None
        else:
            event["messageId"] = self.message or self._minted(old)
            if old == "THINKING_TEXT_MESSAGE_END":
                self.message = None
        return event

    def _minted(self, old: str) -> str:
        minted = str(uuid.uuid4())
        self.warn(f"Minting a messageId ('{minted}') for {old}: no THINKING opener preceded it.")
        return minted


# =============================================================================================
# Legacy binary content parts
# =============================================================================================


def _media_kind(mime_type: str) -> str:
    for prefix in ("image", "audio", "video"):
        if mime_type.startswith(prefix + "/"):
            return prefix
    return "document"


def upgrade_binary_parts(message: Any, warn: Callable[[str], None] | None) -> Any:
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


# =============================================================================================
# The subagent additions (0.0.58), removed for an older peer
# =============================================================================================


def without_attribution(value: Any) -> Any:
    if isinstance(value, dict) and "subagentRunId" in value:
        return {k: v for k, v in value.items() if k != "subagentRunId"}
    return value


def strip_attribution(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Remove the subagent additions a pre-0.0.58 peer cannot have meant."""
    event: dict[str, Any] = without_attribution(dict(raw))
    if isinstance(event.get("messages"), list):
        event["messages"] = [without_attribution(m) for m in event["messages"]]
    run_input = event.get("input")
    if isinstance(run_input, dict) and isinstance(run_input.get("messages"), list):
        event["input"] = {**run_input, "messages": [without_attribution(m) for m in run_input["messages"]]}
    outcome = event.get("outcome")
    if isinstance(outcome, dict) and isinstance(outcome.get("interrupts"), list):
        event["outcome"] = {**outcome, "interrupts": [without_attribution(i) for i in outcome["interrupts"]]}
    return event


# =============================================================================================
# Protocol versions
# =============================================================================================


def parse_version(text: str) -> tuple[int, ...]:
    if not isinstance(text, str) or not re.fullmatch(r"\d+(\.\d+)*", text):
        raise ValueError(f"max_protocol_version {text!r} is not a version this client can compare (e.g. '0.0.57')")
    return tuple(int(part) for part in text.split("."))


def at_most(version: tuple[int, ...], limit: tuple[int, ...]) -> bool:
    """``version <= limit``, reading missing trailing components as 0."""
    width = max(len(version), len(limit))
    return version + (0,) * (width - len(version)) <= limit + (0,) * (width - len(limit))


def check_declared_version(declared: str | None, warn: Callable[[str], None]) -> None:
    """The protocol version a producer declared: older or absent is a quiet downgrade; newer or
    uninterpretable is served with a warning."""
    if declared is None or declared == PROTOCOL_VERSION:
        return
    if not _DECLARED_VERSION.fullmatch(declared):
        warn(f"The producer declared protocol version '{declared}', which this client cannot interpret; proceeding.")
    elif not at_most(parse_version(declared), parse_version(PROTOCOL_VERSION)):
        warn(
            f"The producer speaks protocol {declared}; this client speaks {PROTOCOL_VERSION}. "
            "Unrecognised material will be stripped with warnings."
        )


# =============================================================================================
# Message content for a 0.0.39 peer
# =============================================================================================


def flatten_content(message: Any, warn: Callable[[str], None]) -> Any:
    """A 0.0.39 peer reads message content as a string: keep the text, report the rest."""
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if isinstance(content, list):
        claims_text = [isinstance(p, dict) and p.get("type") == "text" for p in content]
        if any(claim and not isinstance(p.get("text"), str) for claim, p in zip(claims_text, content, strict=False)):
            warn(
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
            warn(
                f"Flattening message content for a <=0.0.39 peer DROPS non-text parts ({', '.join(dropped)}). "
                "The peer cannot receive them."
            )
        return {**message, "content": "".join(p["text"] for claim, p in zip(claims_text, content, strict=False) if claim)}
    if "content" not in message:
        return {**message, "content": ""}
    return message
