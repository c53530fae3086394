"""Vega-Lite charts as display bundles: an Altair chart and a raw spec both reach the view as a spec."""

from __future__ import annotations

import altair as alt
import pandas as pd

from agui_widget import display_bundle
from agui_widget.vocabulary._display import bundle_text


def _chart() -> alt.Chart:
    data = pd.DataFrame({"city": ["Lisbon", "Oslo"], "sun_hours": [2800, 1600]})
    return alt.Chart(data, title="Sunshine").mark_bar().encode(x="city", y="sun_hours")


def test_an_altair_chart_becomes_its_vega_lite_spec_with_the_data_inline():
    bundle = display_bundle(_chart())
    vegalite = [mime for mime in bundle if mime.startswith("application/vnd.vegalite.")]
    assert vegalite == [f"application/vnd.vegalite.v{alt.SCHEMA_VERSION.lstrip('v').split('.')[0]}+json"]
    spec = bundle[vegalite[0]]
    assert spec["mark"]["type"] == "bar"
    rows = [row for dataset in spec["datasets"].values() for row in dataset]
    assert {"city": "Lisbon", "sun_hours": 2800} in rows
    assert "text/html" not in bundle, "Altair's HTML loads vega from a CDN; the chat draws the spec itself"


def test_an_altair_chart_tells_the_model_what_was_shown():
    assert bundle_text(display_bundle(_chart())) == "A Vega-Lite chart (bar) shown to the user, titled 'Sunshine'."


def test_a_raw_vega_lite_bundle_is_kept_as_it_is():
    spec = {"mark": "point", "data": {"values": [{"a": 1, "b": 2}]}, "encoding": {"x": {"field": "a", "type": "quantitative"}}}
    assert display_bundle({"application/vnd.vegalite.v5+json": spec}) == {"application/vnd.vegalite.v5+json": spec}
