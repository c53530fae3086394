"""LangGraph interrupt(): RUN_FINISHED with an interrupt outcome, resumed with Command(resume=...)."""

from __future__ import annotations

import pytest
from ag_ui.core import ResumeEntry
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt
from pydantic import BaseModel

from agui_widget import AgentChat
from agui_widget.adapters.langchain import LangChainAgent

from .langchain_fakes import StreamChecks, ai, call, model, of_type, until
from .support import collect, make_input, split_runs, text_of

checks = StreamChecks()


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


answers: list = []


def approval_graph(checkpointer=None):
    def ask(state: MessagesState):
        decision = interrupt({"message": "Delete 3 files?", "files": ["a", "b", "c"]})
        answers.append(decision)
        approved = isinstance(decision, dict) and decision.get("approved")
        return {"messages": [AIMessage("Deleted 3 files." if approved else "Kept your files.")]}

    graph = StateGraph(MessagesState)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    return graph.compile(checkpointer=checkpointer)


async def ask_and_answer(chat: AgentChat, text: str, payload=None, *, cancel: bool = False):
    run = chat.send(text)
    await until(lambda: chat.interrupts or run.done)
    asked = list(chat.interrupts)
    for item in asked:
        chat.resume(item["interruptId"], payload, cancel=cancel)
    await run
    return run, asked


async def test_an_interrupt_ends_the_run_and_the_decision_resumes_the_graph():
    answers.clear()
    graph = approval_graph()  # no checkpointer: the adapter brings an in-memory one
    chat = AgentChat(graph)
    assert graph.checkpointer is None and chat.agent.graph.checkpointer is not None
    run, [asked] = await ask_and_answer(chat, "clean up", {"approved": True})
    assert asked["message"] == "Delete 3 files?" and asked["reason"] == "input"
    first, second = split_runs(run.events)
    outcome = first[-1].outcome
    assert outcome.type == "interrupt" and outcome.interrupts[0].id == asked["interruptId"]
    assert answers == [{"approved": True}]
    assert text_of(second) == "Deleted 3 files." and run.reply == "Deleted 3 files."
    checks(first, second)


async def test_a_cancelled_interrupt_reads_as_a_denial():
    answers.clear()
    chat = AgentChat(approval_graph(InMemorySaver()))
    run, _ = await ask_and_answer(chat, "clean up", cancel=True)
    assert answers == [{"approved": False, "cancelled": True}]
    assert run.reply == "Kept your files."
    checks(*split_runs(run.events))


@tool
def ask_human(question: str) -> str:
    """Ask the person at the keyboard."""
    reply = interrupt({"question": question})
    return f"The human said: {reply.get('answer') if isinstance(reply, dict) else reply}"


async def test_an_interrupt_inside_a_tool_names_its_tool_call_and_the_result_follows():
    fake = model(ai("", call("ask_human", {"question": "Which city?"}, "h1")), "Lisbon it is.")
    chat = AgentChat(create_agent(fake, [ask_human]))
    run, [asked] = await ask_and_answer(chat, "plan a trip", {"answer": "Lisbon"})
    assert asked["toolCallId"] == "h1" and asked["name"] == "ask_human" and asked["args"] == {"question": "Which city?"}
    assert asked["message"] == "Which city?"
    first, second = split_runs(run.events)
    assert [r.content for r in of_type(second, "TOOL_CALL_RESULT")] == ["The human said: Lisbon"]
    assert run.reply == "Lisbon it is."
    checks(first, second)


@tool
def delete_files(pattern: str) -> str:
    """Delete the files matching a pattern."""
    return f"deleted {pattern}"


def hitl_agent(*replies):
    return create_agent(
        model(*replies), [delete_files], middleware=[HumanInTheLoopMiddleware(interrupt_on={"delete_files": True})]
    )


async def test_langchains_human_in_the_loop_middleware_is_an_approval_card():
    chat = AgentChat(hitl_agent(ai("", call("delete_files", {"pattern": "*.tmp"}, "d1")), "Cleaned up."))
    run, [asked] = await ask_and_answer(chat, "clean up", {"approved": True})  # what the chat's card sends
    assert asked["reason"] == "approval" and asked["toolCallId"] == "d1" and asked["args"] == {"pattern": "*.tmp"}
    results = [r.content for r in of_type(run.events, "TOOL_CALL_RESULT")]
    assert results == ["deleted *.tmp"] and run.reply == "Cleaned up."
    checks(*split_runs(run.events))


async def test_denying_a_human_in_the_loop_request_rejects_the_call():
    fake_replies = (ai("", call("delete_files", {"pattern": "*"}, "d2")), "Understood, nothing deleted.")
    chat = AgentChat(hitl_agent(*fake_replies))
    run, _ = await ask_and_answer(chat, "delete everything", {"approved": False})
    tool_messages = [m for m in chat.messages if m["role"] == "tool"]
    assert len(tool_messages) == 1 and "denied" in tool_messages[0]["content"]
    assert run.reply == "Understood, nothing deleted."
    checks(*split_runs(run.events))


async def test_stopping_while_an_interrupt_waits_leaves_a_thread_that_takes_new_messages():
    fake = model(ai("", call("ask_human", {"question": "Sure?"}, "h2")), "Fresh start.")
    chat = AgentChat(create_agent(fake, [ask_human]))
    run = chat.send("do it")
    await until(lambda: chat.interrupts or run.done)
    chat.stop()
    await run
    assert run.status == "cancelled"
    again = await chat.send("never mind, say hi")
    assert again.status == "finished" and again.reply == "Fresh start."
    last_call = fake.calls[-1]
    cancelled = [m for m in last_call if isinstance(m, ToolMessage) and m.tool_call_id == "h2"]
    assert len(cancelled) == 1  # the stopped call has a result in the model's history
    checks(*split_runs(run.events), again.events)


async def test_resuming_an_interrupt_that_is_not_pending_is_a_clear_error():
    agent = LangChainAgent(approval_graph())
    events = await collect(agent, make_input("x", resume=[ResumeEntry(interrupt_id="nope", status="resolved", payload=1)]))
    assert events[-1].type.value == "RUN_ERROR" and "'nope' is not pending" in events[-1].message
    checks(events)


class Booking(BaseModel):
    approved: bool
    seat: str = "aisle"


async def test_an_interrupts_response_schema_reaches_the_card_and_shapes_the_answer():
    got = []

    def book(state: MessagesState):
        got.append(interrupt("Book the 9:40 flight?", response_schema=Booking))
        return {"messages": [AIMessage(f"Booked, {got[-1].seat} seat.")]}

    graph = StateGraph(MessagesState)
    graph.add_node("book", book)
    graph.add_edge(START, "book")
    graph.add_edge("book", END)
    chat = AgentChat(graph.compile())
    run, [asked] = await ask_and_answer(chat, "book it", {"approved": True, "seat": "window"})
    assert asked["responseSchema"]["required"] == ["approved"] and "seat" in asked["responseSchema"]["properties"]
    assert got == [Booking(approved=True, seat="window")] and run.reply == "Booked, window seat."
    checks(*split_runs(run.events))
