"""Frontend tools with a Langroid agent: the model is told about them (their JSON schema), a call ends
the run with it pending, and the follow-up run gives the model the real result from the browser or
from ``chat.respond``."""

from __future__ import annotations

import asyncio

import pytest
from ag_ui.core import Tool

from agui_widget import AgentChat, confirm_tool, js_tool
from agui_widget.adapters.langroid import LangroidAgent

from .langroid_fakes import (
    Recorder,
    Reply,
    ToolCall,
    Weather,
    check_streams,
    finished,
    make_agent,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
)
from .support import collect, make_input, split_runs, types, until

BACKGROUND = js_tool(
    "change_background",
    "Change the chat's background to a CSS colour or gradient.",
    {
        "type": "object",
        "properties": {"background": {"type": "string", "description": "Any CSS background value."}},
        "required": ["background"],
    },
    "return {ok: true, background: args.background};",
)


def background_script(turn):
    if turn.after_tool:
        return Reply(f"The browser answered: {turn.tool_result}")
    if "change_background" not in turn.tools:
        return Reply("I have no way to change the background.")
    return Reply("Changing it.", tool_calls=[ToolCall("change_background", {"background": "teal"}, id="call_bg")])


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_the_model_is_given_the_frontend_tools_with_their_schema(mode):
    script = Recorder(lambda turn: "ok")
    agent = make_agent(script, mode=mode)
    events = await collect(LangroidAgent(agent), make_input("hi", tools=[BACKGROUND.to_agui()]))
    check_streams([events])
    assert script.turns[0].tools == ["change_background"]
    system = script.turns[0].messages[0].content
    if mode == "json":
        assert "TOOL: change_background" in system and "Any CSS background value." in system
    # and the agent is as it was once the run is over
    assert "change_background" not in agent.llm_tools_map and "change_background" not in agent.llm_tools_usable
    assert "change_background" not in agent._create_system_and_tools_message().content


async def test_the_schema_reaches_the_model_as_given_in_tools_mode():
    seen = {}

    def script(turn):
        return "ok"

    agent = make_agent(script)
    original = agent.llm.achat

    async def spy(messages, max_tokens=200, tools=None, **kwargs):
        seen["tools"] = [t.function.model_dump() for t in tools or ()]
        return await original(messages, max_tokens, tools, **kwargs)

    agent.llm.achat = spy
    events = await collect(LangroidAgent(agent), make_input("hi", tools=[BACKGROUND.to_agui()]))
    check_streams([events])
    [spec] = seen["tools"]
    assert spec["name"] == "change_background"
    assert spec["description"] == "Change the chat's background to a CSS colour or gradient."
    assert spec["parameters"]["properties"] == BACKGROUND.parameters["properties"]
    assert spec["parameters"]["required"] == ["background"]


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_a_frontend_tool_call_ends_the_run_with_it_pending(mode):
    agent = make_agent(background_script, mode=mode)
    events = await collect(LangroidAgent(agent), make_input("make it teal", tools=[BACKGROUND.to_agui()]))
    assert types(events)[-1] == "RUN_FINISHED" and "TOOL_CALL_RESULT" not in types(events)
    [pending] = events[-1].outcome.pending_tool_call_ids
    if mode == "tools":
        assert pending == "call_bg"
    assert "request" not in "".join(e.delta for e in events if e.type.value == "TEXT_MESSAGE_CONTENT")
    check_streams([events])


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_the_follow_up_run_gives_the_model_the_answer_from_python(mode):
    script = Recorder(background_script)
    chat = AgentChat(make_agent(script, mode=mode), tools=[BACKGROUND])
    run = chat.send("make it teal")
    await until(lambda: chat.status == "waiting")
    [call] = chat.pending_tool_calls
    assert call["name"] == "change_background" and call["args"] == {"background": "teal"}
    chat.respond(call["toolCallId"], {"ok": True, "background": "teal"})
    await finished(run)
    assert run.status == "finished"
    assert run.reply == 'Changing it.\n\nThe browser answered: {"ok": true, "background": "teal"}'
    assert len(script.turns) == 2 and script.turns[1].after_tool
    # the follow-up run sent the transcript once: one user message, one call, one result
    roles = [m.role.value for m in script.turns[1].messages]
    assert roles.count("user") == (2 if mode == "json" else 1)
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    runs = split_runs(run.events)
    assert len(runs) == 2
    check_streams(runs)


async def test_backend_and_frontend_calls_in_one_response():
    script = Recorder(
        lambda turn: (
            Reply(f"Done: {turn.tool_result}")
            if turn.after_tool
            else Reply(
                tool_calls=[
                    ToolCall("get_weather", {"city": "Oslo"}, id="call_w"),
                    ToolCall("confirm", {"message": "Paint it grey?"}, id="call_c"),
                ]
            )
        )
    )
    chat = AgentChat(make_agent(script, tools=[Weather]), tools=[confirm_tool()])
    run = chat.send("weather, then ask me")
    await until(lambda: chat.status == "waiting")
    assert [c["toolCallId"] for c in chat.pending_tool_calls] == ["call_c"]
    assert [m.get("toolCallId") for m in chat.messages if m["role"] == "tool"] == ["call_w"]
    chat.respond("call_c", {"approved": False})
    await finished(run)
    assert run.reply == 'Done: Oslo: 20 C\n{"approved": false}'
    check_streams(split_runs(run.events))


async def test_a_frontend_tool_named_like_a_backend_tool_leaves_the_backend_one_in_charge(caplog):
    clash = Tool(name="get_weather", description="the browser's weather", parameters={"type": "object"})
    agent = make_agent([Reply(tool_calls=[ToolCall("get_weather", {"city": "Rome"})]), Reply("Warm.")], tools=[Weather])
    events = await collect(LangroidAgent(agent), make_input("weather", tools=[clash]))
    assert "TOOL_CALL_RESULT" in types(events) and events[-1].outcome.pending_tool_call_ids is None
    assert "has the name of one of the agent's own tools" in caplog.text
    assert agent.llm_tools_map["get_weather"] is Weather
    check_streams([events])


async def test_a_copy_made_while_the_original_runs_does_not_keep_its_frontend_tools():
    def script(turn):
        return background_script(turn) if "background" in turn.user_text else "Hello."

    agent = make_agent(script, first_token_delay=0.5)
    one, two = AgentChat(agent, tools=[BACKGROUND]), AgentChat(agent, tools=[BACKGROUND])
    first = one.send("hello")  # the original agent runs, with change_background installed
    await until(lambda: "change_background" in agent.llm_tools_map)
    second = two.send("change the background")  # meanwhile a copy is made for the second chat
    await until(lambda: two.status == "waiting")
    copy = two.agent.agent_for_thread(two.thread_id)
    assert copy is not agent and "change_background" not in copy.llm_tools_map
    [call] = two.pending_tool_calls
    two.respond(call["toolCallId"], {"ok": True})
    await asyncio.wait_for(asyncio.gather(first, second), 5)
    assert first.reply == "Hello." and second.reply.endswith('The browser answered: {"ok": true}')
    assert "change_background" not in agent.llm_tools_map
    check_streams(split_runs(one.events) + split_runs(two.events))


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_a_python_function_given_to_the_chat_is_called_and_its_result_read(mode):
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    script = Recorder(
        lambda turn: (
            Reply(f"The sum is {turn.tool_result}.")
            if turn.after_tool
            else Reply(tool_calls=[ToolCall("add", {"a": 20, "b": 22}, id="call_add")])
        )
    )
    chat = AgentChat(make_agent(script, mode=mode), tools=[add])
    run = await asyncio.wait_for(chat.send("20 + 22?"), 10)
    assert run.status == "finished" and run.reply.endswith("The sum is 42.")
    assert script.turns[0].tools == ["add"]
    assert [m["content"] for m in chat.messages if m["role"] == "tool"] == ["42"]
    check_streams(split_runs(run.events))
