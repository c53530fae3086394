"""A scripted chat model that streams like a real one: offline demos, notebooks and tests.

It is LangChain's ``GenericFakeChatModel`` with what an agent needs on top: ``bind_tools``, tool
calls streamed as tool-call chunks (the id and name first, then the arguments in pieces), reasoning
streamed before the answer, and an optional pause between chunks so a demo streams at a visible
pace. No network, no key.

The script is either a sequence of replies (``messages=[...]``, played in order) or a function
``respond(messages, tool_names) -> AIMessage | str`` that looks at the conversation and at the
names of the tools bound for this call (backend and frontend alike).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

Respond = Callable[[list[BaseMessage], list[str]], "AIMessage | str"]

_TOKENS = re.compile(r"\S+\s*|\s+")


class ScriptedChatModel(GenericFakeChatModel):
    """A fake chat model with ``bind_tools`` that streams text, reasoning and tool-call chunks.

    ``messages``: replies played in order (``AIMessage`` or ``str``). ``respond``: a function of
    the conversation and the bound tool names, used when given (then ``messages`` is ignored).
    ``delay``: seconds between streamed chunks. ``calls`` records the messages of every call,
    ``call_options`` its options (``stop`` when given, and the keyword arguments it was called or
    bound with, such as ``temperature``; the tools left out), and ``bound_tools`` the tool names of
    the last one. An ``AIMessage`` may carry reasoning in
    ``additional_kwargs["reasoning_content"]``; it streams before the text.
    """

    messages: Iterator[AIMessage | str] = Field(default_factory=lambda: iter(()))
    respond: Respond | None = None
    delay: float = 0.0
    args_piece: int = 8
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    call_options: list[dict[str, Any]] = Field(default_factory=list)
    bound_tools: list[str] = Field(default_factory=list)

    def __init__(self, messages: Sequence[AIMessage | str] | Iterator[AIMessage | str] = (), **kwargs: Any) -> None:
        super().__init__(messages=iter(list(messages)) if not isinstance(messages, Iterator) else messages, **kwargs)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat-model"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Runnable[Any, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    # -- the script ---------------------------------------------------------------------------

    def _next_reply(self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any) -> AIMessage:
        names = [tool.get("function", {}).get("name") or tool.get("name", "") for tool in kwargs.get("tools") or ()]
        self.calls.append(list(messages))
        self.call_options.append(
            {**({"stop": stop} if stop is not None else {}), **{k: v for k, v in kwargs.items() if k != "tools"}}
        )
        self.bound_tools = names
        if self.respond is not None:
            reply: Any = self.respond(list(messages), names)
        else:
            try:
                reply = next(self.messages)
            except StopIteration:
                raise RuntimeError("ScriptedChatModel: the script has no more replies") from None
        if isinstance(reply, str):
            return AIMessage(content=reply)
        if not isinstance(reply, AIMessage):
            raise TypeError(f"ScriptedChatModel: a reply must be an AIMessage or a str, not {type(reply).__name__}")
        return reply.model_copy(deep=True)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next_reply(messages, stop, **kwargs))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, **kwargs)

    def _chunks(self, message: AIMessage) -> Iterator[AIMessageChunk]:
        reasoning = message.additional_kwargs.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            for token in _TOKENS.findall(reasoning):
                yield AIMessageChunk(content="", id=message.id, additional_kwargs={"reasoning_content": token})
        content = message.content
        if isinstance(content, str):
            for token in _TOKENS.findall(content):
                yield AIMessageChunk(content=token, id=message.id)
        elif content:
            for block in content:
                yield AIMessageChunk(content=[block], id=message.id)
        for index, call in enumerate(message.tool_calls):
            args = json.dumps(call["args"], ensure_ascii=False)
            pieces = [args[i : i + self.args_piece] for i in range(0, len(args), self.args_piece)] or [""]
            for number, piece in enumerate(pieces):
                first = number == 0
                yield AIMessageChunk(
                    content="",
                    id=message.id,
                    tool_call_chunks=[
                        {
                            "id": call["id"] if first else None,
                            "name": call["name"] if first else None,
                            "args": piece,
                            "index": index,
                            "type": "tool_call_chunk",
                        }
                    ],
                )
        if message.usage_metadata or message.response_metadata:
            # last, as a provider streams them: the model's name and the call's token usage
            yield AIMessageChunk(
                content="",
                id=message.id,
                usage_metadata=message.usage_metadata,
                response_metadata=dict(message.response_metadata),
            )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(self._next_reply(messages, stop, **kwargs)):
            if self.delay:
                time.sleep(self.delay)
            generation = ChatGenerationChunk(message=chunk)
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=generation)
            yield generation

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(self._next_reply(messages, stop, **kwargs)):
            if self.delay:
                await asyncio.sleep(self.delay)
            generation = ChatGenerationChunk(message=chunk)
            if run_manager:
                await run_manager.on_llm_new_token(chunk.text, chunk=generation)
            yield generation
