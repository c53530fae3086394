"""LangChain tools that return rich objects (figures, DataFrames): shown in the chat, text for the model."""

from __future__ import annotations

import base64
import json
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from langchain.agents import create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool

from agui_widget import AgentChat
from agui_widget.adapters.langchain import (
    LangChainAgent,
    agui_middleware,
    create_agui_agent,
)

from .langchain_fakes import StreamChecks, ai, call, get_weather, model, one
from .support import collect, make_input

checks = StreamChecks()

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True, scope="module")
def _verify_with_ag_ui_client():
    yield
    checks.flush()


def cities_frame() -> pd.DataFrame:
    return pd.DataFrame({"city": ["Oslo", "Lima"], "population": [709_000, 10_092_000]})


@tool
def city_table() -> Any:
    """The cities as a table."""
    return cities_frame()


@tool
async def sales_chart() -> Any:
    """A chart of the sales."""
    figure, axes = plt.subplots(figsize=(2, 2))
    axes.bar(["Q1", "Q2"], [3, 5])
    plt.close(figure)
    return figure


@tool(response_format="content_and_artifact")
def sales_report() -> tuple[str, Any]:
    """The sales report: a summary for the model, a chart for the user."""
    figure, axes = plt.subplots(figsize=(2, 2))
    axes.plot([1, 2, 3], [3, 1, 4])
    plt.close(figure)
    return "Sales rose 33% in Q3.", figure


@tool
def city_table_for(region: str, runtime: ToolRuntime) -> Any:
    """The cities of a region, as a table (the runtime is injected by LangChain)."""
    assert runtime.tool_call_id
    return cities_frame().assign(region=region)


def display_of(event: Any) -> dict[str, Any]:
    return event.metadata["agui_widget"]["display"]


def tool_message_seen_by_model(fake: Any) -> ToolMessage:
    found = [m for m in fake.calls[-1] if isinstance(m, ToolMessage)]
    assert len(found) == 1
    return found[0]


async def test_a_tool_returning_a_dataframe_shows_a_table_and_the_model_gets_the_table_as_text():
    fake = model(ai("", call("city_table", {}, "c1")), "Lima is bigger.")
    agent = LangChainAgent(create_agent(fake, [city_table], middleware=[agui_middleware()]))
    events = await collect(agent, make_input("which city is bigger?"))
    result = one(events, "TOOL_CALL_RESULT")
    table = display_of(result)["text/html"]
    assert "<table" in table and "Oslo" in table and "10092000" in table
    seen = tool_message_seen_by_model(fake).content
    assert seen == cities_frame().to_string()  # the table as text, not HTML, not an object repr
    assert result.content == seen
    assert events[-1].type.value == "RUN_FINISHED"
    checks(events)


async def test_a_content_and_artifact_tool_shows_its_figure_and_the_model_gets_its_content():
    fake = model(ai("", call("sales_report", {}, "c1")), "Sales are up.", "Still up.")
    agent = LangChainAgent(create_agent(fake, [sales_report]))  # no middleware needed
    chat = AgentChat(agent)
    await chat.send("how are sales?")
    assert chat.error == "" and chat.messages[-1]["content"] == "Sales are up."
    tool_message = next(m for m in chat.messages if m["role"] == "tool")
    png = tool_message["metadata"]["agui_widget"]["display"]["image/png"]
    assert base64.b64decode(png).startswith(PNG_SIGNATURE)
    assert tool_message["content"] == "Sales rose 33% in Q3."
    assert tool_message_seen_by_model(fake).content == "Sales rose 33% in Q3."

    # The adapter's own checkpointer keeps the figure artifact, so the thread goes on.
    await chat.send("and now?")
    assert chat.error == "" and chat.messages[-1]["content"] == "Still up."


async def test_the_streams_of_rich_results_pass_both_verifiers():
    fake = model(ai("", call("sales_report", {}, "c1"), call("sales_chart", {}, "c2")), "Here they are.")
    agent = LangChainAgent(create_agent(fake, [sales_report, sales_chart], middleware=[agui_middleware()]))
    events = await collect(agent, make_input("show me sales"))
    results = {e.tool_call_id: e for e in events if e.type.value == "TOOL_CALL_RESULT"}
    for call_id in ("c1", "c2"):
        assert base64.b64decode(display_of(results[call_id])["image/png"]).startswith(PNG_SIGNATURE)
    assert results["c1"].content == "Sales rose 33% in Q3."
    assert results["c2"].content.startswith("A chart (")  # an async tool's figure: the model gets its text version
    assert events[-1].type.value == "RUN_FINISHED"
    checks(events)


async def test_a_tool_with_an_injected_runtime_still_gets_it_and_its_table_is_shown():
    fake = model(ai("", call("city_table_for", {"region": "world"}, "c1")), "Done.")
    agent = LangChainAgent(create_agent(fake, [city_table_for], middleware=[agui_middleware()]))
    events = await collect(agent, make_input("cities?"))
    result = one(events, "TOOL_CALL_RESULT")
    assert "world" in display_of(result)["text/html"]
    assert "world" in tool_message_seen_by_model(fake).content
    checks(events)


async def test_plain_results_stay_json_without_a_display():
    fake = model(ai("", call("get_weather", {"city": "Oslo"}, "c1")), "Sunny.")
    agent = LangChainAgent(create_agent(fake, [get_weather], middleware=[agui_middleware()]))
    events = await collect(agent, make_input("weather?"))
    result = one(events, "TOOL_CALL_RESULT")
    assert json.loads(result.content)["city"] == "Oslo"
    assert result.metadata is None
    checks(events)


async def test_the_callback_handler_shows_rich_results_of_an_agent_run_by_your_own_code():
    events: list[Any] = []
    fake = model(ai("", call("city_table", {}, "c1"), call("sales_report", {}, "c2")), "Two cities, good sales.")
    agent = create_agui_agent(fake, [city_table, sales_report], sink=events)
    await agent.ainvoke({"messages": [{"role": "user", "content": "cities and sales?"}]})
    results = {e.tool_call_id: e for e in events if e.type.value == "TOOL_CALL_RESULT"}
    assert "<table" in display_of(results["c1"])["text/html"]
    assert results["c1"].content == cities_frame().to_string()
    assert base64.b64decode(display_of(results["c2"])["image/png"]).startswith(PNG_SIGNATURE)
    assert results["c2"].content == "Sales rose 33% in Q3."
    seen = {m.tool_call_id: m.content for m in fake.calls[-1] if isinstance(m, ToolMessage)}
    assert seen == {"c1": cities_frame().to_string(), "c2": "Sales rose 33% in Q3."}
    checks(events)


async def test_a_runnable_that_calls_a_tool_itself_shows_the_raw_dataframe():
    chain = RunnableLambda(lambda messages: city_table.invoke({}))
    events = await collect(LangChainAgent(chain), make_input("table"))
    result = one(events, "TOOL_CALL_RESULT")
    assert "<table" in display_of(result)["text/html"]
    assert "Oslo" in result.content and "<table" not in result.content
    checks(events)
