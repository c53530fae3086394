"""The stream a pre-1.0 AG-UI client is served: each event in the shape its schema accepts.

A 1.0 client names its protocol in ``RunAgentInput.protocolVersion``; a 0.0.x one (such as
``@ag-ui/client`` 0.0.59, which CopilotKit 1.75 ships) sends none, and validates every event
against the last 0.0.x schema, which rejects some of what 1.0 added: its success outcome is strict
(no ``pendingToolCallIds``), it has no ``cancelled`` outcome, a tool result's or tool message's
content must be text, and a media part's source cannot be a ``file``. Rejecting one event ends the
client's run, so such a client gets each event down-converted here, one by one as it is encoded:
nothing is added, reordered or left out. A 1.0 client's stream is left exactly as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput

from ..vocabulary._content import content_text

Encode = Callable[[BaseEvent], str]
"""One event to the text of the response (an SSE ``data:`` line)."""

MEDIA_PARTS = frozenset({"image", "audio", "video", "document"})


def is_legacy_client(run_input: RunAgentInput) -> bool:
    """A client without ``protocolVersion`` (or one of 0.x) predates AG-UI 1.0."""
    version = run_input.protocol_version
    return version is None or version.strip().split(".")[0] == "0"


def wire_encoder(run_input: RunAgentInput, encode: Encode) -> Encode:
    """``encode`` for a 1.0 client; for a pre-1.0 one, an encoder of down-converted events."""
    return encode_legacy if is_legacy_client(run_input) else encode


def encode_legacy(event: BaseEvent) -> str:
    """The SSE line of ``event`` as a pre-1.0 client validates it (serialised by the event's own
    model first, so what it cannot encode fails the same way for every client)."""
    data = legacy_event(json.loads(event.model_dump_json(by_alias=True)))
    return f"data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"


def legacy_event(data: dict[str, Any]) -> dict[str, Any]:
    """One event (camelCase JSON) in the 0.0.x shape; events it already fits come back as they are."""
    kind = data.get("type")
    if kind == "RUN_STARTED":
        data.pop("protocolVersion", None)  # the stream is no longer 1.0 once converted
        if isinstance(data.get("input"), dict):
            data["input"] = _legacy_input(data["input"])
    elif kind == "RUN_FINISHED" and isinstance(data.get("outcome"), dict):
        _legacy_outcome(data)
    elif kind == "TOOL_CALL_RESULT" and isinstance(data.get("content"), list):
        data["content"] = parts_text(data["content"])
    elif kind == "MESSAGES_SNAPSHOT" and isinstance(data.get("messages"), list):
        data["messages"] = [legacy_message(message) for message in data["messages"]]
    return data


def _legacy_outcome(finished: dict[str, Any]) -> None:
    """0.0.x's success outcome is the strict ``{type}`` (the client finds the calls still
    unanswered itself), and it knows no ``cancelled`` outcome: that run simply finished. (The
    pipeline before the wire has already removed keys 1.0 does not describe.)"""
    outcome = finished["outcome"]
    if outcome.get("type") == "success":
        finished["outcome"] = {"type": "success"}
    elif outcome.get("type") != "interrupt":
        del finished["outcome"]


def _legacy_input(run_input: dict[str, Any]) -> dict[str, Any]:
    """A ``RunAgentInput`` echoed in RUN_STARTED: 0.0.x requires its tools and context lists."""
    converted = {k: v for k, v in run_input.items() if k != "protocolVersion"}
    converted.setdefault("tools", [])
    converted.setdefault("context", [])
    if isinstance(converted.get("messages"), list):
        converted["messages"] = [legacy_message(message) for message in converted["messages"]]
    return converted


def legacy_message(message: Any) -> Any:
    """A message in the 0.0.x shape: a tool message's content is text; a user message's media
    parts have a data or URL source (a file reference becomes a legacy binary part by id)."""
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return message
    if message.get("role") == "tool":
        return {**message, "content": parts_text(message["content"])}
    if message.get("role") == "user":
        return {**message, "content": [_legacy_part(part) for part in message["content"]]}
    return message


def parts_text(parts: list[Any]) -> str:
    """Content parts as one string: the text when they are all text, else the parts as JSON
    (a tool's media result reaches the client as data it can still read, not as nothing)."""
    if all(isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str) for part in parts):
        return content_text(parts)
    return json.dumps(parts, ensure_ascii=False, separators=(",", ":"))


def _legacy_part(part: Any) -> Any:
    """A media part whose source is a provider's file id, as the 0.0.x binary part by id."""
    if not isinstance(part, dict) or part.get("type") not in MEDIA_PARTS:
        return part
    source = part.get("source")
    if not isinstance(source, dict) or source.get("type") != "file":
        return part
    mime_type = source.get("mimeType")
    binary: dict[str, Any] = {
        "type": "binary",
        "mimeType": mime_type if isinstance(mime_type, str) else "application/octet-stream",
        "id": source.get("value"),
    }
    metadata = part.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("filename"), str):
        binary["filename"] = metadata["filename"]
    return binary
