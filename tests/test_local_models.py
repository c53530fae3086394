"""Local OpenAI-compatible model servers (Ollama, llama.cpp's llama-server, LM Studio, vLLM).

The LangChain adapter with ``langchain_openai.ChatOpenAI`` and the Langroid adapter with Langroid's
``OpenAIGPT`` talk, through their real clients, to a fake OpenAI-compatible server on 127.0.0.1
(``tests/openai_fake.py``): streamed text, frontend tools, backend tools. Then the rules by which
``pick_model`` and ``langroid_model`` choose a model from the environment. No real model is used:
the fake server speaks the wire format a local server speaks, and nothing more is claimed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import langroid as lr
import pytest
from ag_ui.core import EventType
from langchain.agents import create_agent
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from agui_widget import AgentChat, confirm_tool, js_tool
from agui_widget.adapters.langchain import agui_middleware
from agui_widget.teaching._models import NO_KEY, langroid_model, pick_model

from .langroid_fakes import (
    FakeOpenAI,
    Weather,
    check_streams,
    finished,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
    text_deltas,
    tool_call_deltas,
)
from .support import split_runs, text_of, until

PICK_COLOR = js_tool(
    "pick_color",
    "Ask the user to pick a colour.",
    {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]},
    "return {ok: true, color: args.color};",
)

LOCAL = {"AGUI_MODEL_BASE_URL": "http://localhost:11434/v1", "AGUI_MODEL": "llama3.1"}


def deltas_of(events):
    return [e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT]


def after_tool(body) -> bool:
    return body["messages"][-1]["role"] == "tool"


def local_chat_model(server: FakeOpenAI) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, model="local-model", api_key="x")


# -- the LangChain adapter: ChatOpenAI on a local server -------------------------------------------


async def test_a_chat_model_on_a_local_server_streams_its_reply_token_by_token():
    async with FakeOpenAI(lambda body: text_deltas("Hello from a model on this machine.")) as server:
        chat = AgentChat(local_chat_model(server))
        run = await finished(chat.send("hi"))
    assert deltas_of(run.events) == ["Hello ", "from ", "a ", "model ", "on ", "this ", "machine."]
    assert run.status == "finished" and run.reply == "Hello from a model on this machine."
    assert [(m["role"], m["content"]) for m in chat.messages] == [("user", "hi"), ("assistant", run.reply)]
    [request] = server.requests
    assert server.paths == ["/v1/chat/completions"]
    assert request["model"] == "local-model" and request["stream"] is True
    assert request["messages"] == [{"role": "user", "content": "hi"}]
    assert server.headers[0]["authorization"] == "Bearer x"
    check_streams([run.events])


async def test_a_frontend_tool_call_waits_for_its_answer_and_the_follow_up_request_carries_it():
    def responder(body):
        if after_tool(body):
            return text_deltas("Teal it is.")
        return text_deltas("Let me ask you.") + tool_call_deltas(0, "call_pick", "pick_color", {"color": "teal"})

    async with FakeOpenAI(responder) as server:
        chat = AgentChat(local_chat_model(server), tools=[PICK_COLOR])
        run = chat.send("pick a colour")
        await until(lambda: chat.pending_tool_calls or run.done)
        assert chat.status == "waiting" and not run.done and len(server.requests) == 1
        [pending] = chat.pending_tool_calls
        assert pending["toolCallId"] == "call_pick" and pending["name"] == "pick_color"
        assert pending["args"] == {"color": "teal"}
        chat.respond("call_pick", {"ok": True, "color": "teal"})
        await finished(run)

    first, second = split_runs(run.events)
    assert first[-1].outcome.pending_tool_call_ids == ["call_pick"]
    assert text_of(first) == "Let me ask you." and text_of(second) == "Teal it is."
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    declared = [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
                for t in chat.tools]  # fmt: skip
    follow_up = server.requests[1]
    assert server.requests[0]["tools"] == declared and follow_up["tools"] == declared
    call_message, tool_message = follow_up["messages"][-2:]
    assert call_message["role"] == "assistant"
    assert [c["id"] for c in call_message["tool_calls"]] == ["call_pick"]
    assert json.loads(call_message["tool_calls"][0]["function"]["arguments"]) == {"color": "teal"}
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_pick"
    assert json.loads(tool_message["content"]) == {"ok": True, "color": "teal"}
    check_streams([first, second])


async def test_a_confirm_tool_is_answered_from_python_like_any_frontend_tool():
    def responder(body):
        if after_tool(body):
            answer = json.loads(body["messages"][-1]["content"])
            return text_deltas("Deleted." if answer["approved"] else "Kept it.")
        return tool_call_deltas(0, "call_ok", "confirm", {"question": "Delete the file?"})

    async with FakeOpenAI(responder) as server:
        chat = AgentChat(local_chat_model(server), tools=[confirm_tool()])
        run = chat.send("delete the file")
        await until(lambda: chat.pending_tool_calls or run.done)
        chat.respond("call_ok", {"approved": False})
        await finished(run)
    assert run.reply.endswith("Kept it.")
    assert [t["function"]["name"] for t in server.requests[1]["tools"]] == ["confirm"]
    check_streams(split_runs(run.events))


@tool
def city_weather(city: str) -> str:
    """The weather in a city."""
    return f"{city}: sunny, 21 C"


async def test_a_create_agent_agent_on_a_local_server_runs_its_backend_tool_and_answers():
    def responder(body):
        if after_tool(body):
            return text_deltas("It is sunny in Oslo.")
        return tool_call_deltas(0, "call_weather", "city_weather", {"city": "Oslo"})

    async with FakeOpenAI(responder) as server:
        agent = create_agent(local_chat_model(server), tools=[city_weather], middleware=[agui_middleware()])
        chat = AgentChat(agent)
        run = await finished(chat.send("weather in Oslo?"))

    events = run.events
    [start] = [e for e in events if e.type == EventType.TOOL_CALL_START]
    assert (start.tool_call_id, start.tool_call_name) == ("call_weather", "city_weather")
    [result] = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    assert result.tool_call_id == "call_weather" and result.content == "Oslo: sunny, 21 C"
    assert run.reply == "It is sunny in Oslo." and len(split_runs(events)) == 1
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["city_weather"]
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message == {"role": "tool", "tool_call_id": "call_weather", "content": "Oslo: sunny, 21 C"}
    check_streams([events])


async def test_pick_model_s_choice_streams_from_the_server_with_token_counts_and_no_openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-stay-home")
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    async with FakeOpenAI(lambda body: text_deltas("Hello from llama."), usage=usage) as server:
        model = pick_model({"AGUI_MODEL_BASE_URL": server.base_url, "AGUI_MODEL": "llama3.1"})
        run = await finished(AgentChat(model).send("hi"))
        assert (await model.ainvoke("and without streaming?")).content == "Hello from llama."
    assert run.reply == "Hello from llama." and len(deltas_of(run.events)) == 3
    request = server.requests[0]
    assert request["model"] == "llama3.1" and request["stream_options"] == {"include_usage": True}
    assert server.requests[1]["stream"] is False
    assert {h["authorization"] for h in server.headers} == {f"Bearer {NO_KEY}"}
    finished_event = run.events[-1].model_dump(mode="json", by_alias=True)
    # the model is named on the finish_reason chunk, the counts on the usage chunk after it
    assert finished_event["usage"] == [
        {"provider": "openai", "model": "llama3.1", "inputTokens": 12, "outputTokens": 3, "totalTokens": 15}
    ]
    check_streams([run.events])


# -- the Langroid adapter: OpenAIGPTConfig from langroid_model() on a local server -------------------


def langroid_agent(server: FakeOpenAI, **options) -> lr.ChatAgent:
    config = langroid_model({"AGUI_MODEL_BASE_URL": server.base_url, "AGUI_MODEL": "llama3.1", "AGUI_MODEL_API_KEY": "k"})
    assert config is not None
    return lr.ChatAgent(lr.ChatAgentConfig(llm=config, use_tools=False, use_functions_api=True, use_tools_api=True, **options))


async def test_a_langroid_agent_on_a_local_server_streams_its_reply_token_by_token(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-stay-home")
    async with FakeOpenAI(lambda body: text_deltas("Hello from Langroid on this machine.")) as server:
        chat = AgentChat(langroid_agent(server))
        run = await finished(chat.send("hi"))
    assert deltas_of(run.events) == ["Hello ", "from ", "Langroid ", "on ", "this ", "machine."]
    assert run.reply == "Hello from Langroid on this machine." == chat.messages[-1]["content"]
    assert server.paths == ["/v1/chat/completions"]
    request = server.requests[0]
    assert request["model"] == "llama3.1" and request["stream"] is True and "seed" not in request
    assert request["messages"][-1] == {"role": "user", "content": "hi"}
    assert server.headers[0]["authorization"] == "Bearer k"
    check_streams([run.events])


async def test_a_langroid_agent_on_a_local_server_calls_a_frontend_tool_and_gets_its_answer():
    def responder(body):
        if after_tool(body):
            return text_deltas("Teal it is.")
        return text_deltas("Let me ask.") + tool_call_deltas(0, "call_pick", "pick_color", {"color": "teal"})

    async with FakeOpenAI(responder) as server:
        chat = AgentChat(langroid_agent(server), tools=[PICK_COLOR])
        run = chat.send("pick a colour")
        await until(lambda: chat.pending_tool_calls or run.done)
        [pending] = chat.pending_tool_calls
        assert pending["toolCallId"] == "call_pick" and pending["args"] == {"color": "teal"}
        chat.respond("call_pick", {"ok": True, "color": "teal"})
        await finished(run)

    first, second = split_runs(run.events)
    assert first[-1].outcome.pending_tool_call_ids == ["call_pick"]
    assert text_of(second) == "Teal it is."
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["pick_color"]
    assert "pick_color" in [t["function"]["name"] for t in server.requests[1]["tools"]]
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_pick"
    assert json.loads(tool_message["content"]) == {"ok": True, "color": "teal"}
    check_streams([first, second])


async def test_a_langroid_agent_on_a_local_server_runs_its_backend_tool_and_answers():
    def responder(body):
        if after_tool(body):
            return text_deltas("It is 20 C in Oslo.")
        return tool_call_deltas(0, "call_weather", "get_weather", {"city": "Oslo"})

    async with FakeOpenAI(responder) as server:
        agent = langroid_agent(server)
        agent.enable_message(Weather)
        chat = AgentChat(agent)
        run = await finished(chat.send("weather in Oslo?"))

    [start] = [e for e in run.events if e.type == EventType.TOOL_CALL_START]
    assert (start.tool_call_id, start.tool_call_name) == ("call_weather", "get_weather")
    [result] = [e for e in run.events if e.type == EventType.TOOL_CALL_RESULT]
    assert result.content == "Oslo: 20 C"
    assert run.reply.endswith("It is 20 C in Oslo.") and len(split_runs(run.events)) == 1
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_weather"
    assert tool_message["content"] == "Oslo: 20 C"
    check_streams([run.events])


# -- the rules: which model the environment picks ----------------------------------------------------


def chat_openai_of(model) -> tuple[str, str, str | None]:
    assert isinstance(model, ChatOpenAI)
    return model.model_name, model.openai_api_key.get_secret_value(), model.openai_api_base


@pytest.mark.parametrize("pick", [pick_model, langroid_model])
def test_never_a_real_model_under_pytest_nor_without_a_variable(pick):
    assert pick({"PYTEST_CURRENT_TEST": "t", "OPENAI_API_KEY": "sk", **LOCAL, "AGUI_LANGROID_MODEL": "x"}) is None
    assert pick({}) is None
    assert pick({"OPENAI_API_KEY": "  ", "AGUI_MODEL_BASE_URL": ""}) is None  # blank is unset
    assert pick() is None  # os.environ, and this is pytest


def test_pick_model_a_base_url_gives_chat_openai_on_that_server():
    assert chat_openai_of(pick_model(LOCAL)) == ("llama3.1", NO_KEY, "http://localhost:11434/v1")
    with_key = pick_model({**LOCAL, "AGUI_MODEL_API_KEY": "token-abc", "OPENAI_API_KEY": "sk-openai"})
    assert chat_openai_of(with_key) == ("llama3.1", "token-abc", "http://localhost:11434/v1")
    bare = pick_model({"AGUI_MODEL_BASE_URL": "teacher-host:11434/v1/", "AGUI_MODEL": "llama3.1"})
    assert chat_openai_of(bare)[2] == "http://teacher-host:11434/v1"


@pytest.mark.parametrize("pick", [pick_model, langroid_model])
def test_a_base_url_without_a_model_name_is_an_error_naming_the_variable(pick):
    with pytest.raises(ValueError, match="AGUI_MODEL is not") as error:
        pick({"AGUI_MODEL_BASE_URL": "http://localhost:8080/v1", "OPENAI_API_KEY": "sk"})
    assert "AGUI_MODEL=" in str(error.value) and "http://localhost:8080/v1" in str(error.value)


def test_pick_model_an_openai_key_gives_gpt_4o_mini_or_the_model_named():
    assert chat_openai_of(pick_model({"OPENAI_API_KEY": "sk-test"})) == ("gpt-4o-mini", "sk-test", None)
    named = pick_model({"OPENAI_API_KEY": "sk-test", "AGUI_MODEL": "openai:gpt-4.1"})
    assert chat_openai_of(named)[:2] == ("gpt-4.1", "sk-test")


def test_a_missing_package_says_what_to_install_and_falls_back_to_the_stand_in(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "langchain_anthropic", None)  # as if not installed
    assert pick_model({"ANTHROPIC_API_KEY": "sk-ant"}) is None
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "ANTHROPIC_API_KEY is set" in out and "pip install langchain-anthropic" in out

    monkeypatch.setitem(sys.modules, "langchain_openai", None)
    assert pick_model(LOCAL) is None
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "pip install langchain-openai" in out

    monkeypatch.setitem(sys.modules, "langroid.language_models", None)
    assert langroid_model(LOCAL) is None
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "pip install 'agui-widget[langroid]'" in out


def test_langroid_model_a_base_url_gives_the_server_as_api_base_and_the_model_s_own_name():
    config = langroid_model(LOCAL)
    assert (config.chat_model, config.api_base, config.api_key) == ("llama3.1", "http://localhost:11434/v1", NO_KEY)
    assert config.cache_config is None and config.seed is None
    config = langroid_model({**LOCAL, "AGUI_MODEL_API_KEY": "token-abc", "OPENAI_API_KEY": "sk-openai"})
    assert (config.chat_model, config.api_key) == ("llama3.1", "token-abc")


def test_langroid_model_its_own_variable_comes_first_then_the_server_then_openai():
    config = langroid_model({"AGUI_LANGROID_MODEL": "ollama/qwen2.5", **LOCAL, "OPENAI_API_KEY": "sk"})
    assert config.chat_model == "ollama/qwen2.5" and config.cache_config is None
    assert langroid_model({"AGUI_LANGROID_MODEL": "ollama/qwen2.5", "AGUI_MODEL_BASE_URL": "x"}).chat_model == "ollama/qwen2.5"
    assert langroid_model({**LOCAL, "OPENAI_API_KEY": "sk"}).chat_model == "llama3.1"
    config = langroid_model({"OPENAI_API_KEY": "sk-test"})
    assert (config.chat_model, config.api_key, config.cache_config) == ("gpt-4.1-mini", "sk-test", None)


def test_importing_the_module_imports_no_framework():
    code = (
        "import sys, agui_widget.teaching._models\n"
        "loaded = [m for m in ('langchain', 'langchain_core', 'langchain_openai', 'langroid') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
