"""Outside checks over real sockets, with code nobody here wrote at the other end.

1. The official ``@ag-ui/client`` ``HttpAgent`` (in Node) chats with an agent served by
   ``agui_widget.server``: text, a backend tool, a frontend tool answered by the client, state.
2. ``AgentChat`` chats, through ``RemoteAgent``, with pydantic-ai's own AG-UI endpoint
   (``AGUIAdapter.dispatch_request``) running an agent on pydantic-ai's ``FunctionModel``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agui_widget import AgentChat
from agui_widget.adapters import DemoAgent
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.server import create_app

from .agui_check import assert_valid_streams
from .live_server import live_server
from .support import split_runs, until

ROOT = Path(__file__).resolve().parents[1]
HTTPAGENT_SCRIPT = ROOT / "js" / "scripts" / "httpagent-chat.mjs"


def chat_with_httpagent(url: str, turns: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    node = shutil.which("node")
    assert node, "Node.js is needed to run @ag-ui/client's HttpAgent"
    payload = json.dumps({"url": url, "threadId": "thread-node", "turns": turns, **extra})
    done = subprocess.run(
        [node, str(HTTPAGENT_SCRIPT)], input=payload, capture_output=True, text=True, timeout=120, cwd=ROOT / "js"
    )
    assert done.returncode == 0, f"httpagent-chat.mjs failed: {done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_official_http_agent_chats_with_a_served_agent() -> None:
    accent = ACCENT_TOOL.to_agui().model_dump(mode="json", by_alias=True, exclude_none=True)
    with live_server(create_app(DemoAgent(delay=0))) as url:
        result = chat_with_httpagent(
            url + "/",
            [
                {"user": "hello"},
                {"user": "weather in Oslo"},
                {"user": "make it teal", "tools": [accent], "toolResult": {"ok": True, "color": "teal"}},
                {"user": "add buy milk"},
                {"user": "show my list"},
            ],
        )
    runs = result["runs"]
    assert [run["error"] for run in runs] == [None] * 6, runs
    assert all(run["events"][0] == "RUN_STARTED" and run["events"][-1] == "RUN_FINISHED" for run in runs)
    messages = result["messages"]
    assistant_texts = [m.get("content") or "" for m in messages if m["role"] == "assistant"]
    assert any("scripted demo agent" in text for text in assistant_texts)  # text
    weather_call = next(
        m
        for m in messages
        if m["role"] == "assistant" and m.get("toolCalls") and m["toolCalls"][0]["function"]["name"] == "get_weather"
    )
    weather_result = next(m for m in messages if m["role"] == "tool" and m["toolCallId"] == weather_call["toolCalls"][0]["id"])
    assert "Oslo" in weather_result["content"]  # a backend tool: call and result both reached the client
    accent_call = next(
        m
        for m in messages
        if m["role"] == "assistant" and m.get("toolCalls") and m["toolCalls"][0]["function"]["name"] == ACCENT_TOOL.name
    )
    assert json.loads(accent_call["toolCalls"][0]["function"]["arguments"]) == {"color": "teal"}
    assert any("the accent is now **teal**" in text for text in assistant_texts)  # the follow-up run saw the answer
    assert result["state"] == {"todos": [{"text": "buy milk", "done": False}]}  # state, applied by the client
    assert "buy milk" in assistant_texts[-1]  # and sent back by it on the next run


def pydantic_ai_app() -> Any:
    """pydantic-ai's AG-UI endpoint, with an agent whose model is a script (no LLM)."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
    from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
    from pydantic_ai.ui.ag_ui import AGUIAdapter
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    async def scripted(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        last = messages[-1]
        parts = last.parts if isinstance(last, ModelRequest) else []
        returned = [p for p in parts if isinstance(p, ToolReturnPart)]
        if returned:
            for word in f"The {returned[-1].tool_name} tool said {returned[-1].model_response_str()}".split(" "):
                yield word + " "
            return
        prompt = " ".join(str(p.content) for p in parts if isinstance(p, UserPromptPart)).lower()
        if "weather" in prompt:
            yield {0: DeltaToolCall(name="get_weather", json_args='{"city": "Lima"}', tool_call_id="call-weather")}
        elif "teal" in prompt and any(t.name == ACCENT_TOOL.name for t in info.function_tools):
            yield {0: DeltaToolCall(name=ACCENT_TOOL.name, json_args='{"color": "teal"}', tool_call_id="call-accent")}
        else:
            for word in ["Hello", "from", "a", "pydantic-ai", "agent"]:
                yield word + " "

    agent = Agent(FunctionModel(stream_function=scripted))

    @agent.tool_plain
    def get_weather(city: str) -> dict[str, Any]:
        """The weather in a city."""
        return {"city": city, "temperature_c": 19}

    async def endpoint(request: Request) -> Response:
        return await AGUIAdapter.dispatch_request(request, agent=agent)

    return Starlette(routes=[Route("/agui", endpoint, methods=["POST"])])


async def test_agent_chat_talks_to_pydantic_ais_ag_ui_server() -> None:
    with live_server(pydantic_ai_app()) as url:
        chat = AgentChat(url + "/agui", tools=[ACCENT_TOOL])
        hello = await chat.send("hi there")
        assert hello.status == "finished", hello.error
        assert hello.reply.strip() == "Hello from a pydantic-ai agent"

        weather = await chat.send("weather in Lima?")
        assert weather.status == "finished", weather.error
        assert "get_weather tool said" in weather.reply and "19" in weather.reply
        assert any(m["role"] == "tool" and "Lima" in m["content"] for m in chat.messages)

        accent = chat.send("make it teal")
        await until(lambda: chat.status == "waiting", timeout=10.0)
        (pending,) = chat.pending_tool_calls
        assert pending["name"] == ACCENT_TOOL.name and pending["args"] == {"color": "teal"}
        chat.respond(pending["toolCallId"], {"ok": True, "color": "teal"})
        await accent
        assert accent.status == "finished", accent.error
        assert "set_accent_color tool said" in accent.reply and "teal" in accent.reply
        assert_valid_streams([run for turn in (hello, weather, accent) for run in split_runs(turn.events)])
