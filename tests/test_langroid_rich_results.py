"""Langroid tool handlers that return a figure, a DataFrame or anything IPython can display: the chat
shows it in the tool's card, the model gets a text version; other results stay as Langroid makes them."""

from __future__ import annotations

import base64
import json

import matplotlib

matplotlib.use("Agg")

import langroid as lr
import matplotlib.pyplot as plt
import pandas as pd
import pytest
from ag_ui.core import EventType
from IPython.display import HTML as IPythonHTML

from agui_widget import AgentChat
from agui_widget.adapters.langroid import LangroidAgent

from .langroid_fakes import (
    Recorder,
    Reply,
    ToolCall,
    check_streams,
    finished,
    make_agent,
    official_check,  # noqa: F401  (autouse: the official verifier checks this module's streams)
)
from .support import collect, make_input, split_runs

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def sales_figure() -> plt.Figure:
    figure, axes = plt.subplots(figsize=(2, 2))
    axes.bar(["north", "south"], [3, 5])
    plt.close(figure)  # drawn with savefig; pyplot need not keep it
    return figure


def sales_table() -> pd.DataFrame:
    return pd.DataFrame({"region": ["north", "south"], "units": [31, 57]})


class PlotSales(lr.ToolMessage):
    request: str = "plot_sales"
    purpose: str = "Plot the sales."

    def handle(self) -> plt.Figure:
        return sales_figure()


class TableSales(lr.ToolMessage):
    request: str = "table_sales"
    purpose: str = "Tabulate the sales."

    async def handle_async(self) -> pd.DataFrame:
        return sales_table()


class TableByResponse(lr.ToolMessage):
    request: str = "table_by_response"
    purpose: str = "Tabulate the sales."

    def response(self, agent: lr.ChatAgent) -> pd.DataFrame:
        return sales_table()


class Summary(lr.ToolMessage):
    request: str = "summary"
    purpose: str = "Summarize the sales."


class Totals(lr.ToolMessage):
    request: str = "totals"
    purpose: str = "Total the sales."

    def handle(self) -> dict[str, int]:
        return {"units": 88}


class Ledger(lr.ToolMessage):
    request: str = "ledger"
    purpose: str = "The whole ledger."
    _max_result_tokens: int | None = 20

    def handle(self) -> pd.DataFrame:
        return pd.DataFrame({"entry": [f"sale number {i} of many" for i in range(40)]})


class SalesAgent(lr.ChatAgent):
    def summary(self, msg: Summary) -> IPythonHTML:  # an agent method named after the tool
        return IPythonHTML("<b>88 units</b> sold")


def calling(*names: str) -> Recorder:
    """A model that calls the named tools (in one response), then answers."""
    return Recorder(
        lambda turn: (
            Reply("Here it is.")
            if turn.after_tool
            else Reply("Let me look.", tool_calls=[ToolCall(name, {}, id=f"call_{name}") for name in names])
        )
    )


def tool_messages(chat: AgentChat) -> dict[str, dict]:
    """The chat's tool messages by the name of the tool called."""
    names = {c["id"]: c["function"]["name"] for m in chat.messages for c in m.get("toolCalls", [])}
    return {names[m["toolCallId"]]: m for m in chat.messages if m["role"] == "tool"}


def shown(message: dict) -> dict:
    return message["metadata"]["agui_widget"]["display"]


@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_a_figure_and_a_dataframe_are_shown_on_their_tool_messages_and_the_model_gets_text(mode):
    script = calling("plot_sales", "table_sales", "totals")
    agent = make_agent(script, mode=mode, tools=[PlotSales, TableSales, Totals])
    chat = AgentChat(agent)
    run = await finished(chat.send("how were sales?"))
    assert run.status == "finished" and run.reply.endswith("Here it is.")
    check_streams(split_runs(run.events))

    messages = tool_messages(chat)
    plot, table, plain = messages["plot_sales"], messages["table_sales"], messages["totals"]
    assert base64.b64decode(shown(plot)["image/png"]).startswith(PNG_SIGNATURE)
    assert plot["content"].startswith("A chart (")
    assert "<table" in shown(table)["text/html"] and "57" in shown(table)["text/html"]
    assert table["content"] == sales_table().to_string()  # the table as text, not a repr or HTML
    assert json.loads(plain["content"]) == {"units": 88} and "metadata" not in plain  # as before

    # the model's next call gets the text versions, not bundles
    given = script.turns[1].tool_result if mode == "tools" else script.turns[1].text
    assert "A chart (" in given and sales_table().to_string() in given
    assert "<table" not in given and "image/png" not in given and "iVBOR" not in given


async def test_every_kind_of_handler_can_return_a_rich_object():
    script = calling("table_by_response", "summary")
    agent = make_agent(script, tools=[TableByResponse, Summary], agent_class=SalesAgent)
    events = await finished(collect(LangroidAgent(agent), make_input("sales?")))
    check_streams([events])
    results = {e.tool_call_id: e for e in events if e.type == EventType.TOOL_CALL_RESULT}
    table, summary = results["call_table_by_response"], results["call_summary"]
    assert "<table" in table.metadata["agui_widget"]["display"]["text/html"]
    assert summary.metadata["agui_widget"]["display"]["text/html"] == "<b>88 units</b> sold"
    assert summary.content == "88 units sold"  # not "<IPython.core.display.HTML object>"
    assert script.turns[1].tool_result == f"{sales_table().to_string()}\n88 units sold"


async def test_the_text_of_a_rich_result_keeps_the_tools_token_limit():
    script = calling("ledger")
    events = await finished(collect(LangroidAgent(make_agent(script, tools=[Ledger])), make_input("ledger?")))
    check_streams([events])
    [result] = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    assert result.metadata["agui_widget"]["display"]["text/html"].count("<tr") > 20  # the whole table shown
    assert "truncated" in result.content and "sale number 30 of many" not in result.content
    assert script.turns[1].tool_result == result.content


async def test_in_a_task_a_sub_agents_rich_result_is_shown_in_its_lane_and_its_model_gets_the_text():
    sub_script = Recorder(
        lambda turn: (
            Reply("Plotted and tabulated. DONE")
            if turn.after_tool
            else Reply(tool_calls=[ToolCall("plot_sales", {}), ToolCall("table_sales", {})])
        )
    )
    main_script = Recorder(lambda turn: Reply("All done. DONE") if "Plotted" in turn.text else Reply("Chart it."))
    main = lr.Task(make_agent(main_script), name="Main", interactive=False)
    analyst = make_agent(sub_script, tools=[PlotSales, TableSales])
    main.add_sub_task(lr.Task(analyst, name="Analyst", interactive=False))
    chat = AgentChat(LangroidAgent(main, max_turns=10))
    run = await finished(chat.send("sales chart please"))
    assert run.status == "finished"
    check_streams(split_runs(run.events))

    [started] = [e for e in run.events if e.type == EventType.SUBAGENT_STARTED]
    results = {e.tool_call_id: e for e in run.events if e.type == EventType.TOOL_CALL_RESULT}
    assert {e.subagent_run_id for e in results.values()} == {started.subagent_run_id}
    messages = tool_messages(chat)
    assert base64.b64decode(shown(messages["plot_sales"])["image/png"]).startswith(PNG_SIGNATURE)
    assert "<table" in shown(messages["table_sales"])["text/html"]
    # Langroid's loop hands the sub-agent's model the same text the chat's results hold
    assert sub_script.turns[1].tool_result == "\n".join([messages["plot_sales"]["content"], messages["table_sales"]["content"]])
    assert messages["plot_sales"]["content"].startswith("A chart (")  # not Langroid's "Figure(...)"
    assert messages["table_sales"]["content"] == sales_table().to_string()
