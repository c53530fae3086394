"""AG-UI messages as LangChain messages, and what a graph's checkpoint lacks of a transcript.

AG-UI message ids become LangChain message ids (and the ids of the messages a model or a tool
produces become AG-UI ids), so a transcript and a checkpoint can be compared message by message.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from ag_ui import core as agui
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic import BaseModel

from ...inputs._attachments import context_text
from ...vocabulary._content import CANCELLED_TOOL_RESULT, answer_dangling_calls

log = logging.getLogger("agui_widget")

CANCELLED_CALL = CANCELLED_TOOL_RESULT
"""What a tool call left without a result is answered with before a model sees it."""

Convertible = agui.UserMessage | agui.AssistantMessage | agui.ToolMessage | agui.SystemMessage | agui.DeveloperMessage
"""The AG-UI messages a model sees; reasoning and activity messages are the UI's own."""

LangChainContent = str | list[str | dict[str, Any]]
"""A string, or LangChain's standard content blocks."""


def to_langchain(messages: Sequence[agui.Message]) -> list[BaseMessage]:
    """The AG-UI transcript as LangChain messages, ids kept, every dangling tool call answered
    (:func:`answer_dangling`) so a model never sees one. Reasoning and activity messages are left out."""
    kept = answer_dangling([message for message in messages if isinstance(message, Convertible)])
    # A tool result names its tool, as a LangChain tool returns it (some providers want the name).
    names = {
        call.id: call.function.name
        for message in kept
        if isinstance(message, agui.AssistantMessage)
        for call in message.tool_calls or ()
    }
    return [_converted(message, names) for message in kept]


def answer_dangling(messages: Sequence[Convertible]) -> list[Convertible]:
    """``messages`` with every tool call that has no result answered as cancelled, right after the
    message that made it (the session's repair, :func:`~agui_widget.vocabulary._content.answer_dangling_calls`).

    The calls of the last turn are left alone: their results may still come. An answer's id is its
    call's id with ``-cancelled``, the same on every run, so a checkpoint that stored the answer
    matches the next run's transcript.
    """
    dumped = [message.model_dump(by_alias=True) for message in messages]
    originals = {id(data): message for data, message in zip(dumped, messages, strict=False)}
    repaired, first = answer_dangling_calls(dumped, lambda call_id: f"{call_id}-cancelled", open_turn=True)
    if first is None:
        return list(messages)
    return [originals.get(id(data)) or agui.ToolMessage.model_validate(data) for data in repaired]


def _converted(message: Convertible, tool_names: dict[str, str]) -> BaseMessage:
    if isinstance(message, agui.UserMessage):
        return HumanMessage(content=_langchain_content(message.content), id=message.id, name=message.name)
    if isinstance(message, agui.AssistantMessage):
        calls = [
            {"id": call.id, "name": call.function.name, "args": _parse_args(call.function.arguments), "type": "tool_call"}
            for call in message.tool_calls or ()
        ]
        return AIMessage(content=message.content or "", id=message.id, name=message.name, tool_calls=calls)
    if isinstance(message, agui.ToolMessage):
        return ToolMessage(
            content=_langchain_content(message.content),
            tool_call_id=message.tool_call_id,
            name=tool_names.get(message.tool_call_id),
            id=message.id,
            status="error" if message.error else "success",
        )
    if isinstance(message, agui.SystemMessage):
        return SystemMessage(content=message.content, id=message.id, name=message.name)
    return SystemMessage(content=message.content, id=message.id, additional_kwargs={"__openai_role__": "developer"})


def _parse_args(text: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        log.warning("agui-widget: tool call arguments are not JSON; the model sees them as {'input': ...}")
        return {"input": text}
    return value if isinstance(value, dict) else {"input": value}


def _langchain_content(content: str | Sequence[BaseModel | dict[str, Any]] | None) -> LangChainContent:
    """AG-UI content (a string or parts) as LangChain content (a string, or standard blocks when
    there is more than text)."""
    if isinstance(content, str):
        return content
    blocks: list[dict[str, Any]] = []
    for part in content or ():
        data = part.model_dump(mode="json", by_alias=True) if isinstance(part, BaseModel) else dict(part)
        kind = data.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": data.get("text", "")})
            continue
        context = context_text(data)
        if context is not None:  # an `@` mention's summary: text the model reads, not a file
            blocks.append({"type": "text", "text": f"\n\n{context}"})
            continue
        source = data.get("source") or {}
        mime = source.get("mimeType") or data.get("mimeType")
        if kind == "binary":  # the deprecated shape
            source = {"type": "url", "value": data["url"]} if data.get("url") else {"type": "data", "value": data.get("data")}
        block_type = kind if kind in ("image", "audio", "video") else "file"
        if source.get("type") == "url":
            block: dict[str, Any] = {"type": block_type, "url": source.get("value")}
        elif source.get("type") == "data":
            block = {"type": block_type, "base64": source.get("value")}
        else:
            block = {"type": "text", "text": json.dumps(data)}
        if mime and block["type"] != "text":
            block["mime_type"] = mime
        metadata = data.get("metadata")
        filename = metadata.get("filename") if isinstance(metadata, dict) else data.get("filename")
        if isinstance(filename, str) and filename and block["type"] != "text":
            block["extras"] = {"filename": filename}  # where LangChain's provider formats read a file's name
        blocks.append(block)
    if all(block.get("type") == "text" for block in blocks):
        return "".join(block["text"] for block in blocks)
    return list(blocks)  # as LangChain's content list, which may also hold strings


def new_messages_for(checkpoint: Sequence[BaseMessage], transcript: Sequence[BaseMessage]) -> list[BaseMessage]:
    """What to send to a graph whose checkpoint already holds ``checkpoint``.

    Normally the transcript continues the checkpoint and only the new messages go. When they
    differ (an edit, a regenerate, a cleared chat), the messages the transcript no longer has are
    removed by id, changed user messages replaced, and the missing ones added. System messages
    are compared by id only, so one a graph keeps in its state is left alone.
    """
    if not checkpoint:
        return list(transcript)
    stored_ids = {m.id for m in checkpoint}
    seen = [m for m in checkpoint if not isinstance(m, SystemMessage)]
    body = [m for m in transcript if not isinstance(m, SystemMessage)]
    update: list[BaseMessage] = [m for m in transcript if isinstance(m, SystemMessage) and m.id not in stored_ids]
    if [m.id for m in body[: len(seen)]] == [m.id for m in seen]:
        update += [m for m, old in zip(body, seen, strict=False) if _edited(m, old)]
        return update + body[len(seen) :]
    present = {m.id for m in body}
    known = {m.id: m for m in seen}
    update = [RemoveMessage(id=m.id) for m in seen if m.id not in present] + update  # type: ignore[arg-type]
    for message in body:
        old = known.get(message.id)
        if old is None or _edited(message, old):
            update.append(message)
    return update


def _edited(message: BaseMessage, old: BaseMessage) -> bool:
    return isinstance(message, HumanMessage) and message.content != old.content
