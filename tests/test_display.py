"""display_bundle: Python objects as the MIME bundles the chat shows, and rich tool results."""

from __future__ import annotations

import base64
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from IPython.display import HTML as IPythonHTML

from agui_widget import HTML, Markdown, display_bundle, steps_checklist
from agui_widget.adapters import AgentAdapter, EventStream
from agui_widget.vocabulary._display import bundle_text

from .genui_support import Captured

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_a_matplotlib_figure_becomes_a_png_image():
    figure, axes = plt.subplots(figsize=(2, 2))
    axes.plot([1, 2, 3], [3, 1, 2])
    axes.set_title("Sales")
    axes.set_ylabel("units")
    bundle = display_bundle(figure)
    plt.close(figure)
    assert bundle is not None
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_SIGNATURE)
    # A model cannot see the image: its text says what the chart shows.
    assert "'Sales'" in bundle["text/plain"] and "'units'" in bundle["text/plain"]


def test_a_dataframe_becomes_an_html_table_with_a_text_version():
    frame = pd.DataFrame({"city": ["Lisbon", "Oslo"], "temp": [21, 4]})
    bundle = display_bundle(frame)
    assert bundle is not None
    assert "<table" in bundle["text/html"] and "Lisbon" in bundle["text/html"]
    assert "Oslo" in bundle["text/plain"]


def test_repr_methods_are_used():
    class Chart:
        def _repr_svg_(self) -> str:
            return "<svg xmlns='http://www.w3.org/2000/svg'><circle r='4'/></svg>"

    class Both:
        def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
            return {"application/vnd.vegalite.v5+json": {"mark": "bar"}, "text/plain": "a bar chart", "x/unknown": 1}

    assert display_bundle(Chart())["image/svg+xml"].startswith("<svg")  # type: ignore[index]
    assert display_bundle(Both()) == {"application/vnd.vegalite.v5+json": {"mark": "bar"}, "text/plain": "a bar chart"}


def test_a_string_is_markdown_and_html_and_markdown_wrappers_say_what_they_are():
    assert display_bundle("**hi**") == {"text/markdown": "**hi**", "text/plain": "**hi**"}
    assert display_bundle(HTML("<b>bold</b> &amp; more")) == {"text/html": "<b>bold</b> &amp; more", "text/plain": "bold & more"}
    assert display_bundle(Markdown("# t"))["text/markdown"] == "# t"  # type: ignore[index]
    ipython = display_bundle(IPythonHTML("<i>x</i>"))
    assert ipython is not None and ipython["text/html"] == "<i>x</i>"
    assert bundle_text(ipython) == "x"  # not "<IPython.core.display.HTML object>"
    with pytest.raises(TypeError):
        HTML(3)  # type: ignore[arg-type]


def test_a_mime_dict_is_a_bundle_and_none_is_nothing():
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "point"}
    assert display_bundle({"application/vnd.vegalite.v5+json": spec}) == {"application/vnd.vegalite.v5+json": spec}
    assert display_bundle(None) is None


def test_steps_checklist_marks_each_status_and_escapes_text():
    html = steps_checklist(
        [{"description": "Fetch <data>", "status": "completed"}, {"title": "Plot", "status": "running"}, {"title": "Ship"}]
    )
    assert html is not None
    assert "Fetch &lt;data&gt;" in html.data and "<data>" not in html.data
    assert html.data.count("<li") == 3
    assert "agui-step-completed" in html.data and "agui-step-running" in html.data and "agui-step-pending" in html.data
    assert steps_checklist([]) is None and steps_checklist("nope") is None


class RichTools(AgentAdapter):
    async def _events(self, input, stream: EventStream):
        figure, axes = plt.subplots(figsize=(2, 2))
        axes.bar(["a", "b"], [1, 2])
        for name, value in (("plot", figure), ("table", pd.DataFrame({"n": [1, 2]})), ("plain", {"ok": True})):
            call = stream.tool_call(name, {})
            yield call
            yield stream.tool_result(call[0].tool_call_id, value)
        plt.close(figure)
        yield stream.text("done")


async def test_a_backend_tool_returning_a_figure_or_a_dataframe_is_shown_and_the_model_gets_text():
    chat = Captured(RichTools())
    await chat.send("go")
    results = {m["toolCallId"]: m for m in chat.messages if m["role"] == "tool"}
    calls = {c["function"]["name"]: c["id"] for m in chat.messages for c in m.get("toolCalls", [])}
    plot, table, plain = (results[calls[n]] for n in ("plot", "table", "plain"))
    assert base64.b64decode(plot["metadata"]["agui_widget"]["display"]["image/png"]).startswith(PNG_SIGNATURE)
    assert plot["content"].startswith("A chart (")
    assert "<table" in table["metadata"]["agui_widget"]["display"]["text/html"]
    assert "n" in table["content"] and "<table" not in table["content"]
    assert plain["content"] == '{"ok": true}' and "metadata" not in plain
    wire = [e for e in chat.wire_events() if e["type"] == "TOOL_CALL_RESULT"]
    assert "display" in wire[0]["metadata"]["agui_widget"]

    # The next run's agent sees the text, not the bundle.
    seen: list[Any] = []

    class Reader(AgentAdapter):
        async def _events(self, input, stream: EventStream):
            seen.extend(m.model_dump(by_alias=True, exclude_none=True) for m in input.messages)
            yield stream.text("ok")

    chat._session.agent = Reader()
    await chat.send("again")
    tool_seen = [m for m in seen if m["role"] == "tool"]
    assert len(tool_seen) == 3
    assert all("display" not in (m.get("metadata") or {}).get("agui_widget", {}) for m in tool_seen)
    assert any(m["content"].startswith("A chart (") for m in tool_seen)


async def test_a_callable_agent_returning_a_dataframe_shows_it():
    chat = Captured(lambda messages: pd.DataFrame({"x": [1]}))
    await chat.send("table please")
    answer = chat.messages[-1]
    assert answer["role"] == "assistant"
    assert "<table" in answer["metadata"]["agui_widget"]["display"]["text/html"]
    assert "x" in answer["content"]


class BrokenChart:
    """Looks like a matplotlib figure, but drawing it fails."""

    __module__ = "matplotlib.figure"

    def get_axes(self) -> list[Any]:
        return []

    def savefig(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no renderer")

    def __repr__(self) -> str:
        return "BrokenChart()"


def test_an_object_that_fails_to_render_gives_no_rich_output():
    from agui_widget.vocabulary._display import rich_output

    assert rich_output(BrokenChart()) is None
    assert rich_output({"a": 1}) is None and rich_output("text") is None
    bundle, text = rich_output(pd.DataFrame({"x": [1]}))
    assert "<table" in bundle["text/html"] and text == bundle_text(bundle)


async def test_a_result_that_fails_to_render_is_sent_as_text_and_the_run_goes_on():
    class BrokenTool(AgentAdapter):
        async def _events(self, input, stream: EventStream):
            yield stream.tool_call("draw", {}, tool_call_id="call-1")
            yield stream.tool_result("call-1", BrokenChart())

    tool_chat = Captured(BrokenTool())
    await tool_chat.send("draw")
    [result] = [m for m in tool_chat.messages if m["role"] == "tool"]
    assert result["content"] == "BrokenChart()" and "metadata" not in result
    assert tool_chat.status == "idle" and not tool_chat.error

    callable_chat = Captured(lambda messages: BrokenChart())
    await callable_chat.send("draw")
    assert callable_chat.messages[-1]["content"] == "BrokenChart()" and not callable_chat.error
