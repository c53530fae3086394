"""Vega-Lite charts in a real JupyterLab, in Chromium: a tool that returns an Altair chart, and one
that returns a raw Vega-Lite spec, are drawn as SVG by vega, with the renderer fetched from the
kernel over the widget's comm (no network), once for the page.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, set_lab_theme

pytestmark = pytest.mark.browser

AGENT = """
import altair as alt
import pandas as pd
from agui_widget import AgentChat
from agui_widget.adapters import AgentAdapter

SUNSHINE = pd.DataFrame({"city": ["Lisbon", "Oslo", "Cairo"], "hours": [2800, 1600, 3450]})
SPEC = {
    "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
    "data": {"values": [{"day": d, "visits": v} for d, v in [("Mon", 3), ("Tue", 7), ("Wed", 5), ("Thu", 9)]]},
    "mark": "point",
    "encoding": {"x": {"field": "day", "type": "nominal"}, "y": {"field": "visits", "type": "quantitative"}},
}

REMOTE = {**SPEC, "data": {"url": "https://example.com/visits.csv"}}

class Charts(AgentAdapter):
    async def _events(self, input, stream):
        text = str(input.messages[-1].content)
        kind = "altair" if "altair" in text else "remote" if "remote" in text else "spec"
        call = stream.tool_call(f"{kind}_chart", {})
        yield call
        chart = {
            "altair": lambda: alt.Chart(SUNSHINE).mark_bar().encode(x="city", y="hours"),
            "spec": lambda: {"application/vnd.vegalite.v5+json": SPEC},
            "remote": lambda: {"application/vnd.vegalite.v5+json": REMOTE},
        }[kind]()
        yield stream.tool_result(call[0].tool_call_id, chart)
        yield stream.text("Here is your chart.")

chat = AgentChat(Charts())
chat
"""


def test_an_altair_chart_and_a_raw_vega_lite_spec_are_drawn_by_vega_without_the_network(lab):
    nb = lab.open([AGENT])
    outside: list[str] = []
    nb.page.on(
        "request",
        lambda r: outside.append(r.url) if urlparse(r.url).hostname not in (None, "", "127.0.0.1", "localhost") else None,
    )
    chat = nb.chat()

    chat.send("an altair chart please")
    chat.wait_answer("Here is your chart.")
    card = chat.tool_card("altair_chart")
    chart = card.locator(".agui-vega")
    expect(chart, "the chart should be drawn, not shown as its spec").to_have_attribute("data-chart", "drawn")
    svg = chart.locator(".agui-vega-chart svg.marks")
    expect(svg, "vega draws one SVG of marks (its SVG renderer)").to_have_count(1)
    expect(svg.locator("g.mark-rect path"), "one bar per row of the DataFrame").to_have_count(3)
    expect(svg.locator("text", has_text="Lisbon"), "the axis names the categories").to_have_count(1)
    expect(chart.locator(".vega-actions, details"), "no export menu").to_have_count(0)

    chat.send("a raw vega-lite spec")
    chat.wait_answer("Here is your chart.")
    spec_chart = chat.tool_card("spec_chart").locator(".agui-vega")
    expect(spec_chart).to_have_attribute("data-chart", "drawn")
    expect(spec_chart.locator("svg.marks g.mark-symbol path"), "one point per value").to_have_count(4)

    assert _background(chart) == "rgb(255, 255, 255)", "a chart in a light notebook is drawn light"

    set_lab_theme(nb.page, DARK_THEME)
    try:
        chat.send("another altair chart")
        # The last answer already reads "Here is your chart.": wait for the new card itself.
        expect(chat.tool_card("altair_chart"), "the second Altair chart's card").to_have_count(2)
        chat.wait_answer("Here is your chart.")
        dark_chart = chat.tool_card("altair_chart").last.locator(".agui-vega")
        expect(dark_chart).to_have_attribute("data-chart", "drawn")
        red, green, blue = (int(c) for c in _background(dark_chart).strip("rgb()").split(","))
        assert max(red, green, blue) < 100, "a chart in a dark notebook is drawn with vega's dark theme"
    finally:
        set_lab_theme(nb.page, LIGHT_THEME)

    chat.send("a remote data chart")
    chat.wait_answer("Here is your chart.")
    remote = chat.tool_card("remote_chart").locator(".agui-vega")
    expect(remote, "a chart whose data is a URL is drawn without it").to_have_attribute("data-chart", "drawn")
    expect(remote.locator(".agui-bundle-note")).to_contain_text("External data was not loaded (https://example.com/visits.csv)")
    expect(remote.locator("svg.marks g.mark-symbol path"), "no data was fetched").to_have_count(0)

    assert outside == [], f"drawing a chart should not touch the network: {outside}"


def _background(chart) -> str:
    """The colour vega painted behind a chart's marks."""
    return chart.locator("svg.marks").evaluate("svg => getComputedStyle(svg).backgroundColor")
