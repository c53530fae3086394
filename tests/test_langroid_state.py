"""Shared state with a Langroid agent: state_from_args while arguments stream, state_from_result
after the handler, handlers reading and changing the state through tool_context(), and the model
seeing the state as it is now."""

from __future__ import annotations

import asyncio
from typing import Any

import langroid as lr
import pytest
from ag_ui.core import (
    EventType,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
)

from agui_widget import AgentChat
from agui_widget.adapters.langroid import (
    LangroidAgent,
    ToolBehavior,
    ToolCallContext,
    ToolResultContext,
    state_as_context,
    tool_context,
)

from .langroid_fakes import (
    Recorder,
    Reply,
    ToolCall,
    check_streams,
    finished,
    make_agent,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
)
from .support import collect, make_input, patch_of, split_runs, types

RECIPE = {"title": "Pancakes", "ingredients": ["flour", "milk", "eggs"], "minutes": 20}


class GenerateRecipe(lr.ToolMessage):
    request: str = "generate_recipe"
    purpose: str = "Write the complete <recipe>."
    recipe: dict[str, Any]

    def handle(self) -> str:
        return "Recipe shown to the user."


def recipe_from_args(context: ToolCallContext):
    recipe = context.args.get("recipe") if isinstance(context.args, dict) else None
    return {"recipe": recipe} if isinstance(recipe, dict) else None


def apply_events(state, events):
    import jsonpatch

    for event in events:
        if event.type == EventType.STATE_SNAPSHOT:
            state = event.snapshot
        elif event.type == EventType.STATE_DELTA:
            state = jsonpatch.apply_patch(state, patch_of(event))
    return state


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_state_follows_tool_arguments_while_they_stream(mode):
    script = [Reply("Here you go.", tool_calls=[ToolCall("generate_recipe", {"recipe": RECIPE})]), Reply("Enjoy!")]
    agent = make_agent(script, mode=mode, tools=[GenerateRecipe], chars_per_tool_chunk=6)
    adapter = LangroidAgent(agent, tool_behaviors={GenerateRecipe: ToolBehavior(state_from_args=recipe_from_args)})
    events = await collect(adapter, make_input("pancakes please", state={"user": "ada"}))
    kinds = types(events)
    first_delta, start = kinds.index("STATE_DELTA"), kinds.index("TOOL_CALL_START")
    assert first_delta < start  # the recipe appears while the model is still writing it
    assert kinds.count("STATE_DELTA") > 3
    assert apply_events({"user": "ada"}, events) == {"user": "ada", "recipe": RECIPE}
    assert "STATE_SNAPSHOT" not in kinds  # only what changed travels
    check_streams([events])


async def test_state_from_args_is_called_last_with_the_complete_call():
    seen: list[tuple[bool, Any, Any]] = []

    def remember(context: ToolCallContext):
        seen.append((context.partial, context.tool_call_id, type(context.tool).__name__))

    agent = make_agent(
        [Reply(tool_calls=[ToolCall("generate_recipe", {"recipe": RECIPE}, id="c1")]), Reply("ok")],
        tools=[GenerateRecipe],
    )
    events = await collect(
        LangroidAgent(agent, tool_behaviors={"generate_recipe": ToolBehavior(state_from_args=remember)}),
        make_input("go"),
    )
    check_streams([events])
    assert seen[-1] == (False, "c1", "GenerateRecipe")
    assert all(partial and call_id is None for partial, call_id, _ in seen[:-1]) and len(seen) > 2


async def test_state_from_result_sees_the_result_and_can_return_an_event():
    class Roll(lr.ToolMessage):
        request: str = "roll"
        purpose: str = "Roll a die."

        def handle(self) -> dict:
            return {"rolled": 4}

    contexts: list[ToolResultContext] = []

    async def from_result(context: ToolResultContext):
        contexts.append(context)
        return StateSnapshotEvent(snapshot={"last_roll": context.result["rolled"]})

    agent = make_agent([Reply(tool_calls=[ToolCall("roll")]), Reply("You rolled 4.")], tools=[Roll])
    adapter = LangroidAgent(agent, tool_behaviors={"roll": ToolBehavior(state_from_result=from_result)})
    events = await collect(adapter, make_input("roll", state={"old": True}))
    [context] = contexts
    assert context.result == {"rolled": 4} and context.result_text == '{"rolled": 4}' and context.state == {"old": True}
    kinds = types(events)
    assert kinds.index("TOOL_CALL_RESULT") < kinds.index("STATE_SNAPSHOT")
    assert apply_events({"old": True}, events) == {"last_roll": 4}
    check_streams([events])


async def test_handlers_read_and_change_the_state_through_the_tool_context():
    class AddTodo(lr.ToolMessage):
        request: str = "add_todo"
        purpose: str = "Add <item> to the to-do list."
        item: str

        def handle(self) -> str:
            context = tool_context()
            todos = [*context.state.get("todos", []), self.item]
            context.update_state(todos=todos)
            return f"{len(todos)} items"

    class Clear(lr.ToolMessage):
        request: str = "clear"
        purpose: str = "Clear the list."

        async def handle_async(self) -> str:
            tool_context().patch_state([{"op": "replace", "path": "/todos", "value": []}])
            return "cleared"

    script = Recorder(
        [
            Reply(tool_calls=[ToolCall("add_todo", {"item": "milk"}), ToolCall("add_todo", {"item": "eggs"})]),
            Reply("Added."),
            Reply(tool_calls=[ToolCall("clear")]),
            Reply("Cleared."),
        ]
    )
    chat = AgentChat(make_agent(script, tools=[AddTodo, Clear]), state={"todos": ["bread"]})
    run = await finished(chat.send("add milk and eggs"))
    assert chat.state == {"todos": ["bread", "milk", "eggs"]}
    assert [
        c for _, c in [(e.type, getattr(e, "content", None)) for e in run.events if e.type == EventType.TOOL_CALL_RESULT]
    ] == ["2 items", "3 items"]
    await finished(chat.send("clear it"))
    assert chat.state == {"todos": []}
    with pytest.raises(RuntimeError, match="only available inside a tool handler"):
        tool_context()
    check_streams(split_runs(chat.events))


async def test_a_long_handler_shows_progress_while_it_runs():
    release = asyncio.Event()

    class Plan(lr.ToolMessage):
        request: str = "run_plan"
        purpose: str = "Carry out the <steps>."
        steps: list[str]

        async def handle_async(self) -> str:
            context = tool_context()
            context.update_state(steps=[{"title": s, "status": "pending"} for s in self.steps])
            for index, title in enumerate(self.steps):
                context.emit(StepStartedEvent(step_name=title))
                context.patch_state([{"op": "replace", "path": f"/steps/{index}/status", "value": "done"}])
                context.emit(StepFinishedEvent(step_name=title))
                if index == 0:
                    await release.wait()
            return "all steps done"

    agent = make_agent(
        [Reply(tool_calls=[ToolCall("run_plan", {"steps": ["shop", "cook"]})]), Reply("Dinner is ready.")], tools=[Plan]
    )
    stream = LangroidAgent(agent).run(make_input("dinner"))
    seen = []
    async for event in stream:
        seen.append(event)
        if event.type == EventType.STEP_FINISHED:
            break  # the first step is over while the handler still waits
    assert not release.is_set() and "TOOL_CALL_RESULT" not in types(seen)
    assert apply_events({}, seen)["steps"][0]["status"] == "done"
    release.set()
    seen += [event async for event in stream]
    assert apply_events({}, seen) == {"steps": [{"title": "shop", "status": "done"}, {"title": "cook", "status": "done"}]}
    check_streams([seen])


async def test_the_model_sees_the_state_as_the_tools_left_it():
    class SetMood(lr.ToolMessage):
        request: str = "set_mood"
        purpose: str = "Set the <mood>."
        mood: str

        def handle(self) -> str:
            tool_context().update_state(mood=self.mood)
            return "ok"

    script = Recorder([Reply(tool_calls=[ToolCall("set_mood", {"mood": "happy"})]), Reply("Happy now.")])
    adapter = LangroidAgent(make_agent(script, tools=[SetMood]), state_context_builder=state_as_context)
    events = await collect(adapter, make_input("cheer up", state={"mood": "sad"}))
    check_streams([events])
    before = [c for c in script.contents(0, "user") if "Current shared state" in c]
    after = [c for c in script.contents(1, "user") if "Current shared state" in c]
    assert '"sad"' in before[0] and '"happy"' in after[0]


async def test_a_hook_that_fails_on_the_complete_arguments_ends_the_run_with_an_error():
    def broken(context: ToolCallContext):
        if not context.partial:
            raise KeyError("recipe")
        return None

    agent = make_agent([Reply(tool_calls=[ToolCall("generate_recipe", {"recipe": RECIPE})])], tools=[GenerateRecipe])
    events = await collect(
        LangroidAgent(agent, tool_behaviors={"generate_recipe": ToolBehavior(state_from_args=broken)}), make_input("go")
    )
    assert types(events)[-1] == "RUN_ERROR" and "recipe" in events[-1].message
    check_streams([events])
