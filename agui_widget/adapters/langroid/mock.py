"""A scripted, streaming stand-in for a Langroid model: demos and tests without a model or network.

``ScriptedLM`` is a Langroid ``MockLM`` that streams like a real OpenAI-compatible model does through
Langroid: reasoning tokens, text tokens, and tool calls, in whichever tool mode the agent uses
(OpenAI tools, OpenAI functions, or Langroid's JSON tools written into the text). What it says comes
from a *script*: a function of the :class:`Turn` (the messages it is sent, the tools it may call)
that returns a :class:`Reply`, or a list of replies given in order::

    from agui_widget.adapters.langroid.mock import Reply, ScriptedLMConfig, ToolCall, use_scripted_llm

    def script(turn):
        if turn.after_tool:
            return f"The tool said: {turn.tool_result}"
        return Reply("Let me check.", tool_calls=[ToolCall("get_weather", {"city": "Paris"})])

    agent = lr.ChatAgent(lr.ChatAgentConfig(llm=ScriptedLMConfig(script=script)))
    use_scripted_llm(agent)        # Langroid builds a plain MockLM from the config: swap it in

Importing this module imports Langroid.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from ._tiktoken import seed_tiktoken_cache

seed_tiktoken_cache()  # before Langroid is imported, for machines that are offline

from langroid.language_models.base import (  # noqa: E402
    LLMFunctionCall,
    LLMMessage,
    LLMResponse,
    LLMTokenUsage,
    OpenAIToolCall,
    Role,
    StreamEventType,
)
from langroid.language_models.mock_lm import MockLM, MockLMConfig  # noqa: E402


@dataclass
class ToolCall:
    """A tool call the scripted model makes; ``id`` defaults to a fresh ``call_...`` id."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass
class Reply:
    """What the scripted model answers: text, tool calls, and reasoning shown before them."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    reasoning: str = ""
    think_tags: bool = False
    """Whether the reasoning came inside the reply between ``<think>`` tags (as some models write
    it) rather than in a field of its own: Langroid then keeps the tagged text for the history."""
    usage: LLMTokenUsage | None = None
    """The tokens the call reports, as a real model's response carries them (None: no count)."""


Script = Union[Callable[["Turn"], Reply | str | None], Sequence[Reply | str]]


@dataclass
class Turn:
    """What the scripted model is asked."""

    messages: list[LLMMessage]
    tools: list[str]
    """The tools it may call (from the tools/functions it is sent, or, in JSON-tool mode, the
    ``TOOL:`` lines of the system message)."""
    mode: str
    """``"tools"`` (OpenAI tools API), ``"functions"`` (functions API) or ``"json"`` (Langroid JSON tools)."""

    @property
    def last(self) -> LLMMessage:
        return self.messages[-1]

    @property
    def text(self) -> str:
        """The last message's text."""
        return self.last.content or ""

    @property
    def user_text(self) -> str:
        """The text of the latest user message (in JSON-tool mode, tool results excluded)."""
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.role == Role.USER and not self._is_json_result(index):
                return message.content or ""
        return ""

    @property
    def after_tool(self) -> bool:
        """Whether the model is being given tool results (so it should answer from them)."""
        if self.last.role in (Role.TOOL, Role.FUNCTION):
            return True
        return self._is_json_result(len(self.messages) - 1)

    @property
    def tool_result(self) -> str:
        """The latest tool results' text (joined when there are several)."""
        if self.mode == "json":
            return self.text if self.after_tool else ""
        results = []
        for message in reversed(self.messages):
            if message.role not in (Role.TOOL, Role.FUNCTION):
                break
            results.append(message.content or "")
        return "\n".join(reversed(results))

    def _is_json_result(self, index: int) -> bool:
        if self.mode != "json" or index < 1 or self.messages[index].role != Role.USER:
            return False
        before = self.messages[index - 1]
        content = before.content or ""
        return before.role == Role.ASSISTANT and ('"request"' in content or "<request>" in content)


class _Replies:
    """A list of replies given out in order, shared by the copies Langroid makes of the config."""

    def __init__(self, replies: Iterable[Reply | str]) -> None:
        self.replies = list(replies)
        self.index = 0

    def __call__(self, turn: Turn) -> Reply | str:
        if self.index >= len(self.replies):
            raise RuntimeError(f"the scripted model has no reply left (it had {len(self.replies)})")
        reply = self.replies[self.index]
        self.index += 1
        return reply

    def __deepcopy__(self, memo: Any) -> _Replies:
        return self


class ScriptedLMConfig(MockLMConfig):
    """Configuration of :class:`ScriptedLM`: the script, and how fast it streams."""

    script: Any = None
    delay: float = 0.0
    """Seconds between streamed tokens (0 still lets the event loop run between tokens)."""
    first_token_delay: float = 0.0
    """Seconds before the first token, like a model thinking."""
    stream: bool = True
    chars_per_tool_chunk: int = 12


class ScriptedLM(MockLM):
    """A Langroid model that streams what its script says (see the module's docs)."""

    def __init__(self, config: ScriptedLMConfig | None = None, **options: Any) -> None:
        config = config if config is not None else ScriptedLMConfig(**options)
        if isinstance(config.script, (list, tuple)):
            config.script = _Replies(config.script)
        super().__init__(config)
        self.config: ScriptedLMConfig = config

    def get_stream(self) -> bool:
        return bool(self.config.stream)

    def set_stream(self, stream: bool) -> bool:
        previous = bool(self.config.stream)
        self.config.stream = stream
        return previous

    def supports_functions_or_tools(self) -> bool:
        return True

    # -- answering -------------------------------------------------------------------------

    def respond(
        self, messages: Sequence[LLMMessage] | str, tools: Any = None, functions: Any = None
    ) -> tuple[LLMResponse, list[tuple[StreamEventType, str]]]:
        """The response to ``messages``, and the tokens to stream on the way."""
        if isinstance(messages, str):
            messages = [LLMMessage(role=Role.USER, content=messages)]
        messages = list(messages)
        if tools:
            mode, names = "tools", [t.function.name for t in tools]
        elif functions:
            mode, names = "functions", [f.name for f in functions]
        else:
            system = messages[0].content or "" if messages and messages[0].role == Role.SYSTEM else ""
            mode, names = "json", re.findall(r"^\s*TOOL:\s*([\w.-]+)\s*$", system, flags=re.MULTILINE)
        script = self.config.script
        reply = script(Turn(messages, names, mode)) if callable(script) else None
        if reply is None:
            reply = Reply(self.config.default_response)
        elif isinstance(reply, str):
            reply = Reply(reply)
        return self._render(reply, mode)

    def _render(self, reply: Reply, mode: str) -> tuple[LLMResponse, list[tuple[StreamEventType, str]]]:
        pieces: list[tuple[StreamEventType, str]] = [(StreamEventType.REASONING, w) for w in _words(reply.reasoning)]
        text = reply.text
        calls = [
            OpenAIToolCall(
                id=c.id or f"call_{uuid.uuid4().hex[:20]}",
                function=LLMFunctionCall(name=c.name, arguments=dict(c.args)),
            )
            for c in reply.tool_calls
        ]
        size = max(1, self.config.chars_per_tool_chunk)
        oai_calls: list[OpenAIToolCall] | None = None
        function_call: LLMFunctionCall | None = None
        if calls and mode == "json":
            written = "\n".join(json.dumps({"request": c.name, **dict(c.args)}) for c in reply.tool_calls)
            text = f"{text}\n{written}" if text else written
            pieces += [(StreamEventType.TEXT, w) for w in _words(text, json_size=size)]
        else:
            pieces += [(StreamEventType.TEXT, w) for w in _words(text)]
            name_kind, args_kind = (
                (StreamEventType.TOOL_NAME, StreamEventType.TOOL_ARGS)
                if mode == "tools"
                else (StreamEventType.FUNC_NAME, StreamEventType.FUNC_ARGS)
            )
            for call in calls if mode == "tools" else calls[:1]:
                assert call.function is not None
                pieces.append((name_kind, call.function.name))
                args = json.dumps(call.function.arguments)
                pieces += [(args_kind, args[i : i + size]) for i in range(0, len(args), size)]
            if calls and mode == "tools":
                oai_calls = calls
            elif calls:
                function_call = calls[0].function
        response = LLMResponse(
            message=text if text or not calls else None,
            reasoning=reply.reasoning,
            message_with_reasoning=(f"<think>{reply.reasoning}</think>{text}" if reply.think_tags and reply.reasoning else None),
            oai_tool_calls=oai_calls,
            function_call=function_call,
            usage=reply.usage.model_copy() if reply.usage is not None else None,
            cached=False,
        )
        return response, pieces

    async def achat(
        self,
        messages: Any,
        max_tokens: int = 200,
        tools: Any = None,
        tool_choice: Any = "auto",
        functions: Any = None,
        function_call: Any = "auto",
        response_format: Any = None,
    ) -> LLMResponse:
        response, pieces = self.respond(messages, tools, functions)
        if self.config.first_token_delay:
            await asyncio.sleep(self.config.first_token_delay)
        streamer = self.config.streamer_async
        if self.get_stream() and streamer is not None:
            for kind, token in pieces:
                await asyncio.sleep(self.config.delay)
                await streamer(token, kind)
        return response

    def chat(
        self,
        messages: Any,
        max_tokens: int = 200,
        tools: Any = None,
        tool_choice: Any = "auto",
        functions: Any = None,
        function_call: Any = "auto",
        response_format: Any = None,
    ) -> LLMResponse:
        response, pieces = self.respond(messages, tools, functions)
        if self.config.first_token_delay:
            time.sleep(self.config.first_token_delay)
        streamer = self.config.streamer
        if self.get_stream() and streamer is not None:
            for kind, token in pieces:
                if self.config.delay:
                    time.sleep(self.config.delay)
                streamer(token, kind)  # type: ignore[call-arg]  # Langroid annotates one argument, yet passes (token, kind) itself
        return response

    async def agenerate(self, prompt: str, max_tokens: int = 200) -> LLMResponse:
        return await self.achat(prompt, max_tokens)

    def generate(self, prompt: str, max_tokens: int = 200) -> LLMResponse:
        return self.chat(prompt, max_tokens)


def use_scripted_llm(agent: Any, script: Script | None = None, **options: Any) -> Any:
    """Give ``agent`` (a ChatAgent, or a Task's agent) a :class:`ScriptedLM`; returns the agent.

    With no ``script`` the agent's config must already be a :class:`ScriptedLMConfig`. ``options``
    are :class:`ScriptedLMConfig` fields (``delay=0.02``, ...).
    """
    target = getattr(agent, "agent", agent)
    config = target.config.llm
    if script is not None or not isinstance(config, ScriptedLMConfig):
        config = ScriptedLMConfig(script=script, **options)
    elif options:
        config = config.model_copy(update=options)
    target.config.llm = config
    target.llm = ScriptedLM(config)
    return agent


def _words(text: str, json_size: int = 0) -> list[str]:
    """Split text into stream tokens: words with their spaces; JSON in chunks of ``json_size``."""
    if not text:
        return []
    if json_size:
        tokens: list[str] = []
        for line in text.splitlines(keepends=True):
            if line.lstrip().startswith("{"):
                tokens += [line[i : i + json_size] for i in range(0, len(line), json_size)]
            else:
                tokens += re.findall(r"\S+\s*|\s+", line)
        return tokens
    return re.findall(r"\S+\s*|\s+", text)
