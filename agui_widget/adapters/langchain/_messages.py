"""AG-UI messages and tools as LangChain objects, and LangChain values as JSON.

AG-UI message ids become LangChain message ids (and the ids of the messages a model or a tool
produces become AG-UI ids), so a transcript and a checkpoint can be compared message by message.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import logging
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from ag_ui.core import Context, Message, Tool
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic import BaseModel

log = logging.getLogger("agui_widget")

CANCELLED_CALL = "Cancelled: this tool call got no result (the run was stopped)."


def to_langchain(messages: Sequence[Message], *, repair: bool = True) -> list[BaseMessage]:
    """The AG-UI transcript as LangChain messages, ids kept.

    Reasoning and activity messages are the UI's own and are left out. With ``repair``, a tool
    call that has no result gets one saying it was cancelled (with a stable id), so a model never
    sees a dangling call.
    """
    converted: list[BaseMessage] = []
    for message in messages:
        item = _one(message)
        if item is not None:
            converted.append(item)
    return repair_dangling_calls(converted) if repair else converted


def _one(message: Message) -> BaseMessage | None:
    role = message.role
    if role == "user":
        return HumanMessage(content=_user_content(message.content), id=message.id, name=message.name)  # type: ignore[union-attr]
    if role == "assistant":
        calls = []
        for call in message.tool_calls or ():  # type: ignore[union-attr]
            calls.append({"id": call.id, "name": call.function.name, "args": _parse_args(call.function.arguments), "type": "tool_call"})
        return AIMessage(content=message.content or "", id=message.id, name=message.name, tool_calls=calls)  # type: ignore[union-attr]
    if role == "tool":
        content = message.content  # type: ignore[union-attr]
        text = content if isinstance(content, str) else _user_content(content)
        return ToolMessage(
            content=text,
            tool_call_id=message.tool_call_id,  # type: ignore[union-attr]
            id=message.id,
            status="error" if message.error else "success",  # type: ignore[union-attr]
        )
    if role == "system":
        return SystemMessage(content=message.content, id=message.id, name=message.name)  # type: ignore[union-attr]
    if role == "developer":
        return SystemMessage(
            content=message.content,  # type: ignore[union-attr]
            id=message.id,
            additional_kwargs={"__openai_role__": "developer"},
        )
    return None  # reasoning, activity: the UI's own


def _parse_args(text: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        log.warning("agui-widget: tool call arguments are not JSON; the model sees them as {'input': ...}")
        return {"input": text}
    return value if isinstance(value, dict) else {"input": value}


def _user_content(content: Any) -> Any:
    """AG-UI user content (a string or parts) as LangChain content (a string or standard blocks)."""
    if isinstance(content, str):
        return content
    blocks: list[Any] = []
    for part in content or ():
        data = part.model_dump(mode="json", by_alias=True) if isinstance(part, BaseModel) else dict(part)
        kind = data.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": data.get("text", "")})
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
        blocks.append(block)
    if all(block.get("type") == "text" for block in blocks):
        return "".join(block["text"] for block in blocks)
    return blocks


def repair_dangling_calls(messages: list[BaseMessage]) -> list[BaseMessage]:
    """Give every tool call without a result a 'cancelled' result right after its message."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    repaired: list[BaseMessage] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        repaired.append(message)
        index += 1
        if isinstance(message, AIMessage) and message.tool_calls:
            while index < len(messages) and isinstance(messages[index], ToolMessage):
                repaired.append(messages[index])
                index += 1
            if index == len(messages):
                continue  # the last turn's calls may still be answered: leave them to the agent
            for call in message.tool_calls:
                if call.get("id") and call["id"] not in answered:
                    repaired.append(
                        ToolMessage(content=CANCELLED_CALL, tool_call_id=call["id"], id=f"{call['id']}-cancelled", status="error")
                    )
    return repaired


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
        update += [m for m, old in zip(body, seen) if _edited(m, old)]
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


def tool_specs(tools: Iterable[Tool], *, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
    """AG-UI tools as OpenAI-style function tools, which every LangChain ``bind_tools`` accepts."""
    skip = set(exclude)
    specs = []
    for tool in tools:
        if tool.name in skip:
            continue  # a tool of the agent's own has this name: it wins
        parameters = tool.parameters if isinstance(tool.parameters, dict) else {"type": "object", "properties": {}}
        specs.append(
            {"type": "function", "function": {"name": tool.name, "description": tool.description or "", "parameters": parameters}}
        )
    return specs


def spec_name(spec: Any) -> str | None:
    """The name of a tool in any of the shapes LangChain passes around."""
    if isinstance(spec, dict):
        function = spec.get("function")
        if isinstance(function, dict):
            return function.get("name")
        return spec.get("name")
    return getattr(spec, "name", None)


def context_text(context: Sequence[Context]) -> str:
    """The application's context entries as a paragraph for a system prompt."""
    lines = [f"- {item.description}: {item.value}" for item in context]
    return "Context from the application:\n" + "\n".join(lines)


def message_text(content: Any) -> str:
    """The text of LangChain message content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in ("text", "text_delta", "output_text"):
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return "" if content is None else str(content)


def json_safe(value: Any) -> Any:
    """A JSON value for anything a state may hold (pydantic models, dataclasses, messages, ...)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    if isinstance(value, BaseMessage):
        return {"type": value.type, "id": value.id, "content": json_safe(value.content)}
    if isinstance(value, BaseModel):
        return json_safe(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json_safe(dataclasses.asdict(value))
    if isinstance(value, enum.Enum):
        return json_safe(value.value)
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time, uuid.UUID)):
        return str(value) if isinstance(value, uuid.UUID) else value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)
