"""A fake OpenAI-compatible model server, for the real OpenAI clients of LangChain and Langroid.

``FakeOpenAI`` serves ``POST /v1/chat/completions`` on 127.0.0.1, as Ollama, llama.cpp's
``llama-server``, LM Studio and vLLM do: a test scripts what the "model" answers, a real client
(``langchain_openai.ChatOpenAI``, Langroid's ``OpenAIGPT``) talks to it over HTTP, and the test
reads back every request the client sent. No framework is imported here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["FakeOpenAI", "Responder", "text_deltas", "tool_call_deltas"]

Responder = Callable[[dict[str, Any]], "list[dict[str, Any]] | tuple[int, dict[str, Any]]"]


class FakeOpenAI:
    """An OpenAI-compatible ``/v1/chat/completions`` on 127.0.0.1 that answers with scripted deltas.

    ``responder(request_body)`` returns the ``delta`` dicts of the answer, or ``(status, body)`` for
    an error response. A streaming request (``"stream": true``) gets them as server-sent chunks,
    one per delta, then a chunk with the ``finish_reason`` (and, when ``usage`` is given and the
    request asks with ``stream_options.include_usage``, a usage chunk); any other request gets one
    ``chat.completion`` with the deltas put together. Every request's body, path and headers are kept.
    """

    def __init__(self, responder: Responder, *, usage: dict[str, int] | None = None) -> None:
        self.responder = responder
        self.usage = usage
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.port = 0
        self._server: asyncio.base_events.Server | None = None

    @property
    def base(self) -> str:
        """``127.0.0.1:PORT/v1``: the server without a scheme (Langroid's ``local/`` form)."""
        return f"127.0.0.1:{self.port}/v1"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: what an OpenAI client takes as its ``base_url``."""
        return f"http://{self.base}"

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
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            path = head[0].split(" ")[1] if len(head[0].split(" ")) > 1 else ""
            headers: dict[str, str] = {}
            for line in head[1:]:
                name, _, value = line.partition(":")
                if name.strip():
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0"))
            body = json.loads(await reader.readexactly(length)) if length else {}
            self.requests.append(body)
            self.paths.append(path)
            self.headers.append(headers)
            answer = self.responder(body)
            if isinstance(answer, tuple):
                status, payload = answer
                _write_json(writer, status, payload)
            elif body.get("stream"):
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
                usage = self.usage if (body.get("stream_options") or {}).get("include_usage") else None
                async for chunk in _chunks(answer, body.get("model", "fake"), usage):
                    writer.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    await writer.drain()
                writer.write(b"data: [DONE]\n\n")
            else:
                _write_json(writer, 200, _completion(answer, body.get("model", "fake"), self.usage))
            await writer.drain()
        finally:
            writer.close()


def _write_json(writer: asyncio.StreamWriter, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    reason = "OK" if status == 200 else "Error"
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        "Connection: close\r\n\r\n".encode()
        + data
    )


def _finish_reason(deltas: list[dict[str, Any]]) -> str:
    return "tool_calls" if any("tool_calls" in d for d in deltas) else "stop"


async def _chunks(deltas: list[dict[str, Any]], model: str, usage: dict[str, int] | None = None) -> AsyncIterator[dict[str, Any]]:
    ident = f"chatcmpl-{uuid.uuid4().hex[:8]}"
    for index, delta in enumerate(deltas):
        if index == 0:
            delta = {"role": "assistant", **delta}
        yield {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}  # fmt: skip
        await asyncio.sleep(0)
    yield {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": model,
           "choices": [{"index": 0, "delta": {}, "finish_reason": _finish_reason(deltas)}]}  # fmt: skip
    if usage is not None:
        yield {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [], "usage": usage}


def _completion(deltas: list[dict[str, Any]], model: str, usage: dict[str, int] | None) -> dict[str, Any]:
    """The deltas put together as one non-streamed ``chat.completion``."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict[str, Any]] = {}
    for delta in deltas:
        for key in ("content", "reasoning_content"):
            if delta.get(key):
                message[key] = (message.get(key) or "") + delta[key]
        for part in delta.get("tool_calls") or ():
            call = calls.setdefault(part["index"], {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
            call["id"] = part.get("id") or call["id"]
            function = part.get("function") or {}
            call["function"]["name"] += function.get("name") or ""
            call["function"]["arguments"] += function.get("arguments") or ""
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    completion = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:8]}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(deltas)}],
    }
    if usage is not None:
        completion["usage"] = usage
    return completion


def text_deltas(text: str) -> list[dict[str, Any]]:
    """Content deltas, one per word (with its space)."""
    words = text.split(" ")
    return [{"content": word + " "} for word in words[:-1]] + [{"content": words[-1]}]


def tool_call_deltas(index: int, call_id: str, name: str, args: dict[str, Any], size: int = 7) -> list[dict[str, Any]]:
    """A tool call as a model streams it: id and name first, then the arguments in ``size``-character pieces."""
    text = json.dumps(args)
    deltas = [{"tool_calls": [{"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}]
    deltas += [
        {"tool_calls": [{"index": index, "function": {"arguments": text[i : i + size]}}]} for i in range(0, len(text), size)
    ]
    return deltas
