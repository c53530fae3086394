"""Backend tools in both Langroid modes: real ids, every call handled, every kind of handler, no tool
JSON shown as text, errors told to the model, and the loop until the model answers."""

from __future__ import annotations

import json
import threading

import langroid as lr
import pytest
from ag_ui.core import EventType
from langroid.agent.tools.orchestration import AgentDoneTool, DoneTool

from agui_widget.adapters.langroid import LangroidAgent

from .langroid_fakes import (
    Recorder,
    Reply,
    Shout,
    ToolCall,
    Weather,
    check_streams,
    make_agent,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
)
from .support import collect, make_input, text_of, types


class JsonWeather(Weather):
    """The weather as a JSON object: a structured result."""

    def handle(self) -> str:
        return json.dumps({"city": self.city, "temperature_c": 21})


class Chart(lr.ToolMessage):
    request: str = "render_chart"
    purpose: str = "Chart the <values>."
    values: list[int]

    async def handle_async(self) -> str:
        return f"chart of {len(self.values)} values"


class Add(lr.ToolMessage):
    request: str = "add"
    purpose: str = "Add <a> and <b>."
    a: int
    b: int


class Greet(lr.ToolMessage):
    request: str = "greet"
    purpose: str = "Greet <person>."
    person: str

    def response(self, agent: lr.ChatAgent) -> str:
        return f"{agent.config.name} greets {self.person}"


class Boom(lr.ToolMessage):
    request: str = "boom"
    purpose: str = "Explode."

    def handle(self) -> str:
        raise ValueError("the fuse was wet")


class Calculator(lr.ChatAgent):
    def add(self, msg: Add) -> str:  # an agent method named after the tool
        return str(msg.a + msg.b)


def calls_of(events):
    starts = [e for e in events if e.type == EventType.TOOL_CALL_START]
    args = {e.tool_call_id: e.delta for e in events if e.type == EventType.TOOL_CALL_ARGS}
    results = {e.tool_call_id: e.content for e in events if e.type == EventType.TOOL_CALL_RESULT}
    return [(e.tool_call_name, json.loads(args[e.tool_call_id]), results.get(e.tool_call_id), e.tool_call_id) for e in starts]


def answer_with_results(turn):
    return Reply(f"Results: {turn.tool_result}")


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_every_tool_call_of_a_response_is_handled_and_the_model_then_answers(mode):
    script = Recorder(
        lambda turn: (
            answer_with_results(turn)
            if turn.after_tool
            else Reply(
                "Let me look.",
                tool_calls=[
                    ToolCall("get_weather", {"city": "Paris"}, id="call_A"),
                    ToolCall("get_weather", {"city": "Rome"}, id="call_B"),
                ],
            )
        )
    )
    agent = make_agent(script, mode=mode, tools=[JsonWeather])
    events = await collect(LangroidAgent(agent), make_input("weather in Paris and Rome?"))
    calls = calls_of(events)
    assert [(name, args) for name, args, _, _ in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]
    assert [json.loads(result)["city"] for _, _, result, _ in calls] == ["Paris", "Rome"]
    if mode == "tools":
        assert [call_id for *_, call_id in calls] == ["call_A", "call_B"]  # the ids the model gave
        sent = script.turns[1].messages
        assert [m.tool_call_id for m in sent if m.role.value == "tool"] == ["call_A", "call_B"]
    else:
        assert '"request"' not in text_of(events)  # tool JSON is never shown as text
        assert "Result from get_weather" in script.turns[1].text
    assert text_of(events).startswith("Let me look.") and "Results:" in text_of(events)
    kinds = types(events)
    assert kinds.count("TOOL_CALL_RESULT") == 2 and kinds[-2:] == ["TEXT_MESSAGE_END", "RUN_FINISHED"]
    assert events[-1].outcome.pending_tool_call_ids is None
    check_streams([events])


async def test_tool_calls_hang_off_their_own_assistant_message():
    script = [
        Reply("First.", tool_calls=[ToolCall("get_weather", {"city": "Oslo"})]),
        Reply("", tool_calls=[ToolCall("get_weather", {"city": "Bergen"})]),
        Reply("Both done."),
    ]
    agent = make_agent(script, tools=[JsonWeather])
    events = await collect(LangroidAgent(agent), make_input("two steps"))
    starts = [e for e in events if e.type == EventType.TOOL_CALL_START]
    text_ids = [e.message_id for e in events if e.type == EventType.TEXT_MESSAGE_START]
    assert starts[0].parent_message_id == text_ids[0]
    assert starts[1].parent_message_id not in text_ids  # the second model call had no text
    check_streams([events])


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_json_in_the_reply_never_shows_when_it_is_a_tool_call(mode):
    def script(turn):
        if turn.after_tool:
            return "Sunny."
        if mode == "json":  # the ways models write Langroid tools: after TOOL:, in a fence, bare
            return Reply(
                'Checking.\nTOOL: {"request": "get_weather", "city": "Oslo"}\n'
                '```json\n{"request": "get_weather", "city": "Rome"}\n```\n'
                '{"request": "get_weather", "city": "Nice"}'
            )
        return Reply("Checking.", tool_calls=[ToolCall("get_weather", {"city": "Oslo"})])

    agent = make_agent(script, mode=mode, tools=[JsonWeather], chars_per_tool_chunk=5)
    events = await collect(LangroidAgent(agent), make_input("weather"))
    text = text_of(events)
    assert "request" not in text and "TOOL" not in text and "```" not in text
    assert text.replace("\n", "") == "Checking.Sunny."
    expected = ["Oslo", "Rome", "Nice"] if mode == "json" else ["Oslo"]
    assert [args["city"] for _, args, _, _ in calls_of(events)] == expected
    check_streams([events])


async def test_text_with_braces_that_is_not_a_tool_call_is_shown():
    text = 'Here is JSON:\n{"a": 1}\nand code:\n```python\nd = {"b": 2}\n```\nTOOLS are fun'
    agent = make_agent([Reply(text)], mode="json", tools=[JsonWeather])
    events = await collect(LangroidAgent(agent), make_input("show me"))
    assert text_of(events) == text and not calls_of(events)
    check_streams([events])


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_every_kind_of_langroid_handler_works(mode):
    calls = [
        ToolCall("get_weather", {"city": "Lima"}),  # handle()
        ToolCall("render_chart", {"values": [1, 2, 3]}),  # handle_async()
        ToolCall("add", {"a": 2, "b": 3}),  # an agent method named after the tool
        ToolCall("greet", {"person": "Ada"}),  # response(agent)
    ]
    script = [Reply("Working.", tool_calls=calls), Reply("All four done.")]
    agent = make_agent(script, mode=mode, tools=[JsonWeather, Chart, Add, Greet], agent_class=Calculator)
    events = await collect(LangroidAgent(agent), make_input("do everything"))
    results = [result for _, _, result, _ in calls_of(events)]
    assert results == ['{"city": "Lima", "temperature_c": 21}', "chart of 3 values", "5", "tester greets Ada"]
    check_streams([events])


async def test_handle_style_tools_keep_working_in_the_copy_another_thread_gets():
    script = Recorder(lambda turn: "ok" if turn.after_tool else Reply(tool_calls=[ToolCall("get_weather", {"city": "Kyiv"})]))
    agent = make_agent(script, tools=[JsonWeather, Greet])
    adapter = LangroidAgent(agent)
    first = await collect(adapter, make_input("a"))
    other = make_input("b")
    other.thread_id = "thread-other"
    second = await collect(adapter, other)
    copy = adapter.agent_for_thread("thread-other")
    assert copy is not agent and copy.llm_tools_handled is not agent.llm_tools_handled
    assert calls_of(first)[0][2] == calls_of(second)[0][2] == '{"city": "Kyiv", "temperature_c": 21}'
    check_streams([first, second])


async def test_bad_arguments_and_unknown_tools_are_told_to_the_model_which_recovers():
    script = Recorder(
        [
            Reply(tool_calls=[ToolCall("get_weather", {"town": "Paris"}), ToolCall("teleport", {"to": "Mars"})]),
            Reply(tool_calls=[ToolCall("get_weather", {"city": "Paris"})]),
            Reply("Fixed it."),
        ]
    )
    agent = make_agent(script, tools=[JsonWeather])
    events = await collect(LangroidAgent(agent), make_input("weather"))
    (_, _, invalid, _), (_, _, unknown, _), (_, _, fine, _) = calls_of(events)
    assert "city" in invalid and "errors" in invalid
    assert "no tool named 'teleport'" in unknown and "get_weather" in unknown
    assert json.loads(fine)["city"] == "Paris" and text_of(events) == "Fixed it."
    check_streams([events])


async def test_a_failing_handler_is_reported_to_the_model_or_ends_the_run_if_asked():
    agent = make_agent([Reply(tool_calls=[ToolCall("boom")]), Reply("It failed, sorry.")], tools=[Boom])
    events = await collect(LangroidAgent(agent), make_input("explode"))
    assert "ValueError: the fuse was wet" in calls_of(events)[0][2] and text_of(events) == "It failed, sorry."

    strict = make_agent([Reply(tool_calls=[ToolCall("boom")])], tools=[Boom])
    failed = await collect(LangroidAgent(strict, tool_errors="raise"), make_input("explode"))
    assert types(failed)[-1] == "RUN_ERROR" and "the fuse was wet" in failed[-1].message
    check_streams([events, failed])


async def test_the_functions_api_mode_works_too():
    agent = make_agent(
        [Reply("Hm.", tool_calls=[ToolCall("get_weather", {"city": "Cairo"})]), Reply("Hot.")],
        mode="functions",
        tools=[JsonWeather],
    )
    events = await collect(LangroidAgent(agent), make_input("weather"))
    [(name, args, result, _)] = calls_of(events)
    assert (name, args) == ("get_weather", {"city": "Cairo"}) and "Cairo" in result
    assert text_of(events) == "Hm.Hot."
    check_streams([events])


async def test_done_tools_end_the_run_with_their_content():
    class Finish(lr.ToolMessage):
        request: str = "finish"
        purpose: str = "Finish with <answer>."
        answer: str

        def handle(self) -> AgentDoneTool:
            return AgentDoneTool(content=f"Final: {self.answer}")

    agent = make_agent([Reply(tool_calls=[ToolCall("finish", {"answer": "42"})])], tools=[Finish])
    events = await collect(LangroidAgent(agent), make_input("finish it"))
    assert text_of(events) == "Final: 42" and calls_of(events)[0][2] == "Final: 42"

    done = make_agent([Reply(tool_calls=[ToolCall("done_tool", {"content": "all done"})])], tools=[DoneTool])
    events2 = await collect(LangroidAgent(done), make_input("stop"))
    assert text_of(events2) == "all done"
    check_streams([events, events2])


async def test_a_model_that_never_stops_calling_tools_is_stopped_with_an_error():
    agent = make_agent(lambda turn: Reply(tool_calls=[ToolCall("get_weather", {"city": "Loop"})]), tools=[JsonWeather])
    events = await collect(LangroidAgent(agent, max_turns=3), make_input("loop"))
    assert types(events).count("TOOL_CALL_RESULT") == 3
    assert types(events)[-1] == "RUN_ERROR" and "max_turns" in events[-1].message
    check_streams([events])


async def test_synchronous_handlers_can_run_off_the_kernel_thread():
    seen = []

    class Where(lr.ToolMessage):
        request: str = "where"
        purpose: str = "Say where it runs."

        def handle(self) -> str:
            seen.append(threading.current_thread() is threading.main_thread())
            return "here"

    agent = make_agent(
        [Reply(tool_calls=[ToolCall("where")]), Reply("ok"), Reply(tool_calls=[ToolCall("where")]), Reply("ok")],
        tools=[Where],
    )
    first = await collect(LangroidAgent(agent), make_input("where"))
    second = await collect(LangroidAgent(agent, sync_tools_in_thread=True), make_input("where"))
    assert seen == [True, False]
    check_streams([first, second])


async def test_langroid_xml_tools_are_tool_calls_too():
    written = Shout(words="hello").format_example()
    script = Recorder([Reply(f"Sure.\n{written}\nThere."), Reply("Done.")])
    agent = make_agent(script, mode="json", tools=[Shout])
    events = await collect(LangroidAgent(agent), make_input("shout hello"))
    assert calls_of(events)[0][:3] == ("shout", {"words": "hello"}, "HELLO")
    assert text_of(events) == "Sure.\n\nThere.Done." and "<tool>" not in text_of(events)
    assert "<request>shout</request>" in script.turns[1].messages[-2].content  # history in the model's format
    check_streams([events])


@pytest.mark.parametrize(
    ("reply", "shown", "dropped"),
    [
        ("Hi <tool><request>shout</request></tool>\nBye.", "Hi Bye.", 1),  # the call takes its line break
        ("Hi <b>bold</b> and <tool><x>1</x></tool> done", "Hi <b>bold</b> and <tool><x>1</x></tool> done", 0),
        ("Hi <tool><request>shout</request>", "Hi", 1),  # Langroid accepts a last call left unclosed
        ("Hi <tool", "Hi <tool", 0),
    ],
)
def test_the_xml_screen_streams_text_and_holds_only_tool_calls(reply, shown, dropped):
    from agui_widget.adapters.langroid._text import ToolXmlFilter

    screen = ToolXmlFilter(lambda candidate: "<request>" in candidate)
    pieces = [screen.feed(char) for char in reply] + [screen.finish()]  # one character per token
    assert "".join(pieces) == shown and len(screen.dropped) == dropped
    if reply.startswith("Hi "):
        assert "".join(pieces[:3]) == "Hi"  # released as it comes, not when the reply ends
