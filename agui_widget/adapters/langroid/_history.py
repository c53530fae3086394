"""The AG-UI transcript as the Langroid message history a model call sends (imports Langroid).

Every model call of a run rebuilds the history from the transcript, so what the model sees is what
the chat shows: a follow-up run after a frontend tool sees the tool's real result, an edited or
regenerated turn starts from the edited transcript, and nothing is sent twice. The rebuild also
repairs what a stopped or failed run can leave behind (a tool call without a result, a user message
without an answer) so providers that insist on well-formed histories accept it.

Tool calls are rendered the way the agent's mode expects them: OpenAI ``tool_calls`` and ``tool``
messages (tools API), ``function_call`` and ``function`` messages (functions API), or, in Langroid's
JSON-tool mode, the tool JSON in the assistant's text and the results in a user message.

Two things the transcript keeps for the model beyond the visible text: an assistant message whose
model wrote its reasoning inline (``<think>...</think>``) carries the text as the model wrote it
(``metadata.langroid.contentWithReasoning``, Langroid's ``content_with_reasoning``), and that is what
the model gets back; and messages a sub-task's agents wrote (``subagentRunId``) are not the main
agent's own: each sub-task invocation reaches the main agent as Langroid hands it over, its result
as a user message (or as the result of the tool call it answered, already in the transcript).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ag_ui.core import RunAgentInput
from langroid.language_models.base import (
    LLMFunctionCall,
    LLMMessage,
    OpenAIToolCall,
    Role,
)
from langroid.parsing.file_attachment import FileAttachment

from ...inputs._attachments import context_text
from ...vocabulary._content import content_text

Mode = Literal["tools", "functions", "json"]

UNANSWERED_CALL = "(no result: this tool call was never answered)"
UNANSWERED_TURN = "(no answer: this turn was stopped or failed before the assistant replied)"
DONE_SIGNAL = "DONE"


def tool_mode(agent: Any) -> Mode:
    """How the agent's model calls tools: OpenAI tools API, functions API, or Langroid JSON tools."""
    if agent.config.use_functions_api:
        return "tools" if agent.config.use_tools_api else "functions"
    return "json"


def transcript_of(input: RunAgentInput) -> list[dict[str, Any]]:
    """The run's transcript as the camelCase dicts :func:`to_llm_messages` reads."""
    return [message.model_dump(mode="json", by_alias=True) for message in input.messages]


def text_of(message: Mapping[str, Any]) -> str:
    """A message's text for the model: its text as the chat reads it (``content_text``), except
    that a message of several parts keeps one line per part and names the attachments it cannot
    send as files (a user message sends them: :func:`files_of`), so the model knows there was one."""
    content = message.get("content")
    if not isinstance(content, list):
        return content_text(content)
    parts = [
        content_text([part]) if part.get("type") == "text" else context_text(part) or _attachment_note(part)
        for part in content
        if isinstance(part, Mapping)
    ]
    return "\n".join(part for part in parts if part)


def files_of(message: Mapping[str, Any]) -> list[FileAttachment]:
    """A user message's attachments (AG-UI media parts) as Langroid's file attachments, which its
    OpenAI-compatible client sends as image and file content (a model that reads them gets them)."""
    content = message.get("content")
    files: list[FileAttachment] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, Mapping) or part.get("type") == "text" or context_text(part) is not None:
            continue  # context goes in the text (text_of)
        source = part.get("source")
        if not isinstance(source, Mapping) or source.get("type") not in ("data", "url"):
            continue
        metadata = part.get("metadata")
        filename = metadata.get("filename") if isinstance(metadata, Mapping) else None
        mime = source.get("mimeType") or None
        if source["type"] == "url":
            files.append(FileAttachment(content=b"", url=source.get("value"), filename=filename, mime_type=mime))
            continue
        try:
            data = base64.b64decode(str(source.get("value") or ""), validate=True)
        except (binascii.Error, ValueError):
            continue
        files.append(FileAttachment(content=data, filename=filename or f"attachment.{part.get('type')}", mime_type=mime))
    return files


def _attachment_note(part: Mapping[str, Any]) -> str:
    kind = part.get("mimeType") or part.get("type") or "file"
    return f"[{kind} attachment]"


def parse_args(arguments: Any) -> dict[str, Any]:
    """Tool-call arguments (JSON text in AG-UI) as the dict Langroid keeps."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not arguments:
        return {}
    try:
        value = json.loads(arguments)
    except (TypeError, ValueError):
        return {"arguments": arguments}
    return value if isinstance(value, dict) else {"arguments": value}


def json_tool_text(name: str, args: Mapping[str, Any]) -> str:
    """A tool call as Langroid's JSON-tool mode writes it."""
    return json.dumps({"request": name, **args}, ensure_ascii=False)


def to_llm_messages(
    messages: Sequence[Mapping[str, Any]],
    mode: Mode,
    write_call: Callable[[str, dict[str, Any]], str] = json_tool_text,
) -> list[LLMMessage]:
    """The transcript (AG-UI messages as camelCase dicts) as Langroid ``LLMMessage``s, repaired.

    ``write_call(name, args)`` writes a tool call into the text in JSON-tool mode.
    """
    results = _tool_results(messages)
    out: list[LLMMessage] = []
    last: str | None = None  # the last conversational role, to spot unanswered user turns
    answered_calls = False  # whether the main agent's last message was tool calls, all answered
    for message in _main_agent_view(messages):
        role = message.get("role")
        if role == _SUBTASK_RESULT:
            if answered_calls:
                continue  # it answered a tool call: that call's result carries it
            if last == "user":
                out.append(LLMMessage(role=Role.ASSISTANT, content=UNANSWERED_TURN))
            out.append(LLMMessage(role=Role.USER, content=text_of(message)))
            last = "subtask"  # the user may speak next (an interactive task asks them): not a gap
        elif role == "user":
            if last == "user":
                out.append(LLMMessage(role=Role.ASSISTANT, content=UNANSWERED_TURN))
            files = files_of(message)
            text = content_text(message.get("content")) if files else text_of(message)
            out.append(LLMMessage(role=Role.USER, content=text, files=files))
            last = "user"
            answered_calls = False
        elif role in ("system", "developer"):
            text = text_of(message)
            if text:
                out.append(LLMMessage(role=Role.SYSTEM, content=text))
        elif role == "assistant":
            text = _assistant_text(message)
            calls = _calls_of(message)
            answered_calls = all(call_id in results for call_id, _, _ in calls) if calls else False
            if not calls:
                if text:
                    out.append(LLMMessage(role=Role.ASSISTANT, content=text))
                    last = "assistant"
                continue
            answers = [results.get(call_id, UNANSWERED_CALL) for call_id, _, _ in calls]
            out.extend(_render_calls(mode, text, calls, answers, write_call))
            last = "user" if mode == "json" else "tool"  # JSON mode sends results as a user message
        # Tool messages travel with their call above; one without a call is dropped.
    return out


_SUBTASK_RESULT = "subtask-result"


def _tool_results(messages: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The text of each tool call's result, by call id (a call answered twice keeps its first)."""
    results: dict[str, str] = {}
    for message in messages:
        if message.get("role") == "tool":
            call_id = message.get("toolCallId")
            if isinstance(call_id, str) and call_id not in results:
                results[call_id] = text_of(message)
    return results


def _assistant_text(message: Mapping[str, Any]) -> str:
    """An assistant message's text, as its model wrote it when it wrote its reasoning inline."""
    text = text_of(message)
    with_reasoning = _content_with_reasoning(message)
    if with_reasoning is not None and text and with_reasoning.endswith(text.strip()):
        return with_reasoning
    return text


def _calls_of(message: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """An assistant message's tool calls as (id, name, arguments), leaving out any without an id or a name."""
    calls = [
        (
            str(call.get("id") or ""),
            str((call.get("function") or {}).get("name") or ""),
            parse_args((call.get("function") or {}).get("arguments")),
        )
        for call in message.get("toolCalls") or ()
        if isinstance(call, Mapping)
    ]
    return [c for c in calls if c[0] and c[1]]


def _main_agent_view(messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The transcript as the main agent saw it: each sub-task invocation (the messages tagged with
    its ``subagentRunId``, nested invocations included) folded into one message holding its result,
    its last text (Langroid drops a ``DONE`` signal from a task's result)."""
    view: list[Mapping[str, Any]] = []
    group: str | None = None
    for message in messages:
        owner = message.get("subagentRunId")
        if not isinstance(owner, str) or not owner:
            view.append(message)
            group = None
            continue
        top = owner.split("/")[0]
        if top != group:
            group = top
            view.append({"role": _SUBTASK_RESULT, "content": ""})
        if owner == top and message.get("role") == "assistant":
            text = text_of(message).replace(DONE_SIGNAL, "").strip(" :\n")
            if text:
                view[-1] = {"role": _SUBTASK_RESULT, "content": text}
    return [m for m in view if m.get("role") != _SUBTASK_RESULT or m.get("content")]


def reasoning_metadata(content_with_reasoning: str) -> dict[str, Any]:
    """The assistant message's metadata that keeps its text as the model wrote it, reasoning
    inline (read back by ``to_llm_messages``)."""
    return {"langroid": {"contentWithReasoning": content_with_reasoning}}


def _content_with_reasoning(message: Mapping[str, Any]) -> str | None:
    metadata = message.get("metadata")
    langroid = metadata.get("langroid") if isinstance(metadata, Mapping) else None
    value = langroid.get("contentWithReasoning") if isinstance(langroid, Mapping) else None
    return value if isinstance(value, str) and value else None


def _render_calls(
    mode: Mode,
    text: str,
    calls: list[tuple[str, str, dict[str, Any]]],
    answers: list[str],
    write_call: Callable[[str, dict[str, Any]], str],
) -> list[LLMMessage]:
    if mode == "tools":
        assistant = LLMMessage(
            role=Role.ASSISTANT,
            content=text or None,
            tool_calls=[
                OpenAIToolCall(id=call_id, function=LLMFunctionCall(name=name, arguments=args)) for call_id, name, args in calls
            ],
        )
        return [assistant] + [
            LLMMessage(role=Role.TOOL, tool_call_id=call_id, content=answer)
            for (call_id, _, _), answer in zip(calls, answers, strict=False)
        ]
    if mode == "functions":
        rendered: list[LLMMessage] = []
        for index, ((_, name, args), answer) in enumerate(zip(calls, answers, strict=False)):
            rendered.append(
                LLMMessage(
                    role=Role.ASSISTANT,
                    content=(text or None) if index == 0 else None,
                    function_call=LLMFunctionCall(name=name, arguments=args),
                )
            )
            rendered.append(LLMMessage(role=Role.FUNCTION, name=name, content=answer))
        return rendered
    calls_text = "\n\n".join(write_call(name, args) for _, name, args in calls)
    content = f"{text}\n\n{calls_text}" if text else calls_text
    if len(calls) == 1:
        results = answers[0]
    else:
        results = "\n\n".join(f"Result from {name}: {answer}" for (_, name, _), answer in zip(calls, answers, strict=False))
    return [LLMMessage(role=Role.ASSISTANT, content=content), LLMMessage(role=Role.USER, content=results)]
