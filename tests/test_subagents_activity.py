"""Sub-agents and activity reach the transcript attributed and updated, ready for the view."""

from __future__ import annotations

from agui_widget import DemoAgent

from .genui_support import Captured


async def test_a_sub_agents_messages_and_tool_calls_carry_its_run_id():
    chat = Captured(DemoAgent(delay=0))
    run = await chat.send("ask a sub-agent")
    assert run.status == "finished"
    started = next(e for e in chat.wire_events() if e["type"] == "SUBAGENT_STARTED")
    finished = next(e for e in chat.wire_events() if e["type"] == "SUBAGENT_FINISHED")
    assert started["name"] == "researcher" and finished["subagentRunId"] == started["subagentRunId"]
    nested = [m for m in chat.messages if m.get("subagentRunId") == started["subagentRunId"]]
    assert [m["role"] for m in nested] == ["assistant", "tool"]
    assert nested[0]["toolCalls"][0]["function"]["name"] == "search_library"
    # The parent's own answer is not attributed to the sub-agent.
    assert "subagentRunId" not in chat.messages[-1]


async def test_an_activity_message_is_kept_and_patched():
    chat = Captured(DemoAgent(delay=0))
    await chat.send("activity")
    [activity] = [m for m in chat.messages if m["role"] == "activity"]
    assert activity["activityType"] == "progress"
    assert activity["content"] == {"markdown": "Indexing: **3** of 3 files"}


async def test_the_demo_agents_generative_ui_streams_pass_the_official_verifier():
    from .agui_check import official_verdicts
    from .support import collect, make_input

    agent = DemoAgent(delay=0)
    prompts = ["chart", "table", "write a document about tea", "ask a sub-agent", "activity", "suggest"]
    streams = [await collect(agent, make_input(prompt)) for prompt in prompts]
    assert official_verdicts(streams) == [None] * len(prompts)
