"""What the Langroid model is sent: the whole transcript, once; rebuilt after an edit, a regenerate
or a stop; repaired where a run was cut short; one agent per thread, and a bounded number of them."""

from __future__ import annotations

import asyncio
import base64
import json

import langroid as lr
from ag_ui.core import Context
from langroid.utils.object_registry import ObjectRegistry

from agui_widget import AgentChat
from agui_widget.adapters.langroid import LangroidAgent, state_as_context
from agui_widget.adapters.langroid._history import (
    UNANSWERED_CALL,
    UNANSWERED_TURN,
    files_of,
    to_llm_messages,
)

from .langroid_fakes import (
    FakeOpenAI,
    Recorder,
    Reply,
    ToolCall,
    Weather,
    check_streams,
    finished,
    make_agent,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
    text_deltas,
)
from .support import collect, make_input, split_runs, until


def echo(turn):
    return Reply(f"You said: {turn.user_text}")


async def test_the_model_sees_the_whole_conversation_once_per_turn():
    script = Recorder(echo)
    chat = AgentChat(make_agent(script))
    await finished(chat.send("one"))
    await finished(chat.send("two"))
    await finished(chat.send("three"))
    assert script.sent()[1:] == [
        ("user", "one"),
        ("assistant", "You said: one"),
        ("user", "two"),
        ("assistant", "You said: two"),
        ("user", "three"),
    ]
    assert script.sent()[0][0] == "system"
    check_streams(split_runs(chat.events))


async def test_a_transcript_given_by_a_client_is_used_whole():
    script = Recorder(echo)
    messages = [
        {"id": "u1", "role": "user", "content": "earlier question"},
        {"id": "a1", "role": "assistant", "content": "earlier answer"},
        {"id": "s1", "role": "system", "content": "Be brief."},
        {"id": "u2", "role": "user", "content": [{"type": "text", "text": "now"}, {"type": "text", "text": "this"}]},
    ]
    events = await collect(LangroidAgent(make_agent(script)), make_input(messages))
    assert script.sent()[1:] == [
        ("user", "earlier question"),
        ("assistant", "earlier answer"),
        ("system", "Be brief."),
        ("user", "now\nthis"),
    ]
    check_streams([events])


async def test_tool_rounds_are_sent_once_and_in_order():
    script = Recorder(
        lambda turn: (
            Reply("It is 20 C.")
            if turn.after_tool or turn.user_text != "weather?"
            else Reply("Checking.", tool_calls=[ToolCall("get_weather", {"city": "Oslo"}, id="c1")])
        )
    )
    chat = AgentChat(make_agent(script, tools=[Weather]))
    await finished(chat.send("weather?"))
    await finished(chat.send("thanks"))
    sent = [(m.role.value, m.content, [c.id for c in m.tool_calls or ()], m.tool_call_id) for m in script.turns[-1].messages[1:]]
    assert sent == [
        ("user", "weather?", [], None),
        ("assistant", "Checking.", ["c1"], None),
        ("tool", "Oslo: 20 C", [], "c1"),
        ("assistant", "It is 20 C.", [], None),
        ("user", "thanks", [], None),
    ]
    check_streams(split_runs(chat.events))


async def test_json_mode_history_shows_the_tool_json_and_the_results_as_langroid_does():
    script = Recorder(
        lambda turn: (
            Reply("Done.")
            if turn.after_tool or turn.user_text != "weather?"
            else Reply(tool_calls=[ToolCall("get_weather", {"city": "Oslo"})])
        )
    )
    chat = AgentChat(make_agent(script, mode="json", tools=[Weather]))
    await finished(chat.send("weather?"))
    await finished(chat.send("and now?"))
    assert script.sent(-1)[1:] == [
        ("user", "weather?"),
        ("assistant", '{"request": "get_weather", "city": "Oslo"}'),
        ("user", "Oslo: 20 C"),
        ("assistant", "Done."),
        ("user", "and now?"),
    ]
    check_streams(split_runs(chat.events))


async def test_edit_and_regenerate_rebuild_what_the_model_sees():
    script = Recorder(echo)
    chat = AgentChat(make_agent(script))
    await finished(chat.send("first"))
    await finished(chat.send("second"))
    await finished(chat.regenerate())
    assert script.sent()[1:] == [("user", "first"), ("assistant", "You said: first"), ("user", "second")]
    await finished(chat.edit(chat.messages[0]["id"], "edited"))
    assert script.sent()[1:] == [("user", "edited")]
    assert [m["content"] for m in chat.messages] == ["edited", "You said: edited"]
    check_streams(split_runs(chat.events))


async def test_after_a_stop_the_history_has_no_dangling_call_nor_unanswered_turn():
    script = Recorder(
        lambda turn: (
            Reply("Calling.", tool_calls=[ToolCall("ask_user", {"q": "?"}, id="c9")]) if turn.user_text == "first" else echo(turn)
        )
    )
    chat = AgentChat(
        make_agent(script),
        tools=[{"name": "ask_user", "description": "Ask the user.", "parameters": {"type": "object"}}],
    )
    first = chat.send("first")
    await until(lambda: chat.status == "waiting")
    chat.stop()  # the frontend call is never answered
    await finished(first)
    slow = make_agent(Recorder(echo), first_token_delay=5)
    chat.agent.agent.llm = slow.llm  # the next answer takes long: stop it before it starts
    second = chat.send("second")
    await until(lambda: chat.status == "running")
    chat.stop()
    await finished(second)
    chat.agent.agent.llm = make_agent(script).llm
    await finished(chat.send("third"))
    sent = [(m.role.value, m.content, m.tool_call_id) for m in script.turns[-1].messages[1:]]
    assert sent[0] == ("user", "first", None)
    assert sent[1][0] == "assistant" and sent[2][0] == "tool" and sent[2][2] == "c9"
    assert "Cancelled" in sent[2][1]  # the session's repair, kept
    assert sent[3:] == [("user", "second", None), ("assistant", UNANSWERED_TURN, None), ("user", "third", None)]
    check_streams(split_runs(chat.events))


def test_the_history_rebuild_repairs_what_it_is_given():
    messages = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "", "toolCalls": [
            {"id": "x", "type": "function", "function": {"name": "f", "arguments": '{"k": 1}'}},
            {"id": "y", "type": "function", "function": {"name": "g", "arguments": "not json"}},
        ]},
        {"role": "tool", "toolCallId": "x", "content": "fx"},
        {"role": "tool", "toolCallId": "nobody", "content": "orphan"},
        {"role": "user", "content": "b"},
        {"role": "user", "content": "c"},
        {"role": "reasoning", "content": "thoughts"},
        {"role": "assistant", "content": ""},
    ]  # fmt: skip
    tools = to_llm_messages(messages, "tools")
    assert [(m.role.value, m.content, m.tool_call_id) for m in tools] == [
        ("user", "a", None),
        ("assistant", None, None),
        ("tool", "fx", "x"),
        ("tool", UNANSWERED_CALL, "y"),
        ("user", "b", None),
        ("assistant", UNANSWERED_TURN, None),
        ("user", "c", None),
    ]
    assert [c.function.arguments for c in tools[1].tool_calls] == [{"k": 1}, {"arguments": "not json"}]
    functions = to_llm_messages(messages[:3], "functions")
    assert [(m.role.value, m.name) for m in functions] == [
        ("user", None),
        ("assistant", None),
        ("function", "f"),
        ("assistant", None),
        ("function", "g"),
    ]
    json_mode = to_llm_messages(messages[:3], "json")
    assert json_mode[2].content == f"Result from f: fx\n\nResult from g: {UNANSWERED_CALL}"


async def test_state_context_builder_rewrites_only_what_the_model_sees():
    script = Recorder(lambda turn: "ok")
    agent = make_agent(script)
    adapter = LangroidAgent(agent, state_context_builder=state_as_context)
    run_input = make_input("what now?", state={"todo": ["milk"]})
    run_input.context = [Context(description="user's timezone", value="Europe/Paris")]
    events = await collect(adapter, run_input)
    check_streams([events])
    context, user = script.turns[0].messages[1].content, script.turns[0].messages[-1].content
    assert context == "Context from the application:\n- user's timezone: Europe/Paris"
    assert '"todo"' in user and user.endswith("User message: what now?")
    assert run_input.messages[0].content == "what now?"
    assert script.turns[0].messages[1].role.value == "system"


async def test_each_thread_has_its_own_agent_and_their_number_is_bounded():
    agent = make_agent(Recorder(echo))
    adapter = LangroidAgent(agent, max_threads=2)
    streams = []
    for thread in ("t1", "t2", "t3"):
        run_input = make_input(f"hello {thread}")
        run_input.thread_id = thread
        streams.append(await collect(adapter, run_input))
    check_streams(streams)
    assert adapter.threads == ["t2", "t3"]
    copies = [adapter.agent_for_thread("t2"), adapter.agent_for_thread("t3")]
    assert agent not in copies and copies[0] is not copies[1]
    assert all(isinstance(copy.llm, type(agent.llm)) for copy in copies)  # a custom model survives the copy
    # the original served t1 and is free again; a dropped copy left Langroid's registry
    run_input = make_input("back")
    run_input.thread_id = "t4"
    await collect(adapter, run_input)
    assert adapter.agent_for_thread("t4") is agent
    assert ObjectRegistry.get(copies[0].id) is None


async def test_two_chats_on_one_agent_do_not_share_it():
    agent = make_agent(Recorder(echo))
    one, two = AgentChat(agent), AgentChat(agent)
    await finished(asyncio.gather(one.send("from one"), two.send("from two")))
    assert one.messages[-1]["content"] == "You said: from one"
    assert two.messages[-1]["content"] == "You said: from two"
    assert one.agent.agent_for_thread(one.thread_id) is agent
    assert two.agent.agent_for_thread(two.thread_id) is not agent
    check_streams(split_runs(one.events) + split_runs(two.events))


def test_sub_task_messages_reach_the_main_agent_as_langroid_handed_them_over():
    call = {"id": "call_r", "type": "function", "function": {"name": "research", "arguments": '{"topic": "tides"}'}}
    messages = [
        {"id": "u1", "role": "user", "content": "why tides?"},
        {"id": "a1", "role": "assistant", "content": "", "toolCalls": [call]},
        {"id": "t1", "role": "tool", "toolCallId": "call_r", "content": "the moon", "subagentRunId": "R-1"},
        {"id": "s1", "role": "assistant", "content": "Thinking about tides.", "subagentRunId": "R-1"},
        {"id": "n1", "role": "assistant", "content": "nested detail", "subagentRunId": "R-1/Deep-2"},
        {"id": "a2", "role": "assistant", "content": "The moon. Ask me more."},
        {"id": "u2", "role": "user", "content": "and waves?"},
        {"id": "a3", "role": "assistant", "content": "Asking the expert."},
        {"id": "s2", "role": "assistant", "content": "Wind makes waves. DONE", "subagentRunId": "W-3"},
        {"id": "n2", "role": "assistant", "content": "deeper still", "subagentRunId": "W-3/Deep-4"},
        {"id": "a4", "role": "assistant", "content": "Wind, then."},
    ]
    sent = [(m.role.value, m.content) for m in to_llm_messages(messages, "tools")]
    assert sent == [
        ("user", "why tides?"),
        ("assistant", None),  # the call, answered by the sub-task: its result is the call's
        ("tool", "the moon"),
        ("assistant", "The moon. Ask me more."),
        ("user", "and waves?"),
        ("assistant", "Asking the expert."),
        ("user", "Wind makes waves."),  # a delegation by text: the sub-task's result, as a user message
        ("assistant", "Wind, then."),
    ]


def test_reasoning_the_model_wrote_inline_is_given_back_as_written():
    langroid = {"langroid": {"contentWithReasoning": "<think>hmm</think>Yes."}}
    messages = [
        {"id": "u1", "role": "user", "content": "ok?"},
        {"id": "r1", "role": "reasoning", "content": "hmm"},
        {"id": "a1", "role": "assistant", "content": "Yes.", "metadata": langroid},
        {"id": "u2", "role": "user", "content": "sure?"},
        {"id": "a2", "role": "assistant", "content": "Edited.", "metadata": langroid},  # edited since: as shown
    ]
    sent = [(m.role.value, m.content) for m in to_llm_messages(messages, "tools")]
    assert sent == [("user", "ok?"), ("assistant", "<think>hmm</think>Yes."), ("user", "sure?"), ("assistant", "Edited.")]


async def test_attachments_reach_langroids_client_as_image_and_file_content():
    """Through Langroid's own OpenAI client: a picture and a PDF sent with a message arrive as the
    provider's image and file content, after the message's text."""
    picture, pdf = b"\x89PNG\r\n\x1a\nfake", b"%PDF-1.7 tiny"
    parts = [
        {"type": "text", "text": "what are these?"},
        {
            "type": "image",
            "source": {"type": "data", "value": base64.b64encode(picture).decode(), "mimeType": "image/png"},
            "metadata": {"filename": "plot.png"},
        },
        {
            "type": "document",
            "source": {"type": "data", "value": base64.b64encode(pdf).decode(), "mimeType": "application/pdf"},
            "metadata": {"filename": "notes.pdf"},
        },
    ]
    [image, document] = files_of({"role": "user", "content": parts})
    assert (image.content, image.filename, image.mime_type) == (picture, "plot.png", "image/png")
    assert (document.content, document.filename) == (pdf, "notes.pdf")

    async with FakeOpenAI(lambda body: text_deltas("A plot and a PDF.")) as server:
        agent = lr.ChatAgent(lr.ChatAgentConfig(llm=server.config(), use_tools=False))
        chat = AgentChat(LangroidAgent(agent))
        run = await finished(chat.send(parts))
    assert run.reply == "A plot and a PDF."
    [request] = server.requests
    content = request["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "what are these?"}
    sent = json.dumps(content[1:])
    assert base64.b64encode(picture).decode() in sent and base64.b64encode(pdf).decode() in sent
    assert "notes.pdf" in sent
