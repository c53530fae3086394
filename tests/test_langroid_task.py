"""A Langroid Task runs as Langroid runs it: sub-tasks it delegates to (attributed on the wire with
SUBAGENT events), its done conditions, the user's turn, frontend tools, XML tools and reasoning."""

from __future__ import annotations

import asyncio
import json

import langroid as lr
import pytest
from ag_ui.core import EventType
from langroid.agent.tools.orchestration import AgentDoneTool, DoneTool
from langroid.mytypes import Entity

from agui_widget import AgentChat, js_tool
from agui_widget.adapters.langroid import LangroidAgent, ToolBehavior, ToolResultContext, tool_context
from agui_widget.adapters.langroid.mock import ScriptedLM
from agui_widget.pipeline._consumer import EventConsumer

from .langroid_fakes import (
    Recorder,
    Reply,
    Shout,
    ToolCall,
    check_streams,
    finished,
    make_agent,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
)
from .support import collect, make_input, split_runs, text_of, types, until

BACKGROUND = js_tool(
    "change_background",
    "Change the chat's background to a CSS colour or gradient.",
    {"type": "object", "properties": {"background": {"type": "string"}}, "required": ["background"]},
    "return {ok: true};",
)


class Lookup(lr.ToolMessage):
    request: str = "lookup"
    purpose: str = "Look up the <topic>."
    topic: str

    def handle(self) -> str:
        tool_context().update_state(looked_up=self.topic)
        return f"notes on {self.topic}"


class Finish(lr.ToolMessage):
    request: str = "finish"
    purpose: str = "Finish with the <answer>."
    answer: str

    def handle(self) -> AgentDoneTool:
        return AgentDoneTool(content=f"Final: {self.answer}")


def lane_of(events, kind):
    return [getattr(e, "subagent_run_id", None) for e in events if e.type == kind]


def text_in(events, lane):
    return "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT and e.subagent_run_id == lane)


def two_agents(main_script, sub_script, *, sub_tools=(), main_options=None, sub_options=None):
    main = lr.Task(make_agent(main_script), name="Main", interactive=False, **(main_options or {}))
    sub_agent = make_agent(sub_script, tools=sub_tools)
    sub = lr.Task(
        sub_agent, name="Researcher", interactive=False, **({"single_round": True} if sub_options is None else sub_options)
    )
    main.add_sub_task(sub)
    return main, sub


# -- delegation and attribution ------------------------------------------------------------------


async def test_the_main_agent_delegates_to_a_sub_task_and_both_stream_attributed(capfd, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # Langroid's task loggers would write logs/ here
    main_script = Recorder(
        lambda turn: Reply("The researcher found 42. DONE") if "42" in turn.text else Reply("Let me ask around.")
    )
    sub_script = Recorder(lambda turn: Reply("The answer is 42.", reasoning="counting the towels"))
    main, _ = two_agents(main_script, sub_script)
    events = await collect(LangroidAgent(main), make_input("What is the answer?"))
    check_streams([events])

    [started] = [e for e in events if e.type == EventType.SUBAGENT_STARTED]
    [done] = [e for e in events if e.type == EventType.SUBAGENT_FINISHED]
    lane = started.subagent_run_id
    assert started.name == "Researcher" and done.subagent_run_id == lane and done.result == "The answer is 42."
    first_text = next(e for e in events if e.type == EventType.TEXT_MESSAGE_START)
    assert first_text.subagent_run_id is None and started.parent_message_id == first_text.message_id
    # the sub-agent's tokens stream one by one inside its invocation, attributed to it
    inside = events[events.index(started) + 1 : events.index(done)]
    assert [e.delta for e in inside if e.type == EventType.TEXT_MESSAGE_CONTENT] == ["The ", "answer ", "is ", "42."]
    assert {getattr(e, "subagent_run_id", "") for e in inside} == {lane}
    assert "REASONING_MESSAGE_CONTENT" in types(inside)
    # and the main agent's before and after, unattributed
    assert text_in(events, None) == "Let me ask around.The researcher found 42. DONE"
    assert len([e for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT and e.subagent_run_id is None]) == 9
    # Langroid routed the messages: the sub-task got the main agent's text, the main agent its result
    assert sub_script.contents(role="user") == ["Let me ask around."]
    assert main_script.sent()[-1] == ("user", "The answer is 42.")
    assert types(events)[-1] == "RUN_FINISHED"
    assert capfd.readouterr().out == "" and list(tmp_path.iterdir()) == []  # quiet, and no files


async def test_the_next_turn_sees_the_sub_task_result_as_langroid_gave_it_not_its_inner_messages():
    main_script = Recorder(lambda turn: Reply("Found: 42. DONE") if "42" in turn.text else Reply(f"Asking about {turn.text}."))
    sub_script = Recorder(lambda turn: Reply("It is 42."))
    main, _ = two_agents(main_script, sub_script)
    chat = AgentChat(main)
    first = await finished(chat.send("the answer"))
    assert [(m["role"], "subagentRunId" in m) for m in chat.messages] == [
        ("user", False),
        ("assistant", False),
        ("assistant", True),
        ("assistant", False),
    ]
    second = await finished(chat.send("and the question"))
    sent = main_script.sent(2)
    assert sent[1:] == [
        ("user", "the answer"),
        ("assistant", "Asking about the answer."),
        ("user", "It is 42."),  # the sub-task's result, as Langroid hands it over
        ("assistant", "Found: 42. DONE"),
        ("user", "and the question"),
    ]
    check_streams(split_runs(first.events) + split_runs(second.events))


async def test_nested_sub_tasks_name_their_parent_invocation():
    top = Recorder(lambda turn: Reply("All done. DONE") if "deep" in turn.text else Reply("Delegating."))
    middle = Recorder(lambda turn: Reply(f"Got: {turn.text} DONE") if "deep" in turn.text else Reply("Passing it down."))
    bottom = Recorder(lambda turn: Reply("From deep down."))
    main = lr.Task(make_agent(top), name="Main", interactive=False)
    mid = lr.Task(make_agent(middle), name="Middle", interactive=False)
    mid.add_sub_task(lr.Task(make_agent(bottom), name="Bottom", interactive=False, single_round=True))
    main.add_sub_task(mid)
    events = await collect(LangroidAgent(main), make_input("go"))
    check_streams([events])
    started = {e.name: e for e in events if e.type == EventType.SUBAGENT_STARTED}
    assert set(started) == {"Middle", "Bottom"}
    middle_id, bottom_id = started["Middle"].subagent_run_id, started["Bottom"].subagent_run_id
    assert started["Middle"].parent_subagent_run_id is None and started["Bottom"].parent_subagent_run_id == middle_id
    assert text_in(events, bottom_id) == "From deep down."
    assert text_in(events, middle_id) == "Passing it down.Got: From deep down. DONE"
    assert text_in(events, None) == "Delegating.All done. DONE"
    finished_ids = [e.subagent_run_id for e in events if e.type == EventType.SUBAGENT_FINISHED]
    assert finished_ids == [bottom_id, middle_id]
    assert top.sent()[-1] == ("user", "Got: From deep down.")


async def test_a_sub_task_that_handles_the_main_agents_tool_call_answers_it():
    class Research(lr.ToolMessage):
        request: str = "research"
        purpose: str = "Research the <topic>."
        topic: str

    main_script = Recorder(
        lambda turn: (
            Reply(f"Summary: {turn.tool_result} DONE")
            if turn.after_tool
            else Reply(tool_calls=[ToolCall("research", {"topic": "tides"}, id="call_r")])
        )
    )
    main_agent = make_agent(main_script)
    main_agent.enable_message(Research, use=True, handle=False)

    class Researcher(lr.ChatAgent):
        def research(self, msg: Research) -> AgentDoneTool:
            tool_context().update_state(topic=msg.topic)
            return AgentDoneTool(content=f"the moon moves the {msg.topic}")

    sub_agent = make_agent(lambda turn: "unused", agent_class=Researcher)
    sub_agent.enable_message(Research, use=False, handle=True)
    main = lr.Task(main_agent, name="Main", interactive=False)
    main.add_sub_task(lr.Task(sub_agent, name="Researcher", interactive=False))
    events = await collect(LangroidAgent(main), make_input("why tides?"))
    check_streams([events])
    [started] = [e for e in events if e.type == EventType.SUBAGENT_STARTED]
    assert started.parent_tool_call_id == "call_r"
    results = [e for e in events if e.type == EventType.TOOL_CALL_RESULT and e.tool_call_id == "call_r"]
    assert [r.content for r in results] == ["the moon moves the tides"]
    assert text_in(events, None) == "Summary: the moon moves the tides DONE"
    assert events[-1].outcome.pending_tool_call_ids is None
    assert any(e.type == EventType.STATE_DELTA for e in events)


async def test_a_send_tool_routes_to_the_named_sub_task_only():
    from langroid.agent.tools.orchestration import SendTool

    main_script = Recorder(
        lambda turn: (
            Reply("Bob replied. DONE")
            if "Bob here" in turn.text
            else Reply(tool_calls=[ToolCall("send_tool", {"to": "Bob", "content": "Hi Bob, report please."})])
        )
    )
    alice, bob = Recorder(lambda turn: Reply("Alice here.")), Recorder(lambda turn: Reply("Bob here."))
    main = lr.Task(make_agent(main_script, tools=[SendTool]), name="Main", interactive=False)
    for name, script in (("Alice", alice), ("Bob", bob)):
        main.add_sub_task(lr.Task(make_agent(script), name=name, interactive=False, single_round=True))
    events = await collect(LangroidAgent(main), make_input("ask Bob"))
    check_streams([events])
    assert [e.name for e in events if e.type == EventType.SUBAGENT_STARTED] == ["Bob"]
    assert alice.turns == [] and bob.contents(role="user") == ["Hi Bob, report please."]
    assert text_in(events, None) == "Bob replied. DONE"


async def test_a_sub_agents_tools_are_attributed_to_it_and_follow_the_state():
    sub_script = Recorder(
        lambda turn: Reply("Noted. DONE") if turn.after_tool else Reply(tool_calls=[ToolCall("lookup", {"topic": "owls"})])
    )
    main_script = Recorder(lambda turn: Reply("Thanks. DONE") if "Noted" in turn.text else Reply("Look up owls."))
    main, _ = two_agents(main_script, sub_script, sub_tools=[Lookup], sub_options={})
    adapter = LangroidAgent(main, max_turns=10)
    events = await collect(adapter, make_input("owls?", state={"looked_up": None}))
    check_streams([events])
    [started] = [e for e in events if e.type == EventType.SUBAGENT_STARTED]
    lane = started.subagent_run_id
    assert set(lane_of(events, EventType.TOOL_CALL_START)) == {lane}
    assert set(lane_of(events, EventType.TOOL_CALL_RESULT)) == {lane}
    [result] = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    assert result.content == "notes on owls"
    [delta] = [e for e in events if e.type == EventType.STATE_DELTA]
    assert delta.model_dump(mode="json")["delta"] == [{"op": "replace", "path": "/looked_up", "value": "owls"}]


async def test_in_a_task_a_failing_tool_is_told_to_the_model_and_state_from_result_sees_the_result():
    class Explode(lr.ToolMessage):
        request: str = "explode"
        purpose: str = "Fail on purpose."

        def handle(self) -> str:
            raise ValueError("boom")

    class Roll(lr.ToolMessage):
        request: str = "roll"
        purpose: str = "Roll a die."

        def handle(self) -> dict:
            return {"rolled": 4}

    contexts: list[ToolResultContext] = []

    def from_result(context: ToolResultContext):
        contexts.append(context)
        return {**context.state, "last_roll": context.result["rolled"]}

    script = Recorder([Reply(tool_calls=[ToolCall("explode"), ToolCall("roll")]), Reply("Rolled a 4. DONE")])
    task = lr.Task(make_agent(script, tools=[Explode, Roll]), name="Main", interactive=False)
    adapter = LangroidAgent(task, tool_behaviors={"roll": ToolBehavior(state_from_result=from_result)})
    events = await collect(adapter, make_input("roll", state={"old": True}))
    check_streams([events])
    results = {e.tool_call_id: e.content for e in events if e.type == EventType.TOOL_CALL_RESULT}
    names = {e.tool_call_id: e.tool_call_name for e in events if e.type == EventType.TOOL_CALL_START}
    by_name = {names[call_id]: content for call_id, content in results.items()}
    assert by_name["explode"] == "Error: the tool 'explode' failed: ValueError: boom"
    assert json.loads(by_name["roll"]) == {"rolled": 4}
    [context] = contexts
    assert context.result == {"rolled": 4} and context.state == {"old": True}
    [roll_result] = [e for e in events if e.type == EventType.TOOL_CALL_RESULT and names[e.tool_call_id] == "roll"]
    assert context.message_id == roll_result.message_id
    consumer = EventConsumer(state={"old": True})
    for event in events:
        consumer.consume(event)
    assert consumer.state == {"old": True, "last_roll": 4}
    assert types(events)[-1] == "RUN_FINISHED"


async def test_stop_inside_a_sub_task_closes_its_invocation_and_the_next_run_works():
    class Endless(ScriptedLM):
        async def achat(self, messages, *args, **kwargs):
            for _ in range(1000):
                await self.config.streamer_async("tok ", lr.language_models.StreamEventType.TEXT)
                await asyncio.sleep(0.01)
            return lr.language_models.LLMResponse(message="never")

    main_script = Recorder(lambda turn: Reply("Over to you.") if turn.user_text == "go" else Reply("Back. DONE"))
    main = lr.Task(make_agent(main_script), name="Main", interactive=False)
    sub_agent = make_agent(None, lm_class=Endless)
    main.add_sub_task(lr.Task(sub_agent, name="Talker", interactive=False, single_round=True))
    chat = AgentChat(main)
    run = chat.send("go")
    await until(lambda: sum(e.type == EventType.TEXT_MESSAGE_CONTENT for e in run.events) > 5)
    chat.stop()
    await finished(run)
    assert run.status == "cancelled"
    kinds = types(run.events)
    assert kinds[-2:] == ["SUBAGENT_ERROR", "RUN_FINISHED"] and run.events[-1].outcome.type == "cancelled"
    assert "run_async" not in vars(main.sub_tasks[0]) and "handle_tool_message_async" not in vars(sub_agent)
    main.sub_tasks[0].agent.llm = make_agent(["Quick this time."]).llm
    again = await finished(chat.send("again"))
    assert again.status == "finished" and again.reply.endswith("Back. DONE")
    check_streams([run.events, again.events])


async def test_threads_share_the_task_in_turns_and_stay_bounded():
    script = Recorder(lambda turn: Reply(f"Echo {turn.user_text}. DONE"))
    adapter = LangroidAgent(lr.Task(make_agent(script), interactive=False), max_threads=2)
    streams = []
    for thread in ("a", "b", "c"):
        run_input = make_input(f"from {thread}")
        run_input.thread_id = thread
        streams.append(await collect(adapter, run_input))
    assert [text_of(s) for s in streams] == ["Echo from a. DONE", "Echo from b. DONE", "Echo from c. DONE"]
    assert adapter.threads == ["b", "c"] and adapter.agent_for_thread("c") is adapter.task.agent
    assert [turn.user_text for turn in script.turns] == ["from a", "from b", "from c"]  # nothing leaks between threads
    assert all(len(turn.messages) == 2 for turn in script.turns)
    check_streams(streams)


async def test_runs_leave_nothing_behind_in_langroids_object_registry():
    from langroid.utils.object_registry import ObjectRegistry

    main_script = Recorder(lambda turn: Reply("Got it. DONE") if "42" in turn.text else Reply("Asking."))
    main, _ = two_agents(main_script, lambda turn: Reply("It is 42."))
    adapter = LangroidAgent(main)
    sizes = []
    for _ in range(3):
        await collect(adapter, make_input("q"))
        sizes.append(len(ObjectRegistry.registry))
    assert sizes[0] == sizes[1] == sizes[2]


async def test_each_model_call_of_the_main_agent_sees_the_current_state():
    from agui_widget.adapters.langroid import state_as_context

    script = Recorder(
        lambda turn: Reply("Looked it up. DONE") if turn.after_tool else Reply(tool_calls=[ToolCall("lookup", {"topic": "eels"})])
    )
    agent = make_agent(script, tools=[Lookup])
    adapter = LangroidAgent(lr.Task(agent, interactive=False), state_context_builder=state_as_context)
    events = await collect(adapter, make_input("eels?", state={"looked_up": None}))
    check_streams([events])
    first, second = ([c for c in script.contents(i, "user") if "Current shared state" in c] for i in range(2))
    assert len(first) == len(second) == 1 and '"looked_up": null' in first[0] and '"eels"' in second[0]
    assert first[0].endswith("User message: eels?") and second[0].endswith("User message: eels?")
    assert not any("Current shared state" in (m.content or "") for m in agent.message_history)


# -- done conditions ------------------------------------------------------------------------------


async def test_done_in_the_text_ends_the_task_after_one_model_call():
    script = Recorder(lambda turn: Reply("Here you go. DONE"))
    events = await collect(LangroidAgent(lr.Task(make_agent(script), interactive=False)), make_input("hi"))
    assert len(script.turns) == 1 and text_of(events) == "Here you go. DONE"
    assert types(events)[-1] == "RUN_FINISHED"
    check_streams([events])


async def test_done_if_tool_ends_the_task_when_the_model_calls_a_tool():
    script = Recorder(lambda turn: Reply("Looking.", tool_calls=[ToolCall("lookup", {"topic": "bees"})]))
    task = lr.Task(make_agent(script, tools=[Lookup]), interactive=False, config=lr.TaskConfig(done_if_tool=True))
    events = await collect(LangroidAgent(task), make_input("bees"))
    assert len(script.turns) == 1
    [result] = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    assert result.content.startswith("(not run") and events[-1].outcome.pending_tool_call_ids is None
    check_streams([events])


async def test_done_if_response_ends_the_task_on_the_first_answer():
    script = Recorder(lambda turn: Reply("A plain answer."))
    task = lr.Task(make_agent(script), interactive=False, done_if_response=[Entity.LLM])
    events = await collect(LangroidAgent(task), make_input("hi"))
    assert len(script.turns) == 1 and text_of(events) == "A plain answer."
    check_streams([events])


async def test_a_done_sequence_ends_the_task_once_the_tool_is_handled():
    script = Recorder([Reply(tool_calls=[ToolCall("lookup", {"topic": "ants"})]), Reply("never asked for")])
    task = lr.Task(make_agent(script, tools=[Lookup]), interactive=False, config=lr.TaskConfig(done_sequences=["T, A"]))
    events = await collect(LangroidAgent(task), make_input("ants"))
    assert len(script.turns) == 1
    [result] = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    assert result.content == "notes on ants"
    assert text_of(events) == "notes on ants"  # the task's result, which the model never said
    check_streams([events])


async def test_done_tools_end_the_task_with_their_content():
    script = Recorder([Reply(tool_calls=[ToolCall("finish", {"answer": "7"})])])
    task = lr.Task(make_agent(script, tools=[Finish]), interactive=False)
    events = await collect(LangroidAgent(task), make_input("finish"))
    assert text_of(events) == "Final: 7" and len(script.turns) == 1
    done = Recorder([Reply(tool_calls=[ToolCall("done_tool", {"content": "all set"})])])
    events2 = await collect(LangroidAgent(lr.Task(make_agent(done, tools=[DoneTool]), interactive=False)), make_input("stop"))
    assert text_of(events2) == "all set"
    check_streams([events, events2])


async def test_handle_llm_no_tool_nudges_the_model_until_it_uses_a_tool():
    script = Recorder([Reply("Just chatting."), Reply(tool_calls=[ToolCall("done_tool", {"content": "used the tool"})])])
    agent = make_agent(script, tools=[DoneTool])
    agent.config.handle_llm_no_tool = "You forgot to use a tool."
    events = await collect(LangroidAgent(lr.Task(agent, interactive=False)), make_input("go"))
    assert len(script.turns) == 2 and script.contents(1, role="user")[-1] == "You forgot to use a tool."
    assert text_of(events) == "Just chatting.used the tool"
    check_streams([events])


async def test_single_round_answers_once():
    script = Recorder(lambda turn: Reply("Once."))
    task = lr.Task(make_agent(script), interactive=False, single_round=True)
    events = await collect(LangroidAgent(task), make_input("hi"))
    assert len(script.turns) == 1 and text_of(events) == "Once."
    check_streams([events])


async def test_a_task_limited_to_some_turns_stops_after_them():
    script = Recorder(lambda turn: Reply(tool_calls=[ToolCall("lookup", {"topic": "moths"})]))
    task = lr.Task(make_agent(script, tools=[Lookup]), interactive=False)
    task.turns = 2  # what single_round sets; Langroid's steps: the model's call, then the agent's answer
    events = await collect(LangroidAgent(task), make_input("moths"))
    assert len(script.turns) == 1 and types(events)[-1] == "RUN_FINISHED"
    assert [e.content for e in events if e.type == EventType.TOOL_CALL_RESULT] == ["notes on moths"]
    check_streams([events])


async def test_an_interactive_task_ends_the_run_where_it_would_ask_the_user():
    script = Recorder(lambda turn: Reply(f"You said {turn.user_text}."))
    chat = AgentChat(lr.Task(make_agent(script)))  # interactive, Langroid's default
    first = await finished(chat.send("one"))
    second = await finished(chat.send("two"))
    assert (first.reply, second.reply) == ("You said one.", "You said two.")
    assert len(script.turns) == 2 and script.contents(1, role="user") == ["one", "two"]
    check_streams(split_runs(first.events) + split_runs(second.events))


async def test_an_interactive_task_reaches_a_sub_task_its_model_addresses_then_waits_for_the_user():
    main_script = Recorder(
        lambda turn: Reply(f"The researcher says: {turn.text}") if "42" in turn.text else Reply("TO[Researcher]: find it")
    )
    main = lr.Task(make_agent(main_script), name="Main")  # interactive
    main.add_sub_task(
        lr.Task(make_agent(lambda turn: Reply("It is 42.")), name="Researcher", interactive=False, single_round=True)
    )
    chat = AgentChat(main)
    run = await finished(chat.send("find the answer"))
    assert [e.name for e in run.events if e.type == EventType.SUBAGENT_STARTED] == ["Researcher"]
    # as in Langroid's interactive loop, the user gets the first word after the sub-task's answer
    assert len(main_script.turns) == 1 and chat.messages[-1]["content"] == "It is 42."
    again = await finished(chat.send("so, what is 42?"))
    assert again.reply == "The researcher says: so, what is 42?"
    assert main_script.sent()[-3:] == [
        ("assistant", "TO[Researcher]: find it"),
        ("user", "It is 42."),
        ("user", "so, what is 42?"),
    ]
    check_streams(split_runs(run.events) + split_runs(again.events))


async def test_a_task_without_a_done_signal_stops_when_langroid_sees_it_stall(caplog):
    script = Recorder(lambda turn: Reply("Just an answer."))
    events = await collect(LangroidAgent(lr.Task(make_agent(script), interactive=False)), make_input("hi"))
    assert len(script.turns) == 1 and text_of(events) == "Just an answer."
    assert types(events)[-1] == "RUN_FINISHED"
    assert "stuck" not in caplog.text  # the normal end of such a turn: no warning in the notebook
    check_streams([events])


async def test_max_turns_caps_the_model_calls_of_all_agents():
    script = lambda turn: Reply(tool_calls=[ToolCall("lookup", {"topic": "loops"})])  # noqa: E731
    task = lr.Task(make_agent(script, tools=[Lookup]), interactive=False)
    events = await collect(LangroidAgent(task, max_turns=3), make_input("loop"))
    assert types(events)[-1] == "RUN_ERROR" and "max_turns" in events[-1].message
    check_streams([events])


# -- frontend tools, XML tools, reasoning -------------------------------------------------------


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_a_frontend_tool_called_inside_a_task_waits_then_the_task_carries_on(mode):
    def script(turn):
        if turn.after_tool:
            return Reply(f"The page answered {turn.tool_result}. DONE")
        return Reply("Painting.", tool_calls=[ToolCall("change_background", {"background": "teal"}, id="call_bg")])

    recorder = Recorder(script)
    chat = AgentChat(lr.Task(make_agent(recorder, mode=mode), interactive=False), tools=[BACKGROUND])
    run = chat.send("teal please")
    await until(lambda: chat.status == "waiting")
    [call] = chat.pending_tool_calls
    assert call["name"] == "change_background" and call["args"] == {"background": "teal"}
    chat.respond(call["toolCallId"], {"ok": True})
    await finished(run)
    assert run.status == "finished" and run.reply.endswith('The page answered {"ok": true}. DONE')
    assert len(recorder.turns) == 2 and recorder.turns[1].after_tool
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    runs = split_runs(run.events)
    assert runs[0][-1].outcome.pending_tool_call_ids == [call["toolCallId"]]
    check_streams(runs)


async def test_xml_tools_in_a_task_are_tool_calls_not_text():
    written = Shout(words="hello there").format_example()
    script = Recorder([Reply(f"Sure, right away.\n{written}Then <b>bold</b> text."), Reply("Shouted. DONE")])
    task = lr.Task(make_agent(script, mode="json", tools=[Shout]), interactive=False)
    events = await collect(LangroidAgent(task), make_input("shout"))
    [start] = [e for e in events if e.type == EventType.TOOL_CALL_START]
    args = next(e.delta for e in events if e.type == EventType.TOOL_CALL_ARGS)
    [result] = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    assert (start.tool_call_name, json.loads(args), result.content) == ("shout", {"words": "hello there"}, "HELLO THERE")
    assert text_of(events) == "Sure, right away.\nThen <b>bold</b> text.Shouted. DONE"
    # the text around the call streams word by word; the call itself never shows
    first = [e.delta for e in events[: events.index(start)] if e.type == EventType.TEXT_MESSAGE_CONTENT]
    assert first[:3] == ["Sure,", " right", " away."] and not any("tool" in d for d in first)
    check_streams([events])


@pytest.mark.parametrize("as_task", [False, True])
async def test_reasoning_written_inline_goes_back_to_the_model_and_separate_reasoning_does_not(as_task):
    script = Recorder(
        [
            Reply("Inline answer.", reasoning="pondering inline", think_tags=True),
            Reply("Field answer.", reasoning="pondering apart"),
            Reply("Third."),
        ]
    )
    agent = make_agent(script)
    chat = AgentChat(lr.Task(agent) if as_task else agent)
    runs = [await finished(chat.send(text)) for text in ("one", "two", "three")]
    assert [m["role"] for m in chat.messages].count("reasoning") == 2
    assert [e.delta for e in runs[0].events if e.type == EventType.REASONING_MESSAGE_CONTENT] == ["pondering ", "inline"]
    assert script.contents(2, role="assistant") == ["<think>pondering inline</think>Inline answer.", "Field answer."]
    check_streams([e for run in runs for e in split_runs(run.events)])
